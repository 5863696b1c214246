package wire_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/wire"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Hand-built transfers: client QP 0x11 to server QP 0x12, path MTU 1024,
// 10 Gb/s and 2 µs one way (the sim's defaults).
func transfer(opc verbs.WROpcode, n int, psn uint32, due time.Duration) sim.Transfer {
	pkts := max(1, (n+1023)/1024)
	payload := make([]byte, n)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	return sim.Transfer{
		Op: verbs.Op{ID: 1, Node: "client", QPNum: 0x11, PeerNode: "server", PeerQPNum: 0x12, Opcode: opc,
			Bytes: n, Due: due, PathMTU: 1024, PSN: verbs.PSNRange{First: psn, Last: psn + uint32(pkts) - 1, Count: pkts}},
		OnWire: true, Payload: payload, Response: sim.ACK,
	}
}

// The UDP source port of QP 0x11 talking to QP 0x12 with no RDMA-CM flow
// label: rdma_calc_flow_label(0x11, 0x12) = 0x11 * 0x12 = 306, folded
// into 0xC000 + 306.
const sport1112 = 0xc000 + 306

// TestSendOnly checks a 10-byte SEND and its ACK byte for byte.
func TestSendOnly(t *testing.T) {
	e := wire.NewEmitter(wire.Options{})
	tr := transfer(verbs.WRSend, 10, 0x292a08, 10*time.Microsecond)
	tr.Signaled, tr.MSN = true, 1
	ps := decodeAll(t, e.Frames(tr))
	if len(ps) != 2 {
		t.Fatalf("%d frames, want SEND ONLY and ACK", len(ps))
	}
	send, ack := ps[0], ps[1]
	b := send.bth
	if b.Opcode != ib.OpcodeRCSendOnly || b.DestQP != 0x12 || b.PSN != 0x292a08 || !b.A || b.PadCnt != 2 ||
		string(b.Payload) != "abcdefghij" || b.Headers != 0 {
		t.Errorf("SEND %+v", b)
	}
	if send.ip.SrcIP.String() != "192.0.2.2" || send.ip.DstIP.String() != "192.0.2.1" ||
		send.eth.SrcMAC.String() != "52:54:00:12:34:02" || send.eth.DstMAC.String() != "52:54:00:12:34:01" ||
		send.udp.SrcPort != sport1112 || ack.udp.SrcPort != sport1112 {
		t.Errorf("addresses %v → %v, %v → %v, ports %v %v", send.ip.SrcIP, send.ip.DstIP, send.eth.SrcMAC, send.eth.DstMAC,
			send.udp.SrcPort, ack.udp.SrcPort)
	}
	a := ack.bth
	if a.Opcode != ib.OpcodeRCAcknowledge || a.DestQP != 0x11 || a.PSN != 0x292a08 || a.A ||
		a.AETH.Syndrome != 0x1f || a.AETH.MSN != 1 || len(a.Payload) != 0 || ack.ip.SrcIP.String() != "192.0.2.1" {
		t.Errorf("ACK %+v", a)
	}
	// The SEND leaves at Due minus its 8 ns on the link and the 2 µs
	// latency; the ACK leaves when it has landed, at Due.
	if got := send.time.Sub(wire.DefaultEpoch()); got != 10*time.Microsecond-8-2*time.Microsecond {
		t.Errorf("SEND at %v", got)
	}
	if got := ack.time.Sub(wire.DefaultEpoch()); got != 10*time.Microsecond {
		t.Errorf("ACK at %v", got)
	}
	golden(t, "send_only", ps, true)
}

