package engine

import (
	"strconv"
	"testing"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// The snapshot's Recent says what the events said (the view read it from
// them before): the rw ctxt gets, what a starved thread needs, the Send
// completions in order.
func TestSnapshotRecentAgreesWithEvents(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.Threads = 2; s.SQDepth = 6; s.MaxSendSGEs = 1 })
	l.Write(5*4096, ChunkOpts{})
	l.Write(5*4096, ChunkOpts{})
	l.Complete(2, nil)
	l.Continue()
	r := l.Snapshot().Recent
	if r == nil || len(r.SQNeed) != 1 {
		t.Fatalf("a starved thread, but Recent %+v", r)
	}
	for task, n := range r.SQNeed {
		if want := lastArg(l.History(), kernel.TraceSvcrdmaSqFull, task, "need"); strconv.Itoa(n) != want {
			t.Errorf("%s needs %d SQEs, its svcrdma_sq_full said %s", task, n, want)
		}
	}
	settle(t, l)
	l.Write(4096, ChunkOpts{})
	settle(t, l)
	r = l.Snapshot().Recent
	var fresh, reused int
	var sends []snap.SendDone
	for _, e := range l.History() {
		switch {
		case kernel.KmallocNode.Is(&e):
			fresh++
		case kernel.LlistDelFirst.Is(&e):
			reused++
		case kernel.SvcRdmaWcSend.Is(&e) && e.Kind == trace.Call:
			pos, _ := strconv.ParseUint(arg(e, "pos"), 10, 64)
			sends = append(sends, snap.SendDone{Pos: pos, OK: arg(e, "status") == "SUCCESS"})
		}
	}
	if len(r.SQNeed) != 0 || r.RWNew != fresh || r.RWReused != reused || reused == 0 || len(r.Sends) != len(sends) || len(sends) != 3 {
		t.Fatalf("Recent %+v; the events: %d new, %d reused, sends %v", r, fresh, reused, sends)
	}
	for i := range sends {
		if r.Sends[i] != sends[i] {
			t.Errorf("send %d: %+v, the event said %+v", i, r.Sends[i], sends[i])
		}
	}
}

// lastArg is key's value in the last event of f that task emitted.
func lastArg(evs []trace.Event, f *trace.Func, task, key string) string {
	v := ""
	for _, e := range evs {
		if f.Is(&e) && e.Task == task {
			v = arg(e, key)
		}
	}
	return v
}

func arg(e trace.Event, key string) string {
	for _, a := range e.Args {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
