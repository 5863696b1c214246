package analysis

// Rebuilding RPC messages with the data RDMA moved (RFC 8166 §3.5):
//
//	call:  inline body with each Read chunk's data (and its XDR pad) put
//	       back at the chunk's XDR position; a position-zero Read chunk is
//	       the whole call (RDMA_NOMSG)
//	reply: the inline body (RDMA_MSG) or the Reply chunk (RDMA_NOMSG), with
//	       Write chunk data put back where the procedure's results carry
//	       it (NFS READ: right after the data length word)

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// Bytes returns the first want bytes of the segment as the capture saw
// them arrive, and how many of them are missing. Zeros stand in for a hole
// between bytes seen only while the zeros so far are no more than the
// bytes seen: after a bigger hole, and after the last byte seen, the rest
// is left out. The result is thus never more than twice what the capture
// placed in the segment, whatever length the segment claims. A segment
// that does not keep its bytes (Options.DropChunkData) reads as zeros
// where bytes arrived.
func (s *Segment) Bytes(want uint32) (b []byte, missing int) {
	return s.appendBytes(nil, want)
}

// appendBytes is Bytes appending to dst.
func (s *Segment) appendBytes(dst []byte, want uint32) ([]byte, int) {
	return s.rebuild(dst, want, modeBuild)
}

// missing returns how many of the first want bytes Bytes would report
// missing, without building them.
func (s *Segment) missing(want uint32) int {
	_, m := s.rebuild(nil, want, modeCount)
	return m
}

// buildMode is what Segment.rebuild does besides counting missing bytes.
type buildMode uint8

const (
	modeCount   buildMode = iota // nothing
	modeBuild                    // append the bytes to dst
	modeOnZeros                  // append them to a dst whose spare capacity is all zero: zeros are not written
)

// rebuild appends the bytes Bytes returns to dst, as mode says, and counts
// the missing ones.
func (s *Segment) rebuild(dst []byte, want uint32, mode buildMode) ([]byte, int) {
	ps := s.pieces
	if s.prefix > 0 { // the first piece, as put would have kept it
		if len(ps) == 0 {
			var one [1]piece
			one[0] = piece{n: int(s.prefix)}
			ps = one[:]
		} else {
			ps = append([]piece{{n: int(s.prefix)}}, ps...)
		}
	}
	if !slices.IsSortedFunc(ps, cmpPiece) {
		ps = slices.Clone(ps)
		slices.SortStableFunc(ps, cmpPiece)
	}
	limit := min(uint64(want), maxRebuild) // what is past it counts as missing
	seen := coverage(ps, limit)
	covered, zeros := uint64(0), uint64(0)
	for _, p := range ps {
		if p.off >= limit {
			break
		}
		end := min(p.off+uint64(p.n), limit)
		if end <= covered {
			continue // already placed: a retransmission
		}
		if p.off > covered {
			hole := p.off - covered
			if zeros+hole > seen {
				break // a hole wider than what was seen: not made up
			}
			if mode != modeCount {
				dst = appendZeros(dst, hole, mode)
			}
			zeros += hole
			covered = p.off
		}
		if mode != modeCount {
			from, to := covered-p.off, end-p.off
			if uint64(len(p.data)) >= to {
				dst = append(dst, p.data[from:to]...)
			} else {
				dst = appendZeros(dst, to-from, mode) // the bytes were not kept
			}
		}
		covered = end
	}
	return dst, int(zeros + uint64(want) - covered)
}

// settle drops the bytes the segment kept and merges what is left of
// its pieces, where they went: runs that touch or overlap become one, and
// the run from 0 the prefix. A reply chunk keeps a piece per packet until
// its reply is summarised; after, most need no piece at all. Bytes and
// missing say the same as before (the union of the runs is the same).
func (s *Segment) settle() {
	if len(s.pieces) == 0 {
		return
	}
	ps := s.pieces
	if s.prefix > 0 {
		ps = append([]piece{{n: int(s.prefix)}}, ps...)
	}
	slices.SortStableFunc(ps, cmpPiece)
	out := ps[:0]
	for _, p := range ps {
		p.data = nil
		if k := len(out) - 1; k >= 0 && p.off <= out[k].off+uint64(out[k].n) {
			out[k].n = int(max(out[k].off+uint64(out[k].n), p.off+uint64(p.n)) - out[k].off)
			continue
		}
		out = append(out, p)
	}
	s.prefix = 0
	if out[0].off == 0 && out[0].n <= math.MaxUint32 {
		s.prefix, out = uint32(out[0].n), out[1:]
	}
	s.pieces = nil
	if len(out) > 0 {
		s.pieces = slices.Clone(out)
	}
}

// coverage returns how many bytes of [0, limit) the sorted pieces cover.
func coverage(ps []piece, limit uint64) uint64 {
	n, covered := uint64(0), uint64(0)
	for _, p := range ps {
		if p.off >= limit {
			break
		}
		end := min(p.off+uint64(p.n), limit)
		if end > covered {
			n += end - max(p.off, covered)
			covered = end
		}
	}
	return n
}

