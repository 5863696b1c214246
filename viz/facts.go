package viz

import (
	"strconv"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// maxSends bounds the Send completions the Positions pane remembers.
const maxSends = 32

// maxFactKeys bounds the contexts and tasks remembered: an attached view
// reads events from a socket, and ids it has never seen cost nothing.
const maxFactKeys = 4096

// facts is what the panes need that a snapshot does not say, read from the
// events as they arrive: whether an R/W context was reused, how many SQEs
// a waiting thread needs, and the order Send completions came back in.
type facts struct {
	rwReused map[int]bool   // rw ctxt id → its last get popped the cache
	rwNew    int            // gets that allocated (kmalloc_node)
	rwReuse  int            // gets served from the cache (llist_del_first)
	sqNeed   map[string]int // task → SQEs it waits for (svcrdma_sq_full)
	sends    []sendDone     // Send completions, oldest first
}

// sendDone is one svc_rdma_wc_send: the reply position it carried and
// whether it succeeded.
type sendDone struct {
	pos uint64
	ok  bool
}

func newFacts() facts {
	return facts{rwReused: map[int]bool{}, sqNeed: map[string]int{}}
}

// observe updates the facts with one event.
func (f *facts) observe(e *trace.Event) {
	switch e.Func {
	case kernel.KmallocNode.Name():
		if id, ok := argInt(e, "rw"); ok {
			bound(f.rwReused)
			f.rwReused[id] = false
			f.rwNew++
		}
	case kernel.LlistDelFirst.Name():
		if id, ok := argInt(e, "rw"); ok {
			bound(f.rwReused)
			f.rwReused[id] = true
			f.rwReuse++
		}
	case kernel.TraceSvcrdmaSqFull.Name():
		if n, ok := argInt(e, "need"); ok {
			bound(f.sqNeed)
			f.sqNeed[e.Task] = n
		}
	case kernel.TraceSvcrdmaSqRetry.Name(), kernel.ScSqAvail.Name():
		delete(f.sqNeed, e.Task)
	case kernel.SvcRdmaWcSend.Name():
		if e.Kind != trace.Call {
			return
		}
		pos, _ := argInt(e, "pos")
		if len(f.sends) == maxSends {
			f.sends = append(f.sends[:0], f.sends[1:]...)
		}
		f.sends = append(f.sends, sendDone{pos: uint64(pos), ok: arg(e, "status") == "SUCCESS"})
	}
}

// bound forgets everything in m once it holds maxFactKeys keys: what the
// panes lose is a "reused" label, never memory.
func bound[K comparable, V any](m map[K]V) {
	if len(m) >= maxFactKeys {
		clear(m)
	}
}

// arg is the value of an event argument, "" when absent.
func arg(e *trace.Event, key string) string {
	for _, a := range e.Args {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func argInt(e *trace.Event, key string) (int, bool) {
	n, err := strconv.Atoi(arg(e, key))
	return n, err == nil
}
