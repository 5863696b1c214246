package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdmalab/rdmalab/repl"
)

// lessonDirs collects --lessons DIR (repeatable), after the folders of
// RDMALAB_LESSONS (a list like PATH): a trainer's own lessons.
type lessonDirs []string

func (d *lessonDirs) String() string { return strings.Join(*d, string(filepath.ListSeparator)) }
func (d *lessonDirs) Set(v string) error {
	*d = append(*d, v)
	return nil
}

func envLessonDirs() lessonDirs {
	var d lessonDirs
	for _, p := range filepath.SplitList(os.Getenv("RDMALAB_LESSONS")) {
		if p != "" {
			d = append(d, p)
		}
	}
	return d
}

// runLearn is `rdmalab learn [--lessons DIR]... [NAME]`: the list, or one
// lesson paced at a terminal (run through, as a transcript, without one).
func runLearn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rdmalab learn", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dirs := envLessonDirs()
	fs.Var(&dirs, "lessons", "a folder of your own lessons, offered beside the shipped ones (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rdmalab learn [--lessons DIR]... [NAME]\n  without NAME, list the lessons; with it, take one\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "rdmalab learn: one lesson at a time, not %d\n", fs.NArg())
		return exitUsage
	}
	name := fs.Arg(0)
	if f, ok := stdin.(*os.File); ok && name != "" && isTerminal(f) && isTerminal(stdout) {
		return interactiveWith(f, stdout, stderr, repl.TerminalOptions{Lesson: name}, dirs)
	}
	line := "learn"
	if name != "" {
		line += " " + name
	}
	return runSession(strings.NewReader(line+"\n"), "learn", stdout, stderr, repl.ScriptOptions{Stderr: stderr}, dirs)
}

// runLesson is `rdmalab lesson check [--lessons DIR]... [FILE|DIR]...`.
func runLesson(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintf(stderr, "usage: rdmalab lesson check [--lessons DIR]... [-v] [FILE|DIR]...\n")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return exitOK
		}
		return exitUsage
	}
	fs := flag.NewFlagSet("rdmalab lesson check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dirs := envLessonDirs()
	fs.Var(&dirs, "lessons", "a folder of lessons to check beside the shipped ones, when no FILE is given (repeatable)")
	verbose := fs.Bool("v", false, "print each lesson's commands, output and verdicts")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rdmalab lesson check [--lessons DIR]... [-v] [FILE|DIR]...\n"+
			"  run lessons without a terminal; each stops at its first unmet check (FILE:LINE:COL)\n"+
			"  without FILE or DIR: every shipped lesson and those of --lessons\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	o := repl.LessonCheckOptions{Targets: fs.Args(), Dirs: dirs, Out: stdout, Err: stderr}
	if *verbose {
		o.Transcript = stdout
	}
	failed, err := repl.CheckLessons(o)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab lesson check: %v\n", err)
		return exitUsage
	}
	if failed > 0 {
		return exitFailed
	}
	return exitOK
}
