package trace

// Ring keeps the newest events up to a fixed capacity, so a long session
// costs its readers (engine.Shared, the view's model, an attached view)
// the same memory as a short one. Its zero value holds nothing: use
// NewRing. A Ring is not safe for concurrent use.
type Ring struct {
	buf  []Event
	head int // index of the oldest event
	n    int
}

// NewRing returns an empty ring that keeps at most capacity events (at
// least one).
func NewRing(capacity int) Ring { return Ring{buf: make([]Event, max(capacity, 1))} }

// Push adds e, dropping the oldest event when full.
func (r *Ring) Push(e Event) {
	if r.n < len(r.buf) {
		r.buf[(r.head+r.n)%len(r.buf)] = e
		r.n++
		return
	}
	r.buf[r.head] = e
	r.head = (r.head + 1) % len(r.buf)
}

// Len is the number of events kept.
func (r *Ring) Len() int { return r.n }

// Cap is the most events the ring keeps.
func (r *Ring) Cap() int { return len(r.buf) }

// At is the i'th event kept, 0 the oldest.
func (r *Ring) At(i int) *Event { return &r.buf[(r.head+i)%len(r.buf)] }

// Last is the newest event, if any.
func (r *Ring) Last() (*Event, bool) {
	if r.n == 0 {
		return nil, false
	}
	return r.At(r.n - 1), true
}

// Tail copies the newest n events, oldest first.
func (r *Ring) Tail(n int) []Event {
	n = min(max(n, 0), r.n)
	out := make([]Event, n)
	for i := range out {
		out[i] = *r.At(r.n - n + i)
	}
	return out
}

// Reset forgets every event.
func (r *Ring) Reset() {
	clear(r.buf)
	r.head, r.n = 0, 0
}
