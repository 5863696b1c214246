package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/repl"
)

// lessonCommand is `rdmalab lesson check [--lessons DIR]... [-v]
// [FILE|DIR]...`: a trainer's check of lessons, without a terminal.
func lessonCommand(st setup) *command {
	c := newCommand(command{
		UsageLine: "rdmalab lesson check [--lessons DIR]... [-v] [FILE|DIR]...",
		Short:     "run lessons without a terminal; stop at an unmet check",
		Long: `
Runs lessons without a terminal; each stops at its first unmet check,
reported as FILE:LINE:COL. Without FILE or DIR: every shipped lesson and
those of --lessons.

  --lessons DIR
           a folder of lessons to check beside the shipped ones, when no
           FILE is given (repeatable; RDMALAB_LESSONS=DIR:DIR adds folders
           too)
  -v       print each lesson's commands, output and verdicts

The exit status is 1 if a check was not met.
`,
	})
	dirs := envLessonDirs()
	c.Flag.Var(&dirs, "lessons", "a folder of lessons to check beside the shipped ones, when no FILE is given (repeatable)")
	verbose := c.Flag.Bool("v", false, "print each lesson's commands, output and verdicts")
	c.Run = func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		switch {
		case len(args) == 0:
			return c.usageError(stderr, "check what? check is the one lesson command")
		case args[0] != "check":
			return c.usageError(stderr, "unknown lesson command %q (check is the one there is)", args[0])
		}
		o := repl.LessonCheckOptions{Targets: args[1:], Dirs: dirs, Out: stdout, Err: stderr, Engine: st.engine}
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
	return c
}
