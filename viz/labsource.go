package viz

import (
	"errors"
	"fmt"
	"sync"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// LabSource is a Source over a live engine.Lab. A Lab is not safe for
// concurrent use, so everything that touches it goes through the source:
// the view's actions, and the REPL's commands through Do. Views read a
// copy taken after each change, never the Lab itself.
type LabSource struct {
	mu     sync.Mutex
	lab    *engine.Lab
	snap   snap.Snapshot
	events ring
	seen   uint64
	narr   string
	w      watchers
}

// NewLabSource wraps l, keeping the last DefaultEvents events.
func NewLabSource(l *engine.Lab) *LabSource {
	s := &LabSource{events: newRing(DefaultEvents)}
	s.Replace(l)
	return s
}

var (
	_ Source    = (*LabSource)(nil)
	_ Watcher   = (*LabSource)(nil)
	_ Narrator  = (*LabSource)(nil)
	_ Describer = (*LabSource)(nil)
)

// Do runs f with the Lab locked, then takes a new picture and tells the
// watchers. The REPL runs every command that touches the Lab through it.
func (s *LabSource) Do(f func(*engine.Lab) error) error {
	s.mu.Lock()
	err := func() error {
		defer s.mu.Unlock()
		defer s.refresh()
		return f(s.lab)
	}()
	s.w.notify()
	return err
}

// Replace swaps in a new Lab (the REPL rebuilds one on `reset` or after
// settings change); its events start a new history.
func (s *LabSource) Replace(l *engine.Lab) {
	s.mu.Lock()
	s.lab = l
	s.events.reset()
	s.seen = 0
	s.refresh()
	s.mu.Unlock()
	s.w.notify()
}

// SetNarration sets the lesson text views show ("" clears it).
func (s *LabSource) SetNarration(text string) {
	s.mu.Lock()
	s.narr = text
	s.mu.Unlock()
	s.w.notify()
}

// refresh copies the Lab's state; the caller holds mu.
func (s *LabSource) refresh() {
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
func (s *LabSource) Snapshot() snap.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

// Events is the newest n events, oldest first.
func (s *LabSource) Events(n int) []trace.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events.tail(n)
}

// Narration is the lesson text.
func (s *LabSource) Narration() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.narr
}

// Describe says the view drives this session.
func (s *LabSource) Describe() string { return "live" }

// Watch calls f after every change until stop is called.
func (s *LabSource) Watch(f func()) (stop func()) { return s.w.watch(f) }

// Act runs a on the Lab.
func (s *LabSource) Act(a Action) error {
	return s.Do(func(l *engine.Lab) error { return runAction(l, a) })
}

// errIdle is what stepping says when every thread waits.
var errIdle = errors.New("nothing can run: every thread waits (C delivers a completion)")

func runAction(l *engine.Lab, a Action) error {
	if l == nil {
		return errors.New("no lab")
	}
	switch a {
	case ActStep:
		if !l.Step() {
			return errIdle
		}
	case ActNext, ActFinish:
		ok := l.Next
		if a == ActFinish {
			ok = l.Finish
		}
		if !ok() {
			return errors.New("stopped before the function returned: nothing could run, or a FAULT")
		}
	case ActContinue:
		l.Continue() // stops when idle or at a FAULT: both are answers
	case ActComplete:
		if _, err := l.Complete(1, nil); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown action %v", a)
	}
	return nil
}
