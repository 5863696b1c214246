package viz

import "github.com/rdmalab/rdmalab/engine/trace"

// ring keeps the last events up to a fixed capacity: a long session costs
// the view the same memory as a short one.
type ring struct {
	buf  []trace.Event
	head int // index of the oldest event
	n    int
}

func newRing(capacity int) ring { return ring{buf: make([]trace.Event, max(capacity, 1))} }

// push adds e, dropping the oldest event when full.
func (r *ring) push(e trace.Event) {
	if r.n < len(r.buf) {
		r.buf[(r.head+r.n)%len(r.buf)] = e
		r.n++
		return
	}
	r.buf[r.head] = e
	r.head = (r.head + 1) % len(r.buf)
}

// len is the number of events kept.
func (r *ring) len() int { return r.n }

// at is the i'th event kept, 0 the oldest.
func (r *ring) at(i int) *trace.Event { return &r.buf[(r.head+i)%len(r.buf)] }

// last is the newest event, if any.
func (r *ring) last() (*trace.Event, bool) {
	if r.n == 0 {
		return nil, false
	}
	return r.at(r.n - 1), true
}

// tail copies the newest n events, oldest first.
func (r *ring) tail(n int) []trace.Event {
	n = min(max(n, 0), r.n)
	out := make([]trace.Event, n)
	for i := range out {
		out[i] = *r.at(r.n - n + i)
	}
	return out
}

// reset forgets every event.
func (r *ring) reset() {
	clear(r.buf)
	r.head, r.n = 0, 0
}
