package sched

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

func drain(s *Scheduler) []string {
	var out []string
	for {
		ev, ok := s.Step()
		if !ok {
			return out
		}
		out = append(out, ev.Task+":"+ev.Kind.String()+":"+ev.Func+":"+ev.Err)
	}
}

func TestCallReturnAndDepth(t *testing.T) {
	s := New()
	s.Go("nfsd0", false, func(t *Task) {
		outer := func() (err error) {
			defer t.Call(fn("outer"), "x", 1)(&err)
			inner := func() (err error) {
				defer t.Call(fn("inner"))(&err)
				t.Point(fn("did"), "a", 2)
				return verbs.EINVAL
			}
			return inner()
		}
		_ = outer()
	})
	var evs []trace.Event
	for {
		ev, ok := s.Step()
		if !ok {
			break
		}
		evs = append(evs, ev)
	}
	want := []struct {
		kind  trace.Kind
		fn    string
		depth int
		err   string
	}{
		{trace.Call, "outer", 0, ""}, {trace.Call, "inner", 1, ""}, {trace.Point, "did", 2, ""},
		{trace.Return, "inner", 1, "EINVAL"}, {trace.Return, "outer", 0, "EINVAL"},
	}
	if len(evs) != len(want) {
		t.Fatalf("got %d events, want %d: %v", len(evs), len(want), evs)
	}
	for i, w := range want {
		e := evs[i]
		if e.Kind != w.kind || e.Func != w.fn || e.Depth != w.depth || e.Err != w.err || e.Seq != uint64(i+1) {
			t.Errorf("event %d = %+v, want %+v", i, e, w)
		}
	}
	if got := evs[2].String(); !strings.Contains(got, "• did a=2") {
		t.Errorf("point line = %q", got)
	}
}

func TestWaitUntilBlocksAndFocusForcesInterleaving(t *testing.T) {
	s := New()
	credits := 0
	var order []string
	s.Go("nfsd0", false, func(t *Task) {
		t.WaitUntil("sc_send_wait", func() bool { return credits > 0 })
		credits--
		order = append(order, "nfsd0")
	})
	s.Go("nfsd1", false, func(t *Task) {
		t.Point(fn("p"))
		order = append(order, "nfsd1")
	})
	ev, ok := s.Step()
	if !ok || ev.Kind != trace.Wait || ev.Task != "nfsd0" {
		t.Fatalf("first event %+v", ev)
	}
	if got := s.Task("nfsd0").State(); got != Blocked {
		t.Fatalf("nfsd0 state %v, want blocked", got)
	}
	drain(s)
	if strings.Join(order, ",") != "nfsd1" {
		t.Fatalf("order %v: nfsd0 must stay blocked", order)
	}
	credits = 1
	drain(s)
	if strings.Join(order, ",") != "nfsd1,nfsd0" {
		t.Fatalf("order %v", order)
	}
	if len(s.Tasks()) != 0 {
		t.Fatalf("tasks left: %d", len(s.Tasks()))
	}
}

func TestMutexAndForcedOrder(t *testing.T) {
	s := New()
	m := &Mutex{Name: "sc_post_lock"}
	var posted []string
	body := func(t *Task) {
		t.Lock(m)
		t.Point(fn("seq"))
		posted = append(posted, t.Name)
		t.Unlock(m)
	}
	a := s.Go("A", false, body)
	b := s.Go("B", false, body)
	s.Focus(a)
	if ev, _ := s.StepTask(a); ev.Func != "seq" {
		t.Fatalf("A: %+v", ev)
	}
	// B now finds the lock taken.
	if ev, _ := s.StepTask(b); ev.Kind != trace.Wait || !strings.Contains(ev.Func, "sc_post_lock") {
		t.Fatalf("B should wait: %+v", ev)
	}
	if m.Holder() != "A" {
		t.Fatalf("holder %q", m.Holder())
	}
	drain(s)
	if strings.Join(posted, ",") != "A,B" {
		t.Fatalf("posted %v", posted)
	}
}

func TestPanicBecomesFaultAndCloseUnwinds(t *testing.T) {
	s := New()
	s.Go("bad", false, func(t *Task) {
		t.Point(fn("before"))
		var m map[string]int
		m["x"] = 1
	})
	unwound := false
	s.Go("loop", false, func(t *Task) {
		defer func() { unwound = true }()
		for {
			t.Point(fn("tick"))
		}
	})
	got := map[string]bool{}
	for i := 0; i < 6; i++ {
		ev, ok := s.Step()
		if !ok {
			break
		}
		got[ev.Kind.String()+":"+ev.Func] = true
	}
	if !got["fault:engine panic"] {
		t.Fatalf("no fault event: %v", got)
	}
	s.Close()
	if !unwound {
		t.Fatal("Close did not unwind the looping task")
	}
}

