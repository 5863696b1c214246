package decode

// --rpc: one block per RPC: the call, the chunks it advertised with the
// RDMA READs and WRITEs that filled them, the reply, when each SEND was
// acknowledged, and the latency.

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

func writeRPCTable(w io.Writer, rpcs []*RPC) error {
	var sb strings.Builder
	for _, r := range rpcs {
		sb.Reset()
		rpcBlock(&sb, r)
		if _, err := io.WriteString(w, sb.String()); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d RPCs\n", len(rpcs))
	return err
}

func rpcBlock(sb *strings.Builder, r *RPC) {
	fmt.Fprintf(sb, "RPC %d  XID 0x%08x  %v → %v\n", r.ID, r.XID, r.Client, r.Server)
	if c := r.Call; c != nil {
		fmt.Fprintf(sb, "  call   frame %-6d %s  [%s%s]\n", c.Frame, tableSummary(r.CallSummary), c.Header.Proc, ackText(c))
	} else {
		sb.WriteString("  call   not in the capture\n")
	}
	ops := opsBySegment(r)
	for _, c := range r.chunks() {
		chunkLines(sb, ops, c)
	}
	if m := r.Reply; m != nil {
		lat := ""
		if r.Call != nil {
			lat = fmt.Sprintf("  latency %.3f ms", m.Time.Sub(r.Call.Time).Seconds()*1e3)
		}
		fmt.Fprintf(sb, "  reply  frame %-6d %s  [%s, credits %d%s]%s\n", m.Frame, tableSummary(r.ReplySummary), m.Header.Proc, m.Header.Credit, ackText(m), lat)
	} else {
		sb.WriteString("  reply  none in the capture\n")
	}
}

// maxTableSummary bounds an NFS summary in the RPC table: a READDIR
// reply names every entry, which buries the table (--json keeps it whole).
const maxTableSummary = 100

// tableSummary cuts s at a word boundary near maxTableSummary and says how
// many words it left out.
func tableSummary(s string) string {
	if len(s) <= maxTableSummary {
		return s
	}
	cut := strings.LastIndexByte(s[:maxTableSummary], ' ')
	if cut <= 0 {
		return s
	}
	return fmt.Sprintf("%s … (+%d more)", s[:cut], len(strings.Fields(s[cut:])))
}

func ackText(m *RPCMessage) string {
	if m.Msg == nil || m.Msg.AckFrame == 0 {
		return ", not acknowledged in the capture"
	}
	return fmt.Sprintf(", acknowledged in %d", m.Msg.AckFrame)
}

// segName names a segment of an RPC: chunk kind, chunk index, segment.
type segName struct {
	kind         ChunkKind
	chunk, index int
}

// opsBySegment groups the RDMA READs and WRITEs of r by the segment they
// went to, in capture order: one pass, however many segments the call
// advertised.
func opsBySegment(r *RPC) map[segName][]*Message {
	ops := map[segName][]*Message{}
	for _, l := range [][]*Message{r.Reads, r.Writes} {
		for _, m := range l {
			if c := m.Chunk; c != nil {
				k := segName{c.Kind, c.Chunk, c.Segment}
				ops[k] = append(ops[k], m)
			}
		}
	}
	return ops
}

func chunkLines(sb *strings.Builder, ops map[segName][]*Message, c *Chunk) {
	switch c.Kind {
	case ChunkRead:
		fmt.Fprintf(sb, "  read chunk %d at position %d\n", c.Index, c.Position)
	case ChunkWrite:
		fmt.Fprintf(sb, "  write chunk %d\n", c.Index)
	case ChunkReply:
		sb.WriteString("  reply chunk\n")
	}
	verb := "RDMA WRITE"
	if c.Kind == ChunkRead {
		verb = "RDMA READ"
	}
	for j, s := range c.Segments {
		want := ""
		if s.HasWritten {
			want = fmt.Sprintf(", reply says %d written", s.Written)
		}
		fmt.Fprintf(sb, "    segment %d: handle 0x%08x, %d bytes at 0x%016x: %d bytes seen%s\n",
			j, s.Handle, s.Length, s.Offset, s.Placed, want)
		for _, m := range ops[segName{c.Kind, c.Index, j}] {
			if (m.Kind == ib.KindReadRequest) != (c.Kind == ChunkRead) {
				continue // a READ of a Write chunk, a WRITE into a Read chunk: --check reports it
			}
			if c.Kind == ChunkRead {
				fmt.Fprintf(sb, "      %s in %d (+%d, %d bytes), responses %d–%d: %d bytes%s\n", verb,
					m.FirstFrame, m.Chunk.Offset, m.DMALen, m.RespFirstFrame, m.RespLastFrame, m.RespBytes, ackSuffix(m))
			} else {
				fmt.Fprintf(sb, "      %s in %d–%d (+%d): %d bytes in %d packets%s\n", verb,
					m.FirstFrame, m.LastFrame, m.Chunk.Offset, m.Len, m.Packets, ackSuffix(m))
			}
		}
	}
}

func ackSuffix(m *Message) string {
	if m.AckFrame == 0 {
		return ""
	}
	return fmt.Sprintf(", acknowledged in %d", m.AckFrame)
}

// appendRPCJSON appends one JSON object describing r.
func appendRPCJSON(w *jsonw, r *RPC) {
	w.open('{')
	w.int("rpc", r.ID)
	w.hex("xid", uint64(r.XID), 8)
	w.str("client", r.Client.String())
	w.str("server", r.Server.String())
	if r.HaveProc {
		w.uint("program", uint64(r.Prog))
		w.uint("version", uint64(r.Vers))
		w.uint("procedure", uint64(r.Proc))
	}
	rpcSideJSON(w, "call", r.Call, r.CallSummary)
	w.beginArray("chunks")
	for _, c := range r.chunks() {
		w.beginObject("")
		w.str("kind", c.Kind.String())
		w.int("index", c.Index)
		if c.Kind == ChunkRead {
			w.uint("position", uint64(c.Position))
		}
		w.beginArray("segments")
		for _, s := range c.Segments {
			w.beginObject("")
			w.hex("handle", uint64(s.Handle), 8)
			w.uint("length", uint64(s.Length))
			w.hex("offset", s.Offset, 16)
			w.int("placed", s.Placed)
			if s.HasWritten {
				w.uint("written", uint64(s.Written))
			}
			w.endObject()
		}
		w.endArray()
		w.endObject()
	}
	w.endArray()
	opsJSON(w, "reads", r.Reads)
	opsJSON(w, "writes", r.Writes)
	rpcSideJSON(w, "reply", r.Reply, r.ReplySummary)
	if r.Call != nil && r.Reply != nil {
		w.float("latency", r.Reply.Time.Sub(r.Call.Time).Seconds())
	}
	w.close('}')
}

func rpcSideJSON(w *jsonw, key string, m *RPCMessage, summary string) {
	if m == nil {
		w.null(key)
		return
	}
	w.beginObject(key)
	w.int("frame", m.Frame)
	w.str("proc", m.Header.Proc.String())
	w.str("summary", summary)
	if m.Header.Proc != rpcrdma.ProcError {
		w.uint("credits", uint64(m.Header.Credit))
	}
	if m.Msg != nil && m.Msg.AckFrame != 0 {
		w.int("acked_frame", m.Msg.AckFrame)
	}
	w.endObject()
}

func opsJSON(w *jsonw, key string, ops []*Message) {
	w.beginArray(key)
	for _, m := range ops {
		w.beginObject("")
		w.int("frame", m.FirstFrame)
		w.int("last_frame", max(m.LastFrame, m.RespLastFrame))
		w.str("chunk", m.Chunk.Kind.String())
		w.int("chunk_index", m.Chunk.Chunk)
		w.int("segment", m.Chunk.Segment)
		w.uint("offset", m.Chunk.Offset)
		n := m.Len
		if m.Kind == ib.KindReadRequest {
			n = m.RespBytes
		}
		w.int("bytes", n)
		if m.AckFrame != 0 {
			w.int("acked_frame", m.AckFrame)
		}
		w.endObject()
	}
	w.endArray()
}
