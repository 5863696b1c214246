package sim

import (
	"math/bits"
	"slices"
	"sort"
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// op is a scheduled execution of one send WR.
type op struct {
	id       uint64
	qp       *qp
	w        *swqe
	due      time.Duration
	cost     time.Duration // link time of one attempt
	psn      verbs.PSNRange
	flush    bool
	attempts int  // RNR NAKs received so far
	queued   bool // in f.pending
}

func (o *op) before(p *op) bool {
	if o.due != p.due {
		return o.due < p.due
	}
	return o.id < p.id
}

func (o *op) snapshot() verbs.Op {
	q, wr := o.qp, &o.w.wr
	s := verbs.Op{
		ID: o.id, Node: q.dev.node, QPNum: q.num,
		Opcode: wr.Opcode, WRID: wr.WRID, Signaled: o.w.signaled, Bytes: int(o.w.bytes),
		ImmData: wr.ImmData, InvalidateRKey: wr.InvalidateRKey,
		Due: o.due, PSN: o.psn, PathMTU: q.mtu, Flush: o.flush, Attempt: o.attempts,
	}
	if !isLocal(wr.Opcode) {
		s.PeerNode, s.PeerQPNum = q.peerNode, q.peerQPN
	}
	if wr.Opcode == verbs.WRRDMAWrite || wr.Opcode == verbs.WRRDMAWriteWithImm || isRead(wr.Opcode) {
		s.RemoteAddr, s.RKey = wr.RemoteAddr, wr.RKey
	}
	return s
}

// cost is the virtual link time of one attempt of an n-byte message: the
// serialization time plus the one-way latency, and a READ's response
// comes back, paying the latency twice.
func (f *Fabric) cost(opc verbs.WROpcode, n uint64) time.Duration {
	// n <= 2^31, so n*8*1e9 < 2^64; round up so no message is free.
	hi, lo := bits.Mul64(n*8, uint64(time.Second))
	ns, rem := bits.Div64(hi, lo, uint64(f.cfg.LinkRate))
	if rem != 0 {
		ns++
	}
	d := time.Duration(ns) + f.cfg.Latency
	if isRead(opc) {
		d += f.cfg.Latency
	}
	return d
}

func (f *Fabric) enqueue(o *op) {
	o.queued = true
	i := sort.Search(len(f.pending), func(i int) bool { return o.before(f.pending[i]) })
	f.pending = slices.Insert(f.pending, i, o)
	f.npending.Store(int64(len(f.pending)))
}

// removeOps drops q's pending operations.
func (f *Fabric) removeOps(q *qp) {
	f.pending = slices.DeleteFunc(f.pending, func(o *op) bool {
		if o.qp == q {
			o.queued = false
			return true
		}
		return false
	})
	f.npending.Store(int64(len(f.pending)))
}

// requeue schedules o's retry at due and pushes q's later operations back
// so that the QP's operations still run in posting order.
func (f *Fabric) requeue(o *op, due time.Duration) {
	q := o.qp
	var mine []*op
	f.pending = slices.DeleteFunc(f.pending, func(p *op) bool {
		if p.qp == q {
			p.queued = false
			mine = append(mine, p)
			return true
		}
		return false
	})
	f.npending.Store(int64(len(f.pending)))
	o.due = due
	prev := due
	for _, p := range mine { // already in posting order
		p.due = max(p.due, prev+p.cost)
		prev = p.due
	}
	q.lastDone = max(q.lastDone, prev)
	f.enqueue(o)
	for _, p := range mine {
		f.enqueue(p)
	}
}

func (f *Fabric) deliverNext() (verbs.Op, bool) {
	if len(f.pending) == 0 {
		return verbs.Op{}, false
	}
	o := f.pending[0]
	o.queued = false
	// Shift down rather than reslice: the queue keeps its capacity and
	// the next insert does not allocate.
	n := copy(f.pending, f.pending[1:])
	f.pending[n] = nil
	f.pending = f.pending[:n]
	f.npending.Store(int64(n))
	f.now = max(f.now, o.due)
	t := f.execute(o)
	if f.tap != nil {
		f.outbox = append(f.outbox, t)
	}
	return t.Op, true
}

// runUntilIdle delivers while some QP's next operation can make progress.
func (f *Fabric) runUntilIdle() int {
	n := 0
	for f.runnable() {
		f.deliverNext()
		n++
	}
	return n
}

// runnable reports whether some QP's oldest pending operation is not
// stalled. Later operations of a QP wait for its oldest, so they do not
// count on their own.
func (f *Fabric) runnable() bool {
	var seen []*qp
	for _, o := range f.pending {
		if slices.Contains(seen, o.qp) {
			continue
		}
		if !f.stalled(o) {
			return true
		}
		seen = append(seen, o.qp)
	}
	return false
}

// stalled: o was RNR NAKed, retries forever, and its peer still has no
// receive posted, so running it would only spin the clock.
func (f *Fabric) stalled(o *op) bool {
	if o.flush || o.attempts == 0 || o.qp.rnrRetry != 7 || !needsRecv(o.w.wr.Opcode) {
		return false
	}
	p := f.responder(o.qp)
	return p != nil && len(p.rq) == 0
}

func needsRecv(o verbs.WROpcode) bool {
	switch o {
	case verbs.WRSend, verbs.WRSendWithImm, verbs.WRSendWithInv, verbs.WRRDMAWriteWithImm:
		return true
	}
	return false
}
