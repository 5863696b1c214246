package decode

// What the Index keeps of each frame: 16 bytes with no pointers (the
// collector never scans them), and side tables for the frames that do not
// fit: a long or far frame, an ACK's acknowledgements, an analysis that
// cannot be rebuilt from a few numbers.

import (
	"math"
	"slices"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// frameRec is one frame: where it is, its capture header, and its
// analysis, most of which is rebuilt from Msg, the flow, the packet and a
// few numbers.
type frameRec struct {
	off    uint32 // data offset after its block's first frame's
	dt     uint32 // nanoseconds after its block's first frame
	msg    uint32 // 1 + place of Analysis.Msg in Index.msgs (0: none)
	capLen uint16 // the wire length too, unless recWire
	flags  uint16
}

const (
	recFlowMsg  = 1 << iota // Flow is Msg.Flow (a request)
	recFlowPeer             // Flow is Msg.Flow.Peer (a response)
	recFlowSide             // Flow is in Index.flows
	recPSNOK                // PSN {ok, this packet's PSN}; else not checked
	recChunk                // Chunk is Msg.Chunk moved MsgIndex payloads on, as long as the payload
	recDelta                // ... but moved by Index.deltas
	recPast                 // ... and runs past its segment
	recLenMsg               // ... and as long as Msg.Chunk (a READ request)
	recNotes                // the notes are in Index.notes
	recAck                  // Ack is in Index.acks
	recFull                 // the whole analysis is in Index.full
	recRPC                  // RPC is Msg.RPC (the packet that completed a SEND)
	recWire                 // the wire length is in Index.wires
	recWideHdr              // place, time and lengths are in Index.wide
	recWideIdx              // MsgIndex is in Index.wide; else the PSN's distance from Msg's first
	recWideLen              // Chunk.Len is in Index.wide
)

const blockLen = 1 << 14

// maxFrames is as many frames as an Index keeps (side tables count them in
// uint32).
const maxFrames = math.MaxUint32

// block is blockLen frames, with the place and time its frames' are
// counted from.
type block struct {
	off  int64 // data offset of its first frame
	sec  int64 // capture time of its first frame
	nsec uint32
	recs []frameRec
	// briefs are its frames' transport headers, when the index keeps
	// them for a follower (IndexOptions.Follow; index_follow.go).
	briefs []briefRec
}

// wideRec is what does not fit in a frame's frameRec (the flags say which
// fields count).
type wideRec struct {
	off, recOff     int64 // data and record offsets
	sec             int64
	nsec            uint32
	lt              uint8
	capLen, wireLen int
	msgIndex        int32
	chunkLen        uint32
}

// ackRec is an ACK's AckInfo but for what its packet says (syndrome, PSN,
// MSN): its acknowledged messages are Index.acked[previous end:end].
type ackRec struct {
	expected uint32
	end      uint32
	msn      uint32 // the AETH's, kept for a follower, which has no BTH (Index.Follow)
	syndrome ib.Syndrome
	known    bool
	old      bool
}

// side maps some frame indexes, added in ascending order, to values.
type side[T any] struct {
	at  []uint32
	val []T
}

func (s *side[T]) add(i int, v T) {
	s.at = append(s.at, uint32(i))
	s.val = append(s.val, v)
}

// find returns the place of frame i's value, or -1.
func (s *side[T]) find(i int) int {
	if k, ok := slices.BinarySearch(s.at, uint32(i)); ok {
		return k
	}
	return -1
}

// frameHead is a frame's capture header, rebuilt.
type frameHead struct {
	off, recOff     int64
	time            time.Time
	capLen, wireLen int
	lt              pcapfile.LinkType
}

func (x *Index) rec(i int) *frameRec { return &x.blocks[i/blockLen].recs[i%blockLen] }

// wideOf returns frame i's wideRec; the caller has seen a recWide flag.
func (x *Index) wideOf(i int) *wideRec {
	if k := x.wide.find(i); k >= 0 {
		return &x.wide.val[k]
	}
	return &wideRec{}
}

// head rebuilds the capture header of frame i.
func (x *Index) head(i int) frameHead {
	fr := x.rec(i)
	if fr.flags&recWideHdr != 0 {
		w := x.wideOf(i)
		return frameHead{off: w.off, recOff: w.recOff, time: time.Unix(w.sec, int64(w.nsec)).UTC(),
			capLen: w.capLen, wireLen: w.wireLen, lt: x.lts[min(int(w.lt), len(x.lts)-1)]}
	}
	b := &x.blocks[i/blockLen]
	off := b.off + int64(fr.off)
	ns := int64(b.nsec) + int64(fr.dt)
	return frameHead{off: off, recOff: off - x.hdr, time: time.Unix(b.sec+ns/1e9, ns%1e9).UTC(),
		capLen: int(fr.capLen), wireLen: x.wireLen(i, fr), lt: x.lts[0]}
}

// wireLen is the wire length of compact frame i.
func (x *Index) wireLen(i int, fr *frameRec) int {
	if fr.flags&recWire != 0 {
		if k := x.wires.find(i); k >= 0 {
			return int(x.wires.val[k])
		}
	}
	return int(fr.capLen)
}

// add records one decoded frame.
func (x *Index) add(rec *pcapfile.Record, p *analysis.Packet) {
	i := x.n
	ts := rec.Info.Timestamp
	sec, nsec := ts.Unix(), uint32(ts.Nanosecond())
	if i == 0 {
		x.first = p.Time
		x.hdr = rec.DataOff - rec.Offset
	}
	if i%blockLen == 0 {
		x.blocks = append(x.blocks, block{off: rec.DataOff, sec: sec, nsec: nsec, recs: make([]frameRec, 0, blockLen)})
		if x.follow {
			x.blocks[len(x.blocks)-1].briefs = make([]briefRec, 0, blockLen)
		}
	}
	b := &x.blocks[len(x.blocks)-1]
	lt := x.linkIndex(rec.LinkType)
	var fr frameRec
	w := wideRec{off: rec.DataOff, recOff: rec.Offset, sec: sec, nsec: nsec, lt: lt,
		capLen: rec.Info.CaptureLength, wireLen: rec.Info.Length}
	dt, inTime := since(b.sec, b.nsec, sec, nsec)
	if d := rec.DataOff - b.off; d >= 0 && d <= math.MaxUint32 && inTime && lt == 0 && rec.DataOff-rec.Offset == x.hdr &&
		w.capLen >= 0 && w.capLen <= math.MaxUint16 && w.wireLen >= 0 && w.wireLen <= math.MaxUint32 {
		fr.off, fr.dt, fr.capLen = uint32(d), dt, uint16(w.capLen)
		if w.wireLen != w.capLen {
			x.wires.add(i, uint32(w.wireLen))
			fr.flags |= recWire
		}
	} else {
		fr.flags |= recWideHdr
	}
	x.keep(i, &fr, &w, p)
	if fr.flags&(recWideHdr|recWideIdx|recWideLen) != 0 {
		x.wide.add(i, w)
	}
	b.recs = append(b.recs, fr)
	if len(rec.Comments) > 0 {
		x.comments.add(i, rec.Comments)
	}
	if x.follow {
		x.keepBrief(i, b, p)
	}
	x.n++
}

// since returns how many nanoseconds (sec, nsec) is after (bsec, bnsec),
// and whether that fits a uint32.
func since(bsec int64, bnsec uint32, sec int64, nsec uint32) (uint32, bool) {
	ds := sec - bsec
	if ds < 0 || ds > 5 {
		return 0, false
	}
	d := ds*1e9 + int64(nsec) - int64(bnsec)
	if d < 0 || d > math.MaxUint32 {
		return 0, false
	}
	return uint32(d), true
}

func (x *Index) linkIndex(lt pcapfile.LinkType) uint8 {
	for i, t := range x.lts {
		if t == lt {
			return uint8(i)
		}
	}
	if len(x.lts) == 255 {
		return 255 // shown as the last one: 255 link types is a hostile file
	}
	x.lts = append(x.lts, lt)
	return uint8(len(x.lts) - 1)
}

// keep stores p's analysis in fr (and w): compactly when analysis can
// give it back exactly, as a copy otherwise.
func (x *Index) keep(i int, fr *frameRec, w *wideRec, p *analysis.Packet) {
	an := &p.Analysis
	if len(x.noteList)+len(an.Notes) <= math.MaxInt32 && x.compact(i, fr, w, p) {
		x.keepNotes(i, fr, an.Notes)
		return
	}
	full := *an
	full.Notes = slices.Clone(an.Notes)
	x.full.add(i, &full)
	*fr = frameRec{off: fr.off, dt: fr.dt, capLen: fr.capLen, flags: fr.flags&(recWideHdr|recWire) | recFull}
}

// keepNotes keeps a compact frame's notes beside the frame records (the
// caller has checked they fit): a hostile capture can be nothing but
// malformed frames, and a copy of each one's analysis would be many times
// the record.
func (x *Index) keepNotes(i int, fr *frameRec, notes []analysis.Note) {
	if len(notes) == 0 {
		return
	}
	x.noteList = append(x.noteList, notes...)
	x.notes.add(i, int32(len(x.noteList)))
	fr.flags |= recNotes
}

// msgRef returns m's place in x.msgs plus one, adding it (0: the table is
// full).
func (x *Index) msgRef(m *analysis.Message) uint32 {
	if m.IndexRef == 0 && len(x.msgs) < math.MaxUint32 {
		x.msgs = append(x.msgs, m)
		m.IndexRef = uint32(len(x.msgs))
	}
	return m.IndexRef
}

// msgIndexOf is the usual MsgIndex of a packet with that BTH in m: its
// PSN's distance from m's first.
func msgIndexOf(m *analysis.Message, bth *ib.BTH) int { return factsOf(bth).msgIndex(m) }

// bthFacts is what rebuilding a frame's analysis reads of its BTH: the
// packet read back has one, a follower only these numbers (Index.Follow).
type bthFacts struct {
	ok      bool // the frame has a BTH
	psn     uint32
	payload int
}

func factsOf(bth *ib.BTH) bthFacts {
	if bth == nil {
		return bthFacts{}
	}
	return bthFacts{ok: true, psn: bth.PSN, payload: len(bth.Payload)}
}

func (b bthFacts) msgIndex(m *analysis.Message) int {
	if m == nil || !b.ok {
		return 0
	}
	return analysis.PSNDiff(b.psn, m.FirstPSN)
}

// compact reports whether analysis can give p's analysis back from fr and
// w, its notes apart, and fills them in.
func (x *Index) compact(i int, fr *frameRec, w *wideRec, p *analysis.Packet) bool {
	an := &p.Analysis
	bth := p.BTH
	if an.NotRPC != "" || an.Short || an.CM != nil || an.TCP.Known {
		return false
	}
	if an.RPC != nil {
		if an.Msg == nil || an.Msg.RPC != an.RPC {
			return false
		}
		fr.flags |= recRPC
	}
	m := an.Msg
	flowSide := false
	switch f := an.Flow; {
	case f == nil:
	case m != nil && m.Flow == f:
		fr.flags |= recFlowMsg
	case m != nil && m.Flow != nil && m.Flow.Peer == f:
		fr.flags |= recFlowPeer // a flow's peer never changes once known
	default:
		fl := x.dec.an.Flows
		if f.ID < 1 || f.ID > len(fl) || fl[f.ID-1] != f || f.ID-1 > math.MaxUint16 {
			return false
		}
		flowSide = true
	}
	switch ps := an.PSN; {
	case ps == analysis.PSNCheck{}:
	case bth != nil && ps == analysis.PSNCheck{Status: analysis.PSNOK, Expected: bth.PSN}:
		fr.flags |= recPSNOK
	default:
		return false
	}
	if m != nil {
		if fr.msg = x.msgRef(m); fr.msg == 0 {
			return false
		}
	}
	if an.MsgIndex != msgIndexOf(m, bth) {
		if int(int32(an.MsgIndex)) != an.MsgIndex {
			return false
		}
		w.msgIndex = int32(an.MsgIndex)
		fr.flags |= recWideIdx
	}
	delta, ok := x.compactChunk(fr, w, an.Chunk, an.MsgIndex, m, bth)
	if !ok {
		return false
	}
	if a := an.Ack; a != nil {
		if !x.keepAck(i, a, bth) {
			return false
		}
		fr.flags |= recAck
	}
	// Nothing can fail past here.
	if flowSide {
		x.flows.add(i, uint16(an.Flow.ID-1))
		fr.flags |= recFlowSide
	}
	if fr.flags&recDelta != 0 {
		x.deltas.add(i, delta)
	}
	return true
}

// chunkDelta is where the usual packet of a message (in order, every one
// before it full) starts in its message's segment.
func chunkDelta(msgIndex int, bth *ib.BTH) uint64 { return factsOf(bth).chunkDelta(msgIndex) }

func (b bthFacts) chunkDelta(msgIndex int) uint64 {
	if !b.ok || msgIndex < 0 {
		return 0
	}
	return uint64(msgIndex) * uint64(b.payload)
}

// compactChunk puts c, the chunk of a packet of m, in fr and w; its
// offset in m, when not the usual one (recDelta), is for Index.deltas.
func (x *Index) compactChunk(fr *frameRec, w *wideRec, c analysis.ChunkRef, msgIndex int, m *analysis.Message, bth *ib.BTH) (uint32, bool) {
	if c == (analysis.ChunkRef{}) {
		return 0, true
	}
	if m == nil || m.Chunk == nil {
		return 0, false
	}
	mc := m.Chunk
	if c.RPC != mc.RPC || c.Kind != mc.Kind || c.Chunk != mc.Chunk || c.Segment != mc.Segment ||
		c.Offset < mc.Offset || c.Offset-mc.Offset > math.MaxUint32 || c.Len < 0 || c.Len > math.MaxUint32 {
		return 0, false
	}
	fr.flags |= recChunk
	delta := c.Offset - mc.Offset
	if delta != chunkDelta(msgIndex, bth) {
		fr.flags |= recDelta
	}
	switch {
	case bth != nil && c.Len == len(bth.Payload):
	case c.Len == mc.Len:
		fr.flags |= recLenMsg
	default:
		w.chunkLen = uint32(c.Len)
		fr.flags |= recWideLen
	}
	if c.Past {
		fr.flags |= recPast
	}
	return uint32(delta), true
}

// keepAck keeps a: what bth says it can take from there.
func (x *Index) keepAck(i int, a *analysis.AckInfo, bth *ib.BTH) bool {
	if bth == nil || a.Syndrome != bth.AETH.Syndrome || a.PSN != bth.PSN || a.MSN != bth.AETH.MSN ||
		len(x.acked)+len(a.Acked) > math.MaxUint32 {
		return false
	}
	n := len(x.acked)
	for _, m := range a.Acked {
		ref := x.msgRef(m)
		if ref == 0 {
			x.acked = x.acked[:n]
			return false
		}
		x.acked = append(x.acked, ref)
	}
	x.acks.add(i, ackRec{expected: a.ExpectedMSN, end: uint32(len(x.acked)), msn: a.MSN, syndrome: a.Syndrome,
		known: a.MSNKnown, old: a.Old})
	return true
}

// fullOf returns the analysis kept whole of frame i (flag recFull).
func (x *Index) fullOf(i int) *analysis.Analysis {
	if k := x.full.find(i); k >= 0 {
		return x.full.val[k]
	}
	return &analysis.Analysis{}
}

// ackedOf returns the references of the messages frame i's ACK
// acknowledges (flag recAck), and its ackRec.
func (x *Index) ackedOf(i int) ([]uint32, ackRec) {
	k := x.acks.find(i)
	if k < 0 {
		return nil, ackRec{}
	}
	start := uint32(0)
	if k > 0 {
		start = x.acks.val[k-1].end
	}
	r := x.acks.val[k]
	return x.acked[start:r.end], r
}

// analysis rebuilds the analysis of frame i into an (bth: what it needs of
// the packet's BTH).
func (x *Index) analysis(i int, bth bthFacts, an *analysis.Analysis) {
	fr := x.rec(i)
	if fr.flags&recFull != 0 {
		*an = *x.fullOf(i)
		an.Notes = slices.Clip(an.Notes) // appending must not write into the copy kept
		return
	}
	*an = analysis.Analysis{}
	if fr.msg != 0 {
		an.Msg = x.msgs[fr.msg-1]
	}
	an.MsgIndex = bth.msgIndex(an.Msg)
	if fr.flags&recRPC != 0 && an.Msg != nil {
		an.RPC = an.Msg.RPC
	}
	var w *wideRec
	if fr.flags&(recWideIdx|recWideLen) != 0 {
		w = x.wideOf(i)
	}
	if fr.flags&recWideIdx != 0 {
		an.MsgIndex = int(w.msgIndex)
	}
	switch {
	case fr.flags&recFlowMsg != 0 && an.Msg != nil:
		an.Flow = an.Msg.Flow
	case fr.flags&recFlowPeer != 0 && an.Msg != nil && an.Msg.Flow != nil:
		an.Flow = an.Msg.Flow.Peer
	case fr.flags&recFlowSide != 0:
		if k := x.flows.find(i); k >= 0 {
			an.Flow = x.dec.an.Flows[x.flows.val[k]]
		}
	}
	if fr.flags&recPSNOK != 0 && bth.ok {
		an.PSN = analysis.PSNCheck{Status: analysis.PSNOK, Expected: bth.psn}
	}
	if fr.flags&recChunk != 0 && an.Msg != nil && an.Msg.Chunk != nil {
		c := *an.Msg.Chunk
		if fr.flags&recDelta == 0 {
			c.Offset += bth.chunkDelta(an.MsgIndex)
		} else if k := x.deltas.find(i); k >= 0 {
			c.Offset += uint64(x.deltas.val[k])
		}
		switch {
		case fr.flags&recLenMsg != 0:
		case fr.flags&recWideLen != 0:
			c.Len = int(w.chunkLen)
		case bth.ok:
			c.Len = bth.payload
		}
		c.Past = fr.flags&recPast != 0
		an.Chunk = c
	}
	if fr.flags&recAck != 0 && bth.ok {
		refs, r := x.ackedOf(i)
		a := &analysis.AckInfo{Syndrome: r.syndrome, PSN: bth.psn, MSN: r.msn, ExpectedMSN: r.expected,
			MSNKnown: r.known, Old: r.old}
		a.Acked = a.AckedStorage()
		for _, ref := range refs {
			a.Acked = append(a.Acked, x.msgs[ref-1])
		}
		an.Ack = a
	}
	if fr.flags&recNotes != 0 {
		if k := x.notes.find(i); k >= 0 {
			start := int32(0)
			if k > 0 {
				start = x.notes.val[k-1]
			}
			an.Notes = slices.Clip(x.noteList[start:x.notes.val[k]]) // appending must not write into the list
		}
	}
}

// msgOf returns the message frame i belongs to.
func (x *Index) msgOf(i int) *analysis.Message {
	fr := x.rec(i)
	switch {
	case fr.flags&recFull != 0:
		return x.fullOf(i).Msg
	case fr.msg != 0:
		return x.msgs[fr.msg-1]
	}
	return nil
}
