package engine

import "github.com/rdmalab/rdmalab/engine/snap"

// SetLesson sets where a paced lesson stands, for the views (nil: no
// lesson). It takes the lock Do holds: inside Do, keep it until Do
// returns, as SetNarration.
func (s *Shared) SetLesson(l *snap.Lesson) {
	s.mu.Lock()
	s.lsn = l
	s.mu.Unlock()
	s.w.Notify()
}

// Read runs f with the Lab locked, as Do does, for a reader that is not a
// view (the REPL's completer, a lesson's checks): taking a snapshot fills
// the Lab's caches, so it must not run beside a view's. Nothing changes,
// so no watcher is told.
func (s *Shared) Read(f func(*Lab)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.lab)
}

// Lesson is where a paced lesson stands now, or nil. The value is never
// changed once set: readers may keep it.
func (s *Shared) Lesson() *snap.Lesson {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lsn
}
