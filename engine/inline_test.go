package engine

import (
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/xprt"
)

// runUntilByStep is runUntil as it was before threads ran on inline: one
// Step, one event at a time. TestInlineRunsLikeSteps compares the two.
func runUntilByStep(l *Lab, stop func(trace.Event) bool) bool {
	for i := 0; i < MaxSteps; i++ {
		before := l.seq
		if !l.Step() {
			return false
		}
		if l.seq == before {
			continue
		}
		if stop(l.Last()) {
			return true
		}
		if l.Last().Kind == trace.Fault {
			return false
		}
	}
	return false
}

// runner is how a scenario runs the lab until a condition: runUntil, or
// runUntilByStep.
type runner func(l *Lab, stop func(trace.Event) bool) bool

func never(trace.Event) bool { return false }

// TestInlineRunsLikeSteps runs scenarios twice, running the lab with
// runUntil (threads go on inline) and with one Step at a time, and wants
// the same events — task, kind, function, depth, arguments, text, sequence
// — and the same answers from every run.
func TestInlineRunsLikeSteps(t *testing.T) {
	enter := func(fn string) func(trace.Event) bool {
		return func(e trace.Event) bool { return e.Kind == trace.Call && e.Func == fn }
	}
	scenarios := []struct {
		name string
		mod  func(*Settings)
		run  func(t *testing.T, l *Lab, run runner) []bool
	}{
		{"write and read, auto", func(s *Settings) { s.AutoComplete = true }, func(t *testing.T, l *Lab, run runner) []bool {
			var out []bool
			for _, n := range []int{1 << 20, 70000, 100} {
				must(t)(l.Write(n, ChunkOpts{Segments: 3, PageOff: 100}))
				out = append(out, run(l, never))
				must(t)(l.Read(n, ChunkOpts{Segments: 2}))
				out = append(out, run(l, never))
			}
			must(t)(l.Readdir(16384, ChunkOpts{}))
			out = append(out, run(l, never))
			must(t)(l.LongCall(20000, ChunkOpts{}))
			return append(out, run(l, never))
		}},
		{"by hand, two threads, stops", func(s *Settings) { s.Threads = 2 }, func(t *testing.T, l *Lab, run runner) []bool {
			var out []bool
			for i := 0; i < 3; i++ {
				must(t)(l.Write(100000, ChunkOpts{Segments: 2}))
				must(t)(l.Read(50000, ChunkOpts{}))
			}
			for i := 0; i < 40; i++ {
				out = append(out, run(l, enter("svc_rdma_process_read_list")))
				out = append(out, run(l, enter("sg_set_page")))
				if _, err := l.Complete(2, nil); err != nil {
					out = append(out, false)
				}
				out = append(out, run(l, enter("svc_rdma_sendto")), run(l, never))
			}
			return out
		}},
		{"auto, focus and a failure", func(s *Settings) { s.AutoComplete, s.Threads = true, 2 }, func(t *testing.T, l *Lab, run runner) []bool {
			var out []bool
			if err := l.Thread("nfsd1"); err != nil {
				t.Fatal(err)
			}
			must(t)(l.Write(300000, ChunkOpts{}))
			must(t)(l.Read(300000, ChunkOpts{}))
			out = append(out, run(l, enter("svc_rdma_build_read_segment")), run(l, never))
			if err := l.FailNth(3, verbs.StatusRemAccessErr); err != nil {
				t.Fatal(err)
			}
			must(t)(l.Write(200000, ChunkOpts{}))
			return append(out, run(l, never), run(l, never))
		}},
		{"seed profile", func(s *Settings) { s.AutoComplete, s.Profile = true, string(svcrdma.ProfileSeed) }, func(t *testing.T, l *Lab, run runner) []bool {
			must(t)(l.Write(100000, ChunkOpts{Segments: 2}))
			out := []bool{run(l, never)}
			must(t)(l.Read(100000, ChunkOpts{}))
			return append(out, run(l, never))
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			inline, stepped := newLab(t, sc.mod), newLab(t, sc.mod)
			a := sc.run(t, inline, (*Lab).runUntil)
			b := sc.run(t, stepped, runUntilByStep)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("runs answered %v inline, %v by steps", a, b)
			}
			ea, eb := inline.History(), stepped.History()
			if len(ea) != len(eb) {
				t.Errorf("%d events inline, %d by steps", len(ea), len(eb))
			}
			for i := range min(len(ea), len(eb)) {
				if x, y := fmt.Sprintf("%d %s", ea[i].Seq, ea[i]), fmt.Sprintf("%d %s", eb[i].Seq, eb[i]); x != y {
					t.Fatalf("event %d:\ninline   %s\nby steps %s", i, x, y)
				}
			}
			if len(ea) < 100 {
				t.Errorf("only %d events: the scenario does too little", len(ea))
			}
		})
	}
}

// must fails t when the call it is given could not be made.
func must(t *testing.T) func(*xprt.Call, error) {
	return func(_ *xprt.Call, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunHaltsLikeSteps halts Run after the nth event (the REPL's Ctrl-C)
// and wants it to stop where a Step at a time, checking before each step,
// stops: the same events, then the same run to idle.
func TestRunHaltsLikeSteps(t *testing.T) {
	auto := func(s *Settings) { s.AutoComplete, s.Threads = true, 2 }
	for _, n := range []uint64{1, 2, 7, 50, 333} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			inline, stepped := newLab(t, auto), newLab(t, auto)
			for _, l := range []*Lab{inline, stepped} {
				must(t)(l.Write(1<<20, ChunkOpts{Segments: 2}))
				must(t)(l.Read(100000, ChunkOpts{}))
			}
			start := inline.seq
			halt := func(l *Lab) func() bool { return func() bool { return l.seq-start >= n } }
			if why := inline.Run(nil, halt(inline)); why != Halted {
				t.Fatalf("Run ended %d, not Halted", why)
			}
			for !halt(stepped)() && stepped.Step() {
			}
			if inline.seq != stepped.seq || inline.seq-start < n {
				t.Fatalf("halted at event %d, by steps at %d (asked for %d after %d)", inline.seq, stepped.seq, n, start)
			}
			if why := inline.Run(nil, nil); why != Idle {
				t.Fatalf("Run to the end ended %d, not Idle", why)
			}
			runUntilByStep(stepped, never)
			ea, eb := inline.History(), stepped.History()
			if len(ea) != len(eb) || len(ea) < 200 {
				t.Fatalf("%d events inline, %d by steps", len(ea), len(eb))
			}
			for i := range ea {
				if x, y := fmt.Sprintf("%d %s", ea[i].Seq, ea[i]), fmt.Sprintf("%d %s", eb[i].Seq, eb[i]); x != y {
					t.Fatalf("event %d:\ninline   %s\nby steps %s", i, x, y)
				}
			}
		})
	}
}
