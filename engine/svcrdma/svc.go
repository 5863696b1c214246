package svcrdma

// The generic server loop around the transport (net/sunrpc/svc_xprt.c and
// svc.c reduced to what the lessons need): an nfsd thread waits for work,
// takes one call through xpo_recvfrom, has the service process it, and
// sends the reply through xpo_sendto.

import (
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Service is the upper layer (nfsd): it decodes the call in rq.Arg and
// builds the reply in rq.Res, calling Xprt.ResultPayload for the bytes a
// Write chunk should carry.
type Service interface {
	// Process is svc_process; drop means no reply is sent.
	Process(t *sched.Task, x *Xprt, rq *Rqst) (drop bool)
	// ReplySent is the service's hook after xpo_sendto returned
	// (nfsd_cache_reply_sent): rq.ReplyPos holds the reply's position.
	ReplySent(t *sched.Task, x *Xprt, rq *Rqst)
}

// NewRqst is svc_rqst_alloc: rq_maxpages pages for one thread.
func (x *Xprt) NewRqst(name string) *Rqst {
	rq := &Rqst{Name: name, Pages: make([]*Page, x.MaxPages)}
	for i := range rq.Pages {
		rq.Pages[i] = x.allocPage()
	}
	return rq
}

// allocArg is svc_alloc_arg: refill the rq_pages slots that were handed on.
// A slot still holding a lent page (a reply that was never sent) gets a
// fresh page too, as svc_xprt_release's put of rq_respages leaves it
// empty: the next call's data must never land in the page cache.
func (x *Xprt) allocArg(rq *Rqst) {
	for i, p := range rq.Pages {
		if p == nil || p.region != nil {
			rq.Pages[i] = x.allocPage()
		}
	}
}

// ReplacePage is svc_rqst_replace_page: the reply's next page slot
// (rq_next_page) takes p, a page the service lends (the page cache's, for
// a READ by splice), instead of copying into the thread's page there,
// which goes back. It reports false when no slot is left or p cannot be
// mapped; the model maps p's region once, where the kernel maps per I/O.
func (x *Xprt) ReplacePage(rq *Rqst, p *Page) bool {
	i := rq.NextPageIdx
	if i < 0 || i >= len(rq.Pages) || p == nil {
		return false
	}
	if p.region != nil {
		if err := mapRegion(x.pd, p.region); err != nil {
			return false
		}
	}
	x.putPage(rq.Pages[i])
	rq.Pages[i] = p
	rq.NextPageIdx++
	return true
}

// Serve is one nfsd thread's life: svc_recv → svc_process → svc_send, for
// as long as the transport lives.
func (x *Xprt) Serve(t *sched.Task, rq *Rqst, svc Service) {
	rq.T = t
	for !x.Dead {
		x.allocArg(rq)
		t.WaitUntil(kernel.SvcRecv.Name(), func() bool { return (x.HasWork() && !x.busy) || (x.Close && !x.Dead) })
		if x.Close {
			x.detach(t)
			x.free(t)
			return
		}
		x.serveOne(t, rq, svc)
	}
}

// serveOne handles one piece of work; a FAULT abandons it and the thread
// goes on, as if a fresh nfsd thread had taken its place.
func (x *Xprt) serveOne(t *sched.Task, rq *Rqst, svc Service) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(faultStop); !ok {
				panic(r)
			}
			x.busy = false
			rq.Ctxt = nil
			// What the dead thread was building is lost with it.
			for _, c := range x.rwAll {
				if c.Where == "building" {
					c.Where = "lost"
				}
			}
			x.deferredClose(t)
		}
	}()
	x.busy = true // XPT_BUSY while in xpo_recvfrom
	n := x.Recvfrom(t, rq)
	x.busy = false
	// svc_xprt_received: another thread may take the next call from here.
	t.Point(kernel.SvcXprtReceived, "more_work", x.HasWork())
	if n <= 0 {
		return
	}
	rq.DropReason = ""
	switch {
	case svc == nil:
	case svc.Process(t, x, rq):
		x.noteDrop(rq)
	default:
		// svc_send: the reply-sent hook runs once xpo_sendto returns,
		// whatever it returned; a reply that never reached the wire
		// leaves rq_reply_pos at 0, so its DRC entry is never evicted
		// as acknowledged (engine's TestGC19FailedPostLeavesPositionZero).
		_ = x.Sendto(t, rq)
		svc.ReplySent(t, x, rq)
	}
	// svc_xprt_release → xpo_release_ctxt
	if rq.Ctxt != nil {
		x.recvCtxtPut(t, rq.Ctxt)
		rq.Ctxt = nil
	}
}

// free is svc_rdma_free: drain the QP, then release the calls still
// queued and the caches.
func (x *Xprt) free(t *sched.Task) {
	defer t.Call(kernel.SvcRdmaFree, "xpt_id", x.XptID)(nil)
	x.drainQP(t)
	t.Point(kernel.SvcRdmaFlushRecvQueues, "read_complete_q", len(x.ReadComplete), "rq_dto_q", len(x.recvQ))
	for _, rc := range x.ReadComplete {
		x.recvCtxtPut(t, rc)
	}
	for _, rc := range x.recvQ {
		x.recvCtxtPut(t, rc)
	}
	x.ReadComplete, x.recvQ = nil, nil
	x.Data = false
	x.destroyRWCtxts(t)
}

// drainQP is ib_drain_qp: it waits until every WR posted on the Send and
// the Receive Queue has completed (flushed, on a QP in ERR), so no
// completion handler runs on the transport once it is freed.
func (x *Xprt) drainQP(t *sched.Task) {
	t.WaitUntil(kernel.IbDrainQp.Name(), func() bool { return len(x.posted) == 0 && x.recvPosted == 0 })
	t.Pointf(kernel.IbDrainQp, "the Send and Receive Queues are empty")
}

// detach is svc_delete_xprt → svc_rdma_detach: disconnect; the provider
// flushes every outstanding WR, and their completions release what they hold.
func (x *Xprt) detach(t *sched.Task) {
	defer t.Call(kernel.SvcRdmaDetach, "xpt_id", x.XptID)(nil)
	x.Dead = true
	if x.qp != nil {
		if err := x.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}); err != nil {
			t.Pointf(kernel.RdmaDisconnect, "%v", err)
		}
	}
	t.Pointf(kernel.RdmaDisconnect, "QP to ERR: outstanding WRs will complete with WR_FLUSH_ERR")
}
