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
//	rdmalab serve           a class web page of a saved state or a capture
//	rdmalab lesson check    run lessons unattended, stopping at an unmet check
//	rdmalab help [COMMAND]  the summary, or one command's usage
//
// Each command is a row of the table in command.go, and its front end (its
// flags and wiring) sits in a file of its name beside this one.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rdmalab/rdmalab/engine"
)

// engineEnv chooses the provider of every session, as --engine does.
const engineEnv = "RDMALAB_ENGINE"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is rdmalab: it returns the exit status, and nothing below it exits.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx := context.Background()
	// Before a command, flags are the REPL's: rdmalab [--lessons DIR]...
	root := flag.NewFlagSet("rdmalab", flag.ContinueOnError)
	root.SetOutput(io.Discard)
	dirs := envLessonDirs()
	root.Var(&dirs, "lessons", "a folder of your own lessons (repeatable)")
	serveFlag := root.String("serve", "", "serve the session's class page at ADDR (- for loopback on a free port)")
	engineFlag := root.String("engine", "", "the provider: sim, or ibv:DEVICE[,CLIENT_DEVICE] (RDMALAB_ENGINE does the same)")
	err := root.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, summary(commands(setup{})))
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab: %v\n%s", err, summary(commands(setup{})))
		return exitUsage
	}
	// The environment is read here, once: every session the command
	// starts takes the provider from st.
	st := setup{engine: cmp.Or(*engineFlag, os.Getenv(engineEnv)), serve: *serveFlag}
	if _, _, err := engine.ParseEngine(st.engine); err != nil {
		fmt.Fprintf(stderr, "rdmalab: %v\n", err)
		return exitUsage
	}
	cmds := commands(st)
	if root.NArg() == 0 {
		return startREPL(stdin, stdout, stderr, dirs, st)
	}
	name := root.Arg(0)
	c := lookup(cmds, name)
	if c == nil {
		fmt.Fprintf(stderr, "rdmalab: unknown subcommand %q\n%s", name, summary(cmds))
		return exitUsage
	}
	if st.serve != "" {
		fmt.Fprintf(stderr, "rdmalab: --serve is for the REPL; rdmalab learn --serve ADDR NAME serves a lesson, rdmalab serve a file\n")
		return exitUsage
	}
	lessonsSet := false
	root.Visit(func(f *flag.Flag) { lessonsSet = lessonsSet || f.Name == "lessons" })
	if lessonsSet {
		// Not dropped in silence: the command takes its own, or none.
		if c.Flag.Lookup("lessons") != nil {
			fmt.Fprintf(stderr, "rdmalab: --lessons before a command starts nothing; give it after: rdmalab %s --lessons DIR\n", name)
		} else {
			fmt.Fprintf(stderr, "rdmalab: --lessons is for the REPL; rdmalab %s takes none\n", name)
		}
		return exitUsage
	}
	return c.run(ctx, root.Args()[1:], stdin, stdout, stderr)
}
