package rpcrdma

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
)

// analysis is what tshark found in a capture (captures/analysis/NAME.txt).
type analysis struct {
	procs               map[Proc]int
	withRead, withWrite int
	withReply           int
	calls               map[string]int // Info column of NFS/RPC calls
	examples            map[int]string // frame → Info column, from "chunk examples"
	malformed           map[int]bool   // frames tshark flagged "[Malformed Packet]"
}

var (
	countLine  = regexp.MustCompile(`^\s+(\d+) (.+)$`)
	headerLine = regexp.MustCompile(`^headers with a (Read list|Write list|Reply chunk)\b.*:\s+(\d+)$`)
	// "   66   0.734837    192.0.2.2 → 192.0.2.1    NFS 210 V3 READ Call, FH: ..."
	exampleLine = regexp.MustCompile(`^\s+(\d+)\s+[\d.]+\s+\S+ → \S+\s+NFS \d+ (.+)$`)
	callIn      = regexp.MustCompile(` \(Call In \d+\)|\[Malformed Packet\]`)
)

func readAnalysis(t *testing.T, name string) analysis {
	t.Helper()
	f, err := os.Open(testutil.SharedCapture(t, filepath.Join("analysis", strings.TrimSuffix(name, ".pcap")+".txt")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := analysis{procs: map[Proc]int{}, calls: map[string]int{},
		examples: map[int]string{}, malformed: map[int]bool{}}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "msg_type"):
			section = "msg_type"
			continue
		case strings.HasPrefix(line, "## NFS/RPC calls"):
			section = "calls"
			continue
		case strings.HasPrefix(line, "#"), line == "":
			section = ""
			continue
		}
		if m := exampleLine.FindStringSubmatch(line); m != nil {
			frame, _ := strconv.Atoi(m[1])
			a.examples[frame] = callIn.ReplaceAllString(m[2], "")
			a.malformed[frame] = strings.HasSuffix(m[2], "[Malformed Packet]")
			continue
		}
		if m := headerLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			switch m[1] {
			case "Read list":
				a.withRead = n
			case "Write list":
				a.withWrite = n
			case "Reply chunk":
				a.withReply = n
			}
			section = ""
			continue
		}
		m := countLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		switch section {
		case "msg_type":
			p, _ := strconv.Atoi(m[2])
			a.procs[Proc(p)] = n
		case "calls":
			a.calls[m[2]] = n
		}
	}
	return a
}

// rdmaWrite is the data of one RDMA Write (one or more packets).
type rdmaWrite struct {
	rkey uint32
	va   uint64
	data []byte
}

// callInfo is what a reply needs from its call.
type callInfo struct{ prog, vers, proc uint32 }

// capturedMsg is one RPC-over-RDMA message of a capture.
type capturedMsg struct {
	Frame      int
	FromClient bool
	Hdr        Header // cloned
	HdrLen     int
	RPC        []byte // the RPC message: inline, or reassembled from the Reply chunk
	Call       callInfo
	IsCall     bool
	Body       []byte // procedure arguments or results
	Summary    string
}

// captureResult is what the test decoded from a capture.
type captureResult struct {
	analysis // counts in tshark's terms
	msgs     []capturedMsg
}

