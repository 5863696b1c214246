package replay

import (
	"encoding/binary"
	"fmt"
	"unique"

	"github.com/rdmalab/rdmalab/engine/snap"
)

// op is a step's change to its transport's picture, as bytes: a sequence
// of the primitives below, each a code and its operands. A timeline of a
// million steps keeps them in its compressed step log rather than as a
// million closures, and a player going back applies them again from a
// checkpoint. The builder applies the same bytes to its own picture, so
// what a player rebuilds is what was built.
type op []byte

// The primitives, each what a line of the server's picture does.
const (
	opCall        byte = iota + 1 // addCall, and the call's transport header
	opAddRead                     // addRead: a Read list laid out in rc_pages
	opAddChain                    // addChain: a chain posted
	opRWCreated                   // rwCreated =
	opPostSeq                     // postSeq = max(postSeq, pos)
	opAddReply                    // addReply
	opSetCall                     // setCall
	opDropRead                    // dropRead
	opLand                        // the read's land
	opReadDone                    // the read's done = true
	opRemoveChain                 // removeChain
	opAcked                       // ackedPos = max(ackedPos, pos), ackReply(pos)
	opSent                        // sent: a Send completion, for the order they came back in
)

func (o op) uint(v uint64) op { return binary.AppendUvarint(o, v) }
func (o op) int(v int) op     { return binary.AppendVarint(o, int64(v)) }
func (o op) str(s string) op  { return append(o.uint(uint64(len(s))), s...) }

func (o op) bool(v bool) op {
	if v {
		return append(o, 1)
	}
	return append(o, 0)
}

// count writes a slice's length, keeping nil apart from empty: a picture
// rebuilt is the same value, not one that draws the same.
func count[T any](o op, s []T) op {
	if s == nil {
		return o.uint(0)
	}
	return o.uint(uint64(len(s)) + 1)
}

func (o op) strs(s []string) op {
	o = count(o, s)
	for _, x := range s {
		o = o.str(x)
	}
	return o
}

func (o op) sges(s []snap.SGE) op {
	o = count(o, s)
	for _, g := range s {
		o = o.str(g.Page).int(g.Off).int(g.Len).str(g.Source).str(g.IOVA)
	}
	return o
}

func (o op) rwCtxts(s []snap.RWCtxt) op {
	o = count(o, s)
	for _, c := range s {
		o = o.int(c.ID).str(c.Type).int(c.NEnts).int(c.FirstSGLNents).bool(c.Chained).sges(c.SGL).str(c.Where)
	}
	return o
}

func (o op) chain(c snap.Chain) op {
	o = o.str(c.Owner).str(c.Task).int(c.SQECount).uint(c.Pos)
	o = count(o, c.WRs)
	for _, w := range c.WRs {
		o = o.str(w.Opcode).sges(w.SGEs).int(w.Bytes).str(w.Remote).str(w.RKey).bool(w.Signaled).str(w.CQE).uint(w.WRID)
	}
	return o
}

func (o op) read(r snap.Read) op {
	o = o.str(r.XID).int(r.CurPage).int(r.PageOff).int(r.ReadBytes).int(r.PageCount).int(r.SQECount)
	o = o.strs(r.Chunks).rwCtxts(r.RWCtxts)
	o = count(o, r.Pages)
	for _, p := range r.Pages {
		o = o.int(p.Index).str(p.Name)
		o = count(o, p.Extents)
		for _, e := range p.Extents {
			o = o.int(e.Off).int(e.Len).str(e.Source)
		}
	}
	return o
}

// The primitives, appended to o.

func (o op) call(c callState, h *snap.CallHeader) op {
	o = append(o, opCall)
	o = o.int(c.rpc).uint(uint64(c.xid)).str(c.label).str(c.proc).str(c.state)
	return o.str(h.XID).str(h.Proc).strs(h.Chunks)
}

