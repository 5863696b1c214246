package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/rdmalab/rdmalab/repl"
	"golang.org/x/term"
)

// setup is what run reads once from the flags before the command and
// from the environment, and gives every session the command starts.
type setup struct {
	engine string // the provider: --engine, else RDMALAB_ENGINE (engine.ParseEngine)
	serve  string // --serve ADDR: the class page's address ("": none)
}

// sessionOptions are the options of a session rdmalab starts.
func (st setup) sessionOptions(dirs lessonDirs, stderr io.Writer) repl.Options {
	return repl.Options{LessonDirs: dirs, ProgressFile: repl.DefaultProgressFile(), Warn: stderr, Engine: st.engine}
}

// startREPL is rdmalab without a command: the REPL on a terminal, else
// the commands of stdin as `run -` runs them.
func startREPL(stdin io.Reader, stdout, stderr io.Writer, dirs lessonDirs, st setup) int {
	if f, ok := stdin.(*os.File); ok && isTerminal(f) && isTerminal(stdout) {
		return interactiveWith(f, stdout, stderr, repl.TerminalOptions{}, dirs, st)
	}
	return runSession(stdin, "stdin", stdout, stderr, repl.ScriptOptions{Stderr: stderr}, dirs, st)
}

// isTerminal reports whether w is a terminal: the prompt needs one on both
// sides (a transcript redirected to a file gets no escape sequences).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// signalGrace is how long a script stopped by a signal has to finish its
// command before its lesson folder is removed under it and the signal
// ends the process.
const signalGrace = 2 * time.Second

// exitSignal is the shell's status for a process a signal ended.
func exitSignal(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitRuntime
}

// runSession runs a script in a new session.
func runSession(in io.Reader, name string, stdout, stderr io.Writer, o repl.ScriptOptions, dirs lessonDirs, st setup) (code int) {
	s, err := repl.NewSession(st.sessionOptions(dirs, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab: %v\n", err)
		return exitRuntime
	}
	// A signal stops the script before its next command; s.Close then
	// removes a lesson's folder.
	stop := s.HandleSignals(signalGrace)
	defer func() {
		if sig := stop(); sig != nil {
			code = exitSignal(sig)
		}
	}()
	defer s.Close()
	if err := s.ServeAt(st.serve, stderr); err != nil {
		fmt.Fprintf(stderr, "rdmalab: %v\n", err)
		return exitRuntime
	}
	failed, err := s.RunScript(in, name, stdout, o)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab: %v\n", err)
		return exitRuntime
	}
	if failed > 0 {
		return exitFailed
	}
	return exitOK
}

// interactive is the REPL on a terminal.
func interactive(tty *os.File, stdout, stderr io.Writer, st setup, onLine func(string)) int {
	return interactiveWith(tty, stdout, stderr, repl.TerminalOptions{OnLine: onLine}, envLessonDirs(), st)
}

// interactiveWith is the REPL on a terminal with o's extras (a lesson to
// start, a line recorder) and a trainer's lesson folders.
func interactiveWith(tty *os.File, stdout, stderr io.Writer, o repl.TerminalOptions, dirs lessonDirs, st setup) int {
	o.In, o.Out, o.Err = tty, stdout, stderr
	o.NoColor, o.HistoryFile = os.Getenv("NO_COLOR") != "", repl.DefaultHistoryFile()
	o.Session = st.sessionOptions(dirs, stderr)
	o.Serve = st.serve
	err := repl.Interactive(o)
	if err != nil {
		var sig *repl.SignalError
		if errors.As(err, &sig) {
			return exitSignal(sig.Signal)
		}
		var p *repl.PanicError
		if errors.As(err, &p) {
			fmt.Fprintf(stderr, "rdmalab: %v\n%s", p.Value, p.Stack)
			return exitRuntime
		}
		fmt.Fprintf(stderr, "rdmalab: %v\n", err)
		return exitRuntime
	}
	return exitOK
}