// decodeCapture decodes every RPC-over-RDMA header of a capture and the RPC
// and NFS messages they carry (inline, or in a Reply chunk reassembled from
// the RDMA Writes that filled it), checking along the way that every header
// re-encodes to its bytes and passes the Linux server's checks.
func decodeCapture(t *testing.T, name string) captureResult {
	t.Helper()
	pkts := readRC(t, testutil.SharedCapture(t, name))
	res := captureResult{analysis: analysis{procs: map[Proc]int{}, calls: map[string]int{}}}
	calls := map[uint32]callInfo{}
	var writes []rdmaWrite
	open := map[uint32]*rdmaWrite{} // RDMA Write in progress, by destination QP
	serverOpts := KernelOptions(259, 4096, false)
	var h, again Header // reused, as a decoder would
	for i := range pkts {
		p := &pkts[i]
		switch p.Opcode {
		case opWriteFirst, opWriteOnly:
			w := &rdmaWrite{rkey: p.RKey, va: p.VA, data: append([]byte(nil), p.Payload...)}
			if p.Opcode == opWriteOnly {
				writes = append(writes, *w)
			} else {
				open[p.DestQP] = w
			}
			continue
		case opWriteMiddle, opWriteLast:
			w := open[p.DestQP]
			if w == nil {
				t.Fatalf("frame %d: RDMA WRITE continuation without a first packet", p.Frame)
			}
			w.data = append(w.data, p.Payload...)
			if p.Opcode == opWriteLast {
				writes = append(writes, *w)
				delete(open, p.DestQP)
			}
			continue
		}
		if !p.isRPCSend() {
			continue
		}
		m := capturedMsg{Frame: p.Frame, FromClient: p.Src == [4]byte{192, 0, 2, 2}}
		n, err := h.Decode(p.Payload, DecodeOptions{})
		if err != nil {
			t.Errorf("frame %d: %v", p.Frame, err)
			continue
		}
		m.Hdr, m.HdrLen = h.Clone(), n
		res.procs[h.Proc]++
		if len(h.ReadList) > 0 {
			res.withRead++
		}
		if len(h.WriteList) > 0 {
			res.withWrite++
		}
		if h.ReplyChunk != nil {
			res.withReply++
		}
		// The wire bytes re-encode exactly, and decode again to the same header.
		if enc := h.AppendTo(nil); !bytes.Equal(enc, p.Payload[:n]) {
			t.Errorf("frame %d: re-encoded header differs\n got %x\nwant %x", p.Frame, enc, p.Payload[:n])
		}
		if n != h.Len() {
			t.Errorf("frame %d: Len() = %d, decoded %d bytes", p.Frame, h.Len(), n)
		}
		if _, err := again.Decode(p.Payload, DecodeOptions{}); err != nil || !again.Equal(&h) {
			t.Errorf("frame %d: second decode differs: %v", p.Frame, err)
		}
		// The Linux server accepted every call it got.
		if m.FromClient {
			if _, err := again.Decode(p.Payload, serverOpts); err != nil {
				t.Errorf("frame %d: kernel checks reject a call the server accepted: %v", p.Frame, err)
			}
		}

		m.RPC = p.Payload[n:]
		if h.Proc == ProcNoMsg {
			if h.ReplyChunk == nil {
				t.Errorf("frame %d: RDMA_NOMSG without a Reply chunk", p.Frame)
				continue
			}
			m.RPC = reassemble(t, p.Frame, writes, h.ReplyChunk)
		}
		decodeRPC(t, &m, calls, &res.analysis)
		res.msgs = append(res.msgs, m)
	}
	return res
}

// reassemble returns the bytes the server wrote into the segments of c:
// each segment is rebuilt from the RDMA Writes to its R_key that overlap
// its address range (the server may split one segment into several Writes).
func reassemble(t *testing.T, frame int, writes []rdmaWrite, c *WriteChunk) []byte {
	t.Helper()
	var msg []byte
	for _, s := range c.Segments {
		buf := make([]byte, s.Length)
		filled := 0
		for _, w := range writes {
			if w.rkey != s.Handle {
				continue
			}
			lo := max(w.va, s.Offset)
			hi := min(w.va+uint64(len(w.data)), s.Offset+uint64(s.Length))
			if lo < hi {
				filled += copy(buf[lo-s.Offset:hi-s.Offset], w.data[lo-w.va:hi-w.va])
			}
		}
		if filled < int(s.Length) {
			t.Errorf("frame %d: RDMA WRITEs filled %d of the %d bytes of reply chunk segment %+v",
				frame, filled, s.Length, s)
		}
		msg = append(msg, buf...)
	}
	return msg
}

