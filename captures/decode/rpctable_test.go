package decode

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
)

func TestTableSummary(t *testing.T) {
	short := "V3 READ Reply Len: 6"
	if got := tableSummary(short); got != short {
		t.Errorf("short summary changed: %q", got)
	}
	var names []string
	for i := range 150 {
		names = append(names, "file-"+strings.Repeat("x", i%3)+".txt")
	}
	long := "V3 READDIR Reply data " + strings.Join(names, " ")
	got := tableSummary(long)
	if len(got) > maxTableSummary+20 || !strings.HasPrefix(got, "V3 READDIR Reply data file-") {
		t.Fatalf("long summary not cut: %q", got)
	}
	kept := len(strings.Fields(strings.SplitN(got, " … ", 2)[0]))
	var more int
	if _, err := fmt.Sscanf(got[strings.Index(got, "(+"):], "(+%d more)", &more); err != nil {
		t.Fatalf("no count of left-out words in %q: %v", got, err)
	}
	if kept+more != len(strings.Fields(long)) {
		t.Errorf("kept %d + left out %d != %d words", kept, more, len(strings.Fields(long)))
	}
}

// --rpc streams: each RPC is printed once it and those before it are
// settled, long before the end of the capture, and the whole table is
// the one an analysis that keeps every RPC prints at the end.
func TestRPCTableStreams(t *testing.T) {
	for _, name := range []string{"nfs3-rdma.pcap", "nfs4.1-rdma.pcap", "sim-nfs3.pcap"} {
		path := testutil.Capture(t, name)
		var want bytes.Buffer
		an, err := ReadFile(path, func(*analysis.Packet) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if err := writeRPCTable(&want, an.RPCs()); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		out := bufio.NewWriterSize(&got, 16) // bufio's smallest: what is printed shows at once
		rs := rpcStream{out: out, next: 1, pending: map[int]*analysis.RPC{}}
		firstAt, frames := 0, 0
		an, err = ReadFileWith(path, analysis.Options{DropRPCs: true, DropChunkData: true}, func(p *analysis.Packet) error {
			frames = p.Frame
			err := rs.packet(p)
			if firstAt == 0 && got.Len() > 0 {
				firstAt = p.Frame
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.finish(an.RPCs()); err != nil {
			t.Fatal(err)
		}
		out.Flush()
		if got.String() != want.String() {
			t.Errorf("%s: streamed table differs:\n%s\nwant\n%s", name, got.String(), want.String())
		}
		if firstAt == 0 || firstAt > frames/2 {
			t.Errorf("%s: the first RPC was printed at frame %d of %d", name, firstAt, frames)
		}
	}
}

// fmtRPCBlock is the RPC block as the fmt verbs that define its layout
// write it: appendRPCBlock must give the same text.
func fmtRPCBlock(r *analysis.RPC) string {
	var sb strings.Builder
	ack := func(frame int) string {
		if frame == 0 {
			return ""
		}
		return fmt.Sprintf(", acknowledged in %d", frame)
	}
	msgAck := func(m *analysis.RPCMessage) string {
		if m.Msg == nil || m.Msg.AckFrame == 0 {
			return ", not acknowledged in the capture"
		}
		return ack(m.Msg.AckFrame)
	}
	fmt.Fprintf(&sb, "RPC %d  XID 0x%08x  %v → %v\n", r.ID, r.XID, r.Client, r.Server)
	if c := r.Call; c != nil {
		fmt.Fprintf(&sb, "  call   frame %-6d %s  [%s%s]\n", c.Frame, tableSummary(r.CallSummary), c.Header.Proc, msgAck(c))
	} else {
		sb.WriteString("  call   not in the capture\n")
	}
	ops := opsBySegment(r)
	for _, c := range r.Chunks() {
		switch c.Kind {
		case analysis.ChunkRead:
			fmt.Fprintf(&sb, "  read chunk %d at position %d\n", c.Index, c.Position)
		case analysis.ChunkWrite:
			fmt.Fprintf(&sb, "  write chunk %d\n", c.Index)
		case analysis.ChunkReply:
			sb.WriteString("  reply chunk\n")
		}
		for j, s := range c.Segments {
			want := ""
			if s.HasWritten {
				want = fmt.Sprintf(", reply says %d written", s.Written)
			}
			fmt.Fprintf(&sb, "    segment %d: handle 0x%08x, %d bytes at 0x%016x: %d bytes seen%s\n",
				j, s.Handle, s.Length, s.Offset, s.Placed, want)
			for _, m := range ops[segName{c.Kind, c.Index, j}] {
				switch {
				case (m.Kind == ib.KindReadRequest) != (c.Kind == analysis.ChunkRead):
				case c.Kind == analysis.ChunkRead:
					fmt.Fprintf(&sb, "      RDMA READ in %d (+%d, %d bytes), responses %d–%d: %d bytes%s\n",
						m.FirstFrame, m.Chunk.Offset, m.DMALen, m.RespFirstFrame, m.RespLastFrame, m.RespBytes, ack(m.AckFrame))
				default:
					fmt.Fprintf(&sb, "      RDMA WRITE in %d–%d (+%d): %d bytes in %d packets%s\n",
						m.FirstFrame, m.LastFrame, m.Chunk.Offset, m.Len, m.Packets, ack(m.AckFrame))
				}
			}
		}
	}
	if m := r.Reply; m != nil {
		lat := ""
		if r.Call != nil {
			lat = fmt.Sprintf("  latency %.3f ms", m.Time.Sub(r.Call.Time).Seconds()*1e3)
		}
		fmt.Fprintf(&sb, "  reply  frame %-6d %s  [%s, credits %d%s]%s\n", m.Frame, tableSummary(r.ReplySummary),
			m.Header.Proc, m.Header.Credit, msgAck(m), lat)
	} else {
		sb.WriteString("  reply  none in the capture\n")
	}
	return sb.String()
}

// TestRPCBlockAsFmt checks the appended RPC block against fmt's, on every
// RPC of the test captures and again with their numbers pushed to the
// edges: widths overflowed, the largest values, a negative latency, a
// long summary, a missing call or reply.
func TestRPCBlockAsFmt(t *testing.T) {
	n := 0
	for _, name := range []string{"nfs3-rdma.pcap", "nfs4.1-rdma.pcap", "sim-nfs3.pcap", "rdmacm-rping.pcap"} {
		an, err := ReadFile(testutil.Capture(t, name), func(*analysis.Packet) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range an.RPCs() {
			check := func(what string) {
				t.Helper()
				n++
				if got, want := string(appendRPCBlock([]byte("x"), r)), "x"+fmtRPCBlock(r); got != want {
					t.Fatalf("%s RPC %d %s:\n%s\nfmt:\n%s", name, r.ID, what, got, want)
				}
			}
			check("as decoded")
			r.ID, r.XID = 1<<40, 0xffffffff
			r.CallSummary = strings.Repeat("entry ", 40)
			for _, c := range r.Chunks() {
				c.Index, c.Position = 12345, 0xffffffff
				for i := range c.Segments {
					s := c.Segments[i]
					s.Handle, s.Length, s.Offset, s.Placed = 0xffffffff, 0xffffffff, 1<<64-1, 1234567
					s.Written, s.HasWritten = 0xffffffff, !s.HasWritten
				}
			}
			for _, l := range [][]*analysis.Message{r.Reads, r.Writes} {
				for _, m := range l {
					m.FirstFrame, m.LastFrame, m.Len, m.Packets, m.AckFrame = 9999999, 10000000, 1<<31, 7, 12
					m.RespFirstFrame, m.RespLastFrame, m.RespBytes, m.DMALen = 1, 2, 0, 0xffffffff
				}
			}
			if r.Reply != nil && r.Call != nil {
				r.Reply.Frame, r.Reply.Header.Credit = 1234567, 0xffffffff
				r.Reply.Time = r.Call.Time.Add(-1234567890)
			}
			check("at the edges")
			r.Call, r.Reply = nil, nil
			check("without call and reply")
		}
	}
	if n < 30 {
		t.Fatalf("only %d blocks checked", n)
	}
}
