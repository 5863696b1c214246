package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rdmalab/rdmalab/repl"
)

// runCommand is `rdmalab run [--keep-going] [--json] FILE|-`.
func runCommand(st setup) *command {
	c := newCommand(command{
		UsageLine: "rdmalab run [--keep-going] [--json] FILE|-",
		Short:     "run the commands of FILE (- = stdin), print a transcript",
		Long: `
Runs the commands of FILE (- reads stdin) in a new session, as the REPL
would, and prints a transcript: each command after "> ", then what it
printed. A command that fails is reported on stderr as FILE:LINE and ends
the run. Without a terminal, rdmalab alone runs stdin the same way. The
lessons of RDMALAB_LESSONS=DIR:DIR are offered to learn.

  -k, --keep-going
           run every command even after one fails
  --json   one JSON record per command instead of a transcript

The exit status is 1 if a command failed.
`,
	})
	o := repl.ScriptOptions{}
	c.Flag.BoolVar(&o.KeepGoing, "keep-going", false, "run every command even after one fails")
	c.Flag.BoolVar(&o.KeepGoing, "k", false, "the same as --keep-going")
	c.Flag.BoolVar(&o.JSON, "json", false, "one JSON record per command")
	c.Run = func(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if len(args) == 0 {
			return c.usageError(stderr, "which FILE? (- reads stdin)")
		}
		if len(args) > 1 {
			return c.usageError(stderr, "one FILE only, not %q and %q", args[0], args[1])
		}
		o.Stderr = stderr
		in, name := stdin, "stdin"
		if file := args[0]; file != "-" {
			f, err := os.Open(file)
			if err != nil {
				fmt.Fprintf(stderr, "rdmalab run: %v\n", err)
				return exitUsage
			}
			defer f.Close()
			in, name = f, file
		}
		return runSession(in, name, stdout, stderr, o, envLessonDirs(), st)
	}
	return c
}
