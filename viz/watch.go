package viz

import "sync"

// watchers is the set of change callbacks a Watcher keeps; callbacks run
// outside the lock, so one may call back into its source.
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