// decodeRPC decodes the RPC message of m and summarizes it.
func decodeRPC(t *testing.T, m *capturedMsg, calls map[uint32]callInfo, a *analysis) {
	t.Helper()
	xid, mtype, ok := oncrpc.PeekMsgType(m.RPC)
	if !ok {
		t.Errorf("frame %d: no RPC message after the header (%d bytes)", m.Frame, len(m.RPC))
		return
	}
	if xid != m.Hdr.XID {
		t.Errorf("frame %d: RPC XID %#x differs from the transport header's %#x", m.Frame, xid, m.Hdr.XID)
	}
	if mtype == oncrpc.Call {
		var c oncrpc.CallHeader
		n, err := c.Decode(m.RPC)
		if err != nil {
			t.Errorf("frame %d: %v", m.Frame, err)
			return
		}
		if !bytes.Equal(c.AppendTo(nil), m.RPC[:n]) || c.Len() != n {
			t.Errorf("frame %d: call header does not re-encode to its bytes", m.Frame)
		}
		m.IsCall, m.Call, m.Body = true, callInfo{c.Prog, c.Vers, c.Proc}, m.RPC[n:]
		calls[xid] = m.Call
		m.Summary = nfs.SummarizeCall(c.Prog, c.Vers, c.Proc, m.Body)
		a.calls[callKey(m.Summary)]++
		return
	}
	var r oncrpc.ReplyHeader
	n, err := r.Decode(m.RPC)
	if err != nil {
		t.Errorf("frame %d: %v", m.Frame, err)
		return
	}
	if !bytes.Equal(r.AppendTo(nil), m.RPC[:n]) || r.Len() != n {
		t.Errorf("frame %d: reply header does not re-encode to its bytes", m.Frame)
	}
	if r.Stat != oncrpc.MsgAccepted || r.AcceptStat != oncrpc.Success {
		t.Errorf("frame %d: reply %v/%v", m.Frame, r.Stat, r.AcceptStat)
	}
	ci, ok := calls[xid]
	if !ok {
		t.Errorf("frame %d: reply to an unseen call %#x", m.Frame, xid)
		return
	}
	m.Call, m.Body = ci, m.RPC[n:]
	m.Summary = nfs.SummarizeReply(ci.prog, ci.vers, ci.proc, m.Body)
}

// callKey turns a call summary into tshark's Info text as the analysis
// files list it: "V3 READ Call, FH: ..." → "V3 READ"; "V4 Call GETATTR FH:
// 0x62d40c52" → "V4 GETATTR FH: 0x62d40c52".
func callKey(s string) string {
	if strings.HasPrefix(s, "V4 Call ") {
		s = "V4 " + strings.TrimPrefix(s, "V4 Call ")
		if i := strings.Index(s, ","); i >= 0 {
			s = s[:i]
		}
		return s
	}
	if i := strings.Index(s, " Call"); i >= 0 {
		return s[:i]
	}
	return s
}

var captures = []string{"nfs3-rdma.pcap", "nfs4.1-rdma.pcap"}

// TestCaptureCounts compares what the codecs find in the real captures with
// what tshark found: message types, headers with each kind of chunk, and
// the NFS calls by their Info text.
func TestCaptureCounts(t *testing.T) {
	for _, name := range captures {
		t.Run(name, func(t *testing.T) {
			got := decodeCapture(t, name)
			want := readAnalysis(t, name)
			if !reflect.DeepEqual(got.procs, want.procs) {
				t.Errorf("message types: got %v, tshark %v", got.procs, want.procs)
			}
			if got.withRead != want.withRead || got.withWrite != want.withWrite || got.withReply != want.withReply {
				t.Errorf("headers with Read list/Write list/Reply chunk: got %d/%d/%d, tshark %d/%d/%d",
					got.withRead, got.withWrite, got.withReply, want.withRead, want.withWrite, want.withReply)
			}
			if len(want.calls) == 0 {
				t.Fatal("the analysis lists no calls")
			}
			if !reflect.DeepEqual(got.calls, want.calls) {
				t.Errorf("calls:\n got %v\ntshark %v", got.calls, want.calls)
			}
			for _, m := range got.msgs {
				if m.Summary == "" || strings.Contains(m.Summary, "Malformed") {
					t.Errorf("frame %d: summary %q", m.Frame, m.Summary)
				}
			}
		})
	}
}

// TestCaptureSummariesMatchTshark compares the summaries of the frames the
// analysis files quote with tshark's Info column, minus "(Call In N)". For
// the READ replies tshark flags "[Malformed Packet]" (their data went by
// RDMA Write and tshark 4.0 does not put it back) tshark's text must be a
// prefix of ours: we decode what it could not.
func TestCaptureSummariesMatchTshark(t *testing.T) {
	for _, name := range captures {
		t.Run(name, func(t *testing.T) {
			got := decodeCapture(t, name)
			want := readAnalysis(t, name)
			if len(want.examples) == 0 {
				t.Fatal("the analysis quotes no NFS frames")
			}
			byFrame := map[int]string{}
			for _, m := range got.msgs {
				byFrame[m.Frame] = m.Summary
			}
			for frame, info := range want.examples {
				got := byFrame[frame]
				if got != info && !(want.malformed[frame] && strings.HasPrefix(got, info)) {
					t.Errorf("frame %d: summary %q, tshark %q", frame, got, info)
				}
			}
		})
	}
}

