package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/internal/cli"
)

// Exit statuses, the same for every command.
const (
	exitOK      = 0
	exitFailed  = 1 // a command failed: a script's command, a lesson's check, a capture's anomalies or damage
	exitUsage   = 2 // rdmalab was called the wrong way
	exitRuntime = 3 // the session or the screen could not start, or broke down
)

// exitStatusHelp documents the exit statuses in the summary.
const exitStatusHelp = `Exit status: 0 fine; 1 a command failed (a script's command, an unmet
lesson check, a capture's anomalies with --check, a damaged or unreadable
capture); 2 usage error; 3 the session or the screen could not start, or
broke down`

// A command is one word after rdmalab, in the shape of cmd/go's
// base.Command: its name is the first word of UsageLine after rdmalab,
// help lists the table in order, and run parses Flag before Run.
type command struct {
	// UsageLine is the one-line usage, "rdmalab NAME [flags] ARGS".
	UsageLine string
	// Short is the line `rdmalab help` prints beside UsageLine.
	Short string
	// Long is the usage's text after UsageLine: what the command does,
	// each flag, and its exit statuses where they say more than the
	// summary's.
	Long string
	// Flag holds the command's flags, which may come before or after its
	// arguments. It prints nothing: run reports its errors with the usage.
	Flag *flag.FlagSet
	// Run runs the command with the arguments left after the flags and
	// returns the exit status.
	Run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// newCommand returns c with an empty FlagSet for the constructor to fill.
func newCommand(c command) *command {
	c.Flag = flag.NewFlagSet("rdmalab "+c.Name(), flag.ContinueOnError)
	c.Flag.SetOutput(io.Discard)
	return &c
}

// commands is the table: rdmalab's commands in the order help lists them.
// Each call builds it afresh, so no flag value outlives a run.
func commands(st setup) []*command {
	return []*command{
		runCommand(st),
		viewCommand(),
		decodeCommand(),
		replayCommand(),
		serveCommand(),
		learnCommand(st),
		lessonCommand(st),
		helpCommand(func() []*command { return commands(st) }),
	}
}

// lookup returns the command called name, or nil.
func lookup(cmds []*command, name string) *command {
	for _, c := range cmds {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// Name is the word after rdmalab in the usage line.
func (c *command) Name() string {
	name, _, _ := strings.Cut(strings.TrimPrefix(c.UsageLine, "rdmalab "), " ")
	return name
}

// usage is what `rdmalab help NAME` and `rdmalab NAME -h` print.
func (c *command) usage() string {
	return "usage: " + c.UsageLine + "\n\n" + strings.TrimSpace(c.Long) + "\n"
}

// usageError prints what is wrong and the usage to stderr, and returns
// exitUsage.
func (c *command) usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "rdmalab %s: %s\n%s", c.Name(), fmt.Sprintf(format, a...), c.usage())
	return exitUsage
}

// run parses c's flags from args and runs it: -h or --help prints the
// usage to stdout, a flag that is wrong prints it to stderr.
func (c *command) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	args, err := cli.Parse(c.Flag, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, c.usage())
		return exitOK
	}
	if err != nil {
		return c.usageError(stderr, "%v", err)
	}
	return c.Run(ctx, args, stdin, stdout, stderr)
}

// summary is `rdmalab help`: the REPL, then each command's usage line and
// short line, in table order.
func summary(cmds []*command) string {
	var b strings.Builder
	b.WriteString("usage:\n")
	line := func(usage, short string) {
		const col = 29 // where the short lines start
		if len(usage)+2 < col {
			fmt.Fprintf(&b, "  %-*s%s\n", col-2, usage, short)
		} else {
			fmt.Fprintf(&b, "  %s\n%*s%s\n", usage, col, "", short)
		}
	}
	line("rdmalab [--lessons DIR]...", `start the REPL (as "run -" without a terminal)`)
	for _, c := range cmds {
		line(c.UsageLine, c.Short)
	}
	fmt.Fprintf(&b, `
--lessons DIR (or RDMALAB_LESSONS=DIR:DIR) adds a trainer's lessons to the
REPL's learn. "rdmalab help COMMAND" or "rdmalab COMMAND -h" tells more of
one; inside rdmalab, help lists the REPL's commands.

%s
`, exitStatusHelp)
	return b.String()
}

// helpCommand is `rdmalab help [COMMAND]`; table builds the command table
// it prints.
func helpCommand(table func() []*command) *command {
	c := newCommand(command{
		UsageLine: "rdmalab help [COMMAND]",
		Short:     "this summary, or the usage of one command",
		Long: `
Without COMMAND, prints the summary of rdmalab's commands; with it, the
usage of that command, as "rdmalab COMMAND -h" does.
`,
	})
	c.Run = func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		cmds := table()
		switch len(args) {
		case 0:
			fmt.Fprint(stdout, summary(cmds))
			return exitOK
		case 1:
			if sub := lookup(cmds, args[0]); sub != nil {
				fmt.Fprint(stdout, sub.usage())
				return exitOK
			}
			fmt.Fprintf(stderr, "rdmalab help: unknown command %q\n%s", args[0], summary(cmds))
			return exitUsage
		}
		return c.usageError(stderr, "one command at a time, not %d", len(args))
	}
	return c
}