// TestFramesOfFinishedTasksReused: a task that starts after another
// finished reuses its coroutine and call frames; its returns are its own,
// with the names and values of its own calls, and they interleave with a
// live task's at the same depth.
func TestFramesOfFinishedTasksReused(t *testing.T) {
	s := New()
	body := func(name string, v int) func(*Task) {
		return func(t *Task) {
			f := func() (err error) {
				defer t.Call(fn(name))(&err)
				ret := t.CallV(fn(name + "_v"))
				ret(v)
				return verbs.EIO
			}
			_ = f()
		}
	}
	s.Go("cq", true, body("first", 1))
	if got := strings.Join(drain(s), " "); got != "cq:call:first: cq:call:first_v: cq:return:first_v: cq:return:first:EIO" {
		t.Fatalf("first task: %s", got)
	}
	if len(s.idle) != 1 {
		t.Fatalf("%d runners kept after the task ended, want 1", len(s.idle))
	}
	a := s.Go("a", false, body("second", 2))
	b := s.Go("b", false, body("third", 3))
	if len(s.idle) != 0 {
		t.Fatalf("the runner was not taken by the next task")
	}
	var got []string
	for _, tk := range []*Task{a, b, a, b, a, b, a, b} {
		ev, ok := s.StepTask(tk)
		if !ok {
			t.Fatalf("%s cannot run", tk.Name)
		}
		got = append(got, ev.Task+":"+ev.Kind.String()+":"+ev.Func+":"+ev.Err+":"+fmt.Sprint(ev.Args))
	}
	want := "a:call:second::[] b:call:third::[] a:call:second_v::[] b:call:third_v::[] " +
		"a:return:second_v::[{ret 2}] b:return:third_v::[{ret 3}] a:return:second:EIO:[] b:return:third:EIO:[]"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("interleaved:\n got %s\nwant %s", g, want)
	}
}

// TestRunnersReusedAndClosed: sequential handler tasks share one
// coroutine, a task after a panicking one runs on a fresh one, and Close
// ends the idle coroutines too.
func TestRunnersReusedAndClosed(t *testing.T) {
	before := settledGoroutines()
	s := New()
	for i := 0; i < 5; i++ {
		s.Go("cq", true, func(t *Task) {
			t.WaitUntil("never first", func() bool { return true })
			t.Point(fn("handled"), "i", i)
		})
		if got := strings.Join(drain(s), " "); got != "cq:point:handled:" {
			t.Fatalf("task %d: %s", i, got)
		}
	}
	if len(s.idle) != 1 {
		t.Fatalf("%d idle runners after five sequential tasks, want 1", len(s.idle))
	}
	if n := runtime.NumGoroutine() - before; n != 1 {
		t.Errorf("%d coroutines for five sequential tasks, want 1", n)
	}
	s.Go("cq", true, func(t *Task) { panic("boom") })
	if got := strings.Join(drain(s), " "); !strings.HasPrefix(got, ":fault:engine panic:") {
		t.Fatalf("panicking task: %s", got)
	}
	if len(s.idle) != 0 {
		t.Fatalf("the runner of a panicked task went back idle")
	}
	s.Go("cq", true, func(t *Task) { t.Point(fn("after")) })
	s.Go("nfsd0", false, func(t *Task) {
		for {
			t.Point(fn("loop"))
		}
	})
	var got []string
	for i := 0; i < 3; i++ {
		ev, _ := s.Step()
		got = append(got, ev.Task+":"+ev.Func)
	}
	if g := strings.Join(got, " "); g != "cq:after nfsd0:loop nfsd0:loop" {
		t.Fatalf("after the panic: %s", g)
	}
	s.Close()
	if n := runtime.NumGoroutine() - before; n != 0 {
		t.Errorf("%d coroutines left after Close", n)
	}
}

// settledGoroutines is the number of goroutines once those that earlier
// tests' closed schedulers left exiting are gone: it counted one of them
// under load, and this test's count came out -1.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		if m := runtime.NumGoroutine(); m != n {
			n = m
			continue
		}
		break
	}
	return n
}

