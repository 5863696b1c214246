package engine

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// Readers see the picture and the events as Do left them: a copy taken
// after the change, with f's error passed back.
func TestSharedDoRefreshes(t *testing.T) {
	l := newLab(t, nil)
	sh := NewShared(l)
	if got := sh.Events(SharedEvents); len(got) != 0 {
		t.Fatalf("a new lab has %d events", len(got))
	}
	if _, err := l.Write(10000, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	if got := len(sh.Snapshot().Calls); got != 0 {
		t.Fatalf("a change outside Do shows: %d calls", got)
	}
	if got := sh.Events(SharedEvents); len(got) != 0 || len(sh.Since(0)) != 0 {
		t.Fatalf("a change outside Do shows: events %v", got)
	}
	boom := errors.New("boom")
	err := sh.Do(func(l *Lab) error {
		l.Complete(1, nil)
		return boom
	})
	if err != boom {
		t.Errorf("Do returned %v, want f's error", err)
	}
	s := sh.Snapshot()
	if len(s.Calls) != 1 || s.LastEvent == nil {
		t.Fatalf("after Do: %d calls, last event %v", len(s.Calls), s.LastEvent)
	}
	evs := sh.Events(SharedEvents)
	if len(evs) == 0 || evs[len(evs)-1].Seq != s.LastEvent.Seq || evs[0].Seq != 1 {
		t.Fatalf("events %d..%d, last event %d", evs[0].Seq, evs[len(evs)-1].Seq, s.LastEvent.Seq)
	}
	if got := sh.Events(2); len(got) != 2 || got[1].Seq != evs[len(evs)-1].Seq {
		t.Errorf("Events(2) = %v", got)
	}
	if got := sh.Since(evs[len(evs)-3].Seq); len(got) != 2 || got[0].Seq != evs[len(evs)-2].Seq {
		t.Errorf("Since the third newest: %v", got)
	}
	if got := sh.Since(0); len(got) != len(evs) {
		t.Errorf("Since(0) holds %d events, Events %d", len(got), len(evs))
	}
	if got := sh.Since(evs[len(evs)-1].Seq); len(got) != 0 {
		t.Errorf("Since the newest: %v", got)
	}
}

// A new Lab starts a new history: its events replace the old ones.
func TestSharedReplace(t *testing.T) {
	sh := NewShared(newLab(t, nil))
	sh.Do(func(l *Lab) error { _, err := l.Write(10000, ChunkOpts{}); return err })
	if len(sh.Events(SharedEvents)) == 0 {
		t.Fatal("no events after a WRITE")
	}
	next := newLab(t, func(s *Settings) { s.Threads = 2 })
	sh.Replace(next)
	if got := sh.Events(SharedEvents); len(got) != 0 {
		t.Errorf("the new lab shows %d events of the old one", len(got))
	}
	if got := len(sh.Snapshot().Threads); got != 2 {
		t.Errorf("the picture has %d threads, the new lab 2", got)
	}
	sh.Do(func(l *Lab) error {
		if l != next {
			t.Error("Do runs on the old lab")
		}
		_, err := l.Write(100, ChunkOpts{Inline: true})
		return err
	})
	if evs := sh.Events(SharedEvents); len(evs) == 0 || evs[0].Seq != 1 {
		t.Errorf("the new lab's events start at %v", evs)
	}
}

// Only the newest events are kept (SharedEvents of them; 5 here).
func TestSharedKeepsTheNewestEvents(t *testing.T) {
	sh := &Shared{keep: 5}
	sh.Replace(newLab(t, nil))
	sh.Do(func(l *Lab) error { _, err := l.Write(10000, ChunkOpts{}); settle(t, l); return err })
	last := sh.Snapshot().LastEvent.Seq
	if last <= 5 {
		t.Fatalf("only %d events", last)
	}
	evs := sh.Events(10)
	if len(evs) != 5 || evs[4].Seq != last || evs[0].Seq != last-4 {
		t.Errorf("kept %d events, %v; the lab is at %d", len(evs), evs, last)
	}
	if got := sh.Since(0); len(got) != 5 || got[0].Seq != last-4 {
		t.Errorf("Since(0) holds %v", got)
	}
	sh.Do(func(l *Lab) error { _, err := l.Write(100, ChunkOpts{Inline: true}); return err })
	if evs := sh.Events(5); len(evs) != 5 || evs[4].Seq != sh.Snapshot().LastEvent.Seq {
		t.Errorf("after one more call: %v", evs)
	}
}

// Watchers hear of every change, after the lock is released (so they may
// read), until they stop.
func TestSharedWatch(t *testing.T) {
	sh := NewShared(newLab(t, nil))
	var calls atomic.Int32
	var narr string
	stop := sh.Watch(func() {
		calls.Add(1)
		narr = sh.Narration() // would deadlock under the lock
		sh.Snapshot()
	})
	sh.Do(func(*Lab) error { return nil })
	sh.SetNarration("step 1")
	sh.Replace(newLab(t, nil))
	if got := calls.Load(); got != 3 {
		t.Errorf("%d notifications for Do, SetNarration and Replace", got)
	}
	if narr != "step 1" {
		t.Errorf("the watcher read narration %q", narr)
	}
	stop()
	sh.Do(func(*Lab) error { return nil })
	if got := calls.Load(); got != 3 {
		t.Errorf("a stopped watcher was called: %d", got)
	}
}

// A command that panics leaves the lab unlocked and its picture taken:
// the REPL recovers and the session goes on.
func TestSharedDoPanics(t *testing.T) {
	sh := NewShared(newLab(t, nil))
	func() {
		defer func() { recover() }()
		sh.Do(func(l *Lab) error {
			l.Write(100, ChunkOpts{Inline: true})
			panic("a bug")
		})
	}()
	if len(sh.Snapshot().Calls) != 1 {
		t.Error("the picture was not taken")
	}
	if err := sh.Do(func(*Lab) error { return nil }); err != nil {
		t.Error(err)
	}
}

// Readers on other goroutines never see the Lab mid-change (go test
// -race checks it).
func TestSharedConcurrentReaders(t *testing.T) {
	sh := NewShared(newLab(t, nil))
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				s, evs := sh.Snapshot(), sh.Events(100)
				_ = sh.Since(0)
				if s.LastEvent != nil && len(evs) > 0 && evs[len(evs)-1].Seq < s.LastEvent.Seq {
					t.Error("events behind the picture")
					return
				}
			}
		})
	}
	for range 20 {
		sh.Do(func(l *Lab) error { _, err := l.Write(10000, ChunkOpts{}); settle(t, l); return err })
	}
	close(done)
	wg.Wait()
	if s := sh.Snapshot(); s.LastEvent == nil || s.LastEvent.Kind == trace.Fault {
		t.Errorf("last event %v", s.LastEvent)
	}
}