// TestWriteSegments checks a 2501-byte RDMA WRITE at path MTU 1024:
// FIRST with the RETH, MIDDLE, LAST with the pad and AckReq, consecutive
// PSNs, one ACK.
func TestWriteSegments(t *testing.T) {
	e := wire.NewEmitter(wire.Options{})
	tr := transfer(verbs.WRRDMAWrite, 2501, 100, 20*time.Microsecond)
	tr.RemoteAddr, tr.RKey, tr.MSN = 0x7f0012345000, 0x1234, 7
	ps := decodeAll(t, e.Frames(tr))
	want := []struct {
		op      ib.Opcode
		psn     uint32
		ackReq  bool
		reth    bool
		payload int
		pad     uint8
	}{
		{ib.OpcodeRCWriteFirst, 100, false, true, 1024, 0},
		{ib.OpcodeRCWriteMiddle, 101, false, false, 1024, 0},
		{ib.OpcodeRCWriteLast, 102, true, false, 453, 3},
		{ib.OpcodeRCAcknowledge, 102, false, false, 0, 0},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d frames, want %d", len(ps), len(want))
	}
	var data []byte
	for i, w := range want {
		b := ps[i].bth
		if b.Opcode != w.op || b.PSN != w.psn || b.A != w.ackReq || (b.Headers&ib.HasRETH != 0) != w.reth ||
			len(b.Payload) != w.payload || b.PadCnt != w.pad {
			t.Errorf("frame %d: %s, want %v PSN %d AckReq %v RETH %v payload %d pad %d", i+1, summary(ps[i], wire.DefaultEpoch()),
				w.op, w.psn, w.ackReq, w.reth, w.payload, w.pad)
		}
		if i < 3 {
			data = append(data, b.Payload...)
		}
	}
	if r := ps[0].bth.RETH; r.VA != 0x7f0012345000 || r.RKey != 0x1234 || r.DMALen != 2501 {
		t.Errorf("RETH %+v", r)
	}
	if !bytes.Equal(data, tr.Payload) {
		t.Error("the packets do not carry the WRITE's bytes in order")
	}
	if a := ps[3].bth.AETH; a.Syndrome != 0x1f || a.MSN != 7 {
		t.Errorf("AETH %+v", a)
	}
	golden(t, "write_segments", ps, false)
}

// TestOpcodesWithImmAndInv checks the last packets of SEND with
// invalidate and RDMA WRITE with immediate.
func TestOpcodesWithImmAndInv(t *testing.T) {
	e := wire.NewEmitter(wire.Options{})
	inv := transfer(verbs.WRSendWithInv, 1500, 10, 10*time.Microsecond)
	inv.InvalidateRKey, inv.MSN = 0xabcd0102, 1
	imm := transfer(verbs.WRRDMAWriteWithImm, 100, 12, 20*time.Microsecond)
	imm.ImmData, imm.RemoteAddr, imm.RKey, imm.MSN = 0xfeedf00d, 0x1000, 0x77, 2
	ps := decodeAll(t, append(e.Frames(inv), e.Frames(imm)...))
	if len(ps) != 5 {
		t.Fatalf("%d frames", len(ps))
	}
	if b := ps[0].bth; b.Opcode != ib.OpcodeRCSendFirst || b.Headers&ib.HasIETH != 0 {
		t.Errorf("frame 1: %s", summary(ps[0], wire.DefaultEpoch()))
	}
	if b := ps[1].bth; b.Opcode != ib.OpcodeRCSendLastInv || b.IETH.RKey != 0xabcd0102 || b.PSN != 11 {
		t.Errorf("frame 2: %s", summary(ps[1], wire.DefaultEpoch()))
	}
	if b := ps[3].bth; b.Opcode != ib.OpcodeRCWriteOnlyImm || b.ImmDt.Data != 0xfeedf00d || b.RETH.RKey != 0x77 ||
		b.RETH.DMALen != 100 || b.Headers&(ib.HasRETH|ib.HasImmDt) != ib.HasRETH|ib.HasImmDt {
		t.Errorf("frame 4: %s", summary(ps[3], wire.DefaultEpoch()))
	}
	golden(t, "imm_inv", ps, false)
}

