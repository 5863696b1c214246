package analysis

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/nfs"
)

// TestKernelNFSCaptures checks the analysis of the kernel's NFS traffic:
// no anomaly, every RPC answered, every RDMA READ and WRITE packet placed
// in the segment its call advertised, and the calls and replies rebuilt
// with their chunk data.
func TestKernelNFSCaptures(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rpcs       int
		readChunks int
		nomsg      int
	}{
		{"nfs3-rdma.pcap", 38, 1, 5},
		{"nfs4.1-rdma.pcap", 50, 1, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decodeFile(t, testutil.Capture(t, tc.name))
			for _, n := range d.an.Notes() {
				t.Errorf("%v", n)
			}
			if got := len(d.an.RPCs()); got != tc.rpcs {
				t.Errorf("%d RPCs, want %d", got, tc.rpcs)
			}
			placed, rdma := 0, 0
			for i := range d.packets {
				p := &d.packets[i]
				if p.BTH == nil {
					continue
				}
				switch p.BTH.Opcode.Kind() {
				case ib.KindWrite, ib.KindReadRequest, ib.KindReadResponse:
					rdma++
					if p.Analysis.Chunk.RPC != nil && !p.Analysis.Chunk.Past {
						placed++
					}
				}
				if p.ICRC.State != frame.CRCGood {
					t.Errorf("frame %d: ICRC %v", p.Frame, p.ICRC.State)
				}
			}
			if placed != rdma || rdma == 0 {
				t.Errorf("%d of %d RDMA READ/WRITE packets placed in a segment", placed, rdma)
			}
			reads, nomsg := 0, 0
			for _, r := range d.an.RPCs() {
				if r.Call == nil || r.Reply == nil {
					t.Errorf("XID 0x%08x: call %v, reply %v", r.XID, r.Call != nil, r.Reply != nil)
					continue
				}
				if r.Call.Msg.AckFrame == 0 || r.Reply.Msg.AckFrame == 0 {
					t.Errorf("XID 0x%08x: call or reply never acknowledged", r.XID)
				}
				if strings.Contains(r.CallSummary+r.ReplySummary, "Malformed") {
					t.Errorf("XID 0x%08x: %s / %s", r.XID, r.CallSummary, r.ReplySummary)
				}
				if r.Reply.Header.Proc == 1 {
					nomsg++
				}
				if len(r.ReadChunks) > 0 {
					reads++
					checkWriteCall(t, r)
				}
				if len(r.WriteChunks) > 0 && r.WriteChunks[0].written() > 0 {
					checkReadReply(t, r)
				}
			}
			if reads != tc.readChunks || nomsg != tc.nomsg {
				t.Errorf("%d calls with Read chunks, %d RDMA_NOMSG replies", reads, nomsg)
			}
		})
	}
}

// checkWriteCall rebuilds an NFS WRITE call with its Read chunk: the data
// is back in place, as the RDMA READ responses brought it.
func checkWriteCall(t *testing.T, r *RPC) {
	b, err := r.CallBytes()
	if err != nil {
		t.Fatalf("XID 0x%08x: %v", r.XID, err)
	}
	seg := r.ReadChunks[0].Segments[0]
	data, missing := seg.Bytes(seg.Length)
	if missing != 0 || !bytes.Contains(b, data) || len(b) != len(r.Call.Inline)+len(data) {
		t.Errorf("XID 0x%08x: rebuilt call of %d bytes, inline %d, chunk %d, missing %d", r.XID, len(b), len(r.Call.Inline), len(data), missing)
	}
	pos := int(r.ReadChunks[0].Position)
	if !bytes.Equal(b[pos:pos+len(data)], data) {
		t.Errorf("XID 0x%08x: the Read chunk data is not at position %d", r.XID, pos)
	}
}

