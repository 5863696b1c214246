package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rdmalab/rdmalab/captures/replay"
	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/viz"
)

// bigReplay is the file size past which replay says it is reading before
// the view opens (about a second of work).
const bigReplay = 64 << 20

// replayCommand is `rdmalab replay [--text|--rpc|--json] [-v] FILE`.
func replayCommand() *command {
	c := newCommand(command{
		UsageLine: "rdmalab replay [--text | --rpc | --json] [-v] [--max-expand SIZE] FILE",
		Short:     "step through an NFS/RDMA capture as the server's work",
		Long: `
Replays a capture of NFS over RDMA as the server's work: each packet that
changes the server's picture is a step, told in the kernel's words
(svc_rdma_recvfrom, svc_rdma_process_read_list, svc_rdma_sendto,
svc_rdma_wc_send, ...): the Read chunk segments pulled in order, the Write
chunk filled, the chain of WRs behind each reply, and the acknowledged
position advancing with the ACKs' MSNs.

On a terminal it opens the view on the replay: s steps a packet, n goes to
the next RPC, f to the end of this one, c to the end, C to the next
completion, b and B go back; the Packets pane (5) selects the packet of
each step, and g there goes to the step of the packet selected. Otherwise
it prints a transcript:
  --text   one line per step: frame, what the server did (the default
           without a terminal)
  --rpc    the same, with a heading where each RPC starts
  --json   one JSON object per step (events and positions included)
  -v, --events
           each step's events under it (text forms)
  ` + cli.MaxExpandHelp + `

Exit status: 0 fine, 1 a damaged or unreadable file (the replay goes as far
as the file does) or no RPC-over-RDMA traffic, 2 usage error.
`,
	})
	var o replayOptions
	c.Flag.BoolVar(&o.text, "text", false, "transcript")
	c.Flag.BoolVar(&o.rpc, "rpc", false, "transcript by RPC")
	c.Flag.BoolVar(&o.json, "json", false, "JSON transcript")
	c.Flag.BoolVar(&o.verbose, "v", false, "events")
	c.Flag.BoolVar(&o.verbose, "events", false, "events (as the REPL spells it)")
	maxExpand := cli.MaxExpandFlag(c.Flag)
	c.Run = func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		file, err := cli.OneFile(args)
		switch {
		case err != nil:
			return c.usageError(stderr, "%v", err)
		case o.json && (o.rpc || o.verbose):
			return c.usageError(stderr, "--json does not go with --rpc or -v/--events")
		}
		o.file, o.maxExpand = file, *maxExpand
		return runReplay(ctx, o, stdout, stderr)
	}
	return c
}

// replayOptions are the flags and the file of rdmalab replay.
type replayOptions struct {
	text, rpc, json, verbose bool
	maxExpand                cli.Size
	file                     string
}

// runReplay is rdmalab replay once its arguments are parsed: the view on a
// terminal, a transcript otherwise.
func runReplay(ctx context.Context, o replayOptions, stdout, stderr io.Writer) int {
	view := !o.text && !o.rpc && !o.json && isTerminal(stdout)
	if fi, err := os.Stat(o.file); err == nil && view && fi.Size() > bigReplay {
		// The view opens once the whole timeline is built: say why the
		// terminal is quiet meanwhile.
		fmt.Fprintf(stderr, "rdmalab replay: reading %s (%d MB) before the view opens…\n", safe.Text(o.file), fi.Size()>>20)
	}
	tl, err := replay.ReadFileWith(o.file, replay.ReadOptions{MaxExpand: int64(o.maxExpand)})
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
		return exitFailed
	}
	if view {
		screen, err := viz.NewScreen()
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
			return exitRuntime
		}
		if err := viz.RunReplay(ctx, screen, tl, o.file, int64(o.maxExpand)); err != nil {
			fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
			return exitRuntime
		}
	} else if err := tl.WriteTranscript(stdout, replay.Options{ByRPC: o.rpc, Events: o.verbose, JSON: o.json}); err != nil {
		fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
		return exitFailed
	}
	if tl.Err != nil {
		fmt.Fprintf(stderr, "rdmalab replay: %s (replayed up to there)\n", safe.Text(tl.Err.Error()))
		return exitFailed
	}
	return exitOK
}
