package wire_test

import (
	"testing"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/wire"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Transfers from the sim itself: what rxe puts on the wire when a receive
// is missing, a key is wrong, a fault is injected.

// TestSimRNRNAK: a SEND finds no receive; the responder sends an RNR NAK
// with the RNR timer and its MSN; the requester sends the same PSN again
// once a receive is posted, and that is ACKed.
func TestSimRNRNAK(t *testing.T) {
	x := newFixture(t, 1024, 7)
	e := wire.NewEmitter(wire.Options{})
	x.post(t, x.c, verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{x.c.sge(0, 100)}})
	if op, ok := x.f.DeliverNext(); !ok || !op.Retry {
		t.Fatalf("first delivery %v (retry %v), want an RNR retry", op, op.Retry)
	}
	fs := x.frames(e)
	x.recv(t, x.s, 9, 0, 4096)
	fs = append(fs, x.frames(e)...)
	ps := decodeAll(t, fs)
	if len(ps) != 4 {
		t.Fatalf("%d frames, want SEND, RNR NAK, SEND, ACK", len(ps))
	}
	psn := ps[0].bth.PSN
	rnr := ps[1].bth
	if rnr.Opcode != ib.OpcodeRCAcknowledge || rnr.PSN != psn || rnr.AETH.Syndrome.Type() != ib.AckTypeRNRNak ||
		uint8(rnr.AETH.Syndrome) != 0x20|12 || rnr.AETH.MSN != 0 || rnr.DestQP != x.c.qp.Num() {
		t.Errorf("RNR NAK: %s", summary(ps[1], wire.DefaultEpoch()))
	}
	if b := ps[2].bth; b.Opcode != ib.OpcodeRCSendOnly || b.PSN != psn {
		t.Errorf("retry: %s", summary(ps[2], wire.DefaultEpoch()))
	}
	if b := ps[3].bth; b.Opcode != ib.OpcodeRCAcknowledge || b.AETH.Syndrome != 0x1f || b.AETH.MSN != 1 || b.PSN != psn {
		t.Errorf("ACK: %s", summary(ps[3], wire.DefaultEpoch()))
	}
	// The retry waits the RNR timer: 640 µs after the NAK.
	if d := ps[2].time.Sub(ps[1].time); d < sim.DefaultRNRTimer {
		t.Errorf("retry %v after the RNR NAK, want at least %v", d, sim.DefaultRNRTimer)
	}
	golden(t, "sim_rnr_nak", ps, false)
}

// TestSimRemoteAccessNAK: an injected REM_ACCESS_ERR on a three-packet
// WRITE is a NAK with code 2 naming its first PSN; after it both QPs are
// in error and what is posted flushes without a frame.
func TestSimRemoteAccessNAK(t *testing.T) {
	x := newFixture(t, 1024, 7)
	e := wire.NewEmitter(wire.Options{})
	// An ACKed SEND first, so the NAK's MSN has something to count.
	x.recv(t, x.s, 9, 0, 4096)
	x.post(t, x.c, verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, SGList: []verbs.SGE{x.c.sge(0, 64)}})
	x.f.FailNth(2, x.c.qp.Num(), verbs.StatusRemAccessErr)
	x.post(t, x.c, verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{x.c.sge(0, 3000)},
		RemoteAddr: x.s.mr.Addr(), RKey: x.s.mr.RKey()})
	x.post(t, x.c, verbs.SendWR{WRID: 3, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{x.c.sge(0, 64)}})
	ps := decodeAll(t, x.frames(e))
	if len(ps) != 2+3+1 {
		for _, p := range ps {
			t.Log(summary(p, wire.DefaultEpoch()))
		}
		t.Fatalf("%d frames, want SEND, ACK, 3 WRITE packets, NAK and nothing for the flushed SEND", len(ps))
	}
	first := ps[2].bth.PSN
	nak := ps[5].bth
	if nak.Opcode != ib.OpcodeRCAcknowledge || nak.PSN != first || uint8(nak.AETH.Syndrome) != 0x60|2 ||
		nak.AETH.MSN != 1 || nak.DestQP != x.c.qp.Num() {
		t.Errorf("NAK: %s", summary(ps[5], wire.DefaultEpoch()))
	}
	golden(t, "sim_remote_access_nak", ps, false)
}

