package decode

// Index: a capture opened for a UI that pages through it. Opening returns
// at once; a goroutine decodes and analyses the file from start to end and
// keeps, per frame, where its bytes are and a compact record of what the
// analysis said about it (16 bytes a frame and no pointers, never the
// frame itself; index_rec.go).
// Summary, Detail and Bytes read the frame again from the file and decode
// it on demand, so the first screen of a capture of any size is there
// after its first few frames are read.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// Index is a capture being (or done being) indexed. Its methods may be
// called from any goroutine while indexing goes on; a packet i is frame
// i+1, and only packets below Len exist yet.
type Index struct {
	path string
	size int64        // bytes of the file as stored (compressed, for gzip)
	read atomic.Int64 // bytes of it the indexer has consumed
	data io.ReaderAt  // where frames are read back from
	tmp  *tempCopy    // the decompressed copy of a gzip file
	file io.Closer
	gz   bool

	stop     atomic.Bool
	quit     chan struct{} // closed by Close: a follower stops waiting
	follow   bool          // keep what a follower reads (IndexOptions.Follow)
	waiting  atomic.Int32  // readers waiting for mu: the indexer lets them in
	finished chan struct{}
	closing  sync.Once

	mu      sync.Mutex
	blocks  []block // blockLen records each, so growing never copies them
	n       int
	lts     []pcapfile.LinkType
	hdr     int64 // record header bytes before a frame's data, unless recWideHdr
	first   time.Time
	dec     *Decoder // the indexer's: its analysis is the capture's
	done    bool
	err     error         // why indexing stopped early
	moved   chan struct{} // closed and replaced when n or done changes
	watch   map[int]func()
	watchID int

	// Frame records' tables (index_rec.go): the messages they name, and
	// by frame index what does not fit in a record.
	msgs     []*analysis.Message
	wide     side[wideRec]
	wires    side[uint32] // wire lengths other than the capture length
	flows    side[uint16] // Flow.ID - 1 where Msg does not say
	deltas   side[uint32] // Chunk.Offset - Msg.Chunk.Offset where MsgIndex does not say
	full     side[*analysis.Analysis]
	acks     side[ackRec]
	acked    []uint32    // ACKs' acknowledged messages, as msgs references
	notes    side[int32] // the end of each noted frame's notes in noteList
	noteList []analysis.Note
	extras   side[briefExtra] // what a follower reads of a few frames (index_follow.go)
	comments side[[]string]   // a pcapng frame's comments, which reading its bytes back does not give

	// Reading frames back (under mu).
	fd     frame.Decoder
	pkt    analysis.Packet
	win    []byte
	winOff int64
	rel    [2]relCache // by Scope
}

// Progress is how far indexing has got.
type Progress struct {
	Fraction float64 // of the file's bytes read, 0 to 1
	Packets  int     // frames indexed so far
	Done     bool    // the whole file is indexed (or indexing stopped at Err)
	Err      error   // why indexing stopped before the end of the file
}

// IndexOptions change how OpenIndexWith reads a capture.
type IndexOptions struct {
	// MaxExpand bounds what a gzip file decompresses to, and so its
	// temporary copy: pcapfile.Options.MaxExpand (0: the default).
	MaxExpand int64
	// Follow keeps each frame's transport header (8 bytes a frame) for
	// Index.Follow: another consumer of the capture (the replay view's
	// builder) reads the index's pass instead of the file again.
	Follow bool
}

// OpenIndex opens the capture at path and starts indexing it in the
// background. It fails only when the file cannot be read or is not a
// capture; damage further on is reported by Progress().Err, naming the
// frame and byte offset, after the frames before it are indexed.
func OpenIndex(path string) (*Index, error) { return OpenIndexWith(path, IndexOptions{}) }

// OpenIndexWith is OpenIndex with options.
func OpenIndexWith(path string, opt IndexOptions) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return openIndex(path, f, f, st.Size(), opt)
}