// TestReadResponses checks a 2500-byte RDMA READ: the request with its
// RETH, then FIRST, MIDDLE and LAST responses on the response PSNs, the
// AETH on FIRST and LAST only, and no ACK.
func TestReadResponses(t *testing.T) {
	e := wire.NewEmitter(wire.Options{})
	tr := transfer(verbs.WRRDMARead, 2500, 200, 30*time.Microsecond)
	tr.RemoteAddr, tr.RKey, tr.MSN, tr.RespPSN = 0x2000, 0x99, 8, tr.PSN
	ps := decodeAll(t, e.Frames(tr))
	if len(ps) != 4 {
		t.Fatalf("%d frames", len(ps))
	}
	req := ps[0].bth
	if req.Opcode != ib.OpcodeRCReadRequest || req.PSN != 200 || !req.A || req.DestQP != 0x12 ||
		req.RETH.VA != 0x2000 || req.RETH.RKey != 0x99 || req.RETH.DMALen != 2500 || len(req.Payload) != 0 {
		t.Errorf("request: %s", summary(ps[0], wire.DefaultEpoch()))
	}
	var data []byte
	for i, w := range []struct {
		op   ib.Opcode
		aeth bool
	}{{ib.OpcodeRCReadResponseFirst, true}, {ib.OpcodeRCReadResponseMid, false}, {ib.OpcodeRCReadResponseLast, true}} {
		p := ps[i+1]
		b := p.bth
		if b.Opcode != w.op || b.PSN != 200+uint32(i) || b.DestQP != 0x11 || b.A || (b.Headers&ib.HasAETH != 0) != w.aeth ||
			p.ip.SrcIP.String() != "192.0.2.1" {
			t.Errorf("response %d: %s", i, summary(p, wire.DefaultEpoch()))
		}
		if w.aeth && (b.AETH.Syndrome != 0x1f || b.AETH.MSN != 8) {
			t.Errorf("response %d: AETH %+v", i, b.AETH)
		}
		data = append(data, b.Payload...)
	}
	if !bytes.Equal(data, tr.Payload) {
		t.Error("the responses do not carry the READ's bytes in order")
	}
	// The last response lands at Due.
	last := ps[3]
	if got := last.time.Sub(wire.DefaultEpoch()) + 452*8/10 + 2*time.Microsecond; got < 30*time.Microsecond-time.Nanosecond || got > 30*time.Microsecond+time.Nanosecond {
		t.Errorf("last response leaves at %v, lands at %v", last.time.Sub(wire.DefaultEpoch()), got)
	}
	golden(t, "read_responses", ps, false)
}

// TestAckCoalescing checks rxe's AckReq rule on a 200-packet WRITE: only
// packets 66, 132 and 198 (after more than 64 without one) and the last
// ask for an ACK; each ACK covers the packets since the one before, the
// ones in the middle repeating the MSN of the previous message.
func TestAckCoalescing(t *testing.T) {
	e := wire.NewEmitter(wire.Options{})
	tr := transfer(verbs.WRRDMAWrite, 200*256, 1000, time.Millisecond)
	tr.PathMTU, tr.PSN = 256, verbs.PSNRange{First: 1000, Last: 1199, Count: 200}
	tr.MSN = 3
	ps := decodeAll(t, e.Frames(tr))
	var asked, acked []uint32
	var msns []uint32
	seen := map[uint32]bool{}
	for _, p := range ps {
		b := p.bth
		if b.Opcode == ib.OpcodeRCAcknowledge {
			if !seen[b.PSN] {
				t.Errorf("ACK of PSN %d before its packet", b.PSN)
			}
			acked, msns = append(acked, b.PSN), append(msns, b.AETH.MSN)
			continue
		}
		seen[b.PSN] = true
		if b.A {
			asked = append(asked, b.PSN)
		}
	}
	want := []uint32{1065, 1131, 1197, 1199}
	if !equal(asked, want) || !equal(acked, want) || !equal(msns, []uint32{2, 2, 2, 3}) {
		t.Errorf("AckReq on %v, ACKs of %v with MSNs %v; want both %v, MSNs [2 2 2 3]", asked, acked, msns, want)
	}
	if n := len(ps); n != 204 {
		t.Errorf("%d frames, want 200 packets and 4 ACKs", n)
	}
}

