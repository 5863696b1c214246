package ibv

import (
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// CQ numbers of the tests' two nodes.
const (
	srvSend, srvRecv, cliSend, cliRecv = 0, 1, 2, 3
)

func newT() *tracker { return newTracker(func() time.Duration { return time.Millisecond }) }

func send(t *tracker, node string, qpn uint32, peer string, peerQPN uint32, opc verbs.WROpcode, wrid uint64, signaled bool) uint64 {
	sendCQ, peerRecv := srvSend, cliRecv
	if node == "client" {
		sendCQ, peerRecv = cliSend, srvRecv
	}
	return t.post(verbs.Op{Node: node, QPNum: qpn, PeerNode: peer, PeerQPNum: peerQPN, Opcode: opc, WRID: wrid, Signaled: signaled}, sendCQ, peerRecv)
}

func poll(t *tracker, cq int) []verbs.WC {
	var out [16]verbs.WC
	n := t.take(cq, out[:])
	return out[:n]
}

// A client SEND is done once the server's Receive completed, even though
// the device has not written the client's completion yet, and then both
// reach the model; nothing reaches it before it is delivered. QP 17 on
// both devices: the node tells them apart.
func TestSendWaitsForItsReceive(t *testing.T) {
	tr := newT()
	r := tr.postRecv("server", 17, 0x1, srvRecv)
	tr.postRecv("client", 17, 0x2, cliRecv) // the same QP number on the other device
	id := send(tr, "client", 17, "server", 17, verbs.WRSend, 0x21, true)
	if _, done := tr.head(true); done {
		t.Fatal("done before any completion")
	}
	tr.arrive(srvRecv, verbs.WC{WRID: r, Status: verbs.StatusSuccess, Opcode: verbs.WCRecv, ByteLen: 200})
	if got := poll(tr, srvRecv); len(got) != 0 {
		t.Fatalf("the Receive reached the model before delivery: %+v", got)
	}
	if _, done := tr.head(true); done {
		t.Fatal("a signaled SEND is done before its own completion")
	}
	tr.arrive(cliSend, verbs.WC{WRID: id, Status: verbs.StatusSuccess, Opcode: verbs.WCSend, ByteLen: 200})
	if _, done := tr.head(false); !done {
		t.Fatal("not done with both completions")
	}
	op, _ := tr.deliver()
	if op.WRID != 0x21 || op.Status != verbs.StatusSuccess {
		t.Errorf("delivered %+v", op)
	}
	if got := poll(tr, srvRecv); len(got) != 1 || got[0].WRID != 0x1 || got[0].ByteLen != 200 {
		t.Errorf("server recv CQ: %+v", got)
	}
	if got := poll(tr, cliSend); len(got) != 1 || got[0].WRID != 0x21 {
		t.Errorf("client send CQ: %+v", got)
	}
	if got := poll(tr, cliRecv); len(got) != 0 {
		t.Errorf("the client's Receive was taken: %+v", got)
	}
}

// Unsignaled READs are done when the signaled one after them completes;
// they release nothing, and the signaled one releases its completion.
func TestUnsignaledDoneByLaterCompletion(t *testing.T) {
	tr := newT()
	send(tr, "server", 17, "client", 17, verbs.WRRDMARead, 0x42, false)
	last := send(tr, "server", 17, "client", 17, verbs.WRRDMARead, 0x43, true)
	if _, done := tr.head(false); done {
		t.Fatal("unsignaled READ done with nothing heard")
	}
	if _, done := tr.head(true); !done {
		t.Fatal("unsignaled READ not done after the device settled")
	}
	tr.arrive(srvSend, verbs.WC{WRID: last, Status: verbs.StatusSuccess, Opcode: verbs.WCRDMARead, ByteLen: 8192})
	if _, done := tr.head(false); !done {
		t.Fatal("unsignaled READ not done after a later completion")
	}
	tr.deliver()
	if got := poll(tr, srvSend); len(got) != 0 {
		t.Errorf("an unsignaled success released %+v", got)
	}
	if len(tr.pending()) != 1 {
		t.Fatalf("pending %v", tr.pending())
	}
	tr.deliver()
	if got := poll(tr, srvSend); len(got) != 1 || got[0].WRID != 0x43 {
		t.Errorf("signaled READ: %+v", got)
	}
}

// An unsignaled WR that fails still reaches the model; the WRs behind it
// flush at once when it is delivered, in posting order, and then the
// Receives its NAK flushed at the peer, as on the sim; error completions
// carry the opcode the device leaves undefined.
func TestErrorThenFlushes(t *testing.T) {
	tr := newT()
	rc := tr.postRecv("client", 17, 0x9, cliRecv)
	w1 := send(tr, "server", 17, "client", 17, verbs.WRRDMAWrite, 0x51, false)
	w2 := send(tr, "server", 17, "client", 17, verbs.WRRDMAWrite, 0x52, true)
	s := send(tr, "server", 17, "client", 17, verbs.WRSend, 0x53, true)
	tr.arrive(srvSend, verbs.WC{WRID: w2, Status: verbs.StatusWRFlushErr})
	tr.arrive(srvSend, verbs.WC{WRID: s, Status: verbs.StatusWRFlushErr})
	tr.arrive(cliRecv, verbs.WC{WRID: rc, Status: verbs.StatusWRFlushErr})
	if got := poll(tr, cliRecv); len(got) != 0 {
		t.Errorf("a flushed Receive overtook the failure that caused it: %+v", got)
	}
	if got := poll(tr, srvSend); len(got) != 0 {
		t.Fatalf("flushes overtook the failure still held: %+v", got)
	}
	tr.arrive(srvSend, verbs.WC{WRID: w1, Status: verbs.StatusRemAccessErr})
	op, _ := tr.deliver()
	if op.Status != verbs.StatusRemAccessErr {
		t.Errorf("delivered %+v", op)
	}
	got := poll(tr, srvSend)
	if len(got) != 3 || got[0].WRID != 0x51 || got[1].WRID != 0x52 || got[2].WRID != 0x53 || got[2].Status != verbs.StatusWRFlushErr {
		t.Errorf("after the failure: %+v", got)
	}
	if got[0].Opcode != verbs.WCRDMAWrite || got[2].Opcode != verbs.WCSend {
		t.Errorf("error completions' opcodes: %v, %v", got[0].Opcode, got[2].Opcode)
	}
	if got := poll(tr, cliRecv); len(got) != 1 || got[0].WRID != 0x9 || got[0].Opcode != verbs.WCRecv {
		t.Errorf("flushed Receive after its cause: %+v", got)
	}
	if len(tr.pending()) != 0 {
		t.Errorf("still pending: %v", tr.pending())
	}
}

// A refused post is forgotten from the bad WR on.
func TestUnpost(t *testing.T) {
	tr := newT()
	send(tr, "server", 17, "client", 17, verbs.WRRDMAWrite, 1, false)
	id := send(tr, "server", 17, "client", 17, verbs.WRSend, 2, true)
	tr.unpost(id)
	if p := tr.pending(); len(p) != 1 || p[0].WRID != 1 {
		t.Errorf("pending after unpost: %v", p)
	}
	if _, ok := tr.deliver(); !ok {
		t.Fatal("nothing delivered")
	}
	if _, ok := tr.deliver(); ok {
		t.Error("delivered from an empty list")
	}
}

// A Receive flushed with nothing undelivered towards its QP (the QP was
// moved to ERR: disconnect) reaches the model at once.
func TestFlushWithoutCause(t *testing.T) {
	tr := newT()
	rc := tr.postRecv("server", 17, 0x7, srvRecv)
	tr.arrive(srvRecv, verbs.WC{WRID: rc, Status: verbs.StatusWRFlushErr})
	if got := poll(tr, srvRecv); len(got) != 1 || got[0].WRID != 0x7 || got[0].Status != verbs.StatusWRFlushErr {
		t.Errorf("flushed Receive: %+v", got)
	}
}

// A SEND_WITH_INV of an rkey the responder cannot invalidate (a plain MR):
// rxe acknowledges the request and fails the Receive it consumed
// (REM_INV_REQ_ERR). That Receive is the SEND's, so complete delivers the
// SEND instead of waiting for a successful Receive that never comes.
func TestFailedReceiveBelongsToItsSend(t *testing.T) {
	tr := newT()
	r := tr.postRecv("client", 9, 0x9, cliRecv)
	id := send(tr, "server", 5, "client", 9, verbs.WRSendWithInv, 0x43, true)
	if id != 0 {
		t.Errorf("the first operation is #%d, want #0 as on the sim", id)
	}
	tr.arrive(srvSend, verbs.WC{WRID: id, Status: verbs.StatusSuccess, Opcode: verbs.WCSend})
	tr.arrive(cliRecv, verbs.WC{WRID: r, Status: verbs.StatusRemInvReqErr})
	if _, done := tr.head(false); !done {
		t.Fatal("the SEND waits for a Receive that already failed")
	}
	tr.deliver()
	if got := poll(tr, cliRecv); len(got) != 1 || got[0].WRID != 0x9 || got[0].Status != verbs.StatusRemInvReqErr || got[0].Opcode != verbs.WCRecv {
		t.Errorf("client recv CQ: %+v", got)
	}
	if got := poll(tr, srvSend); len(got) != 1 || got[0].WRID != 0x43 {
		t.Errorf("server send CQ: %+v", got)
	}
}

// The requester's own QP: a NAKed RDMA WRITE moves it to ERR and its
// Receives flush at once on the device, maybe before the WRITE's failure
// is polled. They wait behind the undelivered WRITE, whose failure the
// model sees first, as on the sim.
func TestFlushWaitsForItsOwnQP(t *testing.T) {
	tr := newT()
	rc := tr.postRecv("server", 5, 0x7, srvRecv)
	id := send(tr, "server", 5, "client", 9, verbs.WRRDMAWrite, 0x51, true)
	tr.arrive(srvRecv, verbs.WC{WRID: rc, Status: verbs.StatusWRFlushErr})
	if got := poll(tr, srvRecv); len(got) != 0 {
		t.Fatalf("the flush came before the failure that caused it: %+v", got)
	}
	tr.arrive(srvSend, verbs.WC{WRID: id, Status: verbs.StatusRemAccessErr})
	if got := poll(tr, srvRecv); len(got) != 0 {
		t.Fatalf("the flush came before the failure was delivered: %+v", got)
	}
	tr.deliver()
	if got := poll(tr, srvSend); len(got) != 1 || got[0].Status != verbs.StatusRemAccessErr {
		t.Errorf("server send CQ: %+v", got)
	}
	if got := poll(tr, srvRecv); len(got) != 1 || got[0].WRID != 0x7 || got[0].Status != verbs.StatusWRFlushErr {
		t.Errorf("server recv CQ after the failure: %+v", got)
	}
}
