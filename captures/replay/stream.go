package replay

import (
	"errors"
	"io"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// The lookahead: the builder runs behind the decoder so that what it draws
// at a packet (a chain posted whole at its first READ, a reply chain at its
// first WRITE) is known, yet never so far that memory grows with the file.
const (
	// minLook is how many records the builder stays behind at least (the
	// first steps wait for it: a transport's CM messages come before the
	// RPC that makes it one).
	minLook = 4096
	// maxLook is how far it may fall behind waiting for an RPC to settle
	// (its Read list pulled, its reply sent); past it the step is drawn
	// with what is known.
	maxLook = 1 << 17
	// sweepEvery is how often (records) the plans of RPCs long answered
	// are let go.
	sweepEvery = 1 << 14
	// ackedMargin is how many frames after the ACK of its reply's Send
	// an RPC is let go: the server has nothing more to do for it, and a
	// duplicate of its packets comes soon after or not at all.
	ackedMargin = 1 << 13
)

// source reads a capture's frames on demand and queues their records.
type source struct {
	f     frames
	c     collector // makes records; its frames count the frames read
	q     []record
	head  int
	eof   bool
	err   error // where the file broke
	learn func(*record)
	built int // records built, for the sweep
}

// frames hands a source a capture's frames in order: its own decoder
// reading the file (fileFrames), or the pass of the Index a view reads
// (indexFrames).
type frames interface {
	// next is the next frame; io.EOF at the end of the capture, or where
	// the file broke.
	next() (*decode.Brief, error)
	close()
}

// fileFrames decodes a capture read from a file or a stream.
type fileFrames struct {
	name   string
	pr     *pcapfile.Reader
	closer io.Closer
	d      *decode.Decoder
	rec    pcapfile.Record
	b      decode.Brief
}

func newFileFrames(r io.Reader, closer io.Closer, name string, o ReadOptions) (*fileFrames, error) {
	pr, err := pcapfile.NewReaderWith(r, pcapfile.Options{MaxExpand: o.MaxExpand})
	if err != nil {
		return nil, &decode.FileError{Path: name, Err: err}
	}
	return &fileFrames{name: name, pr: pr, closer: closer,
		d: decode.NewDecoderWith(analysis.Options{DropChunkData: true, DropRPCs: true, DropNotes: true, ForgetIdle: true})}, nil
}

func (f *fileFrames) next() (*decode.Brief, error) {
	if err := f.pr.Next(&f.rec); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, &decode.FileError{Path: f.name, Err: err}
	}
	f.b = decode.BriefOf(f.d.Decode(&f.rec))
	return &f.b, nil
}

func (f *fileFrames) close() {
	if f.pr != nil {
		f.d.Finish()
		f.pr.Close()
		f.pr = nil
		if f.closer != nil {
			f.closer.Close()
		}
	}
}

// indexFrames follows the pass of an Index over the capture: the view's
// Packets pane and its replay read the file once. It is called only
// inside the Index's Hold (Timeline.pump).
type indexFrames struct {
	x    *decode.Index
	name string
	i    int
	b    decode.Brief
}

func (f *indexFrames) next() (*decode.Brief, error) {
	b, err := f.x.Follow(f.i)
	if err != nil {
		var fe *decode.FileError
		if errors.As(err, &fe) {
			err = &decode.FileError{Path: f.name, Err: fe.Err} // named as the timeline is
		}
		return nil, err
	}
	f.i++
	f.b = b
	return &f.b, nil
}

func (f *indexFrames) close() {}

func (s *source) pending() int { return len(s.q) - s.head }

// read takes one more frame; false at the end of the file.
func (s *source) read() bool {
	if s.eof {
		return false
	}
	b, err := s.f.next()
	if err != nil {
		s.eof = true
		if !errors.Is(err, io.EOF) {
			s.err = err
		}
		s.close()
		return false
	}
	r, ok := s.c.record(b)
	if ok {
		if s.head > 0 && s.head >= len(s.q)/2 {
			s.q = s.q[:copy(s.q, s.q[s.head:])]
			s.head = 0
		}
		s.q = append(s.q, r)
		s.learn(&s.q[len(s.q)-1])
	}
	return true
}

func (s *source) close() { s.f.close() }

// next returns the next record to build, reading ahead as far as it must;
// nil at the end.
func (s *source) next() *record {
	for !s.eof && (s.pending() <= minLook || (s.pending() <= maxLook && !settled(&s.q[s.head]))) {
		s.read()
	}
	if s.pending() == 0 {
		return nil
	}
	r := &s.q[s.head]
	s.head++
	s.built++
	return r
}

