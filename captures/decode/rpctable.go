package decode

// --rpc: one block per RPC: the call, the chunks it advertised with the
// RDMA READs and WRITEs that filled them, the reply, when each SEND was
// acknowledged, and the latency.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

func writeRPCTable(w io.Writer, rpcs []*analysis.RPC) error {
	var b []byte
	for _, r := range rpcs {
		b = appendRPCBlock(b[:0], r)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%d RPCs\n", len(rpcs))
	return err
}

// appendRPCBlock appends r's block. Like the packet lines it is appended,
// not formatted with fmt: --rpc prints a block for every RPC of a capture.
func appendRPCBlock(b []byte, r *analysis.RPC) []byte {
	b = append(b, "RPC "...)
	b = appendtext.Int(b, r.ID)
	b = append(b, "  XID "...)
	b = appendtext.Hex0x(b, uint64(r.XID), 8)
	b = append(b, "  "...)
	b = r.Client.AppendTo(b)
	b = append(b, " → "...)
	b = r.Server.AppendTo(b)
	b = append(b, '\n')
	if c := r.Call; c != nil {
		b = appendMessageLine(b, "  call   frame ", c, r.CallSummary, false)
		b = append(b, "]\n"...)
	} else {
		b = append(b, "  call   not in the capture\n"...)
	}
	ops := opsBySegment(r)
	for _, c := range r.Chunks() {
		b = appendChunkLines(b, ops, c)
	}
	if m := r.Reply; m != nil {
		b = appendMessageLine(b, "  reply  frame ", m, r.ReplySummary, true)
		b = append(b, ']')
		if r.Call != nil {
			b = append(b, "  latency "...)
			b = strconv.AppendFloat(b, m.Time.Sub(r.Call.Time).Seconds()*1e3, 'f', 3, 64)
			b = append(b, " ms"...)
		}
		b = append(b, '\n')
	} else {
		b = append(b, "  reply  none in the capture\n"...)
	}
	return b
}

// appendMessageLine appends a call's or reply's line up to its closing
// bracket: "  reply  frame %-6d %s  [%s, credits %d%s", a call's without
// the credits.
func appendMessageLine(b []byte, head string, m *analysis.RPCMessage, summary string, credits bool) []byte {
	b = append(b, head...)
	at := len(b)
	b = appendtext.PadRight(appendtext.Int(b, m.Frame), at, 6)
	b = append(b, ' ')
	b = append(b, tableSummary(summary)...)
	b = append(b, "  ["...)
	b = append(b, m.Header.Proc.String()...)
	if credits {
		b = append(b, ", credits "...)
		b = appendtext.Uint(b, uint64(m.Header.Credit))
	}
	if m.Msg == nil || m.Msg.AckFrame == 0 {
		return append(b, ", not acknowledged in the capture"...)
	}
	return appendAcked(b, m.Msg.AckFrame)
}

// appendAcked appends ", acknowledged in FRAME".
func appendAcked(b []byte, frame int) []byte {
	return appendtext.Int(append(b, ", acknowledged in "...), frame)
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

// segName names a segment of an RPC: chunk kind, chunk index, segment.
type segName struct {
	kind         analysis.ChunkKind
	chunk, index int
}

// opsBySegment groups the RDMA READs and WRITEs of r by the segment they
// went to, in capture order: one pass, however many segments the call
// advertised.
func opsBySegment(r *analysis.RPC) map[segName][]*analysis.Message {
	ops := map[segName][]*analysis.Message{}
	for _, l := range [][]*analysis.Message{r.Reads, r.Writes} {
		for _, m := range l {
			if c := m.Chunk; c != nil {
				k := segName{c.Kind, c.Chunk, c.Segment}
				ops[k] = append(ops[k], m)
			}
		}
	}
	return ops
}

func appendChunkLines(b []byte, ops map[segName][]*analysis.Message, c *analysis.Chunk) []byte {
	switch c.Kind {
	case analysis.ChunkRead:
		b = append(b, "  read chunk "...)
		b = appendtext.Int(b, c.Index)
		b = append(b, " at position "...)
		b = appendtext.Uint(b, uint64(c.Position))
		b = append(b, '\n')
	case analysis.ChunkWrite:
		b = append(b, "  write chunk "...)
		b = appendtext.Int(b, c.Index)
		b = append(b, '\n')
	case analysis.ChunkReply:
		b = append(b, "  reply chunk\n"...)
	}
	verb := "RDMA WRITE"
	if c.Kind == analysis.ChunkRead {
		verb = "RDMA READ"
	}
	for j, s := range c.Segments {
		b = append(b, "    segment "...)
		b = appendtext.Int(b, j)
		b = append(b, ": handle "...)
		b = appendtext.Hex0x(b, uint64(s.Handle), 8)
		b = append(b, ", "...)
		b = appendtext.Uint(b, uint64(s.Length))
		b = append(b, " bytes at "...)
		b = appendtext.Hex0x(b, s.Offset, 16)
		b = append(b, ": "...)
		b = appendtext.Int(b, s.Placed)
		b = append(b, " bytes seen"...)
		if s.HasWritten {
			b = append(b, ", reply says "...)
			b = appendtext.Uint(b, uint64(s.Written))
			b = append(b, " written"...)
		}
		b = append(b, '\n')
		for _, m := range ops[segName{c.Kind, c.Index, j}] {
			if (m.Kind == ib.KindReadRequest) != (c.Kind == analysis.ChunkRead) {
				continue // a READ of a Write chunk, a WRITE into a Read chunk: --check reports it
			}
			b = append(b, "      "...)
			b = append(b, verb...)
			b = append(b, " in "...)
			b = appendtext.Int(b, m.FirstFrame)
			if c.Kind == analysis.ChunkRead {
				b = append(b, " (+"...)
				b = appendtext.Uint(b, uint64(m.Chunk.Offset))
				b = append(b, ", "...)
				b = appendtext.Uint(b, uint64(m.DMALen))
				b = append(b, " bytes), responses "...)
				b = appendtext.Int(b, m.RespFirstFrame)
				b = append(b, "–"...)
				b = appendtext.Int(b, m.RespLastFrame)
				b = append(b, ": "...)
				b = appendtext.Int(b, m.RespBytes)
				b = append(b, " bytes"...)
			} else {
				b = append(b, "–"...)
				b = appendtext.Int(b, m.LastFrame)
				b = append(b, " (+"...)
				b = appendtext.Uint(b, uint64(m.Chunk.Offset))
				b = append(b, "): "...)
				b = appendtext.Int(b, m.Len)
				b = append(b, " bytes in "...)
				b = appendtext.Int(b, m.Packets)
				b = append(b, " packets"...)
			}
			if m.AckFrame != 0 {
				b = appendAcked(b, m.AckFrame)
			}
			b = append(b, '\n')
		}
	}
	return b
}

// appendRPCJSON appends one JSON object describing r.
func appendRPCJSON(w *jsonw, r *analysis.RPC) {
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
	for _, c := range r.Chunks() {
		w.beginObject("")
		w.str("kind", c.Kind.String())
		w.int("index", c.Index)
		if c.Kind == analysis.ChunkRead {
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

func rpcSideJSON(w *jsonw, key string, m *analysis.RPCMessage, summary string) {
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

func opsJSON(w *jsonw, key string, ops []*analysis.Message) {
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