// TestEventArgsKeptApart: the arguments of events cut from the
// scheduler's slab stay each event's own, across refills of the slab and
// when a consumer appends to them.
func TestEventArgsKeptApart(t *testing.T) {
	s := New()
	s.Go("nfsd0", false, func(t *Task) {
		for i := 0; ; i++ {
			switch i % 3 {
			case 0:
				t.Point(fn("p"), "i", i, "s", fmt.Sprint("v", i), "big", 1<<40+i)
			case 1:
				ret := t.CallV(fn("c"), "i", i)
				ret(i * 2)
			}
		}
	})
	var evs []trace.Event
	for len(evs) < 2000 {
		ev, _ := s.Step()
		evs = append(evs, ev)
	}
	evs[0].Args = append(evs[0].Args, trace.Arg{Key: "extra", Val: "x"})
	for n, ev := range evs {
		got := fmt.Sprint(ev.Args)
		var want string
		switch i := n / 3 * 3; {
		case n == 0:
			want = "[{i 0} {s v0} {big 1099511627776} {extra x}]"
		case n%3 == 0:
			want = fmt.Sprintf("[{i %d} {s v%d} {big %d}]", i, i, 1<<40+i)
		case n%3 == 1:
			want = fmt.Sprintf("[{i %d}]", i+1)
		default:
			want = fmt.Sprintf("[{ret %d}]", (i+1)*2)
		}
		if got != want {
			t.Fatalf("event %d (%s): args %s, want %s", n, ev.Func, got, want)
		}
	}
	s.Close()
}

// TestInline: the inline function takes every event where it is emitted,
// in order and numbered as Step numbers them; a task it lets run on does
// not suspend, and the Step that resumed it returns Taken when it does.
func TestInline(t *testing.T) {
	s := New()
	s.Go("nfsd0", false, func(t *Task) {
		for i := 0; i < 5; i++ {
			t.Point(fn("p"), "i", i)
		}
	})
	var got []string
	s.SetInline(func(t *Task, ev *trace.Event) bool {
		got = append(got, fmt.Sprintf("%d %s", ev.Seq, *ev))
		return len(got) != 3 // suspend after the third
	})
	var kinds []trace.Kind
	for {
		ev, ok := s.Step()
		if !ok {
			break
		}
		kinds = append(kinds, ev.Kind)
	}
	// The first Step runs to the third event; the second runs the last
	// two and the end of the task, and reports nothing to run.
	if fmt.Sprint(kinds) != fmt.Sprint([]trace.Kind{Taken}) {
		t.Errorf("Step returned kinds %v, want one Taken", kinds)
	}
	if len(got) != 5 || got[0] != "1 nfsd0  • p i=0" || got[4] != "5 nfsd0  • p i=4" {
		t.Errorf("inline took %q", got)
	}
}

// TestInlinePanics: a panic in the inline function reaches the caller of
// Step, as it would from code run after Step returned, rather than being
// taken for a bug in the task.
func TestInlinePanics(t *testing.T) {
	s := New()
	defer s.Close()
	s.Go("nfsd0", false, func(t *Task) { t.Point(fn("p")) })
	s.SetInline(func(*Task, *trace.Event) bool { panic("sink") })
	defer func() {
		if p := recover(); p != "sink" {
			t.Errorf("recovered %v, want the inline function's panic", p)
		}
	}()
	s.Step()
	t.Error("Step returned")
}

// BenchmarkPointInline is the cost of one trace point taken by an inline
// function that keeps a copy, as the lab's runs do: a 1 MiB WRITE emits
// ~400 events, 256 of them sg_set_page.
func BenchmarkPointInline(b *testing.B) {
	sgSetPage := fn("sg_set_page")
	s := New()
	defer s.Close()
	s.Quiet = true
	s.Go("nfsd0", false, func(t *Task) {
		for i := 0; i < b.N; i++ {
			t.Point(sgSetPage, "sgl", i&7, "rq_page", i&255)
		}
	})
	var kept [64]trace.Event
	n := 0
	s.SetInline(func(t *Task, ev *trace.Event) bool {
		kept[n&63] = *ev
		n++
		return true
	})
	b.ReportAllocs()
	b.ResetTimer()
	for {
		if _, ok := s.Step(); !ok {
			break
		}
	}
	if n != b.N {
		b.Fatalf("took %d events, want %d", n, b.N)
	}
}

// fn is a function for a test to trace: the model's are engine/kernel's.
func fn(name string) *trace.Func { return trace.Declare(name, "a function of the test") }