// appendZeros appends n zeros to dst; with modeOnZeros they are there
// already (a new array from slices.Grow is zero past the old capacity).
func appendZeros(dst []byte, n uint64, mode buildMode) []byte {
	base := len(dst)
	dst = slices.Grow(dst, int(n))[:base+int(n)]
	if mode != modeOnZeros {
		clear(dst[base:])
	}
	return dst
}

// maxRebuild bounds the bytes rebuilt from one segment, whatever the
// capture holds (RPC-over-RDMA moves at most a few MiB per segment).
const maxRebuild = 64 << 20

func cmpPiece(x, y piece) int { return cmp.Compare(x.off, y.off) }

// data returns the bytes of a chunk: its segments, each as long as want
// says, one after the other.
func (c *Chunk) data(wantOf func(*Segment) uint32) ([]byte, int) {
	return c.appendData(nil, wantOf)
}

func (c *Chunk) appendData(dst []byte, wantOf func(*Segment) uint32) ([]byte, int) {
	return c.rebuild(dst, wantOf, modeBuild)
}

// rebuild is appendData as mode says.
func (c *Chunk) rebuild(dst []byte, wantOf func(*Segment) uint32, mode buildMode) ([]byte, int) {
	missing := 0
	for _, s := range c.Segments {
		var m int
		dst, m = s.rebuild(dst, wantOf(s), mode)
		missing += m
	}
	return dst, missing
}

// keepsBytes says whether any of c's segments kept bytes it saw.
func (c *Chunk) keepsBytes() bool {
	for _, s := range c.Segments {
		for _, p := range s.pieces {
			if len(p.data) > 0 {
				return true
			}
		}
	}
	return false
}

// missing returns how many bytes data would report missing, without
// building them.
func (c *Chunk) missing(wantOf func(*Segment) uint32) int {
	n := 0
	for _, s := range c.Segments {
		n += s.missing(wantOf(s))
	}
	return n
}

func segLength(s *Segment) uint32 { return s.Length }
func segWant(s *Segment) uint32   { return s.Want() }

// ErrIncomplete says rebuilt bytes lack data the capture did not show.
var ErrIncomplete = errors.New("chunk data missing from the capture")

// CallBytes returns the RPC call as it was before the requester moved
// chunk data out of it. With data missing it returns what it could, zeros
// in the gaps, and an error wrapping ErrIncomplete.
func (r *RPC) CallBytes() ([]byte, error) {
	if r.Call == nil {
		return nil, errors.New("the call is not in the capture")
	}
	base := r.Call.Inline
	missing := 0
	chunks := r.ReadChunks
	if len(chunks) > 0 && chunks[0].Position == 0 {
		var m int
		base, m = chunks[0].data(segLength)
		missing += m
		chunks = chunks[1:]
	}
	out := make([]byte, 0, len(base))
	bi := 0
	for _, c := range chunks {
		take := int(c.Position) - len(out)
		if take < 0 || bi+take > len(base) {
			return nil, fmt.Errorf("read chunk position %d is outside the %d-byte call", c.Position, len(base))
		}
		out = append(out, base[bi:bi+take]...)
		bi += take
		d, m := c.data(segLength)
		missing += m
		out = append(out, d...)
		out = append(out, make([]byte, xdr.PadLen(len(d)))...)
	}
	out = append(out, base[bi:]...)
	return out, incomplete(missing)
}

// incomplete says how many bytes a rebuild lacks, on one line: summaries
// and -V print it.
func incomplete(missing int) error {
	if missing > 0 {
		return fmt.Errorf("%w: %d bytes not seen", ErrIncomplete, missing)
	}
	return nil
}

// ReplyBytes returns the RPC reply with its Write chunk data back in place
// (NFS READ), rebuilt from the Reply chunk for RDMA_NOMSG. With data
// missing, or Write chunk data whose place rdmalab does not know, it
// returns what it could and an error.
func (r *RPC) ReplyBytes() ([]byte, error) { return r.rebuildReply(nil) }

// RebuildBufs are buffers a rebuild may reuse.
type RebuildBufs struct {
	chunk, msg []byte
	// dirty are the ranges of msg's array that may not be zero. A reply
	// rebuilt in msg is the inline reply around the Write chunk's bytes,
	// which are zeros when the capture's were not kept (a READ's megabyte
	// in a streaming decode): the next rebuild clears these ranges and
	// leaves those bytes as they are.
	dirty  [3][2]int
	ndirty int
}

// zeroMsg returns msg emptied, its array all zero.
func (b *RebuildBufs) zeroMsg() []byte {
	m := b.msg[:cap(b.msg)]
	for _, d := range b.dirty[:b.ndirty] {
		clear(m[d[0]:d[1]])
	}
	b.ndirty = 0
	return m[:0]
}

// soil records msg[from:to] as maybe not zero.
func (b *RebuildBufs) soil(from, to int) {
	if from < to {
		b.dirty[b.ndirty] = [2]int{from, to}
		b.ndirty++
	}
}