// TestSimNAKs: a real bad rkey on an RDMA READ (NAK code 2 on the
// request's PSN, no response), and a SEND longer than its receive (NAK
// code 1, invalid request, on the last packet).
func TestSimNAKs(t *testing.T) {
	x := newFixture(t, 1024, 7)
	e := wire.NewEmitter(wire.Options{})
	x.post(t, x.c, verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMARead, Signaled: true, SGList: []verbs.SGE{x.c.sge(0, 2000)},
		RemoteAddr: x.s.mr.Addr(), RKey: x.s.mr.RKey() ^ 0xff00})
	ps := decodeAll(t, x.frames(e))
	if len(ps) != 2 || ps[0].bth.Opcode != ib.OpcodeRCReadRequest || ps[1].bth.Opcode != ib.OpcodeRCAcknowledge ||
		uint8(ps[1].bth.AETH.Syndrome) != 0x62 || ps[1].bth.PSN != ps[0].bth.PSN {
		for _, p := range ps {
			t.Log(summary(p, wire.DefaultEpoch()))
		}
		t.Fatal("want a READ request and a remote access NAK of its PSN")
	}

	y := newFixture(t, 1024, 7)
	y.recv(t, y.s, 9, 0, 100)
	y.post(t, y.c, verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{y.c.sge(0, 1500)}})
	ps = decodeAll(t, y.frames(wire.NewEmitter(wire.Options{})))
	if len(ps) != 3 || ps[0].bth.Opcode != ib.OpcodeRCSendFirst || ps[1].bth.Opcode != ib.OpcodeRCSendLast ||
		uint8(ps[2].bth.AETH.Syndrome) != 0x61 || ps[2].bth.PSN != ps[1].bth.PSN {
		for _, p := range ps {
			t.Log(summary(p, wire.DefaultEpoch()))
		}
		t.Fatal("want SEND FIRST, LAST and an invalid request NAK of the LAST")
	}
}

// TestSimMessagesEachAcked: rxe's requester asks for an ACK at the end of
// every message, signaled or not (init_req_packet never looks at
// IBV_SEND_SIGNALED), so two unsignaled WRITEs and a signaled SEND get an
// ACK each, their MSNs counting the messages: what the kernel's
// nfs3-rdma.pcap shows for svcrdma's unsignaled Write chunk WRITEs
// (frames 42-49). The coalescing is within a long message
// (TestAckCoalescing).
func TestSimMessagesEachAcked(t *testing.T) {
	x := newFixture(t, 1024, 7)
	e := wire.NewEmitter(wire.Options{})
	x.recv(t, x.s, 9, 0, 4096)
	w := verbs.SendWR{Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{x.s.sge(0, 1500)}, RemoteAddr: x.c.mr.Addr(), RKey: x.c.mr.RKey()}
	x.post(t, x.s, w)
	x.post(t, x.s, w)
	x.recv(t, x.c, 9, 0, 4096)
	x.post(t, x.s, verbs.SendWR{WRID: 3, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{x.s.sge(0, 200)}})
	ps := decodeAll(t, x.frames(e))
	var msns []uint32
	for _, p := range ps {
		b := p.bth
		if b.Opcode == ib.OpcodeRCAcknowledge {
			msns = append(msns, b.AETH.MSN)
			continue
		}
		last := b.Opcode == ib.OpcodeRCWriteLast || b.Opcode == ib.OpcodeRCSendOnly
		if b.A != last {
			t.Errorf("%s: AckReq %v", summary(p, wire.DefaultEpoch()), b.A)
		}
	}
	if !equal(msns, []uint32{1, 2, 3}) {
		t.Errorf("ACK MSNs %v, want [1 2 3]", msns)
	}
}
