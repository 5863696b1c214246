package viz

import "github.com/rdmalab/rdmalab/engine/snap"

// facts is what the panes show of what happened lately, which a
// snapshot's state alone does not say: whether an R/W context was reused,
// how many SQEs a waiting thread needs, and the order Send completions
// came back in. The producer keeps them (snap.Recent); an older snapshot
// file without them draws without them.
type facts struct {
	rwReused map[int]bool // rw ctxt id → its last get popped the cache
	rwNew    int          // gets that allocated (kmalloc_node)
	rwReuse  int          // gets served from the cache (llist_del_first)
	// rwGets says the get counts are known: the source kept them, and
	// they account for every context created. A replay (which sees no
	// cache) and an older file do not: the pane then says only what
	// was created, never "created 4 · got 0 new".
	rwGets bool
	sqNeed map[string]int // task → SQEs it waits for (svcrdma_sq_full)
	sends  []sendDone     // Send completions, oldest first
}

// sendDone is one svc_rdma_wc_send: the reply position it carried and
// whether it succeeded.
type sendDone struct {
	pos uint64
	ok  bool
}

// factsOf reads the facts of s.
func factsOf(s *snap.Snapshot) facts {
	r := s.Recent
	if r == nil {
		return facts{}
	}
	f := facts{rwReused: r.RWGot, rwNew: r.RWNew, rwReuse: r.RWReused, sqNeed: r.SQNeed,
		rwGets: r.RWNew == s.RWCtxts.Created}
	for _, sd := range r.Sends {
		f.sends = append(f.sends, sendDone{pos: sd.Pos, ok: sd.OK})
	}
	return f
}
