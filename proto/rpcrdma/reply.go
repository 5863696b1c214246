package rpcrdma

// Replies built by the Linux server (svc_rdma_sendto.c), RFC 8166 §4.2.4:
//
//	reply to a call (svc_rdma_sendto):        RDMA_ERROR (svc_rdma_send_error_msg):
//	+------------------------------------+    +-----------------------------------+
//	| xid | vers | credits | MSG or NOMSG|    | xid | vers (echoed) | credits | 4  |
//	| 0                   (no Read list) |    | 1 (ERR_VERS) | low 1 | high 1     |  28 bytes
//	| the call's Write chunks, echoed    |    |   or                              |
//	|   with the lengths actually written|    | 2 (ERR_CHUNK)                     |  20 bytes
//	| 0                                  |    +-----------------------------------+
//	| the call's Reply chunk, echoed, or 0|
//	+------------------------------------+

import (
	"cmp"
	"slices"
)

// ErrorReply returns the RDMA_ERROR header the Linux server sends for a call
// it cannot decode (svc_rdma_send_error_msg): the call's XID and version word
// echoed, the server's credits, and code; ERR_VERS carries vers_low = 1 and
// vers_high = 1. Pass the XID and Vers a failed Decode left in the Header.
func ErrorReply(xid, vers, credit uint32, code ErrCode) Header {
	h := Header{XID: xid, Vers: vers, Credit: credit, Proc: ProcError, Err: code}
	if code == ErrCodeVers {
		h.VersLow, h.VersHigh = Version, Version
	}
	return h
}

// ReplyTo returns the header the Linux server puts in front of its reply to
// call: the call's XID and version, credit granted, proc (ProcMsg, or
// ProcNoMsg when the reply went in the Reply chunk), an empty Read list and
// copies of the call's Write list and Reply chunk. The server echoes every
// segment of those chunks (svc_rdma_encode_write_list and
// svc_rdma_encode_reply_chunk); the caller sets each segment's Length to the
// bytes it actually wrote there.
func ReplyTo(call *Header, credit uint32, proc Proc) Header {
	c := call.Clone()
	return Header{
		XID: call.XID, Vers: call.Vers, Credit: credit, Proc: proc,
		WriteList: c.WriteList, ReplyChunk: c.ReplyChunk,
	}
}

// ReplyHeaderLen returns the length of the header the Linux server sends in
// reply to call (see ReplyTo): the fixed words, an empty Read list, and the
// call's Write list and Reply chunk with all their segments.
func ReplyHeaderLen(call *Header) int {
	n := FixedHdrLen + 4 + 4 + 4
	for i := range call.WriteList {
		n += 4 + writeChunkLen(&call.WriteList[i])
	}
	if call.ReplyChunk != nil {
		n += writeChunkLen(call.ReplyChunk)
	}
	return n
}

// ReadChunk is the Read chunk formed by the Read list segments that share a
// position (RFC 8166 §3.4.5).
type ReadChunk struct {
	Position uint32
	Segments []Segment
}

// Length returns the sum of the segment lengths.
func (c *ReadChunk) Length() uint64 {
	var n uint64
	for _, s := range c.Segments {
		n += uint64(s.Length)
	}
	return n
}

// ReadChunks groups h's Read list into chunks as the Linux server does
// (pcl_alloc_call, pcl_alloc_read): one chunk per distinct position, sorted
// by ascending position — so the position-zero chunk, if any, comes first —
// with the segments of each chunk in list order. It appends to dst[:0],
// reusing its storage.
func (h *Header) ReadChunks(dst []ReadChunk) []ReadChunk {
	dst = dst[:0]
	order := h.positionOrder()
	for k := range h.ReadList {
		s := h.ReadList[order.at(k)]
		n := len(dst)
		if n == 0 || dst[n-1].Position != s.Position {
			if n < cap(dst) {
				dst = dst[:n+1]
			} else {
				dst = append(dst, ReadChunk{})
			}
			dst[n].Position, dst[n].Segments = s.Position, dst[n].Segments[:0]
			n++
		}
		dst[n-1].Segments = append(dst[n-1].Segments, s.Segment)
	}
	return dst
}

// readOrder lists Read list indexes in ascending position, list order
// within a position; nil stands for the list's own order.
type readOrder []int

func (o readOrder) at(k int) int {
	if o == nil {
		return k
	}
	return o[k]
}

// positionOrder returns the order in which the Read list's chunks are
// walked: one sort, not a scan of the list per position (a 4 MiB Read
// list of distinct positions took minutes that way). A list already in
// order, as senders write it, costs no allocation.
func (h *Header) positionOrder() readOrder {
	byPos := func(a, b ReadSegment) int { return cmp.Compare(a.Position, b.Position) }
	if slices.IsSortedFunc(h.ReadList, byPos) {
		return nil
	}
	o := make(readOrder, len(h.ReadList))
	for i := range o {
		o[i] = i
	}
	slices.SortStableFunc(o, func(a, b int) int { return byPos(h.ReadList[a], h.ReadList[b]) })
	return o
}
