package engine

import (
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// RunState is what the lab can do next: the facts a front end words as
// "why nothing can run" and "what next".
type RunState struct {
	Runnable    []string   // nfsd threads that can run
	Waiting     []string   // blocked nfsd threads and what on: "nfsd0 in svc_recv"
	Pending     []verbs.Op // posted work the model has not seen complete (Pending)
	Closing     bool       // XPT_CLOSE is set: a thread will disconnect the transport
	Dead        bool       // the transport is closed
	Outstanding int        // client calls not yet answered
}

// RunState says what the lab can do next.
func (l *Lab) RunState() RunState {
	var r RunState
	for _, t := range l.Sched.Tasks() {
		if t.Handler {
			continue
		}
		switch t.State() {
		case sched.Runnable:
			r.Runnable = append(r.Runnable, t.Name)
		case sched.Blocked:
			if w := t.WaitingFor(); w != "" {
				r.Waiting = append(r.Waiting, t.Name+" in "+w)
			}
		}
	}
	r.Pending = l.Pending()
	r.Closing, r.Dead = l.Server.Close, l.Server.Dead
	r.Outstanding = l.Client.Outstanding()
	return r
}

// Threads names the nfsd threads, in order.
func (l *Lab) Threads() []string {
	names := make([]string, len(l.Rqsts))
	for i, rq := range l.Rqsts {
		names[i] = rq.Name
	}
	return names
}

// Focus focuses the scheduler on the named thread, as Thread does, and
// returns what puts the focus back as it was.
func (l *Lab) Focus(name string) (restore func(), err error) {
	prev := l.Sched.Focused()
	if err := l.Thread(name); err != nil {
		return nil, err
	}
	return func() { l.Sched.Focus(prev) }, nil
}
