// Package rpcrdma encodes and decodes the RPC-over-RDMA version 1 transport
// header (RFC 8166 §4; RDMA_MSGP from RFC 5666 §4.3), the header in front
// of every RPC message sent with an RDMA Send.
//
// One codec serves three users: the engine's client encodes calls, the
// engine's server model decodes them with the checks of the Linux server
// (svc_rdma_xdr_decode_req, see DecodeOptions and KernelOptions) and
// encodes replies and RDMA_ERROR messages, and the capture decoder decodes
// whatever was on the wire and reports what is wrong with it.
//
// Transport header (RFC 8166 §4.2, all words big-endian):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                         rdma_xid (XID)                        |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     rdma_vers (Vers, = 1)                     |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      rdma_credit (Credit)                     |  8
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       rdma_proc (Proc)                        | 12
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  body: RDMA_MSG, RDMA_NOMSG: Read list, Write list, Reply chunk
//	|        RDMA_MSGP: rdma_align, rdma_thresh, then the three lists
//	|        RDMA_DONE: nothing
//	|        RDMA_ERROR: rdma_err [, rdma_vers_low, rdma_vers_high]
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Read list (§4.3.1): entries "1, position, handle, length, offset(8)"
// ended by "0". Write list: chunks "1, count, count × segment" ended by
// "0". Reply chunk: "0", or "1, count, count × segment". A segment
// (struct xdr_rdma_segment) is handle, length, offset(8): 16 bytes.
package rpcrdma

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// Version is the only RPC-over-RDMA version this codec speaks (rdma_vers).
const Version = 1

// Sizes, in bytes, from the kernel's include/linux/sunrpc/rpc_rdma.h.
const (
	FixedHdrLen    = 16 // xid, vers, credit, proc (rpcrdma_fixed_maxsz words)
	SegmentLen     = 16 // handle, length, offset (rpcrdma_segment_maxsz)
	ReadSegmentLen = 20 // position + segment (rpcrdma_readseg_maxsz)
	ReadEntryLen   = 24 // discriminator + read segment (rpcrdma_readchunk_maxsz)
	HdrLenMin      = 28 // RPCRDMA_HDRLEN_MIN: RDMA_MSG with three empty lists
	HdrLenErr      = 20 // RPCRDMA_HDRLEN_ERR: RDMA_ERROR with ERR_CHUNK

	// DefaultInlineSize is the protocol's default inline threshold
	// (RPCRDMA_V1_DEF_INLINE_SIZE, RFC 8166 §3.3.2).
	DefaultInlineSize = 1024
)

// Proc is the message type, rdma_proc.
type Proc uint32

// Message types (RFC 8166 §4.2.4; RDMA_MSGP and RDMA_DONE are from RFC 5666
// and are obsolete).
const (
	ProcMsg   Proc = 0 // RDMA_MSG: an RPC message follows the header
	ProcNoMsg Proc = 1 // RDMA_NOMSG: the RPC message travels in a chunk
	ProcMsgp  Proc = 2 // RDMA_MSGP: padded message (RFC 5666), decode only
	ProcDone  Proc = 3 // RDMA_DONE: obsolete
	ProcError Proc = 4 // RDMA_ERROR: the peer rejected a message
)

var procNames = [...]string{"RDMA_MSG", "RDMA_NOMSG", "RDMA_MSGP", "RDMA_DONE", "RDMA_ERROR"}

// String returns the protocol name of p ("RDMA_MSG"), or Proc(N) for a
// value without one.
func (p Proc) String() string {
	if int(p) < len(procNames) {
		return procNames[p]
	}
	return fmt.Sprintf("Proc(%d)", uint32(p))
}

// ErrCode is the error code of an RDMA_ERROR message, rdma_err.
type ErrCode uint32

// Error codes (RFC 8166 §4.2.4.5).
const (
	ErrCodeVers  ErrCode = 1 // ERR_VERS: version not supported; vers_low and vers_high follow
	ErrCodeChunk ErrCode = 2 // ERR_CHUNK: the header could not be parsed or processed
)

var errCodeNames = [...]string{ErrCodeVers: "ERR_VERS", ErrCodeChunk: "ERR_CHUNK"}

// String returns the protocol name of c ("ERR_VERS"), or ErrCode(N) for a
// value without one.
func (c ErrCode) String() string {
	if int(c) < len(errCodeNames) && errCodeNames[c] != "" {
		return errCodeNames[c]
	}
	return fmt.Sprintf("ErrCode(%d)", uint32(c))
}

// Segment is one RDMA segment (struct xdr_rdma_segment; the kernel's
// rs_handle, rs_length, rs_offset): a registered memory region of the
// requester.
type Segment struct {
	Handle uint32 // R_key (Wireshark: "RDMA handle")
	Length uint32 // bytes
	Offset uint64 // the region's address (Wireshark: "RDMA offset")
}

// ReadSegment is one Read list entry: a segment the responder pulls with
// RDMA Read, and the XDR position of the data it holds.
type ReadSegment struct {
	Position uint32 // byte offset in the (unreduced) RPC message; 0 = the whole message
	Segment
}

// WriteChunk is a Write chunk or the Reply chunk: segments the responder
// fills with RDMA Write, in order.
type WriteChunk struct {
	Segments []Segment
}

// Length returns the sum of the segment lengths (the kernel's ch_length,
// without its 32-bit wrap).
func (c *WriteChunk) Length() uint64 {
	var n uint64
	for _, s := range c.Segments {
		n += uint64(s.Length)
	}
	return n
}

