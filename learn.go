package main

import (
	"context"
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

// learnCommand is `rdmalab learn [--lessons DIR]... [NAME]`: the list, or
// one lesson paced at a terminal (run through, as a transcript, without
// one).
func learnCommand(st setup) *command {
	c := newCommand(command{
		UsageLine: "rdmalab learn [--lessons DIR]... [--serve ADDR] [NAME]",
		Short:     "list the lessons (✓ finished), or take one, paced",
		Long: `
Without NAME, lists the lessons, ✓ marking those finished; with it, takes
that lesson at the learner's pace: each step narrates what the kernel does
next and proposes a command. Without a terminal the lesson runs through
and prints a transcript.

  --lessons DIR
           a folder of your own lessons, offered beside the shipped ones
           (repeatable; RDMALAB_LESSONS=DIR:DIR adds folders too)
  --serve ADDR
           serve the lesson as a web page the class follows (- for
           loopback on a free port; 0.0.0.0:8080 opens it to the room)
`,
	})
	dirs := envLessonDirs()
	c.Flag.Var(&dirs, "lessons", "a folder of your own lessons, offered beside the shipped ones (repeatable)")
	serve := c.Flag.String("serve", "", "serve the lesson as a class web page at ADDR")
	c.Run = func(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		st := st
		st.serve = *serve
		if len(args) > 1 {
			return c.usageError(stderr, "one lesson at a time, not %d", len(args))
		}
		var name string
		if len(args) == 1 {
			name = args[0]
		}
		if f, ok := stdin.(*os.File); ok && name != "" && isTerminal(f) && isTerminal(stdout) {
			return interactiveWith(f, stdout, stderr, repl.TerminalOptions{Lesson: name}, dirs, st)
		}
		line := "learn"
		if name != "" {
			line += " " + name
		}
		return runSession(strings.NewReader(line+"\n"), "learn", stdout, stderr, repl.ScriptOptions{Stderr: stderr}, dirs, st)
	}
	return c
}
