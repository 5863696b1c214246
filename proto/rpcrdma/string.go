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
	b.WriteString("RPC over RDMA\n")
	fmt.Fprintf(&b, "    XID: 0x%08x\n", h.XID)
	fmt.Fprintf(&b, "    Version: %d\n", h.Vers)
	fmt.Fprintf(&b, "    Flow Control: %d\n", h.Credit)
	fmt.Fprintf(&b, "    Message Type: %s (%d)\n", h.Proc, uint32(h.Proc))
	switch h.Proc {
	case ProcMsgp:
		fmt.Fprintf(&b, "    RDMA align: %d\n", h.Align)
		fmt.Fprintf(&b, "    RDMA threshold: %d\n", h.Thresh)
		fallthrough
	case ProcMsg, ProcNoMsg:
		fmt.Fprintf(&b, "    Read list (count: %d)\n", len(h.ReadList))
		for i, s := range h.ReadList {
			fmt.Fprintf(&b, "        Read segment %d: position %d, handle 0x%08x, length %d, offset 0x%016x\n",
				i, s.Position, s.Handle, s.Length, s.Offset)
		}
		fmt.Fprintf(&b, "    Write list (count: %d)\n", len(h.WriteList))
		for i := range h.WriteList {
			writeChunkString(&b, &h.WriteList[i])
		}
		if h.ReplyChunk == nil {
			b.WriteString("    Reply chunk (count: 0)\n")
		} else {
			b.WriteString("    Reply chunk (count: 1)\n")
			writeChunkString(&b, h.ReplyChunk)
		}
	case ProcError:
		fmt.Fprintf(&b, "    Error code: %s (%d)\n", h.Err, uint32(h.Err))
		if h.Err == ErrCodeVers {
			fmt.Fprintf(&b, "    Version low: %d\n", h.VersLow)
			fmt.Fprintf(&b, "    Version high: %d\n", h.VersHigh)
		}
	}
	return b.String()
}

func writeChunkString(b *strings.Builder, c *WriteChunk) {
	plural := "s"
	if len(c.Segments) == 1 {
		plural = ""
	}
	fmt.Fprintf(b, "        Write chunk (%d segment%s)\n", len(c.Segments), plural)
	for i, s := range c.Segments {
		fmt.Fprintf(b, "            RDMA segment %d: handle 0x%08x, length %d, offset 0x%016x\n",
			i, s.Handle, s.Length, s.Offset)
	}
}