// openIndex indexes the size bytes of src, whose errors name path; at
// reads the same bytes back, and closing src ends it.
func openIndex(path string, src io.ReadCloser, at io.ReaderAt, size int64, opt IndexOptions) (*Index, error) {
	x := &Index{path: path, size: size, finished: make(chan struct{}), moved: make(chan struct{}),
		quit: make(chan struct{}), follow: opt.Follow,
		dec: NewDecoderWith(analysis.Options{DropChunkData: true}), watch: map[int]func(){}, file: src}
	// A gzip stream cannot be read at an offset: the reader keeps the
	// decompressed bytes in a temporary file as it reads them, no more
	// than MaxExpand of them.
	x.tmp = &tempCopy{}
	r, err := pcapfile.NewReaderWith(&countingReader{r: src, n: &x.read},
		pcapfile.Options{Size: size, MaxExpand: opt.MaxExpand, Decompressed: x.tmp})
	if err != nil {
		x.removeData()
		return nil, fileError(path, err)
	}
	x.gz = r.Gzip()
	x.data = at
	if x.gz {
		x.data = x.tmp.f
	}
	go x.run(r)
	return x, nil
}

// tempCopy is the decompressed copy of a gzip capture, created at its
// first byte. Its name is removed at once where the system allows (Linux
// does): whatever way rdmalab ends, nothing is left behind.
type tempCopy struct {
	f    *os.File
	name string // still to remove at Close: the system kept it while open
}

func (t *tempCopy) Write(p []byte) (int, error) {
	if t.f == nil {
		f, err := os.CreateTemp("", "rdmalab-capture-*.pcap")
		if err != nil {
			return 0, fmt.Errorf("a temporary file for the decompressed capture: %w", err)
		}
		t.f = f
		if os.Remove(f.Name()) != nil {
			t.name = f.Name()
		}
	}
	return t.f.Write(p)
}

func (t *tempCopy) remove() {
	if t.f != nil {
		t.f.Close()
	}
	if t.name != "" {
		os.Remove(t.name)
	}
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// Path is the file the index reads.
func (x *Index) Path() string { return x.path }

// Close stops indexing and releases the file (and the decompressed copy of
// a gzip file).
func (x *Index) Close() error {
	x.closing.Do(func() {
		x.stop.Store(true)
		close(x.quit)
		if x.size < 0 {
			x.file.Close() // a stream's reader may wait for more: this ends the wait
		}
		<-x.finished
		x.removeData()
	})
	return nil
}

func (x *Index) removeData() {
	x.file.Close()
	x.tmp.remove()
}

// run indexes the file to its end, in batches that hold the lock for a
// millisecond or two so that readers get their turn.
func (x *Index) run(r *pcapfile.Reader) {
	defer close(x.finished)
	defer r.Close()
	if x.size < 0 {
		x.runStream(r)
		return
	}
	var rec pcapfile.Record
	lastNotify := time.Time{}
	budget := 64 // the first batch is small: the first screen comes from it
	for !x.stop.Load() {
		start := time.Now()
		x.mu.Lock()
		end := false
		for k := 0; k < budget; k++ {
			if k&15 == 15 && x.waiting.Load() > 0 {
				break // a reader wants the lock: let it in now
			}
			if x.n == maxFrames {
				x.err = fileError(x.path, fmt.Errorf("frame %d: more frames than an index holds (%d)", x.n+1, maxFrames))
				end = true
				break
			}
			err := r.Next(&rec)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					x.err = fileError(x.path, err)
				}
				end = true
				break
			}
			x.add(&rec, x.dec.Decode(&rec))
		}
		if end {
			x.dec.Finish()
			x.done = true
		}
		close(x.moved)
		x.moved = make(chan struct{})
		x.mu.Unlock()
		for spin := 0; spin < 1000 && x.waiting.Load() > 0; spin++ {
			runtime.Gosched() // readers first: an unlock alone lets this goroutine take the lock again
		}
		if end || time.Since(lastNotify) > 50*time.Millisecond {
			lastNotify = time.Now()
			x.notify()
		}
		if end {
			return
		}
		// Aim at about 2 ms a batch.
		if el := time.Since(start); el < time.Millisecond {
			budget = min(budget*2, 1<<14)
		} else if el > 4*time.Millisecond && budget > 64 {
			budget /= 2
		}
	}
}

