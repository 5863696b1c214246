package repl

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rdmalab/rdmalab/viz"
)

// TerminalOptions configure Interactive.
type TerminalOptions struct {
	In          *os.File  // the terminal the user types at
	Out, Err    io.Writer // transcript and errors
	NoColor     bool      // NO_COLOR: no colours in the prompt and menus
	HistoryFile string    // "" keeps no history
	Session     Options
	// OnLine, if set, sees each line before it runs (a recorder; the
	// tests make it panic to check the terminal is restored).
	OnLine func(line string)
	// Lesson, if set, is started (paced) once the prompt is up.
	Lesson string
	// Serve, if set, serves the session's class page at this address
	// ("-": the default) before the prompt is up.
	Serve string
}

// PanicError is a panic caught on the way out, after the terminal was
// restored.
type PanicError struct {
	Value any
	Stack []byte
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Interactive runs the REPL on a terminal until quit, Ctrl-D or a
// terminating signal. The terminal is restored on every way out: a
// normal exit, an error, a panic (returned as *PanicError) and SIGTERM,
// SIGQUIT or SIGHUP. Ctrl-C clears the line at the prompt and interrupts
// a running command.
func Interactive(o TerminalOptions) (err error) {
	t, err := saveTerminal(o.In)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
		if rerr := t.restore(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	s, err := NewSession(o.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	s.tty = true
	// Publish the session for `rdmalab view` in other terminals.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if pub, err := viz.Listen(viz.SocketPath()); err != nil {
		fmt.Fprintf(o.Err, "rdmalab: %v (other terminals cannot attach a view)\n", err)
	} else {
		served := make(chan struct{})
		go func() {
			defer close(served)
			defer func() { _ = recover() }() // a viewer's trouble must not end the session
			_ = pub.Serve(ctx, viz.NewLabSource(s.shared))
		}()
		// Remove the socket's file before the process ends: Serve would,
		// but from a goroutine the exit does not wait for. Its viewers
		// get a moment to hear the end, not forever.
		defer func() {
			cancel()
			_ = pub.Close()
			select {
			case <-served:
			case <-time.After(time.Second):
			}
		}()
	}

	var hist *historyFile
	var lines []string
	if o.HistoryFile != "" {
		var skipped int
		if hist, lines, skipped, err = openHistory(o.HistoryFile); err != nil {
			fmt.Fprintf(o.Err, "rdmalab: %s (this session keeps no history)\n", shown(err.Error()))
		} else if skipped > 0 {
			fmt.Fprintf(o.Err, "rdmalab: history %s: skipped %d line(s) over 64 KiB or holding control characters; the rest is loaded\n",
				shown(o.HistoryFile), skipped)
		}
		defer hist.Close()
	}
	s.hist = append(s.hist, lines...)

	r, err := newLineReader(s, t, o.NoColor, lines)
	if err != nil {
		return err
	}

	var leaving atomic.Bool
	var ended atomic.Value // the signal that ended the session
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, Terminating()...)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer func() { _ = recover() }() // nothing here may end the process
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				s.Interrupt()
				if sig != syscall.SIGINT {
					ended.CompareAndSwap(nil, sig)
					leaving.Store(true)
					s.Leave() // a view open now gives the terminal back
					r.stop()
				}
			}
		}
	}()

	writeBanner(o.Out, s)
	defer s.finishRecording(o.Out)
	if err := s.ServeAt(o.Serve, o.Out); err != nil {
		fmt.Fprintf(o.Err, "error: %s\n", shownLines(Explain(err)))
	}
	if o.Lesson != "" {
		if err := s.Exec("learn "+o.Lesson, Pos{}, o.Out); err != nil {
			fmt.Fprintf(o.Err, "error: %s\n", shownLines(Explain(err)))
		}
		s.Refresh()
	}
	for !leaving.Load() {
		line, long, eof := r.readLine()
		if eof || leaving.Load() {
			break
		}
		if long > 0 {
			fmt.Fprintf(o.Err, "error: %s, and not kept in history\n", tooLong(long))
			continue
		}
		if text := strings.TrimSpace(line); text != "" {
			if len(s.hist) == 0 || s.hist[len(s.hist)-1] != text {
				s.hist = append(s.hist, text)
				// A line a terminal would act on is not written: the
				// next session would skip it anyway (openHistory).
				if shown(text) == text {
					if err := hist.Append(text); err != nil {
						fmt.Fprintf(o.Err, "rdmalab: %s\n", shown(err.Error()))
					}
				}
			}
		}
		if o.OnLine != nil {
			o.OnLine(line)
		}
		if !s.LessonInput(line, o.Out, o.Err) {
			inLesson := s.lesson != nil
			if err := s.Exec(line, Pos{}, o.Out); err != nil {
				fmt.Fprintf(o.Err, "error: %s\n", shownLines(Explain(err)))
			}
			if inLesson {
				s.remind(o.Out) // the learner looked around: the step still waits
			}
		}
		s.Refresh()
		r.invalidate()
		if s.Quitting() {
			break
		}
	}
	if sig, ok := ended.Load().(os.Signal); ok {
		return &SignalError{Signal: sig}
	}
	return nil
}

// SignalError is a session a signal ended (TERM, HUP, QUIT) once it had
// put the terminal back and removed what it made: the caller exits as
// the signal would have.
type SignalError struct{ Signal os.Signal }

func (e *SignalError) Error() string { return "ended by " + e.Signal.String() }

// writeBanner is the start banner: what this is, the engine, how to begin.
// Three lines at most, none over 79 columns.
func writeBanner(w io.Writer, s *Session) {
	set := s.set
	comp := "completions by hand"
	if set.AutoComplete {
		comp = "completions automatic"
	}
	fmt.Fprintln(w, "rdmalab: a lab for the Linux NFS/RDMA server (svcrdma) data path")
	threads := "1 nfsd thread"
	if set.Threads != 1 {
		threads = fmt.Sprintf("%d nfsd threads", set.Threads)
	}
	eng := "sim (rxe model)"
	if s.engineKind() != "sim" {
		eng = shown(s.lab.Set.Engine) // a real device
	}
	fmt.Fprintf(w, "engine: %s, profile %s, %s, %s\n", eng, set.Behaviour(), threads, comp)
	fmt.Fprintln(w, "help lists the commands, Tab completes; first lesson: learn first-write")
}

// PromptText is the prompt: the engine, the behaviour and the focused
// thread, from the last snapshot.
func (s *Session) PromptText() string {
	if r := s.lesson; r != nil {
		return fmt.Sprintf("%s %d/%d> ", r.entry.Name(), r.tutor.Index()+1, len(r.entry.Lesson.Steps))
	}
	p := s.engineKind() + " " + s.snap.Behaviour
	for _, t := range s.snap.Threads {
		if t.Focused {
			p += " " + t.Name
		}
	}
	return p + "> "
}