// settled reports whether what the decoder knows of r's RPC is all the
// step at r needs: a READ request draws the whole chain (known once the
// reply comes), a WRITE or the reply's Send the whole reply chain, a READ
// response its place among the responses.
func settled(r *record) bool {
	m := r.an.Msg
	if r.cm != "" || m == nil {
		return true
	}
	switch r.opcode.Kind() {
	case ib.KindReadRequest:
		return m.Chunk == nil || m.Chunk.RPC.Reply != nil
	case ib.KindReadResponse:
		return m.RespDone
	case ib.KindWrite:
		return m.Chunk == nil || replied(m.Chunk.RPC)
	case ib.KindSend:
		if m.RPC != nil && !m.RPC.Call && m.RPC.RPC != nil {
			return replied(m.RPC.RPC)
		}
	}
	return true
}

func replied(rpc *analysis.RPC) bool {
	return rpc == nil || (rpc.Reply != nil && rpc.Reply.Msg != nil && rpc.Reply.Msg.Complete)
}

// pump builds the next record; false at the end of the capture (the last
// step, for a damaged file, is where it broke).
func (tl *Timeline) pump() bool {
	if tl.hold == nil {
		return tl.pump1()
	}
	more := false
	tl.hold(func() { more = tl.pump1() })
	return more
}

func (tl *Timeline) pump1() bool {
	if tl.done {
		return false
	}
	b, src := tl.b, tl.src
	if !tl.started {
		tl.started = true
		for !src.eof && (src.pending() <= minLook || len(b.conns) == 0) {
			src.read()
			if len(b.conns) == 0 && src.pending() > minLook {
				src.head++ // no transport yet: not replayed
				b.others++
			}
		}
		tl.Frames, tl.Err = src.c.frames, src.err
		if len(b.conns) == 0 {
			tl.done = true // nothing to replay
			tl.others = b.others
			tl.src, tl.b = nil, nil
			return false
		}
		b.unknowns(src)
		for _, u := range tl.Unknown {
			b.seq++
			e := trace.Event{Seq: b.seq, Task: taskReplay, Kind: trace.Note, Func: "unknown", Text: u}
			if tl.sink == nil {
				tl.log.add(e)
			}
		}
		tl.prelude = tl.log.Len()
	}
	r := src.next()
	tl.Frames, tl.Err = src.c.frames, src.err
	if r == nil {
		tl.done = true
		if tl.Err != nil {
			tl.b.brk()
		}
		tl.learned, tl.others = len(b.conns), b.others
		tl.learnedQPs = b.qps()
		b.letGo()
		tl.src, tl.b = nil, nil
		return false
	}
	if c := b.route(r); c != nil {
		b.conn = c
		b.record(r)
	}
	if src.built%sweepEvery == 0 {
		b.sweep(r.frame)
	}
	return true
}

// keepsWire reports whether the timeline keeps what its JSON transcript
// quotes of an RPC it lets go: not a transcript printed as it is read
// (sink), nor one read with NoJSON.
func (tl *Timeline) keepsWire() bool { return tl.sink == nil && !tl.noJSON }

// letGo lets go of every RPC's analysis.RPC once the capture is built: an
// RPC's messages hold the decoder's slabs of them.
func (b *builder) letGo() {
	for i := range b.tl.RPCs {
		r := &b.tl.RPCs[i]
		if r.rpc != nil && b.tl.keepsWire() {
			r.wire = wireOf(r.rpc)
		}
		r.rpc = nil
	}
}

// sweep lets go of the plans of RPCs finished before frame: those whose
// reply's Send was acknowledged ackedMargin frames before, and those
// answered long before (2*maxLook frames; their ACK may not be in the
// capture). A capture of a million packets has thousands, a plan holds a
// few KB (its pages' SGEs, its chain), and no later packet of theirs is
// waited for.
func (b *builder) sweep(frame int) {
	delivered := map[*analysis.RPC]bool{}
	for _, c := range b.conns {
		for rpc, p := range c.replies {
			if p.acked > 0 && p.acked+ackedMargin < frame {
				delivered[rpc] = true
			}
		}
	}
	old := func(rpc *analysis.RPC) bool {
		return delivered[rpc] || (rpc.Reply != nil && rpc.Reply.Msg != nil && rpc.Reply.Msg.LastFrame+2*maxLook < frame)
	}
	for rpc, id := range b.rpcIDs {
		if old(rpc) {
			delete(b.rpcIDs, rpc)
			delete(b.inline, rpc)
			// A transcript has printed its steps; a timeline keeps what
			// its JSON quotes.
			r := &b.tl.RPCs[id-1]
			if b.tl.keepsWire() {
				r.wire = wireOf(rpc)
			}
			r.rpc = nil
		}
	}
	for _, c := range b.conns {
		for rpc := range c.reads {
			if old(rpc) {
				delete(c.reads, rpc)
			}
		}
		for rpc := range c.replies {
			if old(rpc) {
				delete(c.replies, rpc)
			}
		}
		for k := range c.filled {
			if old(k.rpc) {
				delete(c.filled, k)
			}
		}
	}
}
