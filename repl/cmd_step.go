package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
)

func stepCommands() []*Command {
	return []*Command{
		{
			Name: "step", Aliases: []string{"s"}, Group: GroupStep, Hint: true,
			Usage: "step [N] [--thread THREAD]",
			Short: "run N events (default 1), or N events of one thread",
			Long: "An event is a function entry or return, a trace point, or a thread starting to wait.\n" +
				"With automatic completion on, pending operations execute first. --thread runs that\n" +
				"thread whatever the scheduler would pick (it fails if the thread is blocked).",
			Example: "step\nstep 20\nstep --thread nfsd1",
			Kernel:  []*trace.Func{anyFunc},
			Args:    []Arg{{Name: "N", Optional: true, Complete: completeCounts("1", "10", "100")}},
			Flags:   []Flag{{Name: "thread", Value: "THREAD", Usage: "step this thread only", Complete: completeThreads}},
			Run:     runStep,
		},
		{
			Name: "next", Aliases: []string{"n"}, Group: GroupStep, Hint: true,
			Usage:   "next",
			Short:   "step over: run the function just entered to its end",
			Long:    "After a function entry, runs to that function's return; otherwise runs one event, and\nover the whole call if that event enters a function.",
			Example: "until svc_rdma_process_read_list\nnext",
			Kernel:  []*trace.Func{anyFunc},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				s := c.S
				before := s.lab.Last().Seq
				ok := s.lab.Next()
				c.reportStop(out, boolStop(ok), before)
				return nil
			},
		},
		{
			Name: "finish", Aliases: []string{"fin"}, Group: GroupStep, Hint: true,
			Usage:   "finish",
			Short:   "run until the current function returns",
			Example: "until svc_rdma_build_read_segment\nfinish",
			Kernel:  []*trace.Func{anyFunc},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				s := c.S
				before := s.lab.Last().Seq
				ok := s.lab.Finish()
				c.reportStop(out, boolStop(ok), before)
				return nil
			},
		},
		{
			Name: "continue", Aliases: []string{"c", "cont"}, Group: GroupStep, Hint: true,
			Usage: "continue",
			Short: "run until every thread waits",
			Long: "Stops early at a FAULT (the kernel would have crashed there) or on Ctrl-C. With\n" +
				"auto_complete on, completions are delivered as they come, so a call runs to its end.",
			Example: "write 64k\ncomplete\ncontinue",
			Kernel:  []*trace.Func{anyFunc},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				s := c.S
				before := s.lab.Last().Seq
				why := s.runTo(nil)
				if why == stopIdle && s.lab.Last().Seq == before {
					fmt.Fprintf(out, "nothing ran: %s\n", s.why())
					return nil
				}
				c.reportStop(out, why, before)
				return nil
			},
		},
		{
			Name: "thread", Group: GroupStep,
			Usage: "thread [THREAD|none]",
			Short: "focus a thread: it runs whenever it can",
			Long: "Without an argument, lists the threads. Focusing is how a lesson forces an\n" +
				"interleaving: the focused thread runs until it blocks, then the others.",
			Example: "set threads 2\nthread nfsd1\nthread none",
			Kernel:  []*trace.Func{kernel.SvcRecv},
			Args:    []Arg{{Name: "THREAD", Optional: true, Complete: completeThreadsOrNone}},
			Run:     runThreadCmd,
		},
		{
			Name: "interleave", Group: GroupStep, Hint: true,
			Usage: "interleave THREAD[:N]...",
			Short: "force an order: N events of each thread in turn",
			Long: "Each word runs that thread for N events, whatever the scheduler would pick: the way to\n" +
				"make two threads race through svc_rdma_post_send in a chosen order.",
			Example: "interleave nfsd0:3 nfsd1:2 nfsd0",
			Kernel:  []*trace.Func{kernel.SvcRdmaPostSend},
			Args:    []Arg{{Name: "THREAD[:N]", Variadic: true, Complete: completeThreads}},
			Run:     runInterleave,
		},
	}
}

func boolStop(ok bool) stop {
	if ok {
		return stopReached
	}
	return stopIdle
}

func runStep(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	n := int64(1)
	if len(a.Pos) > 0 {
		var err error
		if n, err = engine.ParseInt("N", a.Pos[0], 1, maxRunSteps); err != nil {
			return err
		}
	}
	before := s.lab.Last().Seq
	if t, ok := a.Flag("thread"); ok {
		if err := s.stepThread(t, int(n)); err != nil {
			return err
		}
		c.reportStop(out, stopReached, before)
		return nil
	}
	why := stopReached
	for i := int64(0); i < n; i++ {
		if s.interrupt.Load() {
			why = stopInterrupted
			break
		}
		if !s.lab.Step() {
			why = stopIdle
			break
		}
	}
	if s.lab.Last().Seq == before {
		return fmt.Errorf("nothing can run: %s", s.why())
	}
	c.reportStop(out, why, before)
	return nil
}

// stepThread runs n events of one thread.
func (s *Session) stepThread(name string, n int) error {
	if err := s.checkThread(name); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := s.lab.StepThread(name); err != nil {
			if i == 0 {
				return fmt.Errorf("step: %w", err)
			}
			return fmt.Errorf("step: %s ran %d event(s), then: %w", name, i, err)
		}
	}
	return nil
}

func runThreadCmd(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	if len(a.Pos) == 0 {
		threadsReport{s.lab.SnapshotWithout(engine.PartsCostly).Threads}.writeText(out)
		return nil
	}
	name := a.Pos[0]
	if name == "none" {
		_ = s.lab.Thread("")
		fmt.Fprintln(out, "no thread is focused: the scheduler picks")
		return nil
	}
	if err := s.checkThread(name); err != nil {
		return err
	}
	if err := s.lab.Thread(name); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s is focused: it runs whenever it can\n", name)
	return nil
}

func runInterleave(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	type turn struct {
		name string
		n    int
	}
	var turns []turn
	for _, w := range a.Pos {
		name, cnt, has := strings.Cut(w, ":")
		if err := s.checkThread(name); err != nil {
			return err
		}
		n := int64(1)
		if has {
			var err error
			if n, err = engine.ParseInt(name+" event count", cnt, 1, 100_000); err != nil {
				return err
			}
		}
		turns = append(turns, turn{name, int(n)})
	}
	before := s.lab.Last().Seq
	for _, t := range turns {
		if err := s.stepThread(t.name, t.n); err != nil {
			return fmt.Errorf("interleave: %w", err)
		}
	}
	c.reportStop(out, stopReached, before)
	return nil
}