// TestCaptureDataPositions checks the chunk arithmetic on real traffic: the
// WRITE whose data came by RDMA Read has its data at the Read chunk's XDR
// position with the chunk's length, and every READ reply says as many bytes
// as the server wrote into the Write chunk.
func TestCaptureDataPositions(t *testing.T) {
	for _, name := range captures {
		t.Run(name, func(t *testing.T) {
			got := decodeCapture(t, name)
			var reads, writes int
			for _, m := range got.msgs {
				if m.IsCall && len(m.Hdr.ReadList) > 0 {
					writes++
					seg := m.Hdr.ReadList[0]
					pos, dataLen := writeDataPos(t, &m)
					if pos != int(seg.Position) || dataLen != seg.Length {
						t.Errorf("frame %d: WRITE data at %d (%d bytes), Read chunk at position %d (%d bytes)",
							m.Frame, pos, dataLen, seg.Position, seg.Length)
					}
					// NFSv3's data is the last item of the message; NFSv4's
					// WRITE may be followed by more operations.
					if (m.Call.vers == 3 && len(m.RPC) != int(seg.Position)) || len(m.RPC) < int(seg.Position) {
						t.Errorf("frame %d: inline message is %d bytes, Read chunk position %d",
							m.Frame, len(m.RPC), seg.Position)
					}
				}
				if !m.IsCall && len(m.Hdr.WriteList) > 0 {
					reads++
					count := readReplyCount(t, &m)
					if chunk := m.Hdr.WriteList[0].Length(); uint64(count) != chunk {
						t.Errorf("frame %d: READ reply count %d, Write chunk carries %d bytes", m.Frame, count, chunk)
					}
				}
			}
			if reads == 0 || writes != 1 {
				t.Errorf("found %d READ replies with a Write chunk and %d WRITE calls with a Read chunk", reads, writes)
			}
		})
	}
}

// writeDataPos returns the XDR position (in the RPC message) and length of
// the data of the WRITE call in m.
func writeDataPos(t *testing.T, m *capturedMsg) (int, uint32) {
	t.Helper()
	argOff := len(m.RPC) - len(m.Body)
	switch m.Call.vers {
	case 3:
		var a nfs.Write3Args
		if _, err := a.Decode(m.Body, nfs.DataReduced); err != nil {
			t.Fatalf("frame %d: %v", m.Frame, err)
		}
		return argOff + a.DataPos, a.DataLen
	case 4:
		var c nfs.Compound4Args
		if _, err := c.Decode(m.Body, nfs.DataReduced); err != nil {
			t.Fatalf("frame %d: %v", m.Frame, err)
		}
		if len(c.Ops) != int(c.NumOps) {
			t.Errorf("frame %d: decoded %d of %d operations", m.Frame, len(c.Ops), c.NumOps)
		}
		for _, op := range c.Ops {
			if op.Op == nfs.Op4Write {
				return argOff + op.DataPos, op.Count
			}
		}
	}
	t.Fatalf("frame %d: no WRITE in a call with a Read chunk", m.Frame)
	return 0, 0
}

// readReplyCount returns the data length of the READ reply in m.
func readReplyCount(t *testing.T, m *capturedMsg) uint32 {
	t.Helper()
	switch m.Call.vers {
	case 3:
		var r nfs.Read3Res
		if _, err := r.Decode(m.Body, nfs.DataReduced); err != nil {
			t.Fatalf("frame %d: %v", m.Frame, err)
		}
		if r.Data != nil || r.DataLen != r.Count {
			t.Errorf("frame %d: READ3res data %d bytes inline, length word %d, count %d", m.Frame, len(r.Data), r.DataLen, r.Count)
		}
		return r.Count
	case 4:
		var c nfs.Compound4Res
		if _, err := c.Decode(m.Body, nfs.DataReduced); err != nil {
			t.Fatalf("frame %d: %v", m.Frame, err)
		}
		for _, op := range c.Ops {
			if op.Op == nfs.Op4Read {
				return op.Count
			}
		}
	}
	t.Fatalf("frame %d: no READ result in a reply with a Write chunk", m.Frame)
	return 0
}
