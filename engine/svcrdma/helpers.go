package svcrdma

import (
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Inject makes allocation and mapping failures happen on purpose, so every
// error return of the seed can be reached. Each field counts down: 1 fails
// the next call, 2 the one after, 0 never.
type Inject struct {
	GetRWCtxt      int // svc_rdma_get_rw_ctxt: the chained SGL allocation fails (-ENOMEM)
	DMAMap         int // rdma_rw_ctx_init: the DMA mapping fails (-EIO)
	WriteInfoAlloc int // svc_rdma_write_info_alloc fails (-ENOMEM)
	SendCtxtGet    int // svc_rdma_send_ctxt_get fails (-ENOMEM)
	PostSend       int // ib_post_send rejects the whole chain (-ENOMEM from the provider)
	PostSendTail   int // ib_post_send accepts all but the chain's last WR
	BadPayload     int // the upper layer names a result payload past the reply's end
}

func (in *Inject) takeFailure(counter *int) bool {
	if *counter <= 0 {
		return false
	}
	*counter--
	return *counter == 0
}

// faultStop unwinds a thread after a FAULT event: the kernel would have
// crashed there, so the model abandons the request.
type faultStop struct{ what string }

// fault emits a FAULT event and abandons the current request.
func (x *Xprt) fault(t *sched.Task, what, format string, a ...any) {
	x.Counters.Faults++
	t.Fault(what, format, a...)
	panic(faultStop{what})
}

// wakeSendWaiters is svc_rdma_wake_send_waiters: give SQEs back.
func (x *Xprt) wakeSendWaiters(t *sched.Task, n int) {
	x.SQAvail += n
	t.Point(kernel.SvcRdmaWakeSendWaiters, "returned", n, "avail", x.SQAvail, "depth", x.SQDepth, "waiters", x.sendWait)
}

// deferredClose is svc_xprt_deferred_close: mark XPT_CLOSE once; a thread
// then tears the transport down.
func (x *Xprt) deferredClose(t *sched.Task) {
	if x.Close {
		return
	}
	x.Close = true
	t.Pointf(kernel.SvcXprtDeferredClose, "XPT_CLOSE set: an nfsd thread will disconnect and every outstanding WR will flush")
}

// ibPostSend hands a chain to the provider (ib_post_send): its entry is the
// chain about to be posted, its return the post done (or failed). The
// chain's signaled WRs are remembered so their completions find their cqe.
func (x *Xprt) ibPostSend(t *sched.Task, first *WR, owner string, seq uint64) (bad *WR, err error) {
	// The provider's WRs and SGEs are cut from two arrays per chain, not
	// allocated one by one: a 1 MiB transfer posts dozens of WRs.
	nwr, nsge := 0, 0
	for w := first; w != nil; w = w.Next {
		nwr++
		nsge += len(w.SGL)
	}
	// The provider copies what it accepts (ibv_post_send keeps no
	// pointer), so the arrays are the Xprt's scratch, taken for the call
	// (another thread may post while this one waits at a trace point) and
	// given back cleared.
	model := x.postModel[:0]
	vwrs := grow(x.postWRs, nwr)
	allSGEs := grow(x.postSGEs, nsge+nwr) // + one per MR-based op
	x.postModel, x.postWRs, x.postSGEs = nil, nil, nil
	sges := allSGEs
	defer func() {
		clear(model)
		clear(vwrs)
		x.postModel, x.postWRs, x.postSGEs = model[:0], vwrs[:0], allSGEs[:0]
	}()
	var vprev *verbs.SendWR
	for w := first; w != nil; w = w.Next {
		x.nextWRID++
		w.ID = x.nextWRID
		v := &vwrs[len(model)]
		*v = verbs.SendWR{WRID: w.ID, Opcode: w.Op, Signaled: w.Signaled, RemoteAddr: w.RemoteAddr, RKey: w.RKey,
			InvalidateRKey: w.InvRKey, RegKey: w.RegKey, Access: w.Access}
		switch {
		case w.Op == verbs.WRRegMR:
			v.MR = w.MR.mr
			v.SGList, sges = x.sgesInto(sges, w.SGL)
		case w.MR != nil && w.Op != verbs.WRLocalInv:
			sges[0] = verbs.SGE{Addr: w.MR.mr.Addr(), Length: uint32(w.Bytes()), LKey: w.MR.Key}
			v.SGList, sges = sges[:1:1], sges[1:]
		default:
			v.SGList, sges = x.sgesInto(sges, w.SGL)
		}
		if vprev != nil {
			vprev.Next = v
		}
		vprev = v
		model = append(model, w)
	}
	var vfirst *verbs.SendWR
	if len(vwrs) > 0 {
		vfirst = &vwrs[0]
	}
	ret := t.CallV(kernel.IbPostSend, "wrs", len(model), "chain", chainArg{first})
	defer func() {
		if err != nil {
			ret(errnoOf(err))
		} else {
			ret(nil)
		}
	}()
	var vbad *verbs.SendWR
	switch {
	case x.Inject.takeFailure(&x.Inject.PostSend):
		vbad, err = vfirst, verbs.ENOMEM
		t.Pointf(kernel.IbPostSend, "the provider rejects the chain (injected)")
	case x.Inject.takeFailure(&x.Inject.PostSendTail) && len(vwrs) > 1:
		last := &vwrs[len(vwrs)-1]
		vwrs[len(vwrs)-2].Next = nil
		if _, perr := x.qp.PostSend(vfirst); perr != nil {
			vbad, err = vfirst, perr
		} else {
			vbad, err = last, verbs.ENOMEM
		}
		t.Pointf(kernel.IbPostSend, "the provider accepts %d WRs and rejects the last (injected)", len(vwrs)-1)
	default:
		vbad, err = x.qp.PostSend(vfirst)
	}
	accepted := len(model)
	if err != nil {
		accepted = 0
		for i := range vwrs {
			if &vwrs[i] == vbad {
				accepted = i
				bad = model[i]
			}
		}
		if bad == nil {
			bad = first
		}
		t.Pointf(kernel.IbPostSend, "failed: %v; %d of %d WRs accepted", err, accepted, len(model))
	}
	if accepted > 0 {
		c := &Chain{First: first, Owner: owner, Seq: seq, Task: t.Name}
		for _, w := range model[:accepted] {
			if w.Signaled {
				x.inflight[w.ID] = w
			}
		}
		c.SQECount = accepted
		x.posted = append(x.posted, c)
	}
	return bad, err
}

// grow is s resliced to n zero items, reallocated when it is too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// sgesInto converts sgl into the front of buf and returns the converted
// entries and the rest of buf.
func (x *Xprt) sgesInto(buf []verbs.SGE, sgl []SGE) (out, rest []verbs.SGE) {
	out, rest = buf[:len(sgl):len(sgl)], buf[len(sgl):]
	for i, s := range sgl {
		var addr uint64
		if s.Page != nil {
			addr = s.Page.DMA + uint64(s.Off)
		}
		out[i] = verbs.SGE{Addr: addr, Length: uint32(s.Len), LKey: x.lkey}
	}
	return out, rest
}

// retireChain forgets the chain whose signaled tail completed.
func (x *Xprt) retireChain(last *WR) {
	for i, c := range x.posted {
		for w := c.First; w != nil; w = w.Next {
			if w == last {
				x.posted = append(x.posted[:i], x.posted[i+1:]...)
				return
			}
		}
	}
}

// retireStranded forgets a chain the provider took only in part, with no
// signaled WR, once the flush of its last accepted WR comes back: nothing
// else would, and ib_drain_qp waits for every WR the Send Queue holds.
func (x *Xprt) retireStranded(wrID uint64) {
	for i, c := range x.posted {
		w := c.First
		for n := 1; n < c.SQECount && w != nil; n++ {
			w = w.Next
		}
		if w != nil && w.ID == wrID && !w.Signaled {
			x.posted = append(x.posted[:i], x.posted[i+1:]...)
			return
		}
	}
}

// HandleSendWC runs the completion handler of a Send Queue completion, as
// the kernel's CQ poller does (__ib_process_cq).
func (x *Xprt) HandleSendWC(t *sched.Task, wc verbs.WC) {
	w, ok := x.inflight[wc.WRID]
	if !ok {
		// An unsignaled WR reported by the provider (a flush): the core
		// ignores completions without a cqe.
		t.Point(kernel.IbProcessCq, "wr_id", wc.WRID, "status", wc.Status, "note", "no cqe: ignored")
		x.retireStranded(wc.WRID)
		return
	}
	delete(x.inflight, wc.WRID)
	x.retireChain(w)
	if w.CQE == nil || w.CQE.done == nil {
		return
	}
	w.CQE.done(t, wc)
}

// OutstandingChains lists the chains posted and not yet completed.
func (x *Xprt) OutstandingChains() []*Chain { return x.posted }

// errnoOf turns an error into the errno the kernel would see.
func errnoOf(err error) verbs.Errno {
	if e, ok := err.(verbs.Errno); ok {
		return e
	}
	return verbs.EIO
}

// pushFront puts v at the head of list s in place, as list_add and
// llist_add do, growing s only when it is full.
func pushFront[T any](s []T, v T) []T {
	var zero T
	s = append(s, zero)
	copy(s[1:], s)
	s[0] = v
	return s
}

// popFront takes the head of the non-empty list s, shifting the rest down
// so that s keeps its capacity.
func popFront[T any](s []T) (T, []T) {
	v := s[0]
	n := copy(s, s[1:])
	var zero T
	s[n] = zero
	return v, s[:n]
}