// checkReadReply rebuilds an NFS READ reply with its Write chunk: it now
// decodes with the data inline, as long as the count says.
func checkReadReply(t *testing.T, r *RPC) {
	b, err := r.ReplyBytes()
	if err != nil {
		t.Fatalf("XID 0x%08x: %v", r.XID, err)
	}
	want := r.WriteChunks[0].written()
	if len(b) < want {
		t.Fatalf("XID 0x%08x: rebuilt reply %d bytes, write chunk %d", r.XID, len(b), want)
	}
	sum := nfs.SummarizeReply(r.Prog, r.Vers, r.Proc, b[r.replyHdrLen(t, b):])
	if strings.Contains(sum, "Malformed") || sum != r.ReplySummary {
		t.Errorf("XID 0x%08x: rebuilt reply summarises as %q, reply as %q", r.XID, sum, r.ReplySummary)
	}
	if r.Vers == 3 {
		var res nfs.Read3Res
		if _, err := res.Decode(b[r.replyHdrLen(t, b):], nfs.DataInline); err != nil || len(res.Data) != int(res.Count) || int(res.Count) != want {
			t.Errorf("XID 0x%08x: READ3res data %d bytes, count %d, write chunk %d: %v", r.XID, len(res.Data), res.Count, want, err)
		}
	}
}

func (r *RPC) replyHdrLen(t *testing.T, b []byte) int {
	n := 24 // xid, REPLY, MSG_ACCEPTED, verifier AUTH_NONE (flavor, length), SUCCESS
	if len(b) < n {
		t.Fatalf("reply of %d bytes", len(b))
	}
	return n
}

// TestVerbsTrafficIsNotRPC: plain verbs traffic (ibv_rc_pingpong, rping,
// perftest) is never taken for RPC-over-RDMA, and the retransmissions of
// the pingpong capture are found.
func TestVerbsTrafficIsNotRPC(t *testing.T) {
	for _, n := range []string{"verbs-rc-pingpong.pcap", "rdmacm-rping.pcap", "perftest-ib-read-bw.pcap", "perftest-ib-write-bw.pcap"} {
		d := decodeFile(t, testutil.Capture(t, n))
		if len(d.an.RPCs()) != 0 {
			t.Errorf("%s: %d RPCs", n, len(d.an.RPCs()))
		}
		for _, p := range d.packets {
			if p.Analysis.RPC != nil {
				t.Errorf("%s frame %d: RPC-over-RDMA claimed", n, p.Frame)
			}
		}
	}
	d := decodeFile(t, testutil.Capture(t, "verbs-rc-pingpong.pcap"))
	var retrans []int
	for _, n := range d.an.Notes() {
		if n.Kind == NotePSNRetransmission {
			retrans = append(retrans, n.Frame)
		}
	}
	if want := []int{20, 21, 22, 23, 58, 59, 60, 61}; !slices.Equal(retrans, want) {
		t.Errorf("retransmissions in frames %v, want %v", retrans, want)
	}
	// Four-packet SENDs: SEND #1 of the first flow is frames 1-4, and the
	// ACK of frame 5 acknowledges it.
	if m := d.packets[3].Analysis.Msg; m == nil || m.Packets != 4 || !m.Complete || m.AckFrame != 5 || m.Len != 4096 {
		t.Errorf("frame 4: message %+v", m)
	}
}

// TestReadPairing: every RDMA READ of the perftest and rping captures is
// answered with as many bytes as it asked for.
func TestReadPairing(t *testing.T) {
	for _, n := range []string{"perftest-ib-read-bw.pcap", "rdmacm-rping.pcap"} {
		d := decodeFile(t, testutil.Capture(t, n))
		reads := 0
		for _, f := range d.an.Flows {
			for _, m := range f.Msgs {
				if m.Kind != ib.KindReadRequest {
					continue
				}
				reads++
				if !m.RespDone || m.RespBytes != int(m.DMALen) || m.AckFrame != m.RespLastFrame {
					t.Errorf("%s: READ in %d: %+v", n, m.FirstFrame, m)
				}
			}
		}
		if reads != 5 || len(d.an.Notes()) != 0 {
			t.Errorf("%s: %d READs, notes %v", n, reads, d.an.Notes())
		}
	}
}

// TestCMLearnsTheConnection: rping's CM exchange pairs the two flows.
func TestCMLearnsTheConnection(t *testing.T) {
	d := decodeFile(t, testutil.Capture(t, "rdmacm-rping.pcap"))
	cs := d.an.Connections()
	if len(cs) != 1 || !cs[0].Established() || cs[0].ActiveQPN != 0x13 || cs[0].PassiveQPN != 0x13 ||
		cs[0].PMTU != 1024 || !cs[0].HaveIP || cs[0].ReqFrame != 1 || cs[0].RepFrame != 2 || cs[0].RtuFrame != 3 {
		t.Fatalf("connections %+v", cs)
	}
	for _, f := range d.an.Flows {
		if f.Peer == nil || f.Inferred || !f.FromStart {
			t.Errorf("flow %v: peer %v inferred %v from start %v", f.Key, f.Peer != nil, f.Inferred, f.FromStart)
		}
	}
}

