// Package watch keeps change callbacks: whatever holds state that others
// draw (engine.Shared, an attached view) tells them it changed.
package watch

import "sync"

// Set is a set of callbacks. Notify calls them outside Set's own lock,
// so a callback may call back into whatever notified it, or stop itself.
// The zero value is an empty set ready to use.
type Set struct {
	mu   sync.Mutex
	fs   map[int]func()
	next int
}

// Add adds f until the returned stop is called.
func (s *Set) Add(f func()) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fs == nil {
		s.fs = map[int]func(){}
	}
	id := s.next
	s.next++
	s.fs[id] = f
	return func() {
		s.mu.Lock()
		delete(s.fs, id)
		s.mu.Unlock()
	}
}

// Notify calls every callback, on the caller's goroutine.
func (s *Set) Notify() {
	s.mu.Lock()
	fs := make([]func(), 0, len(s.fs))
	for _, f := range s.fs {
		fs = append(fs, f)
	}
	s.mu.Unlock()
	for _, f := range fs {
		f()
	}
}
