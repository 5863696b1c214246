package engine

import (
	"sync"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// SharedEvents is how many of the newest events a Shared keeps for its
// readers.
const SharedEvents = 10_000

// Shared is a Lab several goroutines use at once: the REPL runs its
// commands through Do while full-screen views and the session's publisher
// read from theirs. A Lab is not safe for concurrent use, so whatever
// changes it goes through Do, and readers get the picture and the events
// as copied after the last change, never the Lab itself.
type Shared struct {
	mu     sync.Mutex
	lab    *Lab
	snap   snap.Snapshot
	events eventRing
	seen   uint64 // the Seq of the newest event copied into events
	narr   string
	w      watchers
}

// NewShared guards l, keeping its newest SharedEvents events.
func NewShared(l *Lab) *Shared {
	s := &Shared{events: newEventRing(SharedEvents)}
	s.Replace(l)
	return s
}

// Do runs f with the Lab locked, then copies the picture and the new
// events and tells the watchers (after unlocking, so a watcher may read).
func (s *Shared) Do(f func(*Lab) error) error {
	s.mu.Lock()
	err := func() error {
		defer s.mu.Unlock()
		defer s.refresh()
		return f(s.lab)
	}()
	s.w.notify()
	return err
}

// Replace swaps in a new Lab (the REPL builds one on `reset` or when a
// setting needs it); its events start a new history.
func (s *Shared) Replace(l *Lab) {
	s.mu.Lock()
	s.lab = l
	s.events.reset()
	s.seen = 0
	s.refresh()
	s.mu.Unlock()
	s.w.notify()
}

// SetNarration sets what a lesson says now, for the views ("" clears it).
// It takes the lock Do holds: inside Do, keep the text until Do returns.
func (s *Shared) SetNarration(text string) {
	s.mu.Lock()
	s.narr = text
	s.mu.Unlock()
	s.w.notify()
}

// refresh copies the Lab's state; the caller holds mu.
func (s *Shared) refresh() {
	if s.lab == nil {
		s.snap = snap.Snapshot{}
		return
	}
	s.snap = s.lab.Snapshot()
	for _, e := range s.lab.Since(s.seen) {
		s.events.push(e)
		s.seen = e.Seq
	}
}

// Snapshot is the picture taken after the last change.
func (s *Shared) Snapshot() snap.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

// Events is the newest n events kept, oldest first.
func (s *Shared) Events(n int) []trace.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events.tail(n)
}

// Since is the events kept whose Seq is above seq, oldest first. After a
// Replace the sequence starts again from 1.
func (s *Shared) Since(seq uint64) []trace.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < s.events.n && s.events.at(s.events.n-1-n).Seq > seq {
		n++
	}
	return s.events.tail(n)
}

// Narration is what a lesson says now.
func (s *Shared) Narration() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.narr
}

// Watch calls f after every change (Do, Replace, SetNarration) until stop
// is called. f runs on the goroutine that made the change, outside the
// lock, and must not block.
func (s *Shared) Watch(f func()) (stop func()) { return s.w.watch(f) }

// eventRing keeps the newest events up to a fixed capacity: a long session
// costs its readers the same memory as a short one.
type eventRing struct {
	buf  []trace.Event
	head int // index of the oldest event
	n    int
}

func newEventRing(capacity int) eventRing {
	return eventRing{buf: make([]trace.Event, max(capacity, 1))}
}

// push adds e, dropping the oldest event when full.
func (r *eventRing) push(e trace.Event) {
	if r.n < len(r.buf) {
		r.buf[(r.head+r.n)%len(r.buf)] = e
		r.n++
		return
	}
	r.buf[r.head] = e
	r.head = (r.head + 1) % len(r.buf)
}

// at is the i'th event kept, 0 the oldest.
func (r *eventRing) at(i int) *trace.Event { return &r.buf[(r.head+i)%len(r.buf)] }

// tail copies the newest n events, oldest first.
func (r *eventRing) tail(n int) []trace.Event {
	n = min(max(n, 0), r.n)
	out := make([]trace.Event, n)
	for i := range out {
		out[i] = *r.at(r.n - n + i)
	}
	return out
}

// reset forgets every event.
func (r *eventRing) reset() {
	clear(r.buf)
	r.head, r.n = 0, 0
}

// watchers is the set of change callbacks a Shared keeps; callbacks run
// outside the lock, so one may call back into the Shared.
type watchers struct {
	mu   sync.Mutex
	fs   map[int]func()
	next int
}

// watch adds f until the returned stop is called.
func (w *watchers) watch(f func()) (stop func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fs == nil {
		w.fs = map[int]func(){}
	}
	id := w.next
	w.next++
	w.fs[id] = f
	return func() {
		w.mu.Lock()
		delete(w.fs, id)
		w.mu.Unlock()
	}
}

// notify calls every callback.
func (w *watchers) notify() {
	w.mu.Lock()
	fs := make([]func(), 0, len(w.fs))
	for _, f := range w.fs {
		fs = append(fs, f)
	}
	w.mu.Unlock()
	for _, f := range fs {
		f()
	}
}
