package svcrdma

import (
	"maps"
	"slices"
)

// Read-only views of the transport for snapshots and invariant checks.

// ActiveReads lists the calls whose Read list was built and whose recv
// ctxt is not yet released, oldest first.
func (x *Xprt) ActiveReads() []*RecvCtxt { return x.reads }

// Recent is what the transport did lately that its state does not say,
// kept as the model runs for the view (which drew it from the events).
type Recent struct {
	RWNew    int            // rw ctxt gets that allocated (kmalloc_node)
	RWReused int            // rw ctxt gets the cache served (llist_del_first)
	SQNeed   map[string]int // task → the SQEs it waits for (svcrdma_sq_full)
	Sends    []SendDone     // the latest Send completions, oldest first
}

// SendDone is one Send completion: the reply position its Send carried
// and whether it succeeded.
type SendDone struct {
	Pos uint64
	OK  bool
}

// maxSends bounds the Send completions Recent keeps.
const maxSends = 32

func (r *Recent) needSQ(task string, n int) {
	if r.SQNeed == nil {
		r.SQNeed = map[string]int{}
	}
	r.SQNeed[task] = n
}

func (r *Recent) gotSQ(task string) { delete(r.SQNeed, task) }

func (r *Recent) sent(pos uint64, ok bool) {
	if len(r.Sends) == maxSends {
		r.Sends = append(r.Sends[:0], r.Sends[1:]...)
	}
	r.Sends = append(r.Sends, SendDone{pos, ok})
}

// Recent is a copy of what the transport did lately.
func (x *Xprt) Recent() Recent {
	r := x.recent
	r.SQNeed = maps.Clone(r.SQNeed)
	r.Sends = slices.Clone(r.Sends)
	return r
}

// RWCreated counts the rw ctxts ever allocated.
func (x *Xprt) RWCreated() int { return x.rwCreated }

// InUseRWCtxts lists rw ctxts that are neither cached, freed, nor lost
// the way the modelled kernel loses them (B6's leak, a FAULT).
func (x *Xprt) InUseRWCtxts() []*RWCtxt {
	var out []*RWCtxt
	for _, c := range x.rwAll {
		if c.Where != "cache" && c.Where != "freed" && c.Where != "leaked" && c.Where != "lost" {
			out = append(out, c)
		}
	}
	return out
}

// AllRWCtxts lists every rw ctxt ever allocated, for conservation checks.
func (x *Xprt) AllRWCtxts() []*RWCtxt { return x.rwAll }

// Source says where an SGL entry's bytes come from.
func (s SGE) Source() string { return s.src }

// LostRWCtxts counts rw ctxts the modelled kernel lost: leaked (B6) or
// abandoned by a FAULT.
func (x *Xprt) LostRWCtxts() int {
	n := 0
	for _, c := range x.rwAll {
		if c.Where == "leaked" || c.Where == "lost" {
			n++
		}
	}
	return n
}

// FreedRWCtxts counts rw ctxts freed by svc_rdma_destroy_rw_ctxts or by
// the seed's allocation-failure path.
func (x *Xprt) FreedRWCtxts() int { return x.rwFreed }

// Sends lists every send ctxt ever created, for views and checks.
func (x *Xprt) Sends() []*SendCtxt { return x.sends }