func (o op) addRead(id int, r snap.Read, dense bool, planned []int) op {
	o = append(o, opAddRead)
	o = o.int(id).read(r).bool(dense)
	o = count(o, planned)
	for _, p := range planned {
		o = o.int(p)
	}
	return o
}

func (o op) addChain(id int, c snap.Chain, ctxts []snap.RWCtxt) op {
	return append(o, opAddChain).int(id).chain(c).rwCtxts(ctxts)
}

func (o op) rwCreated(n int) op    { return append(o, opRWCreated).int(n) }
func (o op) postSeq(pos uint64) op { return append(o, opPostSeq).uint(pos) }

func (o op) addReply(r replyState) op {
	return append(o, opAddReply).uint(uint64(r.xid)).str(r.proc).uint(r.pos).bool(r.acked)
}

func (o op) setCall(id int, st string) op { return append(o, opSetCall).int(id).str(st) }
func (o op) dropRead(id int) op           { return append(o, opDropRead).int(id) }

func (o op) land(id, off, n int, src string) op {
	return append(o, opLand).int(id).int(off).int(n).str(src)
}

func (o op) readDone(id int) op { return append(o, opReadDone).int(id) }

func (o op) removeChain(id int, owner string) op {
	return append(o, opRemoveChain).int(id).str(owner)
}

func (o op) acked(pos uint64) op { return append(o, opAcked).uint(pos) }

func (o op) sent(pos uint64, ok bool) op { return append(o, opSent).uint(pos).bool(ok) }

// opReader reads an op back; the first short or unknown read sets err.
type opReader struct {
	blockReader
	names *names // the short strings read lately, s's
}

// names are the last few short strings an op read, so that the one name
// every READ response of a segment lands under is interned once, not once
// a packet.
type names struct {
	s    [4]string
	next int
}

func (r *opReader) int() int { return int(r.varint()) }

// maxInterned bounds the strings str interns: the picture's names and
// sources, not the text of a long chunk list.
const maxInterned = 64

// str reads a string. Short ones are interned: every op that lands bytes
// names its segment, and the checkpoints and pictures rebuilt from the
// ops then share one copy of each name.
func (r *opReader) str() string {
	b := r.blockReader.bytes()
	if len(b) > maxInterned {
		return string(b)
	}
	if r.names != nil {
		for _, s := range r.names.s {
			if s == string(b) {
				return s
			}
		}
	}
	s := unique.Make(string(b)).Value()
	if n := r.names; n != nil {
		n.s[n.next] = s
		n.next = (n.next + 1) % len(n.s)
	}
	return s
}

func (r *opReader) bool() bool { return r.byte() == 1 }

// count reads a slice's length as count wrote it: -1 for nil. A length
// past the bytes left is an error (each element takes a byte at least).
func (r *opReader) count() int {
	n := r.uvarint()
	if n == 0 {
		return -1
	}
	if n-1 > uint64(len(r.b)) {
		r.fail()
		return -1
	}
	return int(n - 1)
}

func makeSlice[T any](n int) []T {
	if n < 0 {
		return nil
	}
	return make([]T, n)
}

func (r *opReader) strs() []string {
	s := makeSlice[string](r.count())
	for i := range s {
		s[i] = r.str()
	}
	return s
}

func (r *opReader) sges() []snap.SGE {
	s := makeSlice[snap.SGE](r.count())
	for i := range s {
		s[i] = snap.SGE{Page: r.str(), Off: r.int(), Len: r.int(), Source: r.str(), IOVA: r.str()}
	}
	return s
}

func (r *opReader) rwCtxts() []snap.RWCtxt {
	s := makeSlice[snap.RWCtxt](r.count())
	for i := range s {
		s[i] = snap.RWCtxt{ID: r.int(), Type: r.str(), NEnts: r.int(), FirstSGLNents: r.int(), Chained: r.bool(), SGL: r.sges(), Where: r.str()}
	}
	return s
}