// rebuildReply is ReplyBytes building in bufs when it is not nil: the
// result is then valid until the next use of bufs. When there is nothing
// to put back it returns the inline reply itself.
func (r *RPC) rebuildReply(bufs *RebuildBufs) ([]byte, error) {
	if r.Reply == nil {
		return nil, errors.New("the reply is not in the capture")
	}
	var chunkBuf, msgBuf []byte
	if bufs != nil {
		chunkBuf, msgBuf = bufs.chunk[:0], bufs.msg[:0]
	}
	base := r.Reply.Inline
	missing := 0
	if r.Reply.Header.Proc == rpcrdma.ProcNoMsg {
		if r.ReplyChunk == nil {
			return nil, errors.New("RDMA_NOMSG reply without the call's Reply chunk")
		}
		base, missing = r.ReplyChunk.appendData(chunkBuf, segWant)
		if bufs != nil {
			bufs.chunk = base[:0]
		}
	}
	if len(r.WriteChunks) == 0 || r.WriteChunks[0].written() == 0 {
		return base, incomplete(missing)
	}
	pos, ok := r.readDataPos(base)
	if !ok {
		return base, errors.New("write chunk data: rdmalab does not know where this procedure's results carry it")
	}
	mode := modeBuild
	if bufs != nil {
		msgBuf, mode = bufs.zeroMsg(), modeOnZeros
	}
	out := append(msgBuf, base[:pos]...)
	out, m := r.WriteChunks[0].rebuild(out, segWant, mode)
	missing += m
	end := len(out)
	out = appendZeros(out, uint64(xdr.PadLen(len(out)-pos)), mode)
	out = append(out, base[pos:]...)
	if bufs != nil {
		bufs.msg = out[:0]
		bufs.soil(0, pos)
		if r.WriteChunks[0].keepsBytes() {
			bufs.soil(pos, end)
		}
		bufs.soil(end, len(out))
	}
	return out, incomplete(missing)
}

// written returns the bytes the reply said went into c.
func (c *Chunk) written() int {
	n := 0
	for _, s := range c.Segments {
		n += int(s.Want())
	}
	return n
}

// readDataPos returns where the data of an NFS READ reply goes in reply
// (a reduced reply: the data length word is there, the data is not).
func (r *RPC) readDataPos(reply []byte) (int, bool) {
	if !r.HaveProc || r.Prog != nfs.ProgNFS {
		return 0, false
	}
	var h oncrpc.ReplyHeader
	n, err := h.Decode(reply)
	if err != nil || h.Stat != oncrpc.MsgAccepted || h.AcceptStat != oncrpc.Success {
		return 0, false
	}
	body := reply[n:]
	switch {
	case r.Vers == 3 && r.Proc == uint32(nfs.Proc3Read):
		var res nfs.Read3Res
		if _, err := res.Decode(body, nfs.DataReduced); err != nil || res.Status != nfs.NFS3OK {
			return 0, false
		}
		return n + res.DataPos, true
	case r.Vers == 4:
		var res nfs.Compound4Res
		res.Decode(body, nfs.DataReduced) // the results before an undecodable one are enough
		for _, op := range res.Ops {
			if op.Op == nfs.Op4Read && op.Status == 0 {
				return n + op.DataPos, true
			}
		}
	}
	return 0, false
}

// summarizeCall decodes the RPC call header and summarises the call.
func (r *RPC) summarizeCall(b []byte) {
	var h oncrpc.CallHeader
	n, err := h.Decode(b)
	if err != nil {
		r.CallSummary = "RPC call: " + err.Error()
		return
	}
	r.Prog, r.Vers, r.Proc, r.HaveProc = h.Prog, h.Vers, h.Proc, true
	if h.Cred.Flavor == oncrpc.AuthSys {
		var p oncrpc.AuthSysParams
		if p.Decode(h.Cred.Body) == nil {
			r.AuthSys = &p
		}
	}
	r.CallSummary = nfs.SummarizeCall(h.Prog, h.Vers, h.Proc, b[n:])
	if r.noFields {
		return
	}
	if f, ok := nfs.CallFields(h.Prog, h.Vers, h.Proc, b[n:]); ok {
		r.CallNFS = &f
	}
}

// summarizeReply decodes the RPC reply header and summarises the reply.
func (r *RPC) summarizeReply(b []byte) {
	var h oncrpc.ReplyHeader
	n, err := h.Decode(b)
	switch {
	case err != nil:
		r.ReplySummary = "RPC reply: " + err.Error()
	case h.Stat != oncrpc.MsgAccepted:
		r.ReplySummary = fmt.Sprintf("RPC reply: %v %v", h.Stat, h.RejectStat)
	case h.AcceptStat != oncrpc.Success:
		r.ReplySummary = fmt.Sprintf("RPC reply: %v", h.AcceptStat)
	case !r.HaveProc:
		r.ReplySummary = "RPC reply (the call is not in the capture)"
	case r.noFields:
		r.ReplySummary = nfs.SummarizeReply(r.Prog, r.Vers, r.Proc, b[n:])
	default:
		sum, f, ok := nfs.SummarizeReplyFields(r.Prog, r.Vers, r.Proc, b[n:])
		r.ReplySummary = sum
		if ok {
			r.ReplyNFS = &f
		}
	}
}
