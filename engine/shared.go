package engine

import (
	"sync"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/watch"
)

// SharedEvents is how many of the newest events a Shared keeps for its
// readers.
const SharedEvents = 10_000

// Shared is a Lab several goroutines use at once: the REPL runs its
// commands through Do while full-screen views and the session's publisher
// read from theirs. A Lab is not safe for concurrent use, so whatever
// changes it goes through Do, and readers get the picture and the events
// as they were after the last change, copied under the lock.
type Shared struct {
	mu    sync.Mutex
	lab   *Lab
	snap  snap.Snapshot
	stale bool      // the Lab changed since snap was taken: Snapshot takes it again
	keep  int       // how many of the newest events readers get
	seen  uint64    // the Seq of the Lab's newest event at the last change
	narr  *lazyText // nil: no lesson text
	w     watch.Set

	lsn *snap.Lesson // where a paced lesson stands (SetLesson)
}

// lazyText is a lesson's text for the views, built when one first reads
// it: a session no view watches never builds it.
type lazyText struct {
	once sync.Once
	f    func() string
	text string
}

func (t *lazyText) get() string {
	if t == nil {
		return ""
	}
	t.once.Do(func() {
		if t.f != nil {
			t.text, t.f = t.f(), nil
		}
	})
	return t.text
}

// NewShared guards l, keeping its newest SharedEvents events.
func NewShared(l *Lab) *Shared {
	s := &Shared{keep: SharedEvents}
	s.Replace(l)
	return s
}

// Do runs f with the Lab locked, then notes its newest event and tells the
// watchers (after unlocking, so a watcher may read). The picture is taken
// when someone asks for it (Snapshot), not after every change: a script
// run with no view takes none.
func (s *Shared) Do(f func(*Lab) error) error {
	s.mu.Lock()
	err := func() error {
		defer s.mu.Unlock()
		defer s.refresh()
		return f(s.lab)
	}()
	s.w.Notify()
	return err
}

// Replace swaps in a new Lab (the REPL builds one on `reset` or when a
// setting needs it); its events start a new history.
func (s *Shared) Replace(l *Lab) {
	s.mu.Lock()
	s.lab = l
	s.seen = 0
	s.refresh()
	s.snap, s.stale = snap.Snapshot{}, false // a new Lab is pictured at once
	if l != nil {
		s.snap = l.Snapshot()
	}
	s.mu.Unlock()
	s.w.Notify()
}

// SetNarration sets what a lesson says now, for the views ("" clears it).
// It takes the lock Do holds: inside Do, keep the text until Do returns.
func (s *Shared) SetNarration(text string) {
	s.setNarr(&lazyText{text: text})
}

// SetNarrationFunc is SetNarration for a text that costs work to build:
// f runs at most once, when a view first asks for the text (Narration),
// and not at all when none does. It runs on that view's goroutine, so it
// reads only what does not change.
func (s *Shared) SetNarrationFunc(f func() string) {
	s.setNarr(&lazyText{f: f})
}

func (s *Shared) setNarr(t *lazyText) {
	s.mu.Lock()
	s.narr = t
	s.mu.Unlock()
	s.w.Notify()
}

// refresh notes the Lab's newest event and marks the picture stale; the
// caller holds mu. Readers copy the events from the Lab's history, up to
// that one: recording every event a second time cost a script as much as
// keeping it.
func (s *Shared) refresh() {
	s.stale = true
	if s.lab != nil {
		s.seen = s.lab.seq
	}
}

// kept is where in the Lab's history the events readers get end (the
// newest seen by refresh) and how many there are; the caller holds mu.
func (s *Shared) kept() (end, n int) {
	if s.lab == nil {
		return 0, 0
	}
	h := &s.lab.history
	// Events recorded since the last change (outside Do) are not shown.
	end = h.n - int(min(s.lab.seq-s.seen, uint64(h.n)))
	return end, min(end, s.keep)
}

// tail copies the newest n events readers get, oldest first; the caller
// holds mu.
func (s *Shared) tail(n int) []trace.Event {
	end, kept := s.kept()
	out := make([]trace.Event, min(max(n, 0), kept))
	for i := range out {
		out[i] = *s.lab.history.at(end - len(out) + i)
	}
	return out
}

// Snapshot is the picture of the Lab after the last change: taken now if
// the Lab changed since it was last asked for (every change goes through
// Do or Replace, under the lock this takes), otherwise the one kept.
func (s *Shared) Snapshot() snap.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stale {
		s.snap, s.stale = snap.Snapshot{}, false
		if s.lab != nil {
			s.snap = s.lab.Snapshot()
		}
	}
	return s.snap
}

// Events is the newest n events kept (up to SharedEvents), oldest first.
func (s *Shared) Events(n int) []trace.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tail(n)
}

// Since is the events kept whose Seq is above seq, oldest first. After a
// Replace the sequence starts again from 1.
func (s *Shared) Since(seq uint64) []trace.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if s.seen > seq {
		n = int(min(s.seen-seq, uint64(s.keep)))
	}
	return s.tail(n)
}

// Narration is what a lesson says now. The text is built, if it must
// be, outside the lock: building it does not hold up the lab.
func (s *Shared) Narration() string {
	s.mu.Lock()
	t := s.narr
	s.mu.Unlock()
	return t.get()
}

// Watch calls f after every change (Do, Replace, SetNarration) until stop
// is called. f runs on the goroutine that made the change, outside the
// lock, and must not block.
func (s *Shared) Watch(f func()) (stop func()) { return s.w.Add(f) }
