package ibv

import (
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// recvBit marks the hardware wr_id of a Receive, so it never equals an
// operation's.
const recvBit = 1 << 63

// tracker holds what the device did until the learner lets the model see
// it. The device runs a work request as soon as it is posted; its
// completions wait here, attached to the operation they belong to, and a
// model CQ only polls those of operations delivered (DeliverNext). It is
// the pure-Go half of the provider, so its rules are tested without a
// device.
//
// An operation is one posted send WR, in posting order. Its completions:
// the requester's (the device writes one when the WR is signaled or
// fails) and, for a SEND or WRITE_WITH_IMM that succeeds, the Receive it
// consumed at the responder (RC delivers in order: the oldest such
// operation towards that QP owns the next successful Receive).
type tracker struct {
	now      func() time.Duration
	nextOp   uint64
	nextRecv uint64
	ops      []*op // pending, in posting order
	recvs    map[uint64]recvRef
	queues   map[int][]verbs.WC // released completions, per model CQ
	flushed  []heldRecv         // flushed Receives waiting for their cause
}

// heldRecv is a flushed Receive kept back while an operation of its QP,
// or towards it, is still undelivered: that operation is likely what put
// the QP in ERR (a NAKed request takes down the requester's QP, and the
// responder's too), or it completed on the device before the flush; on
// the sim its completion comes first.
type heldRecv struct {
	ref recvRef
	wc  verbs.WC
}

type recvRef struct {
	wrid uint64 // the model's
	node string // QP numbers are per device: the node tells them apart
	qpn  uint32
	cq   int
}

type op struct {
	verbs.Op
	sendCQ, peerRecvCQ int
	consumes           bool
	send, recv         *verbs.WC
}

func newTracker(now func() time.Duration) *tracker {
	return &tracker{now: now, recvs: map[uint64]recvRef{}, queues: map[int][]verbs.WC{}}
}

// post records a send WR and returns the wr_id the device gets for it.
func (t *tracker) post(o verbs.Op, sendCQ, peerRecvCQ int) uint64 {
	o.ID = t.nextOp // from #0, as the sim numbers its operations
	t.nextOp++
	o.Due = t.now()
	t.ops = append(t.ops, &op{Op: o, sendCQ: sendCQ, peerRecvCQ: peerRecvCQ, consumes: consumesRecv(o.Opcode)})
	return o.ID
}

// unpost forgets the operations from id on: the device refused them
// (bad_wr), so they will never complete.
func (t *tracker) unpost(id uint64) {
	for i, o := range t.ops {
		if o.ID >= id {
			t.ops = t.ops[:i]
			return
		}
	}
}

// postRecv records a Receive and returns the wr_id the device gets for it.
func (t *tracker) postRecv(node string, qpn uint32, wrid uint64, cq int) uint64 {
	t.nextRecv++
	id := recvBit | t.nextRecv
	t.recvs[id] = recvRef{wrid: wrid, node: node, qpn: qpn, cq: cq}
	return id
}

func (t *tracker) unpostRecv(id uint64) { delete(t.recvs, id) }

// arrive takes one completion the device wrote on CQ cq (the model's
// number for it), under the device's wr_id.
func (t *tracker) arrive(cq int, wc verbs.WC) {
	if wc.WRID&recvBit != 0 {
		ref, ok := t.recvs[wc.WRID]
		delete(t.recvs, wc.WRID)
		if !ok {
			return // not ours: a Receive posted before a reset
		}
		wc.WRID = ref.wrid
		if wc.Status != verbs.StatusSuccess {
			wc.Opcode = verbs.WCRecv // the device leaves it undefined on error
		}
		if wc.Status != verbs.StatusWRFlushErr {
			// A request consumed it, whether it succeeded or failed at
			// the responder (a SEND_WITH_INV of an rkey that cannot be
			// invalidated): the oldest one towards its QP.
			for _, o := range t.ops {
				if o.consumes && o.PeerNode == ref.node && o.PeerQPNum == ref.qpn && o.recv == nil &&
					(wc.Status != verbs.StatusSuccess || o.send == nil || o.send.Status == verbs.StatusSuccess) {
					o.recv = &wc
					return
				}
			}
		}
		// A flushed Receive (its QP went to ERR) is the provider's own,
		// as in the sim: it is there once nothing of or towards its QP
		// is still undelivered.
		t.flushed = append(t.flushed, heldRecv{ref, wc})
		t.flushHeads()
		return
	}
	for _, o := range t.ops {
		if o.ID == wc.WRID {
			wc.WRID = o.WRID
			if wc.Status != verbs.StatusSuccess {
				wc.Opcode = verbs.WCOpcodeFor(o.Opcode) // undefined on error
			}
			o.send = &wc
			t.flushHeads()
			return
		}
	}
	// An operation already delivered (unsignaled, taken for done) that the
	// device failed after all: the model still hears of it.
	t.queues[cq] = append(t.queues[cq], wc)
}

// flushHeads delivers, at once, flushed operations that no earlier
// operation of their QP still holds up: as in the sim, a QP in ERR flushes
// its outstanding work immediately, after the failure that put it there.
func (t *tracker) flushHeads() {
	type qpKey struct {
		node string
		qpn  uint32
	}
	held := map[qpKey]bool{}
	keep := t.ops[:0]
	for _, o := range t.ops {
		k := qpKey{o.Node, o.QPNum}
		if !held[k] && o.send != nil && o.send.Status == verbs.StatusWRFlushErr {
			t.release(o)
			continue
		}
		held[k] = true
		keep = append(keep, o)
	}
	clear(t.ops[len(keep):])
	t.ops = keep
	kept := t.flushed[:0]
	for _, h := range t.flushed {
		if t.involves(h.ref.node, h.ref.qpn) {
			kept = append(kept, h)
			continue
		}
		t.queues[h.ref.cq] = append(t.queues[h.ref.cq], h.wc)
	}
	t.flushed = kept
}

// involves says whether an undelivered operation was posted on the QP or
// targets it.
func (t *tracker) involves(node string, qpn uint32) bool {
	for _, o := range t.ops {
		if o.PeerNode == node && o.PeerQPNum == qpn || o.Node == node && o.QPNum == qpn {
			return true
		}
	}
	return false
}

// head is the next operation to deliver, and whether the device has
// finished it. An unsignaled WR that succeeds writes no completion: it is
// done once a later WR of its QP completes (RC completes in order) or,
// for a SEND, once its Receive completed at the peer; settled says the
// device has been quiet long enough to take it as done otherwise.
func (t *tracker) head(settled bool) (o *op, done bool) {
	if len(t.ops) == 0 {
		return nil, false
	}
	o = t.ops[0]
	switch {
	case o.send != nil:
		return o, !(o.consumes && o.send.Status == verbs.StatusSuccess && o.recv == nil)
	case o.Signaled:
		return o, false
	case o.consumes:
		return o, o.recv != nil
	}
	for _, later := range t.ops[1:] {
		if later.Node == o.Node && later.QPNum == o.QPNum && later.send != nil {
			return o, true
		}
	}
	return o, settled
}

// deliver releases the head operation's completions to the model's CQs.
func (t *tracker) deliver() (verbs.Op, bool) {
	if len(t.ops) == 0 {
		return verbs.Op{}, false
	}
	o := t.ops[0]
	t.ops[0] = nil
	t.ops = t.ops[1:]
	t.release(o)
	t.flushHeads()
	return o.Op, true
}

func (t *tracker) release(o *op) {
	o.Status = verbs.StatusSuccess
	if o.send != nil {
		o.Status = o.send.Status
		if o.Signaled || o.send.Status != verbs.StatusSuccess {
			t.queues[o.sendCQ] = append(t.queues[o.sendCQ], *o.send)
		}
	}
	if o.recv != nil {
		t.queues[o.peerRecvCQ] = append(t.queues[o.peerRecvCQ], *o.recv)
	}
}

// take moves up to len(out) released completions of CQ cq into out.
func (t *tracker) take(cq int, out []verbs.WC) int {
	q := t.queues[cq]
	n := copy(out, q)
	if n == len(q) {
		delete(t.queues, cq)
	} else {
		t.queues[cq] = q[n:]
	}
	return n
}

// pending lists the operations not yet delivered.
func (t *tracker) pending() []verbs.Op {
	out := make([]verbs.Op, len(t.ops))
	for i, o := range t.ops {
		out[i] = o.Op
	}
	return out
}
