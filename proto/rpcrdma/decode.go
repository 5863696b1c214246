package rpcrdma

// Decoding, in the order of the Linux server's svc_rdma_xdr_decode_req
// (net/sunrpc/xprtrdma/svc_rdma_recvfrom.c; svcrdma-model-spec §3.3):
//
//	offset 0   +------------------------------+
//	           | xid | vers | credit | proc   |  1. need all 4 words
//	           +------------------------------+  2. vers == 1
//	                                             3. proc: MSG, NOMSG go on; DONE, ERROR stop
//	offset 16  | 1 | pos | handle | len | off |  4. Read list: every entry's position
//	           | ...                          |     (and, 2026, length) checked
//	           | 0                            |
//	           | 1 | count | count × segment  |  5. Write list: count checked before
//	           | ...                          |     the segments are read
//	           | 0                            |
//	           | 0  or  1 | count | segments  |  6. Reply chunk: same checks
//	           +------------------------------+  7. (2026) Read chunk positions
//	offset n   | RPC message (RDMA_MSG)       |     against the inline body
//
// RFC 8166 §4.3 defines the lists; §4.2.4 the message types.

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// ErrKind classifies a decoding failure the way the Linux server reacts to
// it: ErrVersion makes it answer ERR_VERS, every other kind ERR_CHUNK.
type ErrKind uint8

// Kinds of decoding failure.
const (
	ErrTruncated ErrKind = iota + 1 // the header is shorter than its contents say
	ErrVersion                      // rdma_vers is not 1
	ErrProc                         // rdma_proc is RDMA_MSGP (when rejected) or unknown (5 or more)
	ErrChunk                        // a chunk list fails a check (position, segment count, length)
	ErrErrorBody                    // an RDMA_ERROR body has an unknown rdma_err
)

var errKindNames = [...]string{ErrTruncated: "truncated", ErrVersion: "version", ErrProc: "proc",
	ErrChunk: "chunk", ErrErrorBody: "error body"}

// String returns the name of k ("chunk"), or ErrKind(N) for a value
// without one.
func (k ErrKind) String() string {
	if int(k) < len(errKindNames) && errKindNames[k] != "" {
		return errKindNames[k]
	}
	return fmt.Sprintf("ErrKind(%d)", uint8(k))
}

// DecodeError reports why a header could not be decoded: the byte offset of
// the offending field in the input, the field, and the kind of failure.
// Its text reads "rpcrdma: offset 36: read segment position 6 is not a
// multiple of 4".
type DecodeError struct {
	Offset int     // byte offset of the field in the input
	Field  string  // the field ("read segment position")
	Kind   ErrKind // how the server classifies it
	Msg    string  // what is wrong
}

func (e *DecodeError) Error() string {
	return "rpcrdma: offset " + strconv.Itoa(e.Offset) + ": " + e.Msg // not Sprintf: a capture's every non-RPC SEND makes one
}

// ReplyCode returns the rdma_err of the RDMA_ERROR the Linux server sends
// back for this failure: ERR_VERS for a bad version (-EPROTONOSUPPORT),
// ERR_CHUNK for everything else (-EINVAL).
func (e *DecodeError) ReplyCode() ErrCode {
	if e.Kind == ErrVersion {
		return ErrCodeVers
	}
	return ErrCodeChunk
}

