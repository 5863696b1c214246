package watch

import "testing"

// Every callback added hears each Notify until it stops; a callback may
// add, stop or notify again without deadlocking.
func TestSet(t *testing.T) {
	var s Set
	s.Notify() // the zero value is usable
	var a, b int
	stopA := s.Add(func() { a++ })
	var stopB func()
	stopB = s.Add(func() {
		b++
		stopB() // a callback may stop itself
	})
	s.Notify()
	s.Notify()
	if a != 2 || b != 1 {
		t.Errorf("a heard %d notifications (want 2), b %d (want 1)", a, b)
	}
	stopA()
	stopA() // stopping twice is harmless
	s.Notify()
	if a != 2 {
		t.Errorf("a stopped callback was called: %d", a)
	}
	nested := 0
	stop := s.Add(func() {
		if nested++; nested == 1 {
			s.Notify()
		}
	})
	defer stop()
	s.Notify()
	if nested != 2 {
		t.Errorf("a nested Notify reached the callback %d times, want 2", nested)
	}
}
