// Command rdmalab is an interactive lab for the Linux NFS/RDMA server's
// data path (svcrdma): a REPL drives an RDMA engine one kernel function at
// a time.
//
//	rdmalab                 the REPL (as `run -` when stdin or stdout is not a terminal)
//	rdmalab run FILE|-      run commands from a file or stdin and print a transcript
//	rdmalab view            a live view of the session running in another terminal
//	rdmalab decode FILE     decode a RoCE / InfiniBand / RPC-over-RDMA capture
//	rdmalab replay FILE     step through an NFS/RDMA capture as the server's work
//	rdmalab learn [NAME]    list the lessons, or take one
//	rdmalab lesson check    run lessons unattended, stopping at an unmet check
//	rdmalab help            this summary
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/repl"
	"golang.org/x/term"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailed  = 1 // a command failed
	exitUsage   = 2 // rdmalab was called the wrong way
	exitRuntime = 3 // the session could not start or broke down
)

const usage = `usage:
  rdmalab [--lessons DIR]... start the REPL (as "run -" without a terminal)
  rdmalab run [--keep-going] [--json] FILE|-
                             run the commands of FILE (- = stdin), print a transcript;
                             the exit status is 1 if a command failed
  rdmalab view               a live view of the session running in another terminal
  rdmalab view --snapshot FILE
                             draw a state saved with the REPL's save FILE
  rdmalab view --capture FILE [--max-expand SIZE]
                             browse a capture's packets: list, tree, hex
  rdmalab decode [-V|--json|--rpc|--check] [--filter qp=N,opcode=OP,xid=X] FILE
                             decode a RoCE / InfiniBand / RPC-over-RDMA capture
  rdmalab replay [--text|--rpc|--json] [-v] FILE
                             step through an NFS/RDMA capture as the server's work
                             (the view on a terminal, a transcript otherwise)
  decode, replay and view --capture take --max-expand SIZE (512M, 4G, 1T): how far
  a gzip capture may decompress, by default 64 times its size and 256M at least
  rdmalab learn [--lessons DIR]... [NAME]
                             list the lessons (✓ finished), or take one, paced
  rdmalab lesson check [--lessons DIR]... [-v] [FILE|DIR]...
                             run lessons without a terminal; stop at an unmet check
  --lessons DIR (or RDMALAB_LESSONS=DIR:DIR) adds a trainer's lessons to the REPL's learn
  rdmalab help               this summary; inside rdmalab, help lists the commands
`

// subcommand is one word after rdmalab.
type subcommand struct {
	name string
	run  func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"run", runScript},
		{"view", runView},
		{"decode", runDecode},
		{"replay", runReplay},
		{"learn", runLearn},
		{"lesson", runLesson},
		{"help", func(_ []string, _ io.Reader, stdout, _ io.Writer) int {
			fmt.Fprint(stdout, usage)
			return exitOK
		}},
	}
}

// runDecode is `rdmalab decode`.
func runDecode(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return decode.Main(args, stdout, stderr)
}

// run is rdmalab: it returns the exit status, and nothing below it exits.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// rdmalab [--lessons DIR]...: the REPL with a trainer's lessons.
	dirs := envLessonDirs()
	for len(args) > 0 && (args[0] == "--lessons" || strings.HasPrefix(args[0], "--lessons=")) {
		if v, ok := strings.CutPrefix(args[0], "--lessons="); ok {
			dirs, args = append(dirs, v), args[1:]
			continue
		}
		if len(args) < 2 {
			fmt.Fprintf(stderr, "rdmalab: --lessons needs a folder\n%s", usage)
			return exitUsage
		}
		dirs, args = append(dirs, args[1]), args[2:]
	}
	if len(args) == 0 {
		if f, ok := stdin.(*os.File); ok && isTerminal(f) && isTerminal(stdout) {
			return interactiveWith(f, stdout, stderr, repl.TerminalOptions{}, dirs)
		}
		return runSession(stdin, "stdin", stdout, stderr, repl.ScriptOptions{Stderr: stderr}, dirs)
	}
	switch args[0] {
	case "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	for _, sc := range subcommands() {
		if sc.name == args[0] {
			return sc.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "rdmalab: unknown subcommand %q\n%s", args[0], usage)
	return exitUsage
}

// isTerminal reports whether w is a terminal: the prompt needs one on both
// sides (a transcript redirected to a file gets no escape sequences).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runScript is `rdmalab run [--keep-going] [--json] FILE|-`.
func runScript(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o repl.ScriptOptions
	o.Stderr = stderr
	file := ""
	for _, a := range args {
		switch {
		case a == "--keep-going" || a == "-k":
			o.KeepGoing = true
		case a == "--json":
			o.JSON = true
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(stderr, "rdmalab run: unknown option %s\n%s", a, usage)
			return exitUsage
		case file != "":
			fmt.Fprintf(stderr, "rdmalab run: one FILE only, not %q and %q\n", file, a)
			return exitUsage
		default:
			file = a
		}
	}
	if file == "" {
		fmt.Fprintf(stderr, "rdmalab run: which FILE? (- reads stdin)\n%s", usage)
		return exitUsage
	}
	in, name := stdin, "stdin"
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab run: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		in, name = f, file
	}
	return runSession(in, name, stdout, stderr, o, envLessonDirs())
}

// runSession runs a script in a new session.
func runSession(in io.Reader, name string, stdout, stderr io.Writer, o repl.ScriptOptions, dirs lessonDirs) int {
	s, err := repl.NewSession(repl.Options{LessonDirs: dirs, ProgressFile: repl.DefaultProgressFile(), Warn: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab: %v\n", err)
		return exitRuntime
	}
	defer s.Close()
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
func interactive(tty *os.File, stdout, stderr io.Writer, onLine func(string)) int {
	return interactiveWith(tty, stdout, stderr, repl.TerminalOptions{OnLine: onLine}, envLessonDirs())
}

// interactiveWith is the REPL on a terminal with o's extras (a lesson to
// start, a line recorder) and a trainer's lesson folders.
func interactiveWith(tty *os.File, stdout, stderr io.Writer, o repl.TerminalOptions, dirs lessonDirs) int {
	o.In, o.Out, o.Err = tty, stdout, stderr
	o.NoColor, o.HistoryFile = os.Getenv("NO_COLOR") != "", repl.DefaultHistoryFile()
	o.Session = repl.Options{LessonDirs: dirs, ProgressFile: repl.DefaultProgressFile(), Warn: stderr}
	err := repl.Interactive(o)
	if err != nil {
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
