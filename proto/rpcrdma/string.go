package rpcrdma

// A text dump of a transport header in the shape of Wireshark's tree for
// "RPC over RDMA" (packet-rpcrdma.c), one line per chunk and per segment:
//
//	RPC over RDMA
//	    XID: 0x5a0d8346
//	    Version: 1
//	    Flow Control: 128
//	    Message Type: RDMA_MSG (0)
//	    Read list (count: 1)
//	        Read segment 0: position 120, handle 0x00002fc3, length 131072, offset 0x000000000851e000
//	    Write list (count: 0)
//	    Reply chunk (count: 1)
//	        Write chunk (1 segment)
//	            RDMA segment 0: handle 0x00002fc4, length 4240, offset 0x5a0d8346051ec000

import (
	"fmt"
	"strings"
)

// String returns a multi-line dump of h that reads like Wireshark's packet
// tree: handles as 0x%08x, offsets as 0x%016x, lengths in decimal.
func (h *Header) String() string {
	var b strings.Builder
	for _, l := range h.Lines() {
		b.WriteString(strings.Repeat("    ", l.Depth))
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// Line is one line of the dump: its depth (0 for the title, 1 for a field
// or a list, 2 for a chunk or a Read segment, 3 for a chunk's segment),
// its text, and the bytes of the encoded header it shows, [Start, End).
type Line struct {
	Depth      int
	Text       string
	Start, End int
}

// Lines returns the dump String writes, line by line, so that a packet
// tree can show each line's bytes: the title shows the whole header, each
// fixed word its own four bytes, and every line of the body (the lists,
// MSGP's align and threshold, the error) the whole body.
func (h *Header) Lines() []Line {
	d := dump{end: h.Len()}
	d.add(0, 0, d.end, "RPC over RDMA")
	d.add(1, 0, 4, "XID: 0x%08x", h.XID)
	d.add(1, 4, 8, "Version: %d", h.Vers)
	d.add(1, 8, 12, "Flow Control: %d", h.Credit)
	d.add(1, 12, FixedHdrLen, "Message Type: %s (%d)", h.Proc, uint32(h.Proc))
	switch h.Proc {
	case ProcMsgp:
		d.body(1, "RDMA align: %d", h.Align)
		d.body(1, "RDMA threshold: %d", h.Thresh)
		fallthrough
	case ProcMsg, ProcNoMsg:
		d.body(1, "Read list (count: %d)", len(h.ReadList))
		for i, s := range h.ReadList {
			d.body(2, "Read segment %d: position %d, handle 0x%08x, length %d, offset 0x%016x",
				i, s.Position, s.Handle, s.Length, s.Offset)
		}
		d.body(1, "Write list (count: %d)", len(h.WriteList))
		for i := range h.WriteList {
			d.writeChunk(&h.WriteList[i])
		}
		if h.ReplyChunk == nil {
			d.body(1, "Reply chunk (count: 0)")
		} else {
			d.body(1, "Reply chunk (count: 1)")
			d.writeChunk(h.ReplyChunk)
		}
	case ProcError:
		d.body(1, "Error code: %s (%d)", h.Err, uint32(h.Err))
		if h.Err == ErrCodeVers {
			d.body(1, "Version low: %d", h.VersLow)
			d.body(1, "Version high: %d", h.VersHigh)
		}
	}
	return d.lines
}

// dump collects the lines of Lines; end is the encoded header's length.
type dump struct {
	lines []Line
	end   int
}

func (d *dump) add(depth, start, end int, format string, args ...any) {
	d.lines = append(d.lines, Line{Depth: depth, Text: fmt.Sprintf(format, args...), Start: start, End: end})
}

// body adds a line that shows the body, the bytes after the fixed words.
func (d *dump) body(depth int, format string, args ...any) {
	d.add(depth, FixedHdrLen, d.end, format, args...)
}

func (d *dump) writeChunk(c *WriteChunk) {
	plural := "s"
	if len(c.Segments) == 1 {
		plural = ""
	}
	d.body(2, "Write chunk (%d segment%s)", len(c.Segments), plural)
	for i, s := range c.Segments {
		d.body(3, "RDMA segment %d: handle 0x%08x, length %d, offset 0x%016x", i, s.Handle, s.Length, s.Offset)
	}
}
