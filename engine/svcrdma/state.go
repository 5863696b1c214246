package svcrdma

// Read-only views of the transport for snapshots and invariant checks.

// ActiveReads lists the calls whose Read list was built and whose recv
// ctxt is not yet released, oldest first.
func (x *Xprt) ActiveReads() []*RecvCtxt { return x.reads }

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