func decodeErr(off int, field string, kind ErrKind, format string, args ...any) *DecodeError {
	return &DecodeError{Offset: off, Field: field, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// walked returns what Decode returns once the walk is over: the number of
// bytes consumed, or the failure as a *DecodeError.
func walked(w *xdr.Walker) (int, error) {
	switch err := w.Err().(type) {
	case nil:
		return w.Offset(), nil
	case *xdr.Error: // the Reader's own: always a truncation here
		return 0, &DecodeError{Offset: err.Offset, Field: err.Field, Kind: ErrTruncated, Msg: err.Msg}
	default:
		return 0, err
	}
}

// DecodeOptions selects the checks Decode makes beyond the wire format. The
// zero value decodes anything well-formed, as a capture decoder wants;
// KernelOptions gives the Linux server's checks.
type DecodeOptions struct {
	// MaxSegCount rejects a Write or Reply chunk whose segment count is
	// larger (the kernel's rc_maxpages check). 0 means no limit.
	MaxSegCount int
	// RejectZeroSegCount rejects Write and Reply chunks with no segments
	// (2026 kernels; 2025 ones accept them, bug B7).
	RejectZeroSegCount bool
	// MaxReadLength rejects a Read segment longer than this many bytes
	// (2026 kernels: rc_maxpages << PAGE_SHIFT). 0 means no limit. It is
	// also the page budget of CheckChunkPositions.
	MaxReadLength int
	// CheckPositions rejects a Read segment whose position is not a
	// multiple of 4 (the kernel always checks this).
	CheckPositions bool
	// CheckChunkPositions runs, after the three lists, the 2026 kernels'
	// pcl_check_read_chunk_positions against the inline body (the bytes
	// after the header): every Read chunk must start inside it (or inside
	// the position-zero chunk, when there is one), must not overlap the
	// next chunk, and must fit in MaxReadLength.
	CheckChunkPositions bool
	// RejectMSGP rejects RDMA_MSGP as the Linux server does (ErrProc);
	// otherwise its align and thresh words and chunk lists are decoded.
	RejectMSGP bool
}

// KernelOptions returns the options under which Decode checks what the
// Linux server's svc_rdma_xdr_decode_req checks, for a receive context of
// maxPages pages (rc_maxpages) of pageSize bytes. new2026 selects the 2026
// trees (zero segment counts, Read segment lengths and Read chunk positions
// are checked too); otherwise the 2025 ones (SEED and FIX2025 profiles).
func KernelOptions(maxPages, pageSize int, new2026 bool) DecodeOptions {
	o := DecodeOptions{MaxSegCount: maxPages, CheckPositions: true, RejectMSGP: true}
	if new2026 {
		o.RejectZeroSegCount = true
		o.MaxReadLength = maxPages * pageSize
		o.CheckChunkPositions = true
	}
	return o
}

// Decode decodes the transport header at the start of b into h and returns
// its length n: the RPC message (RDMA_MSG) starts at b[n:].
//
// Every field of h is reset first. Decode reuses the storage of h's lists
// and of its Reply chunk, so a header kept across calls must be cloned; it
// copies what it decodes and never keeps a reference to b.
//
// RDMA_DONE and RDMA_ERROR headers decode without error: the Linux server
// drops them (svc_rdma_xdr_decode_req returns 0) and the caller decides.
// On error h holds what was decoded before the failing field — XID, Vers,
// Credit and Proc whenever the 16 fixed bytes are present, which is what
// an RDMA_ERROR reply needs — and err is a *DecodeError.
func (h *Header) Decode(b []byte, opt DecodeOptions) (n int, err error) {
	spare := h.reset()
	if len(b) < FixedHdrLen {
		return 0, decodeErr(0, "transport header", ErrTruncated,
			"need %d bytes for transport header, have %d", FixedHdrLen, len(b))
	}
	w := xdr.NewWalker(b)
	h.XID = w.Uint32("rdma_xid")
	h.Vers = w.Uint32("rdma_vers")
	h.Credit = w.Uint32("rdma_credit")
	h.Proc = Proc(w.Uint32("rdma_proc"))
	if h.Vers != Version {
		// Not decodeErr's Sprintf: every SEND of verbs traffic (rping's)
		// that a capture decoder tries as RPC-over-RDMA fails here.
		return 0, &DecodeError{Offset: 4, Field: "rdma_vers", Kind: ErrVersion,
			Msg: "rdma_vers is " + strconv.FormatUint(uint64(h.Vers), 10) + ", not " + strconv.Itoa(Version)}
	}
	switch h.Proc {
	case ProcMsg, ProcNoMsg:
	case ProcDone:
		return FixedHdrLen, nil
	case ProcError:
		h.walkError(&w)
		return walked(&w)
	case ProcMsgp:
		if opt.RejectMSGP {
			return 0, decodeErr(12, "rdma_proc", ErrProc, "rdma_proc is RDMA_MSGP, which is not supported")
		}
		w.Need(8, "RDMA_MSGP align and threshold")
		h.Align = w.Uint32("rdma_align")
		h.Thresh = w.Uint32("rdma_thresh")
	default:
		return 0, decodeErr(12, "rdma_proc", ErrProc, "rdma_proc %d is not a known message type", uint32(h.Proc))
	}
	readListOff := w.Offset()
	h.walkReadList(&w, opt)
	h.walkWriteList(&w, opt)
	h.walkReplyChunk(&w, opt, spare)
	if n, err = walked(&w); err != nil {
		return 0, err
	}
	if opt.CheckChunkPositions {
		if err := h.checkChunkPositions(readListOff, len(b)-n, opt.MaxReadLength); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// reset clears h, keeping the storage of its lists, and returns the storage
// of a Reply chunk for reuse (keeping it in h until it is used).
func (h *Header) reset() (spare *WriteChunk) {
	spare = h.ReplyChunk
	if spare == nil {
		spare = h.spareReply
	}
	*h = Header{ReadList: h.ReadList[:0], WriteList: h.WriteList[:0], spareReply: spare}
	return spare
}

func (h *Header) walkError(w *xdr.Walker) {
	off := w.Offset()
	switch h.Err = ErrCode(w.Uint32("rdma_err")); h.Err {
	case ErrCodeVers:
		w.Need(8, "ERR_VERS version range")
		h.VersLow = w.Uint32("rdma_vers_low")
		h.VersHigh = w.Uint32("rdma_vers_high")
	case ErrCodeChunk:
	default: // also after a failure to read rdma_err, which Fail keeps
		w.Fail(decodeErr(off, "rdma_err", ErrErrorBody,
			"rdma_err %d is neither ERR_VERS (1) nor ERR_CHUNK (2)", uint32(h.Err)))
	}
}

func (h *Header) walkReadList(w *xdr.Walker, opt DecodeOptions) {
	for w.Uint32("read list discriminator") != 0 { // the kernel's xdr_item_is_present: any non-zero word
		off := w.Offset()
		b := w.OpaqueFixed(ReadSegmentLen, "read segment")
		if w.Err() != nil {
			return
		}
		s := ReadSegment{Position: binary.BigEndian.Uint32(b), Segment: segmentAt(b[4:])}
		switch {
		case opt.CheckPositions && s.Position%4 != 0:
			w.Fail(decodeErr(off, "read segment position", ErrChunk,
				"read segment position %d is not a multiple of 4", s.Position))
		case opt.MaxReadLength > 0 && uint64(s.Length) > uint64(opt.MaxReadLength):
			w.Fail(decodeErr(off+8, "read segment length", ErrChunk,
				"read segment length %d exceeds maximum %d", s.Length, opt.MaxReadLength))
		default:
			h.ReadList = append(h.ReadList, s)
		}
	}
}

// chunkFields names the fields of a Write chunk or of the Reply chunk.
type chunkFields struct {
	name, count, segments string
}

var (
	writeChunkFields = chunkFields{"write chunk", "write chunk segment count", "write chunk segments"}
	replyChunkFields = chunkFields{"reply chunk", "reply chunk segment count", "reply chunk segments"}
)

func (h *Header) walkWriteList(w *xdr.Walker, opt DecodeOptions) {
	for w.Uint32("write list discriminator") != 0 {
		walkWriteChunk(w, h.nextWriteChunk(), opt, &writeChunkFields)
	}
}

// nextWriteChunk extends the Write list by one chunk, reusing the storage
// left from an earlier Decode.
func (h *Header) nextWriteChunk() *WriteChunk {
	n := len(h.WriteList)
	if n < cap(h.WriteList) {
		h.WriteList = h.WriteList[:n+1]
	} else {
		h.WriteList = append(h.WriteList, WriteChunk{})
	}
	c := &h.WriteList[n]
	c.Segments = c.Segments[:0]
	return c
}

func (h *Header) walkReplyChunk(w *xdr.Walker, opt DecodeOptions, spare *WriteChunk) {
	if w.Uint32("reply chunk discriminator") == 0 {
		return
	}
	if spare == nil {
		spare = new(WriteChunk)
	}
	spare.Segments = spare.Segments[:0]
	h.ReplyChunk, h.spareReply = spare, nil
	walkWriteChunk(w, spare, opt, &replyChunkFields)
}

// walkWriteChunk follows the kernel's xdr_check_write_chunk: the segment
// count is checked before any segment is read, and all segments must be
// present.
func walkWriteChunk(w *xdr.Walker, c *WriteChunk, opt DecodeOptions, f *chunkFields) {
	off := w.Offset()
	count := w.Uint32(f.count)
	switch {
	case w.Err() != nil:
		return
	case opt.MaxSegCount > 0 && uint64(count) > uint64(opt.MaxSegCount):
		w.Fail(decodeErr(off, f.count, ErrChunk, "%s %d exceeds maximum %d", f.count, count, opt.MaxSegCount))
		return
	case count == 0 && opt.RejectZeroSegCount:
		w.Fail(decodeErr(off, f.count, ErrChunk, "%s is 0", f.count))
		return
	case uint64(count)*SegmentLen > uint64(w.Len()):
		w.Fail(decodeErr(w.Offset(), f.segments, ErrTruncated,
			"need %d bytes for %d %s segments, have %d", uint64(count)*SegmentLen, count, f.name, w.Len()))
		return
	}
	b := w.OpaqueFixed(int(count)*SegmentLen, f.segments)
	for ; len(b) >= SegmentLen; b = b[SegmentLen:] {
		c.Segments = append(c.Segments, segmentAt(b))
	}
}

// segmentAt decodes the segment at the start of b. The walk reads a whole
// Read list entry, or a Write chunk's count × 16 bytes, at once, once it
// has checked they are there as the kernel checks them: one read per
// entry, not one per word, on the hottest path of a capture.
func segmentAt(b []byte) Segment {
	return Segment{Handle: binary.BigEndian.Uint32(b), Length: binary.BigEndian.Uint32(b[4:]),
		Offset: binary.BigEndian.Uint64(b[8:])}
}

// checkChunkPositions is the 2026 kernels' pcl_check_read_chunk_positions,
// with its 32-bit arithmetic. readListOff is the offset of the Read list in
// the input; inlineLen the number of bytes after the header.
func (h *Header) checkChunkPositions(readListOff, inlineLen, maxReadLength int) error {
	maxLen := uint32(0xffffffff)
	if maxReadLength > 0 && maxReadLength < int(maxLen) {
		maxLen = uint32(maxReadLength)
	}
	entryOff := func(i int) int { return readListOff + i*ReadEntryLen + 4 }

	bound, what := uint32(inlineLen), "inline body"
	first := -1
	var callLen uint32
	for i, s := range h.ReadList {
		if s.Position == 0 {
			if first < 0 {
				first = i
			}
			callLen += s.Length
		}
	}
	if first >= 0 {
		if callLen > maxLen {
			return decodeErr(entryOff(first), "read chunk length", ErrChunk,
				"position-zero read chunk length %d exceeds maximum %d", callLen, maxLen)
		}
		bound, what = callLen, "position-zero read chunk"
	}

	var totalRead uint32
	order := h.positionOrder()
	for k := 0; k < len(h.ReadList); {
		idx := order.at(k)
		pos := h.ReadList[idx].Position
		var chLen uint32
		for ; k < len(h.ReadList) && h.ReadList[order.at(k)].Position == pos; k++ {
			chLen += h.ReadList[order.at(k)].Length
		}
		if pos == 0 {
			continue // the call itself, checked above
		}
		if pos-totalRead > bound {
			return decodeErr(entryOff(idx), "read segment position", ErrChunk,
				"read chunk at position %d starts past the end of the %d-byte %s (%d bytes read before it)",
				pos, bound, what, totalRead)
		}
		if chLen > maxLen {
			return decodeErr(entryOff(idx), "read chunk length", ErrChunk,
				"read chunk at position %d is %d bytes long, more than %d", pos, chLen, maxLen)
		}
		if k < len(h.ReadList) {
			if next := h.ReadList[order.at(k)].Position; pos+chLen > next {
				return decodeErr(entryOff(idx), "read chunk length", ErrChunk,
					"read chunk at position %d (%d bytes) overlaps the read chunk at position %d", pos, chLen, next)
			}
		}
		totalRead += chLen
	}
	return nil
}