// TestPublicCaptures runs the analysis over the third-party captures.
func TestPublicCaptures(t *testing.T) {
	for _, path := range testutil.PublicCaptures(t) {
		d := decodeFile(t, path)
		name := filepath.Base(path)
		anomalies := map[NoteKind]int{}
		for _, n := range d.an.Notes() {
			if n.Kind.Anomaly() {
				anomalies[n.Kind]++
			}
		}
		ibFrames := 0
		for _, p := range d.packets {
			if p.BTH != nil {
				ibFrames++
				if p.Analysis.RPC != nil {
					t.Errorf("%s frame %d: RPC-over-RDMA claimed", name, p.Frame)
				}
			}
		}
		switch {
		case strings.Contains(name, "icrc-mismatch"):
			if anomalies[NoteBadICRC] != 21 {
				t.Errorf("%s: %v", name, anomalies)
			}
		case strings.Contains(name, "sport69"):
			if ibFrames != 105 {
				t.Errorf("%s: %d RoCE frames, want 105", name, ibFrames)
			}
		case strings.Contains(name, "native-ib"):
			for _, p := range d.packets {
				if p.VCRC.State != frame.CRCGood || p.ICRC.State != frame.CRCGood {
					t.Errorf("%s frame %d: ICRC %v VCRC %v", name, p.Frame, p.ICRC.State, p.VCRC.State)
				}
			}
		case strings.Contains(name, "rocev1"):
			v1 := 0
			for _, p := range d.packets {
				if p.Encap == frame.EncapRoCEv1 && p.ICRC.State == frame.CRCGood {
					v1++
				}
			}
			if v1 != 323 {
				t.Errorf("%s: %d good RoCEv1 packets, want 323", name, v1)
			}
		}
		t.Logf("%s: %d InfiniBand frames, anomalies %v", name, ibFrames, anomalies)
	}
}

// TestSkipText: under Options.SkipText the notes are the same findings
// on the same frames, without their text, and a SEND that is not
// RPC-over-RDMA still says so.
func TestSkipText(t *testing.T) {
	for _, n := range []string{"rdmacm-rping.pcap", "verbs-rc-pingpong.pcap", "nfs3-rdma.pcap"} {
		path := testutil.Capture(t, n)
		type seen struct {
			notes  []Note
			notRPC bool
		}
		var with, without []seen
		decodeEach(t, path, Options{}, func(p *Packet) {
			with = append(with, seen{slices.Clone(p.Analysis.Notes), p.Analysis.NotRPC != ""})
		})
		decodeEach(t, path, Options{SkipText: true}, func(p *Packet) {
			without = append(without, seen{slices.Clone(p.Analysis.Notes), p.Analysis.NotRPC != ""})
		})
		var notes, notRPC int
		for i := range with {
			w, s := with[i], without[i]
			if w.notRPC != s.notRPC {
				t.Errorf("%s frame %d: NotRPC set %v, under SkipText %v", n, i+1, w.notRPC, s.notRPC)
			}
			if len(w.notes) != len(s.notes) {
				t.Fatalf("%s frame %d: %d notes, under SkipText %d", n, i+1, len(w.notes), len(s.notes))
			}
			for k := range w.notes {
				if w.notes[k].Text == "" || s.notes[k].Text != "" || w.notes[k].Kind != s.notes[k].Kind || w.notes[k].Frame != s.notes[k].Frame {
					t.Errorf("%s frame %d: note %+v, under SkipText %+v", n, i+1, w.notes[k], s.notes[k])
				}
			}
			notes += len(w.notes)
			if w.notRPC {
				notRPC++
			}
		}
		if n == "verbs-rc-pingpong.pcap" && notes == 0 || n == "rdmacm-rping.pcap" && notRPC == 0 {
			t.Errorf("%s: %d notes, %d SENDs not RPC: the test compares nothing", n, notes, notRPC)
		}
	}
}