func (r *opReader) chain() snap.Chain {
	c := snap.Chain{Owner: r.str(), Task: r.str(), SQECount: r.int(), Pos: r.uvarint()}
	c.WRs = makeSlice[snap.WR](r.count())
	for i := range c.WRs {
		c.WRs[i] = snap.WR{Opcode: r.str(), SGEs: r.sges(), Bytes: r.int(), Remote: r.str(), RKey: r.str(), Signaled: r.bool(), CQE: r.str(), WRID: r.uvarint()}
	}
	return c
}

func (r *opReader) read() snap.Read {
	s := snap.Read{XID: r.str(), CurPage: r.int(), PageOff: r.int(), ReadBytes: r.int(), PageCount: r.int(), SQECount: r.int(),
		Chunks: r.strs(), RWCtxts: r.rwCtxts()}
	s.Pages = makeSlice[snap.Page](r.count())
	for i := range s.Pages {
		p := snap.Page{Index: r.int(), Name: r.str()}
		p.Extents = makeSlice[snap.Extent](r.count())
		for k := range p.Extents {
			p.Extents[k] = snap.Extent{Off: r.int(), Len: r.int(), Source: r.str()}
		}
		s.Pages[i] = p
	}
	return s
}

// apply makes o's changes to s. The builder wrote o, so an op that does
// not read is a bug; it stops at what does not read rather than crash.
func (o op) apply(s *state) error {
	r := opReader{blockReader: blockReader{b: o}, names: &s.names}
	for len(r.b) > 0 && r.err == nil {
		switch code := r.byte(); code {
		case opCall:
			c := callState{rpc: r.int(), xid: uint32(r.uvarint()), label: r.str(), proc: r.str(), state: r.str()}
			h := &snap.CallHeader{XID: r.str(), Proc: r.str(), Chunks: r.strs()}
			if r.err == nil {
				s.addCall(c)
				s.call = h
			}
		case opAddRead:
			rs := readState{rpc: r.int(), snap: r.read(), dense: r.bool()}
			if n := r.count(); n >= 0 {
				rs.planned = make([]int, n)
				for i := range rs.planned {
					rs.planned[i] = r.int()
				}
			}
			if r.err == nil {
				s.addRead(rs)
			}
		case opAddChain:
			c := chainState{rpc: r.int(), snap: r.chain(), ctxts: r.rwCtxts()}
			if r.err == nil {
				s.addChain(c)
			}
		case opRWCreated:
			if n := r.int(); r.err == nil {
				s.rwCreated = n
			}
		case opPostSeq:
			if n := r.uvarint(); r.err == nil {
				s.postSeq = max(s.postSeq, n)
			}
		case opAddReply:
			rp := replyState{xid: uint32(r.uvarint()), proc: r.str(), pos: r.uvarint(), acked: r.bool()}
			if r.err == nil {
				s.addReply(rp)
			}
		case opSetCall:
			if id, st := r.int(), r.str(); r.err == nil {
				s.setCall(id, st)
			}
		case opDropRead:
			if id := r.int(); r.err == nil {
				s.dropRead(id)
			}
		case opLand:
			id, off, n, src := r.int(), r.int(), r.int(), r.str()
			if rs := s.readOf(id); rs != nil && r.err == nil {
				rs.land(off, n, src)
			}
		case opReadDone:
			if id := r.int(); r.err == nil {
				if rs := s.readOf(id); rs != nil {
					rs.done = true
				}
			}
		case opRemoveChain:
			if id, owner := r.int(), r.str(); r.err == nil {
				s.removeChain(id, owner)
			}
		case opSent:
			if pos, ok := r.uvarint(), r.bool(); r.err == nil {
				s.sent(pos, ok)
			}
		case opAcked:
			if pos := r.uvarint(); r.err == nil {
				s.ackedPos = max(s.ackedPos, pos)
				s.ackReply(pos)
			}
		default:
			r.fail()
			return fmt.Errorf("op code %d at %d bytes from the end", code, len(r.b))
		}
	}
	return r.err
}
