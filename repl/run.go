package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// maxRunSteps bounds one command: Lab.Run stops there.
const maxRunSteps = engine.MaxSteps

// stop says why a run ended.
type stop = engine.Stop

const (
	stopReached     = engine.Reached // the event asked for happened
	stopIdle        = engine.Idle    // nothing can run
	stopFault       = engine.Faulted // a FAULT event: the kernel would have crashed
	stopInterrupted = engine.Halted  // Ctrl-C
	stopBound       = engine.Runaway // maxRunSteps events without getting there
)

// runTo steps the lab until match accepts an event (nil: never), a
// FAULT, idle, an interrupt or the bound: Lab.Run with the session's
// interrupt as its halt.
func (s *Session) runTo(match func(trace.Event) bool) stop {
	return s.lab.Run(match, s.interrupt.Load)
}

// stopError turns a run that did not reach target into the error a
// script fails with, saying why.
func (s *Session) stopError(why stop, target string) error {
	switch why {
	case stopReached:
		return nil
	case stopFault:
		return fmt.Errorf("stopped at a FAULT before %s: %s", target, s.lab.Last().String())
	case stopInterrupted:
		return fmt.Errorf("interrupted before %s", target)
	case stopBound:
		return fmt.Errorf("gave up after %d events without reaching %s", maxRunSteps, target)
	}
	return fmt.Errorf("did not reach %s: %s", target, s.why())
}

// reportStop prints what a run command leaves behind: the last event when
// the trace is off, and why it stopped when that is not obvious.
func (c *Ctx) reportStop(out io.Writer, why stop, before uint64) {
	s := c.S
	last := s.lab.Last()
	switch {
	case last.Seq == before:
		fmt.Fprintf(out, "nothing ran: %s\n", s.why())
		c.noHint = true
		return
	case !s.trace:
		fmt.Fprintf(out, "at: %s\n", strings.TrimSpace(last.String()))
	}
	switch why {
	case stopFault:
		fmt.Fprintln(out, "stopped at a FAULT: the kernel would have crashed or corrupted memory here")
	case stopInterrupted:
		fmt.Fprintln(out, "interrupted")
	case stopBound:
		fmt.Fprintf(out, "stopped after %d events\n", maxRunSteps)
	}
}

// why describes, in one line, why nothing can run.
func (s *Session) why() string {
	r := s.lab.RunState()
	msg := "every thread waits"
	if len(r.Waiting) > 0 {
		msg += " (" + strings.Join(r.Waiting, ", ") + ")"
	}
	switch p := r.Pending; {
	case len(p) > 0 && !s.lab.Can(engine.DeclaredStatus):
		msg += fmt.Sprintf("; the device ran %d operation(s) whose completions wait: complete delivers them", len(p))
	case len(p) > 0:
		msg += fmt.Sprintf("; %d operation(s) wait on the wire: complete delivers them", len(p))
	case r.Dead:
		msg += "; the transport is closed: reset starts a new lab"
	case r.Outstanding == 0:
		msg += "; no call is outstanding"
	}
	return msg
}

// hint says what can happen next, for commands that move the lab.
func (s *Session) hint() string {
	r := s.lab.RunState()
	run := r.Runnable
	var parts []string
	if len(run) > 0 {
		parts = append(parts, fmt.Sprintf("%s can run: continue, or step, next, recv, reply", strings.Join(run, ", ")))
	}
	if p := r.Pending; len(p) > 0 {
		op := p[0]
		how := "complete"
		switch {
		case s.lab.Set.AutoComplete:
			how = "continue"
		case len(p) > 1:
			how = "complete all, or complete N"
		}
		parts = append(parts, fmt.Sprintf("%d operation(s) on the wire, first %s %v %dB: %s",
			len(p), op.Node, op.Opcode, op.Bytes, how))
	}
	if r.Closing || r.Dead {
		closed := "the transport is closed (svc_xprt_deferred_close): no call on it will be answered; reset starts a new lab"
		if !r.Dead {
			closed = "the transport is closing (XPT_CLOSE is set): a thread will disconnect it; reset starts a new lab"
		}
		parts = append(parts, closed)
	}
	switch {
	case len(parts) > 0:
		return "next: " + strings.Join(parts, "\n      ")
	case r.Outstanding > 0:
		return fmt.Sprintf("next: %d call(s) outstanding but nothing can run: show threads, show calls", r.Outstanding)
	}
	return "next: idle; issue a call: write 64k, read 64k, readdir 16k"
}

// printHint writes the hint when hints are on.
func (s *Session) printHint(out io.Writer) {
	if s.hints {
		fmt.Fprintln(out, s.hint())
	}
}
