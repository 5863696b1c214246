package viz

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
)

// CaptureSource fills the Packets pane from a capture file that
// decode.Index reads: the pane can draw its first packets while the rest
// of the file is still being indexed, and redraws as indexing goes on.
type CaptureSource struct {
	name string
	x    *decode.Index

	mu   sync.Mutex
	tree treeCache
	live bool // the capture is still coming: its size is not known
}

// treeCache keeps the last detail tree asked for: the pane asks for the
// lines and for their bytes of the same packet in one frame.
type treeCache struct {
	i, n  int
	done  bool
	lines []decode.TreeLine
}

// NewCaptureSource shows x; name is what the pane's title calls it (the
// file's base name when empty). x is its caller's to close.
func NewCaptureSource(x *decode.Index, name string) *CaptureSource {
	if name == "" {
		name = filepath.Base(x.Path())
	}
	return &CaptureSource{name: name, x: x, tree: treeCache{i: -1}}
}

// index is the index shown.
func (c *CaptureSource) index() *decode.Index { return c.x }

// Index is the capture shown.
func (c *CaptureSource) Index() *decode.Index { return c.x }

// Len is the number of packets indexed so far.
func (c *CaptureSource) Len() int { return c.x.Len() }

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
	p := c.x.Progress()
	return PacketProgress{Fraction: p.Fraction, Packets: p.Packets, Done: p.Done, Err: p.Err, Live: c.live}
}

// Watch calls f as indexing moves on.
func (c *CaptureSource) Watch(f func()) (stop func()) { return c.x.Watch(f) }

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

// RunCaptureStream is RunCapture for a capture still coming (a pipe, a
// live interface, a file being written), indexed by x as it comes: the
// list grows as packets arrive. name is what the title calls it.
func RunCaptureStream(ctx context.Context, s tcell.Screen, x *decode.Index, name string) error {
	src := NewCaptureSource(x, name)
	src.live = true
	v := Viewer{Layout: LayoutPackets, Packets: src, Zoomed: true}
	return v.Run(ctx, s, StaticSource(Frame{}, "capture "+name+" (no session: the engine panes stay empty)"))
}

// Select is Filterer's: it compiles expr with fields.CompileSelection (a
// display filter, or the short forms decode --filter and the REPL's
// packets take) and matches the packets of the index as Index.Scan
// decodes them.
func (c *CaptureSource) Select(expr string, wake func()) (*Selection, error) {
	sel, err := fields.CompileSelection(expr)
	if err != nil {
		return nil, err
	}
	x := c.index()
	if x == nil {
		return nil, fmt.Errorf("no capture to filter: %w", c.Progress().Err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Selection{expr: expr, cancel: cancel, ended: make(chan struct{})}
	if sel.Short {
		s.means = sel.Expr
	}
	go s.run(ctx, x, sel, wake)
	return s, nil
}

// FieldNames is FieldNamer's: the names decode's display filters know.
func (c *CaptureSource) FieldNames() []string { return fields.Registry().Names() }

// CheckFilter is Filterer's.
func (c *CaptureSource) CheckFilter(expr string) error {
	_, err := fields.CompileSelection(expr)
	return err
}

var _ Filterer = (*CaptureSource)(nil)

// selectBatch is how many packets the search decodes per turn of the
// index's lock: the view's own reads get in between.
const selectBatch = 256

// wakeEvery is how often, at most, the search wakes the view while it goes.
const wakeEvery = 50 * time.Millisecond

// run goes through x from its first packet to its last, indexed or still
// to come.
func (s *Selection) run(ctx context.Context, x *decode.Index, sel *fields.Selection, wake func()) {
	defer close(s.ended)
	defer wake()
	var found []int32
	next, last := 0, time.Now()
	for ctx.Err() == nil {
		found = found[:0]
		n := 0
		end, err := x.Scan(next, func(p *analysis.Packet) bool {
			if sel.Match(p) {
				found = append(found, int32(p.Frame-1))
			}
			n++
			return n < selectBatch && ctx.Err() == nil
		})
		s.mu.Lock()
		s.rows = append(s.rows, found...)
		s.scanned = end
		s.mu.Unlock()
		next = end
		if err != nil {
			s.finish(err)
			return
		}
		if time.Since(last) > wakeEvery {
			last = time.Now()
			wake()
		}
		if n > 0 {
			continue
		}
		// Everything indexed is looked at: wait for more, or the end.
		have, err := x.Wait(ctx, next+1)
		if err != nil {
			return // stopped
		}
		if have <= next {
			s.finish(x.Progress().Err)
			return
		}
	}
}
