package sim

import (
	"fmt"
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// defaultPathMTU is what rxe reports over a 1500-byte Ethernet MTU: the
// largest IB MTU that fits after the RoCEv2 headers.
const defaultPathMTU = 1024

// maxMsgSize is IB's largest message, 2^31 bytes.
const maxMsgSize = 1 << 31

// qp is a reliable-connected queue pair: verbs.QP.
type qp struct {
	dev    *device
	pd     *pd
	num    uint32
	sendCQ *cq
	recvCQ *cq
	cap    verbs.QPCap
	sigAll bool
	state  verbs.QPState
	dead   bool

	peerNode string
	peerQPN  uint32
	mtu      int
	sqPSN    uint32 // next PSN to send
	rqPSN    uint32
	msn      uint32 // responder's message sequence number
	retryCnt int
	rnrRetry int
	rdAtomic int

	sq       []*swqe        // posted, not retired, in posting order
	rq       []verbs.RecvWR // posted receives, in posting order
	lastDone time.Duration  // due time of the last operation posted
	// free holds the slots of retired WRs for the next posts: a WQE's
	// memory is reused as a real send queue's is.
	free []*sendSlot
}

// swqe is a send work request as the send queue holds it: a copy of the
// caller's WR, so later changes to it do not matter, as with real WQEs.
type swqe struct {
	wr       verbs.SendWR
	signaled bool
	bytes    uint64
	slot     *sendSlot // the memory it lives in
}

var _ verbs.QP = (*qp)(nil)

func (p *pd) CreateQP(attr verbs.QPInitAttr) (verbs.QP, error) {
	f := p.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := p.check("create qp"); err != nil {
		return nil, err
	}
	scq, ok1 := attr.SendCQ.(*cq)
	rcq, ok2 := attr.RecvCQ.(*cq)
	if !ok1 || !ok2 || scq == nil || rcq == nil || scq.dead || rcq.dead || scq.dev != p.dev || rcq.dev != p.dev {
		return nil, fmt.Errorf("sim: create qp: send and receive CQs must be live CQs of device %q: %w", p.dev.node, verbs.EINVAL)
	}
	if err := checkCap(attr.Cap, p.dev.attr); err != nil {
		return nil, fmt.Errorf("sim: create qp: %w", err)
	}
	q := &qp{
		dev: p.dev, pd: p, num: f.newQPN(), sendCQ: scq, recvCQ: rcq,
		cap: attr.Cap, sigAll: attr.SigAll, state: verbs.QPSReset,
		mtu: defaultPathMTU, sqPSN: f.rng.Uint32() & psnMask,
	}
	// The cap returned is the cap enforced: never less than asked.
	q.cap.MaxSendSGE = max(q.cap.MaxSendSGE, p.dev.grantSendSGE)
	f.qpns[q.num] = q
	p.dev.qps = append(p.dev.qps, q)
	p.nQP++
	scq.users++
	rcq.users++
	return q, nil
}

// checkCap is rxe_qp_chk_cap: asking for more than the device offers is
// an error, not a silent clamp.
func checkCap(c verbs.QPCap, a verbs.DeviceAttr) error {
	type lim struct {
		name     string
		v, limit int
	}
	for _, l := range []lim{
		{"max_send_wr", c.MaxSendWR, a.MaxQPWR},
		{"max_recv_wr", c.MaxRecvWR, a.MaxQPWR},
		{"max_send_sge", c.MaxSendSGE, a.MaxSendSGE},
		{"max_recv_sge", c.MaxRecvSGE, a.MaxRecvSGE},
		{"max_inline_data", c.MaxInlineData, maxInlineData},
	} {
		if l.v < 0 || l.v > l.limit {
			return fmt.Errorf("%s %d not in [0, %d]: %w", l.name, l.v, l.limit, verbs.EINVAL)
		}
	}
	return nil
}

func (q *qp) Num() uint32 { return q.num }

func (q *qp) State() verbs.QPState {
	q.dev.f.mu.Lock()
	defer q.dev.f.mu.Unlock()
	return q.state
}

func (q *qp) Cap() verbs.QPCap { return q.cap }

// Modify is ibv_modify_qp for the RC transitions. The fields of attr that
// matter are those of the transition: RTR takes DestQPNum, RemoteNode,
// PathMTU (0: 1024) and RQPSN; RTS takes RetryCnt, RNRRetry, MaxRdAtomic
// and SQPSN (0 keeps the seeded initial PSN).
func (q *qp) Modify(attr verbs.QPAttr) error {
	f := q.dev.f
	f.mu.Lock()
	defer f.unlock()
	if q.dead {
		return fmt.Errorf("sim: modify qp %d: destroyed: %w", q.num, verbs.EINVAL)
	}
	bad := func(why string) error {
		return fmt.Errorf("sim: modify qp %d %v->%v: %s: %w", q.num, q.state, attr.State, why, verbs.EINVAL)
	}
	switch attr.State {
	case verbs.QPSReset:
		f.removeOps(q)
		q.sq, q.rq = nil, nil
		q.state = verbs.QPSReset
		q.peerNode, q.peerQPN = "", 0
		q.lastDone = f.now
	case verbs.QPSInit:
		if q.state != verbs.QPSReset {
			return bad("INIT only from RESET")
		}
		q.state = verbs.QPSInit
	case verbs.QPSRTR:
		if q.state != verbs.QPSInit {
			return bad("RTR only from INIT")
		}
		mtu := attr.PathMTU
		if mtu == 0 {
			mtu = defaultPathMTU
		}
		switch mtu {
		case 256, 512, 1024, 2048, 4096:
		default:
			return bad(fmt.Sprintf("path MTU %d is not 256, 512, 1024, 2048 or 4096", mtu))
		}
		d := f.nodes[attr.RemoteNode]
		if d == nil {
			return bad(fmt.Sprintf("no device at node %q", attr.RemoteNode))
		}
		if d == q.dev {
			return bad("the peer must be on another device")
		}
		if p := f.qpns[attr.DestQPNum]; p == nil || p.dead || p.dev != d {
			return bad(fmt.Sprintf("node %q has no QP %d", attr.RemoteNode, attr.DestQPNum))
		}
		q.peerNode, q.peerQPN, q.mtu = attr.RemoteNode, attr.DestQPNum, mtu
		q.rqPSN = attr.RQPSN & psnMask
		q.state = verbs.QPSRTR
	case verbs.QPSRTS:
		if q.state != verbs.QPSRTR && q.state != verbs.QPSRTS {
			return bad("RTS only from RTR (or RTS)")
		}
		if attr.RNRRetry < 0 || attr.RNRRetry > 7 || attr.RetryCnt < 0 || attr.RetryCnt > 7 {
			return bad("retry_cnt and rnr_retry are 3-bit values")
		}
		if attr.MaxRdAtomic < 0 || attr.MaxRdAtomic > q.dev.attr.MaxQPInitRdAtom {
			return bad(fmt.Sprintf("max_rd_atomic %d over max_qp_init_rd_atom %d", attr.MaxRdAtomic, q.dev.attr.MaxQPInitRdAtom))
		}
		q.retryCnt, q.rnrRetry, q.rdAtomic = attr.RetryCnt, attr.RNRRetry, attr.MaxRdAtomic
		if attr.SQPSN != 0 && q.state == verbs.QPSRTR {
			q.sqPSN = attr.SQPSN & psnMask
		}
		q.state = verbs.QPSRTS
	case verbs.QPSErr:
		f.toError(q)
	default:
		return fmt.Errorf("sim: modify qp %d to %v: not supported: %w", q.num, attr.State, verbs.EINVAL)
	}
	return nil
}

// PostSend is ibv_post_send. It walks the chain and stops at the first WR
// it cannot accept, returning it as bad: EINVAL in a state before RTS, for
// an unknown opcode, too many SGEs, a message over 2^31 bytes or a REG_MR
// without an MR; ENOMEM when the send queue already holds max_send_wr
// outstanding WRs. WRs before it stay posted.
func (q *qp) PostSend(wr *verbs.SendWR) (*verbs.SendWR, error) {
	f := q.dev.f
	f.mu.Lock()
	defer f.unlock()
	if wr == nil {
		return nil, fmt.Errorf("sim: post send on qp %d: nil work request: %w", q.num, verbs.EINVAL)
	}
	if q.dead {
		return wr, fmt.Errorf("sim: post send on qp %d: destroyed: %w", q.num, verbs.EINVAL)
	}
	if q.state != verbs.QPSRTS && q.state != verbs.QPSErr {
		return wr, fmt.Errorf("sim: post send on qp %d in state %v: %w", q.num, q.state, verbs.EINVAL)
	}
	defer f.autoRun()
	for w := wr; w != nil; w = w.Next {
		n, err := q.checkSend(w)
		if err != nil {
			return w, fmt.Errorf("sim: post send on qp %d: wr_id %#x: %w", q.num, w.WRID, err)
		}
		var slot *sendSlot
		if k := len(q.free); k > 0 {
			slot, q.free = q.free[k-1], q.free[:k-1]
		} else {
			slot = new(sendSlot)
		}
		q.enqueueSend(w, n, slot)
	}
	return nil, nil
}

// sendSlot is the memory of one posted send WR: its WQE and operation,
// and the SGEs the WQE's copy of the WR names.
type sendSlot struct {
	o    op
	wq   swqe
	sges []verbs.SGE
}

// retire takes the WQEs ws off the send queue's books: their operations
// have executed or been dropped, so their slots may be posted again. A
// slot whose operation is still scheduled is left to the GC instead.
func (q *qp) retire(ws []*swqe) {
	for _, w := range ws {
		if !w.slot.o.queued && len(q.free) < q.cap.MaxSendWR {
			q.free = append(q.free, w.slot)
		}
	}
}

func (q *qp) checkSend(w *verbs.SendWR) (uint64, error) {
	a := q.dev.attr
	switch w.Opcode {
	case verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm, verbs.WRSend, verbs.WRSendWithImm,
		verbs.WRSendWithInv, verbs.WRRDMARead, verbs.WRRDMAReadWithInv, verbs.WRLocalInv:
		if len(w.SGList) > q.cap.MaxSendSGE {
			return 0, fmt.Errorf("%d SGEs over max_send_sge %d: %w", len(w.SGList), q.cap.MaxSendSGE, verbs.EINVAL)
		}
	case verbs.WRRegMR:
		if w.MR == nil {
			return 0, fmt.Errorf("REG_MR without an MR: %w", verbs.EINVAL)
		}
		// REG_MR's SGList is the page list, bounded by the device, not by
		// max_send_sge.
		if len(w.SGList) > a.MaxFastRegPageListLen {
			return 0, fmt.Errorf("%d pages over max_fast_reg_page_list_len %d: %w", len(w.SGList), a.MaxFastRegPageListLen, verbs.EINVAL)
		}
	default:
		return 0, fmt.Errorf("opcode %v not supported: %w", w.Opcode, verbs.EINVAL)
	}
	if isRead(w.Opcode) && len(w.SGList) > a.MaxSGERd {
		return 0, fmt.Errorf("%d SGEs over max_sge_rd %d: %w", len(w.SGList), a.MaxSGERd, verbs.EINVAL)
	}
	var n uint64
	for _, s := range w.SGList {
		n += uint64(s.Length)
	}
	if n > maxMsgSize && w.Opcode != verbs.WRRegMR {
		return 0, fmt.Errorf("%d bytes over the 2^31-byte message limit: %w", n, verbs.EINVAL)
	}
	if len(q.sq) >= q.cap.MaxSendWR {
		return 0, fmt.Errorf("send queue full (%d outstanding, max_send_wr %d): %w", len(q.sq), q.cap.MaxSendWR, verbs.ENOMEM)
	}
	return n, nil
}

func isRead(o verbs.WROpcode) bool {
	return o == verbs.WRRDMARead || o == verbs.WRRDMAReadWithInv
}

func isLocal(o verbs.WROpcode) bool {
	return o == verbs.WRLocalInv || o == verbs.WRRegMR
}

// enqueueSend copies w into the send queue, in slot, and schedules its
// operation.
func (q *qp) enqueueSend(w *verbs.SendWR, n uint64, slot *sendSlot) {
	f := q.dev.f
	wq := &slot.wq
	wq.wr = *w
	wq.wr.Next = nil
	if len(w.SGList) == 0 {
		wq.wr.SGList = nil
	} else {
		slot.sges = append(slot.sges[:0], w.SGList...)
		wq.wr.SGList = slot.sges[:len(w.SGList):len(w.SGList)]
	}
	wq.signaled, wq.bytes, wq.slot = w.Signaled || q.sigAll, n, slot
	q.sq = append(q.sq, wq)

	o := &slot.o
	*o = op{id: f.nextID, qp: q, w: wq, flush: q.state == verbs.QPSErr}
	f.nextID++
	if o.flush || isLocal(w.Opcode) {
		o.psn = psnRange(q.sqPSN, 0)
	} else {
		// A READ request is one packet but spends a PSN per response packet.
		pkts := max(1, int((n+uint64(q.mtu)-1)/uint64(q.mtu)))
		o.psn = psnRange(q.sqPSN, pkts)
		q.sqPSN = (q.sqPSN + uint32(pkts)) & psnMask
		o.cost = f.cost(w.Opcode, n)
	}
	o.due = max(f.now, q.lastDone) + o.cost
	q.lastDone = o.due
	f.enqueue(o)
}

// PostRecv is ibv_post_recv: allowed from INIT on (EINVAL in RESET), with
// EINVAL for too many SGEs and ENOMEM when max_recv_wr receives wait. In
// ERR the receive is accepted and flushed at once.
func (q *qp) PostRecv(wr *verbs.RecvWR) (*verbs.RecvWR, error) {
	f := q.dev.f
	f.mu.Lock()
	defer f.unlock()
	if wr == nil {
		return nil, fmt.Errorf("sim: post recv on qp %d: nil work request: %w", q.num, verbs.EINVAL)
	}
	if q.dead {
		return wr, fmt.Errorf("sim: post recv on qp %d: destroyed: %w", q.num, verbs.EINVAL)
	}
	if q.state == verbs.QPSReset {
		return wr, fmt.Errorf("sim: post recv on qp %d in state RESET: %w", q.num, verbs.EINVAL)
	}
	defer f.autoRun()
	for w := wr; w != nil; w = w.Next {
		if len(w.SGList) > q.cap.MaxRecvSGE {
			return w, fmt.Errorf("sim: post recv on qp %d: wr_id %#x: %d SGEs over max_recv_sge %d: %w",
				q.num, w.WRID, len(w.SGList), q.cap.MaxRecvSGE, verbs.EINVAL)
		}
		if len(q.rq) >= q.cap.MaxRecvWR {
			return w, fmt.Errorf("sim: post recv on qp %d: wr_id %#x: receive queue full (max_recv_wr %d): %w",
				q.num, w.WRID, q.cap.MaxRecvWR, verbs.ENOMEM)
		}
		if q.state == verbs.QPSErr {
			q.recvCQ.push(verbs.WC{WRID: w.WRID, Status: verbs.StatusWRFlushErr, Opcode: verbs.WCRecv, QPNum: q.num})
			continue
		}
		cp := *w
		cp.Next = nil
		cp.SGList = append([]verbs.SGE(nil), w.SGList...)
		q.rq = append(q.rq, cp)
	}
	return nil, nil
}

// Destroy destroys the QP: its pending operations vanish without
// completions; a peer still sending to it sees RETRY_EXC_ERR.
func (q *qp) Destroy() error {
	f := q.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if q.dead {
		return fmt.Errorf("sim: destroy qp %d: already destroyed: %w", q.num, verbs.EINVAL)
	}
	f.removeOps(q)
	q.sq, q.rq = nil, nil
	q.state = verbs.QPSReset
	q.dead = true
	q.pd.nQP--
	q.sendCQ.users--
	q.recvCQ.users--
	return nil
}

// toError moves q to ERR: its pending operations are dropped and every WR
// not yet retired, then every posted receive, completes with WR_FLUSH_ERR
// in posting order.
func (f *Fabric) toError(q *qp) {
	f.removeOps(q)
	q.state = verbs.QPSErr
	q.lastDone = f.now
	for _, w := range q.sq {
		q.sendCQ.push(verbs.WC{WRID: w.wr.WRID, Status: verbs.StatusWRFlushErr,
			Opcode: verbs.WCOpcodeFor(w.wr.Opcode), QPNum: q.num})
	}
	q.retire(q.sq)
	clear(q.sq)
	q.sq = q.sq[:0]
	for _, r := range q.rq {
		q.recvCQ.push(verbs.WC{WRID: r.WRID, Status: verbs.StatusWRFlushErr, Opcode: verbs.WCRecv, QPNum: q.num})
	}
	q.rq = q.rq[:0]
}

// connectedPeer is the QP q names as its peer, whatever its state.
func (f *Fabric) connectedPeer(q *qp) *qp {
	if q.peerNode == "" {
		return nil
	}
	p := f.qpns[q.peerQPN]
	if p == nil || p.dead || p.dev.node != q.peerNode || f.nodes[q.peerNode] != p.dev {
		return nil
	}
	return p
}

// responder is the QP that answers q's requests: it must exist, name q
// back, and be in RTR or RTS; otherwise it drops them.
func (f *Fabric) responder(q *qp) *qp {
	p := f.connectedPeer(q)
	if p == nil || p.peerQPN != q.num || p.peerNode != q.dev.node {
		return nil
	}
	if p.state != verbs.QPSRTR && p.state != verbs.QPSRTS {
		return nil
	}
	return p
}

// complete writes the completion of a send WR that executed and retires
// it with every WR before it. A failure always completes; a success only
// when signaled.
func (f *Fabric) complete(q *qp, w *swqe, st verbs.Status) {
	if st == verbs.StatusSuccess && !w.signaled {
		return
	}
	wc := verbs.WC{WRID: w.wr.WRID, Status: st, Opcode: verbs.WCOpcodeFor(w.wr.Opcode), QPNum: q.num}
	if st == verbs.StatusSuccess && w.wr.Opcode != verbs.WRRegMR && w.wr.Opcode != verbs.WRLocalInv {
		wc.ByteLen = uint32(w.bytes) // rxe reports the message length for every send completion
	}
	q.sendCQ.push(wc)
	for i, x := range q.sq {
		if x == w {
			// Shift down rather than reslice: the queue keeps its
			// capacity and the next post does not allocate.
			q.retire(q.sq[:i+1])
			k := copy(q.sq, q.sq[i+1:])
			clear(q.sq[k:])
			q.sq = q.sq[:k]
			break
		}
	}
	// A flush of a QP already in ERR completes only itself: later flush
	// operations are delivered one by one too.
	if st != verbs.StatusSuccess && q.state != verbs.QPSErr {
		f.toError(q)
	}
}