func equal(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNothingOnTheWire: local operations, flushes and failures before
// transmission give no frame.
func TestNothingOnTheWire(t *testing.T) {
	e := wire.NewEmitter(wire.Options{})
	reg := sim.Transfer{Op: verbs.Op{Node: "server", QPNum: 0x12, Opcode: verbs.WRRegMR}}
	inv := sim.Transfer{Op: verbs.Op{Node: "server", QPNum: 0x12, Opcode: verbs.WRLocalInv, InvalidateRKey: 5}}
	flush := transfer(verbs.WRSend, 100, 1, time.Microsecond)
	flush.OnWire, flush.Flush, flush.Response, flush.Status = false, true, sim.NoResponse, verbs.StatusWRFlushErr
	local := transfer(verbs.WRRDMAWrite, 100, 1, time.Microsecond)
	local.OnWire, local.Response, local.Status = false, sim.NoResponse, verbs.StatusLocProtErr
	for _, tr := range []sim.Transfer{reg, inv, flush, local} {
		if fs := e.Frames(tr); len(fs) != 0 {
			t.Errorf("%v: %d frames", tr.Op, len(fs))
		}
	}
}

// TestDeterministic: the same transfers give the same bytes and times.
func TestDeterministic(t *testing.T) {
	run := func() []wire.Frame {
		e := wire.NewEmitter(wire.Options{Conns: []wire.Conn{{Active: "client", Passive: "server", ActiveQPN: 0x11, PassiveQPN: 0x12}}})
		fs := e.Prelude()
		tr := transfer(verbs.WRSend, 3000, 5, 50*time.Microsecond)
		tr.MSN = 1
		return append(fs, e.Frames(tr)...)
	}
	a, b := run(), run()
	if len(a) != len(b) || len(a) != 3+3+1 {
		t.Fatalf("%d and %d frames", len(a), len(b))
	}
	for i := range a {
		if !a[i].Time.Equal(b[i].Time) || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("frame %d differs", i+1)
		}
	}
}

// TestTimesNeverGoBack: a transfer that started before the previous one
// ended (another QP's) is stamped after it, and nothing before Start.
func TestTimesNeverGoBack(t *testing.T) {
	e := wire.NewEmitter(wire.Options{Start: 100 * time.Microsecond})
	big := transfer(verbs.WRRDMAWrite, 8192, 1, 110*time.Microsecond)
	small := transfer(verbs.WRSend, 64, 50, 105*time.Microsecond)
	small.QPNum, small.PeerQPNum = 0x21, 0x22
	var last time.Time
	for i, f := range append(e.Frames(big), e.Frames(small)...) {
		if f.Time.Before(last) || f.Time.Before(wire.DefaultEpoch().Add(100*time.Microsecond)) {
			t.Errorf("frame %d at %v, after %v", i+1, f.Time.Sub(wire.DefaultEpoch()), last.Sub(wire.DefaultEpoch()))
		}
		last = f.Time
	}
}

func TestRNRTimerCode(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want uint8
	}{{sim.DefaultRNRTimer, 12}, {10 * time.Microsecond, 1}, {11 * time.Microsecond, 2}, {time.Nanosecond, 1},
		{491520 * time.Microsecond, 31}, {time.Second, 0}} {
		if got := wire.RNRTimerCode(c.d); got != c.want {
			t.Errorf("RNRTimerCode(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

// TestNAKCodes: each negative answer of the sim, its syndrome and the
// packet it names (a three-packet message, PSNs 40..42).
func TestNAKCodes(t *testing.T) {
	for _, c := range []struct {
		opc  verbs.WROpcode
		resp sim.Response
		syn  uint8
		psn  uint32
	}{
		{verbs.WRSend, sim.RNRNAK, 0x20 | 12, 40},             // the first packet needs the receive
		{verbs.WRRDMAWriteWithImm, sim.RNRNAK, 0x20 | 12, 42}, // the last one does
		{verbs.WRRDMAWrite, sim.NAKRemoteAccess, 0x62, 40},    // the RETH is checked first
		{verbs.WRSend, sim.NAKRemoteOp, 0x63, 40},
		{verbs.WRSend, sim.NAKInvalidRequest, 0x61, 42}, // too long for the receive
	} {
		e := wire.NewEmitter(wire.Options{})
		tr := transfer(c.opc, 2100, 40, time.Millisecond)
		tr.Response, tr.MSN = c.resp, 5
		ps := decodeAll(t, e.Frames(tr))
		var naks []pkt
		for _, p := range ps {
			if p.bth.Opcode == ib.OpcodeRCAcknowledge {
				naks = append(naks, p)
			}
		}
		if len(ps) != 4 || len(naks) != 1 || ps[3].bth.Opcode != ib.OpcodeRCAcknowledge {
			t.Errorf("%v %v: %d frames, %d answers; want 3 packets and one NAK after them", c.opc, c.resp, len(ps), len(naks))
			continue
		}
		if b := naks[0].bth; uint8(b.AETH.Syndrome) != c.syn || b.PSN != c.psn || b.AETH.MSN != 5 {
			t.Errorf("%v %v: %s, want syndrome 0x%02x PSN %d MSN 5", c.opc, c.resp, summary(naks[0], wire.DefaultEpoch()), c.syn, c.psn)
		}
	}
}