// lock takes mu for a reader, telling the indexer that one waits.
func (x *Index) lock() {
	x.waiting.Add(1)
	x.mu.Lock()
	x.waiting.Add(-1)
}

func (x *Index) notify() {
	x.mu.Lock()
	fs := make([]func(), 0, len(x.watch))
	for _, f := range x.watch {
		fs = append(fs, f)
	}
	x.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Watch calls f (from the indexing goroutine; it must not block) as
// indexing progresses, a few times a second, and once when it ends.
func (x *Index) Watch(f func()) (stop func()) {
	x.lock()
	defer x.mu.Unlock()
	x.watchID++
	id := x.watchID
	x.watch[id] = f
	return func() {
		x.lock()
		delete(x.watch, id)
		x.mu.Unlock()
	}
}

// Progress says how far indexing has got.
func (x *Index) Progress() Progress {
	x.lock()
	defer x.mu.Unlock()
	p := Progress{Packets: x.n, Done: x.done, Err: x.err}
	switch {
	case x.done:
		p.Fraction = 1
	case x.size > 0:
		p.Fraction = min(float64(x.read.Load())/float64(x.size), 0.999)
	}
	return p
}

// Len is the number of packets indexed so far.
func (x *Index) Len() int {
	x.lock()
	defer x.mu.Unlock()
	return x.n
}

// Wait waits until at least n packets are indexed or indexing is over
// (n < 0: until it is over), or ctx ends; it returns the packets indexed.
func (x *Index) Wait(ctx context.Context, n int) (int, error) {
	for {
		x.lock()
		have, done, moved := x.n, x.done, x.moved
		x.mu.Unlock()
		if done || (n >= 0 && have >= n) {
			return have, nil
		}
		select {
		case <-ctx.Done():
			return have, ctx.Err()
		case <-moved:
		}
	}
}

// Analyzer is the capture's analysis once indexing is over (nil before):
// its RPCs, connections and notes.
func (x *Index) Analyzer() *analysis.Analyzer {
	x.lock()
	defer x.mu.Unlock()
	if !x.done {
		return nil
	}
	return x.dec.an
}

// maxWindow is how much is read at once when a frame is read back: the
// frames after it usually follow.
const maxWindow = 256 << 10

// load decodes packet i again, with its analysis, into x.pkt (valid until
// the next load). The caller holds mu.
func (x *Index) load(i int) (*analysis.Packet, error) {
	if i < 0 || i >= x.n {
		return nil, fmt.Errorf("%s: no packet %d (%d indexed)", x.path, i+1, x.n)
	}
	h := x.head(i)
	data, err := x.frameData(h.off, h.capLen)
	if err != nil {
		return nil, fileError(x.path, fmt.Errorf("frame %d at offset %d: %w", i+1, h.off, err))
	}
	rec := pcapfile.Record{Frame: i + 1, Offset: h.recOff, DataOff: h.off,
		Info:     gopacket.CaptureInfo{Timestamp: h.time, CaptureLength: h.capLen, Length: h.wireLen},
		LinkType: h.lt, Data: data}
	if k := x.comments.find(i); k >= 0 {
		rec.Comments = x.comments.val[k]
	}
	p := &x.pkt
	p.Analysis = analysis.Analysis{Notes: p.Analysis.Notes[:0]}
	x.fd.Decode(&rec, &p.Packet)
	p.Rel = p.Time.Sub(x.first) // the capture's first frame, not the first loaded
	x.analysis(i, factsOf(p.BTH), &p.Analysis)
	if x.done {
		p.Analysis.LateAnomaly = x.lateAnomaly(p.Frame)
	}
	return p, nil
}

// lateAnomaly reports whether a note the whole analysis made about frame
// is an anomaly. The caller holds mu.
func (x *Index) lateAnomaly(frame int) bool {
	all := x.dec.an.Notes()
	k, _ := slices.BinarySearchFunc(all, frame, func(n analysis.Note, f int) int { return n.Frame - f })
	for ; k < len(all) && all[k].Frame == frame; k++ {
		if all[k].Kind.Anomaly() {
			return true
		}
	}
	return false
}

// frameData returns n bytes at off, from the read window when it has them.
func (x *Index) frameData(off int64, n int) ([]byte, error) {
	if off >= x.winOff && off+int64(n) <= x.winOff+int64(len(x.win)) {
		return x.win[off-x.winOff:][:n:n], nil
	}
	size := max(n, maxWindow)
	if !x.gz && x.size-off < int64(size) {
		size = max(n, int(x.size-off)) // a small file gets a small window
	}
	if cap(x.win) < size {
		x.win = make([]byte, size)
	}
	buf := x.win[:size]
	m, err := x.data.ReadAt(buf, off)
	if m < n {
		x.win = x.win[:0]
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	x.win, x.winOff = buf[:m], off
	return x.win[:n:n], nil
}

// Decode decodes packet i again and calls fn with it and its analysis;
// the packet is valid only during fn, which must not call the Index.
func (x *Index) Decode(i int, fn func(*analysis.Packet)) error {
	x.lock()
	defer x.mu.Unlock()
	p, err := x.load(i)
	if err != nil {
		return err
	}
	fn(p)
	return nil
}

// Scan decodes the packets from i on, as far as they are indexed, calling
// fn for each until it returns false; the packet is valid only during fn,
// which must not call the Index. It returns the index after the last
// packet given to fn.
func (x *Index) Scan(i int, fn func(*analysis.Packet) bool) (int, error) {
	for {
		x.lock()
		end := min(x.n, i+4096) // let the indexer in now and then
		for ; i < end; i++ {
			p, err := x.load(i)
			if err != nil {
				x.mu.Unlock()
				return i, err
			}
			if !fn(p) {
				x.mu.Unlock()
				return i + 1, nil
			}
		}
		more := i < x.n
		x.mu.Unlock()
		if !more {
			return i, nil
		}
	}
}

// Summary is the one-line description of packet i, as `rdmalab decode`
// prints it (without the newline); a frame that cannot be read back says
// why.
func (x *Index) Summary(i int) string {
	x.lock()
	defer x.mu.Unlock()
	p, err := x.load(i)
	if err != nil {
		return err.Error()
	}
	return Line(p)
}

// Detail is the detail tree of packet i, as `rdmalab decode -V` prints it,
// with the bytes each line shows; once indexing is over it adds the notes
// the end of the capture brought about the packet (a call never answered,
// a READ never answered).
func (x *Index) Detail(i int) []TreeLine {
	x.lock()
	defer x.mu.Unlock()
	p, err := x.load(i)
	if err != nil {
		return []TreeLine{{Text: err.Error()}}
	}
	if x.done {
		x.addLateNotes(p)
	}
	return Tree(p)
}

// addLateNotes adds to p the notes Finish made about its frame.
func (x *Index) addLateNotes(p *analysis.Packet) {
	all := x.dec.an.Notes()
	k, _ := slices.BinarySearchFunc(all, p.Frame, func(n analysis.Note, f int) int { return n.Frame - f })
	for ; k < len(all) && all[k].Frame == p.Frame; k++ {
		if !slices.Contains(p.Analysis.Notes, all[k]) {
			p.Analysis.Notes = append(p.Analysis.Notes, all[k])
		}
	}
}

// Bytes is packet i as captured (a copy), or nil when it cannot be read.
func (x *Index) Bytes(i int) []byte {
	x.lock()
	defer x.mu.Unlock()
	if i < 0 || i >= x.n {
		return nil
	}
	h := x.head(i)
	b, err := x.frameData(h.off, h.capLen)
	if err != nil {
		return nil
	}
	return append([]byte{}, b...) // not nil for a packet of no bytes, read
}

// JSON is packet i as `rdmalab decode --json` prints it (one object, no
// newline).
func (x *Index) JSON(i int) ([]byte, error) {
	x.lock()
	defer x.mu.Unlock()
	p, err := x.load(i)
	if err != nil {
		return nil, err
	}
	return JSON(p), nil
}
