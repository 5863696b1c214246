package viz

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/captures/decode"
)

// CaptureSource fills the Packets pane from a capture file that
// decode.Index reads: the pane can draw its first packets while the rest
// of the file is still being indexed, and redraws as indexing goes on.
// A lazy one (NewLazyCaptureSource) opens its index only when the pane
// is first drawn.
type CaptureSource struct {
	name string
	// open makes the index of a lazy source, once (Start).
	open    func() (*decode.Index, error)
	started sync.Once
	x       atomic.Pointer[decode.Index]

	mu      sync.Mutex
	tree    treeCache
	err     error          // why a lazy source's index did not open
	pending map[int]func() // Watch's callbacks before the index opens
	stops   map[int]func() // and their stops once it has
	watchID int
}

// treeCache keeps the last detail tree asked for: the pane asks for the
// lines and for their bytes of the same packet in one frame.
type treeCache struct {
	i, n  int
	done  bool
	lines []decode.TreeLine
}

// NewCaptureSource shows x; name is what the pane's title calls it (the
// file's base name when empty).
func NewCaptureSource(x *decode.Index, name string) *CaptureSource {
	if name == "" {
		name = filepath.Base(x.Path())
	}
	c := &CaptureSource{name: name, tree: treeCache{i: -1}}
	c.x.Store(x)
	c.started.Do(func() {})
	return c
}

// NewLazyCaptureSource shows the capture at path, indexed with o only
// once the Packets pane is first drawn (Start): a replay that never shows
// the pane never holds the index, and one that does holds it after the
// replay's own decoding rather than beside it. Its Close closes the index.
func NewLazyCaptureSource(path, name string, o decode.IndexOptions) *CaptureSource {
	if name == "" {
		name = filepath.Base(path)
	}
	return &CaptureSource{name: name, tree: treeCache{i: -1},
		open: func() (*decode.Index, error) { return decode.OpenIndexWith(path, o) }}
}

// Start opens the index of a lazy source, and hands it the callbacks
// Watch was given before; it does nothing after the first time, or for
// a source made with its index.
func (c *CaptureSource) Start() {
	c.started.Do(func() {
		x, err := c.open()
		c.mu.Lock()
		if err != nil {
			c.err = err
			c.mu.Unlock()
			return
		}
		c.x.Store(x)
		var handed []func()
		for id, f := range c.pending {
			c.stops[id] = x.Watch(f)
			handed = append(handed, f)
		}
		c.pending = nil
		c.mu.Unlock()
		// The index may have read a small file to its end before the
		// callbacks were handed to it: they would never hear of it.
		for _, f := range handed {
			f()
		}
	})
}

// Close closes the index a lazy source opened; the index given to
// NewCaptureSource is its caller's to close.
func (c *CaptureSource) Close() error {
	if c.open == nil {
		return nil
	}
	c.started.Do(func() {}) // no index opens after Close
	if x := c.x.Load(); x != nil {
		return x.Close()
	}
	return nil
}

// index is the index shown, opening a lazy one; nil when it failed to.
func (c *CaptureSource) index() *decode.Index {
	c.Start()
	return c.x.Load()
}

// Index is the capture shown (nil when a lazy source's failed to open).
func (c *CaptureSource) Index() *decode.Index { return c.index() }

// Len is the number of packets indexed so far: 0 until a lazy source is
// started.
func (c *CaptureSource) Len() int {
	if x := c.x.Load(); x != nil {
		return x.Len()
	}
	return 0
}

// Summary is the packet's line as `rdmalab decode` prints it, without the
// frame number (the pane puts its own in front) and with the padding of
// its columns squeezed out, so that a pane of 80 columns still shows the
// packet's info.
func (c *CaptureSource) Summary(i int) string {
	x := c.index()
	if x == nil {
		return ""
	}
	s := strings.TrimLeft(x.Summary(i), " ")
	if k := strings.IndexByte(s, ' '); k > 0 && isDigits(s[:k]) {
		s = s[k+1:]
	}
	return squeeze(s)
}

// Columns is packet i's summary in tshark's columns.
func (c *CaptureSource) Columns(i int) PacketColumns {
	x := c.index()
	if x == nil {
		return PacketColumns{}
	}
	k := x.Columns(i)
	return PacketColumns{Time: k.Time, Source: k.Source, Destination: k.Destination, Protocol: k.Protocol, Length: k.Length, Info: k.Info}
}

