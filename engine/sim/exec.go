package sim

import (
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// execute runs one operation at f.now: the requester's and the responder's
// checks in rxe's order, the copy, the completions. f.mu held.
func (f *Fabric) execute(o *op) Transfer {
	q, w := o.qp, o.w
	t := Transfer{Op: o.snapshot()}
	t.Due = f.now
	if o.flush || q.state != verbs.QPSRTS {
		t.Flush = true
		f.finish(o, &t, verbs.StatusWRFlushErr)
		return t
	}
	st, ok := f.takeFault(q.num)
	if f.forcing {
		st, ok = f.force, true // armed faults still count this execution
	}
	if ok && st != verbs.StatusSuccess {
		f.injected(o, &t, st)
		return t
	}
	switch w.wr.Opcode {
	case verbs.WRLocalInv:
		st := verbs.StatusSuccess
		if !invalidate(q.pd, w.wr.InvalidateRKey) {
			st = verbs.StatusLocQPOpErr // rxe_do_local_ops
		}
		f.finish(o, &t, st)
	case verbs.WRRegMR:
		st := verbs.StatusSuccess
		if !regFast(q.pd, &w.wr) {
			st = verbs.StatusLocQPOpErr
		}
		f.finish(o, &t, st)
	case verbs.WRSend, verbs.WRSendWithImm, verbs.WRSendWithInv:
		f.execSend(o, &t)
	case verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm:
		f.execWrite(o, &t)
	case verbs.WRRDMARead, verbs.WRRDMAReadWithInv:
		f.execRead(o, &t)
	default: // PostSend refuses other opcodes
		f.finish(o, &t, verbs.StatusLocQPOpErr)
	}
	return t
}

// finish completes o's WR with st on the requester.
func (f *Fabric) finish(o *op, t *Transfer, st verbs.Status) {
	t.Status = st
	f.complete(o.qp, o.w, st)
}

// nak completes o with st because the responder p NAKed it; p goes to ERR
// too, as rxe's responder does for class A and C errors.
func (f *Fabric) nak(o *op, t *Transfer, p *qp, r Response, st verbs.Status) {
	t.Response = r
	f.finish(o, t, st)
	if p != nil {
		t.MSN = p.msn // a NAK's AETH carries the MSN too
		f.toError(p)
	}
}

// takeFault counts one executed WR of QP qpn against the armed faults and
// returns the status of the first one that comes due.
func (f *Fabric) takeFault(qpn uint32) (verbs.Status, bool) {
	var (
		st  verbs.Status
		hit bool
	)
	kept := f.faults[:0]
	for _, x := range f.faults {
		if x.qpn == 0 || x.qpn == qpn {
			x.left--
			if x.left == 0 {
				if !hit {
					st, hit = x.st, true
				}
				continue
			}
		}
		kept = append(kept, x)
	}
	clear(f.faults[len(kept):])
	f.faults = kept
	return st, hit
}

// injected fails o with the FailNth status st. REM_* statuses are NAKs
// from the responder; RNR_RETRY_EXC_ERR is an RNR NAK with no retries
// left; RETRY_EXC_ERR and RESP_TIMEOUT_ERR are requests that got no answer;
// anything else fails on the requester before transmission.
func (f *Fabric) injected(o *op, t *Transfer, st verbs.Status) {
	q := o.qp
	var (
		r    Response
		wire = true
	)
	switch st {
	case verbs.StatusRemAccessErr:
		r = NAKRemoteAccess
	case verbs.StatusRemInvReqErr:
		r = NAKInvalidRequest
	case verbs.StatusRemOpErr, verbs.StatusRemAbortErr:
		r = NAKRemoteOp
	case verbs.StatusRNRRetryExcErr:
		r = RNRNAK
	case verbs.StatusRetryExcErr, verbs.StatusRespTimeoutErr:
	default:
		wire = false
	}
	if isLocal(o.w.wr.Opcode) {
		f.finish(o, t, st)
		return
	}
	t.OnWire = wire
	if wire && f.tap != nil && !isRead(o.w.wr.Opcode) {
		if src, ok := resolveLocal(&f.srcSegs, q.pd, o.w.wr.SGList, 0); ok {
			t.Payload = f.gather(src)
		}
	}
	var p *qp
	if r >= NAKInvalidRequest {
		p = f.responder(q)
	}
	f.nak(o, t, p, r, st)
}

// rnr handles an RNR NAK: retry after the RNR timer while rnr_retry
// allows (7: forever), else RNR_RETRY_EXC_ERR.
func (f *Fabric) rnr(o *op, t *Transfer) {
	t.Response = RNRNAK
	q := o.qp
	if q.rnrRetry != 7 && o.attempts >= q.rnrRetry {
		f.finish(o, t, verbs.StatusRNRRetryExcErr)
		return
	}
	o.attempts++
	t.Retry = true
	f.requeue(o, f.now+f.cfg.RNRTimer+o.cost)
}

// recvDone pops p's oldest receive and completes it.
func (f *Fabric) recvDone(p *qp, t *Transfer, wc verbs.WC) {
	r := p.rq[0]
	p.rq[0] = verbs.RecvWR{}
	p.rq = p.rq[1:]
	wc.WRID, wc.QPNum = r.WRID, p.num
	p.recvCQ.push(wc)
	t.PeerStatus, t.PeerCompleted = wc.Status, true
}

func (f *Fabric) acked(p *qp, t *Transfer) {
	p.msn = (p.msn + 1) & psnMask
	t.MSN = p.msn
	t.Response = ACK
}

func (f *Fabric) execSend(o *op, t *Transfer) {
	q, wr := o.qp, &o.w.wr
	src, ok := resolveLocal(&f.srcSegs, q.pd, wr.SGList, 0)
	if !ok {
		f.finish(o, t, verbs.StatusLocProtErr)
		return
	}
	t.OnWire = true
	if f.tap != nil {
		t.Payload = f.gather(src)
	}
	p := f.responder(q)
	if p == nil {
		f.finish(o, t, verbs.StatusRetryExcErr)
		return
	}
	if len(p.rq) == 0 {
		t.MSN = p.msn
		f.rnr(o, t)
		return
	}
	dst, ok := resolveLocal(&f.dstSegs, p.pd, p.rq[0].SGList, verbs.AccessLocalWrite)
	switch {
	case !ok:
		f.recvDone(p, t, verbs.WC{Status: verbs.StatusLocProtErr, Opcode: verbs.WCRecv, SrcQP: q.num})
		f.nak(o, t, p, NAKRemoteOp, verbs.StatusRemOpErr)
		return
	case segsLen(dst) < o.w.bytes:
		f.recvDone(p, t, verbs.WC{Status: verbs.StatusLocLenErr, Opcode: verbs.WCRecv, SrcQP: q.num})
		f.nak(o, t, p, NAKInvalidRequest, verbs.StatusRemInvReqErr)
		return
	}
	if wr.Opcode == verbs.WRSendWithInv {
		if m := p.dev.keys[wr.InvalidateRKey>>8]; m == nil || m.dead || m.kind != mrFast || m.pd != p.pd || m.rkey != wr.InvalidateRKey {
			// rxe completes the receive with REM_INV_REQ_ERR here.
			f.recvDone(p, t, verbs.WC{Status: verbs.StatusRemInvReqErr, Opcode: verbs.WCRecv, SrcQP: q.num})
			f.nak(o, t, p, NAKInvalidRequest, verbs.StatusRemInvReqErr)
			return
		}
	}
	copySegs(dst, src)
	wc := verbs.WC{Status: verbs.StatusSuccess, Opcode: verbs.WCRecv, ByteLen: uint32(o.w.bytes), SrcQP: q.num}
	switch wr.Opcode {
	case verbs.WRSendWithImm:
		wc.WithImm, wc.ImmData = true, wr.ImmData
	case verbs.WRSendWithInv:
		invalidate(p.pd, wr.InvalidateRKey)
		wc.WithInv, wc.InvalidatedRKey = true, wr.InvalidateRKey
	}
	f.recvDone(p, t, wc)
	f.acked(p, t)
	f.finish(o, t, verbs.StatusSuccess)
}

func (f *Fabric) execWrite(o *op, t *Transfer) {
	q, wr := o.qp, &o.w.wr
	src, ok := resolveLocal(&f.srcSegs, q.pd, wr.SGList, 0)
	if !ok {
		f.finish(o, t, verbs.StatusLocProtErr)
		return
	}
	t.OnWire = true
	if f.tap != nil {
		t.Payload = f.gather(src)
	}
	p := f.responder(q)
	if p == nil {
		f.finish(o, t, verbs.StatusRetryExcErr)
		return
	}
	withImm := wr.Opcode == verbs.WRRDMAWriteWithImm
	if withImm && len(p.rq) == 0 { // rxe checks resources before keys
		t.MSN = p.msn
		f.rnr(o, t)
		return
	}
	dst, m, ok := resolveRemote(&f.dstSegs, p.pd, wr.RKey, wr.RemoteAddr, o.w.bytes, verbs.AccessRemoteWrite)
	if !ok {
		f.nak(o, t, p, NAKRemoteAccess, verbs.StatusRemAccessErr)
		return
	}
	m.noteWrite(wr.RemoteAddr, copySegs(dst, src))
	if withImm {
		f.recvDone(p, t, verbs.WC{Status: verbs.StatusSuccess, Opcode: verbs.WCRecvWithImm,
			ByteLen: uint32(o.w.bytes), SrcQP: q.num, WithImm: true, ImmData: wr.ImmData})
	}
	f.acked(p, t)
	f.finish(o, t, verbs.StatusSuccess)
}

func (f *Fabric) execRead(o *op, t *Transfer) {
	q, wr := o.qp, &o.w.wr
	t.OnWire = true
	p := f.responder(q)
	if p == nil {
		f.finish(o, t, verbs.StatusRetryExcErr)
		return
	}
	src, _, ok := resolveRemote(&f.srcSegs, p.pd, wr.RKey, wr.RemoteAddr, o.w.bytes, verbs.AccessRemoteRead)
	if !ok {
		f.nak(o, t, p, NAKRemoteAccess, verbs.StatusRemAccessErr)
		return
	}
	t.RespPSN = o.psn
	if f.tap != nil {
		t.Payload = f.gather(src)
	}
	f.acked(p, t)
	// The sink is checked when the response lands, as rxe's completer does.
	dst, ok := resolveLocal(&f.dstSegs, q.pd, wr.SGList, verbs.AccessLocalWrite)
	if !ok {
		f.finish(o, t, verbs.StatusLocProtErr)
		return
	}
	copySegs(dst, src)
	if wr.Opcode == verbs.WRRDMAReadWithInv && !invalidate(q.pd, wr.InvalidateRKey) {
		f.finish(o, t, verbs.StatusLocQPOpErr)
		return
	}
	f.finish(o, t, verbs.StatusSuccess)
}