// Do takes no picture: the next Snapshot does, once, and a reader between
// two changes gets the one taken.
func TestSharedSnapshotsWhenAsked(t *testing.T) {
	sh := NewShared(newLab(t, nil))
	if err := sh.Do(func(l *Lab) error { _, err := l.Write(4096, ChunkOpts{}); return err }); err != nil {
		t.Fatal(err)
	}
	if !sh.stale || len(sh.snap.Calls) != 0 {
		t.Fatalf("after Do: stale %v, the kept picture has %d calls", sh.stale, len(sh.snap.Calls))
	}
	if got := len(sh.Snapshot().Calls); got != 1 || sh.stale {
		t.Fatalf("Snapshot: %d calls, stale %v", got, sh.stale)
	}
}

// BenchmarkSharedDo is a command as the REPL runs it through Shared (a
// 64 KiB WRITE, completed) with no view attached.
func BenchmarkSharedDo(b *testing.B) {
	sh := NewShared(newLab(b, nil))
	b.ReportAllocs()
	for b.Loop() {
		err := sh.Do(func(l *Lab) error {
			if _, err := l.Write(64<<10, ChunkOpts{}); err != nil {
				return err
			}
			l.Continue()
			_, err := l.Complete(-1, nil)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// A narration set as a function is built when a view first reads it,
// once, and never when none does: a lesson's long text cost a session
// with no view attached its whole reflow at every step.
func TestSharedNarrationFuncIsLazy(t *testing.T) {
	sh := NewShared(newLab(t, nil))
	built := 0
	sh.SetNarrationFunc(func() string { built++; return "step 1" })
	sh.SetNarrationFunc(func() string { built++; return "step 2" })
	if built != 0 {
		t.Fatalf("built %d times before any view read it", built)
	}
	if a, b := sh.Narration(), sh.Narration(); a != "step 2" || b != "step 2" || built != 1 {
		t.Errorf("read %q and %q, built %d times; want step 2, built once", a, b, built)
	}
	sh.SetNarration("")
	if n := sh.Narration(); n != "" {
		t.Errorf("cleared, it reads %q", n)
	}
}