// squeeze turns runs of spaces into one.
func squeeze(s string) string {
	if !strings.Contains(s, "  ") {
		return strings.TrimLeft(s, " ")
	}
	var b strings.Builder
	space := true // drops leading spaces
	for _, r := range s {
		if r == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Detail is the packet's -V tree.
func (c *CaptureSource) Detail(i int) []DetailLine {
	lines := c.treeOf(i)
	out := make([]DetailLine, len(lines))
	for k, l := range lines {
		out[k] = DetailLine{Depth: l.Depth, Text: l.Text}
	}
	return out
}

// Fields is the bytes each line of Detail(i) shows.
func (c *CaptureSource) Fields(i int) []ByteRange {
	lines := c.treeOf(i)
	out := make([]ByteRange, len(lines))
	for k, l := range lines {
		out[k] = ByteRange{l.Start, l.End}
	}
	return out
}

func (c *CaptureSource) treeOf(i int) []decode.TreeLine {
	x := c.index()
	if x == nil {
		return nil
	}
	p := x.Progress()
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := &c.tree; t.i == i && t.n == p.Packets && t.done == p.Done {
		return t.lines
	}
	// The analysis of a packet grows as later packets are indexed (its
	// reply, its ACK): the tree is kept only until the index moves.
	c.tree = treeCache{i: i, n: p.Packets, done: p.Done, lines: x.Detail(i)}
	return c.tree.lines
}

// Bytes is the packet as captured.
func (c *CaptureSource) Bytes(i int) []byte {
	if x := c.index(); x != nil {
		return x.Bytes(i)
	}
	return nil
}

// Place says which RPC and chunk packet i belongs to.
func (c *CaptureSource) Place(i int) PacketPlace {
	x := c.index()
	if x == nil {
		return PacketPlace{Call: -1, Reply: -1}
	}
	pl := x.Place(i)
	out := PacketPlace{Text: pl.Text, Call: pl.Call, Reply: pl.Reply, InChunk: pl.Role == decode.RoleChunk,
		Of: pl.IndexInRPC, In: pl.FramesInRPC}
	if pl.Role == decode.RoleNone {
		out.Text = ""
	}
	return out
}

// Related lists the packets of the same RPC, or of the same chunk.
func (c *CaptureSource) Related(i int, chunk bool) []int {
	x := c.index()
	switch {
	case x == nil:
		return nil
	case chunk:
		return x.Related(i, decode.ScopeChunk)
	}
	return x.Related(i, decode.ScopeRPC)
}

// Progress says how far indexing has got.
func (c *CaptureSource) Progress() PacketProgress {
	x := c.x.Load()
	if x == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		// Not started: nothing read yet. Failed to open: done, and why.
		return PacketProgress{Done: c.err != nil, Err: c.err}
	}
	p := x.Progress()
	return PacketProgress{Fraction: p.Fraction, Packets: p.Packets, Done: p.Done, Err: p.Err}
}

// Watch calls f as indexing moves on; a lazy source hands f to its index
// when it starts.
func (c *CaptureSource) Watch(f func()) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if x := c.x.Load(); x != nil {
		return x.Watch(f)
	}
	if c.pending == nil {
		c.pending, c.stops = map[int]func(){}, map[int]func(){}
	}
	c.watchID++
	id := c.watchID
	c.pending[id] = f
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.pending, id)
		if stop := c.stops[id]; stop != nil {
			stop()
			delete(c.stops, id)
		}
	}
}

// Describe is the name of the capture, for the pane's title.
func (c *CaptureSource) Describe() string { return c.name }

var (
	_ PacketSource = (*CaptureSource)(nil)
	_ FieldSource  = (*CaptureSource)(nil)
	_ LinkSource   = (*CaptureSource)(nil)
	_ Indexing     = (*CaptureSource)(nil)
	_ Watcher      = (*CaptureSource)(nil)
	_ Describer    = (*CaptureSource)(nil)
	_ ColumnSource = (*CaptureSource)(nil)
)

// RunCapture draws the capture at path in the packets layout, full screen,
// until q: what `rdmalab view --capture FILE` runs. The first screen shows
// as soon as the first frames are read; indexing goes on behind it with a
// progress bar.
// maxExpand bounds how far a gzip capture may decompress (0: the default).
func RunCapture(ctx context.Context, s tcell.Screen, path string, maxExpand int64) error {
	x, err := decode.OpenIndexWith(path, decode.IndexOptions{MaxExpand: maxExpand})
	if err != nil {
		return err
	}
	defer x.Close()
	name := filepath.Base(path)
	// Zoomed: with no session the other panes would stay empty.
	v := Viewer{Layout: LayoutPackets, Packets: NewCaptureSource(x, name), Zoomed: true}
	return v.Run(ctx, s, StaticSource(Frame{}, "capture "+name+" (no session: the engine panes stay empty)"))
}