// Header is a decoded or to-be-encoded transport header. Which fields mean
// something depends on Proc: the chunk lists for RDMA_MSG, RDMA_NOMSG and
// RDMA_MSGP, Align and Thresh for RDMA_MSGP, Err (and VersLow, VersHigh for
// ERR_VERS) for RDMA_ERROR. Encoding ignores the fields Proc does not use.
//
// A Header that Decode has reused keeps spare storage for the next Decode;
// compare headers with Equal (or compare clones), not reflect.DeepEqual.
type Header struct {
	XID    uint32
	Vers   uint32
	Credit uint32 // credits requested (calls) or granted (replies)
	Proc   Proc

	ReadList   []ReadSegment // wire order; segments with one position form a Read chunk
	WriteList  []WriteChunk  // wire order
	ReplyChunk *WriteChunk   // nil when absent

	// RDMA_ERROR body.
	Err               ErrCode
	VersLow, VersHigh uint32 // ERR_VERS only

	// RDMA_MSGP body (obsolete; decoded for captures, encoded for tests).
	Align, Thresh uint32

	// spareReply keeps the storage of a Reply chunk for the next Decode
	// while the current header has none.
	spareReply *WriteChunk
}

func writeChunkLen(c *WriteChunk) int { return 4 + SegmentLen*len(c.Segments) }

// Len returns the encoded length of h in bytes.
func (h *Header) Len() int {
	n := FixedHdrLen
	switch h.Proc {
	case ProcMsgp:
		n += 8
		fallthrough
	case ProcMsg, ProcNoMsg:
		n += ReadEntryLen*len(h.ReadList) + 4
		for i := range h.WriteList {
			n += 4 + writeChunkLen(&h.WriteList[i])
		}
		n += 4
		n += 4
		if h.ReplyChunk != nil {
			n += writeChunkLen(h.ReplyChunk)
		}
	case ProcError:
		n += 4
		if h.Err == ErrCodeVers {
			n += 8
		}
	}
	return n
}

// AppendTo appends the encoded header to b and returns the extended slice.
// A Proc of 5 or more has no body this codec knows: only the four fixed
// words are written.
func (h *Header) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.Uint32(h.XID)
	w.Uint32(h.Vers)
	w.Uint32(h.Credit)
	w.Uint32(uint32(h.Proc))
	switch h.Proc {
	case ProcMsgp:
		w.Uint32(h.Align)
		w.Uint32(h.Thresh)
		fallthrough
	case ProcMsg, ProcNoMsg:
		for _, s := range h.ReadList {
			w.Uint32(1)
			w.Uint32(s.Position)
			appendSegment(&w, s.Segment)
		}
		w.Uint32(0)
		for i := range h.WriteList {
			w.Uint32(1)
			appendWriteChunk(&w, &h.WriteList[i])
		}
		w.Uint32(0)
		if h.ReplyChunk == nil {
			w.Uint32(0)
		} else {
			w.Uint32(1)
			appendWriteChunk(&w, h.ReplyChunk)
		}
	case ProcError:
		w.Uint32(uint32(h.Err))
		if h.Err == ErrCodeVers {
			w.Uint32(h.VersLow)
			w.Uint32(h.VersHigh)
		}
	}
	return w.Bytes()
}

func appendSegment(w *xdr.Writer, s Segment) {
	w.Uint32(s.Handle)
	w.Uint32(s.Length)
	w.Uint64(s.Offset)
}

func appendWriteChunk(w *xdr.Writer, c *WriteChunk) {
	w.Uint32(uint32(len(c.Segments)))
	for _, s := range c.Segments {
		appendSegment(w, s)
	}
}

// Clone returns a deep copy of h: Decode reuses a Header's storage, so a
// caller that keeps a decoded header past the next Decode must clone it.
func (h *Header) Clone() Header {
	c := *h
	c.spareReply = nil
	c.ReadList = append([]ReadSegment(nil), h.ReadList...)
	c.WriteList = nil
	for _, wc := range h.WriteList {
		c.WriteList = append(c.WriteList, WriteChunk{Segments: append([]Segment(nil), wc.Segments...)})
	}
	if h.ReplyChunk != nil {
		c.ReplyChunk = &WriteChunk{Segments: append([]Segment(nil), h.ReplyChunk.Segments...)}
	}
	return c
}

// Equal reports whether h and o encode to the same bytes (for the fields
// their Proc uses), treating nil and empty lists alike.
func (h *Header) Equal(o *Header) bool {
	if h.XID != o.XID || h.Vers != o.Vers || h.Credit != o.Credit || h.Proc != o.Proc {
		return false
	}
	switch h.Proc {
	case ProcMsgp:
		if h.Align != o.Align || h.Thresh != o.Thresh {
			return false
		}
		fallthrough
	case ProcMsg, ProcNoMsg:
		if len(h.ReadList) != len(o.ReadList) || len(h.WriteList) != len(o.WriteList) {
			return false
		}
		for i := range h.ReadList {
			if h.ReadList[i] != o.ReadList[i] {
				return false
			}
		}
		for i := range h.WriteList {
			if !h.WriteList[i].equal(&o.WriteList[i]) {
				return false
			}
		}
		if (h.ReplyChunk == nil) != (o.ReplyChunk == nil) {
			return false
		}
		return h.ReplyChunk == nil || h.ReplyChunk.equal(o.ReplyChunk)
	case ProcError:
		if h.Err != o.Err {
			return false
		}
		return h.Err != ErrCodeVers || (h.VersLow == o.VersLow && h.VersHigh == o.VersHigh)
	}
	return true
}

func (c *WriteChunk) equal(o *WriteChunk) bool {
	if len(c.Segments) != len(o.Segments) {
		return false
	}
	for i := range c.Segments {
		if c.Segments[i] != o.Segments[i] {
			return false
		}
	}
	return true
}
