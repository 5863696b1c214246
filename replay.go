package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/rdmalab/rdmalab/captures/replay"
	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/viz"
)

// replayCommand is `rdmalab replay [--text|--rpc|--json] [-v] FILE`.
func replayCommand() *command {
	c := newCommand(command{
		UsageLine: "rdmalab replay [--text | --rpc | --json] [-v] [--qp QPN] [--max-expand SIZE] [--serve ADDR] FILE",
		Short:     "step through an NFS/RDMA capture as the server's work",
		Long: `
Replays a capture of NFS over RDMA as the server's work: each packet that
changes the server's picture is a step, told in the kernel's words
(svc_rdma_recvfrom, svc_rdma_process_read_list, svc_rdma_sendto,
svc_rdma_wc_send, ...): the Read chunk segments pulled in order, the Write
chunk filled, the chain of WRs behind each reply, and the acknowledged
position advancing with the ACKs' MSNs.

Every transport (a queue pair carrying RPC-over-RDMA) is replayed,
interleaved as on the wire, each with its own picture (its Read lists,
chains and positions); each step names its transport ("xprt 2") once the
capture has more than one, and the transcript's "xprt N:" lines name
each one's queue pairs. --qp QPN follows only the transport one of whose
queue pairs is QPN. The replay is built as the capture is read: the first
step shows at once, however large the file.

FILE - reads the capture from standard input as it comes, for a
transcript (--text, --rpc, --json): the view needs a file it can go
back in.

On a terminal it opens the view on the replay: s steps a packet, n goes to
the next RPC, f to the end of this one, c to the end, C to the next
completion, b and B go back, t follows one transport alone, then the
next, then all again; the Packets pane (5) selects the packet of each
step, and @ there goes to the step of the packet selected. With --serve
ADDR (- for 127.0.0.1 on a free port) a class follows in its browsers:
the view publishes each step it shows to a read-only web page, whose URL
and token are printed before the view opens, kept in its status line and
printed again at the end. Otherwise it prints a transcript:
  --text   one line per step: frame, what the server did (the default
           without a terminal)
  --rpc    the same, with a heading where each RPC starts
  --json   one JSON object per step (events and positions included)
  -v, --events
           each step's events under it (text forms)
  --qp QPN follow one transport only (hex 0x11 or decimal)
  --serve ADDR
           the class page of the steps the view shows (the view only)
  ` + cli.MaxExpandHelp + `

Exit status: 0 fine, 1 a damaged or unreadable file (the replay goes as far
as the file does) or no RPC-over-RDMA traffic, 2 usage error.
`,
	})
	var o replayOptions
	c.Flag.BoolVar(&o.text, "text", false, "transcript")
	cli.ReplayRPC().BoolVar(c.Flag, &o.rpc)
	cli.ReplayJSON().BoolVar(c.Flag, &o.json)
	c.Flag.BoolVar(&o.verbose, "v", false, "events")
	cli.ReplayEvents().BoolVar(c.Flag, &o.verbose)
	cli.QP().StringVar(c.Flag, &o.qp)
	c.Flag.StringVar(&o.serve, "serve", "", "serve the steps the view shows as a class web page at ADDR")
	maxExpand := cli.MaxExpandFlag(c.Flag)
	c.Run = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		file, err := cli.OneFile(args)
		switch {
		case err != nil:
			return c.usageError(stderr, "%v", err)
		case file == "-" && !o.text && !o.rpc && !o.json && isTerminal(stdout):
			return c.usageError(stderr, "replay - reads a pipe, which the view cannot go back in: give --text, --rpc or --json, or save the capture to a file")
		case o.json && (o.rpc || o.verbose):
			return c.usageError(stderr, "--json does not go with --rpc or -v/--events")
		case o.serve != "" && (o.text || o.rpc || o.json || !isTerminal(stdout)):
			return c.usageError(stderr, "--serve follows the view: it needs a terminal and no --text, --rpc or --json (rdmalab serve --capture FILE serves a capture's end)")
		}
		if o.qp != "" {
			if o.qpn, err = cli.ParseQP(o.qp); err != nil {
				return c.usageError(stderr, "%v", err)
			}
		}
		o.file, o.maxExpand, o.stdin = file, *maxExpand, stdin
		return runReplay(ctx, o, stdout, stderr)
	}
	return c
}

// replayOptions are the flags and the file of rdmalab replay.
type replayOptions struct {
	text, rpc, json, verbose bool
	maxExpand                cli.Size
	file, qp                 string
	serve                    string // the class page's address (--serve)
	qpn                      uint32
	stdin                    io.Reader // the capture when file is "-"
}

// runReplay is rdmalab replay once its arguments are parsed: the view on a
// terminal, a transcript otherwise. Both build the replay as they read.
func runReplay(ctx context.Context, o replayOptions, stdout, stderr io.Writer) int {
	view := !o.text && !o.rpc && !o.json && isTerminal(stdout)
	ro := replay.ReadOptions{MaxExpand: int64(o.maxExpand), QP: o.qpn}
	var tl *replay.Timeline
	var err error
	if view {
		defer leanGC()()
		ro.NoJSON = true // the view never writes one
		var r *viz.Replay
		r, err = viz.OpenReplay(o.file, o.file, ro)
		if err == nil {
			defer r.Close()
			tl = r.Timeline
			if o.serve != "" {
				srv, err := serveReplay(r, o.file, o.serve)
				if err != nil {
					fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
					return exitFailed
				}
				defer func() {
					srv.Close()
					fmt.Fprintf(stderr, "rdmalab replay: stopped serving %s; the pages say the replay ended\n", srv.URL())
				}()
				fmt.Fprintf(stderr, "serving this replay read-only at\n  %s\nhand that URL out: the page needs its token; it follows each step the view shows\n", srv.URL())
				r.Source().SetNote("class page " + srv.URL())
			}
			screen, err := viz.NewScreen()
			if err != nil {
				fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
				return exitRuntime
			}
			if err := viz.RunReplay(ctx, screen, r); err != nil {
				fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
				return exitRuntime
			}
			if err := tl.StorageErr(); err != nil {
				fmt.Fprintf(stderr, "rdmalab replay: note: %s; the steps were kept in memory instead\n", safe.Text(err.Error()))
			}
		}
	} else {
		// A transcript keeps about 30 MB live whatever the capture's
		// size; without a limit the collector lets the heap double.
		debug.SetMemoryLimit(64 << 20)
		to := replay.Options{ByRPC: o.rpc, Events: o.verbose, JSON: o.json}
		if o.file == "-" {
			tl, err = replay.TranscribeStream(o.stdin, "standard input", ro, stdout, to)
		} else {
			tl, err = replay.Transcribe(o.file, ro, stdout, to)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab replay: %s\n", safe.Text(err.Error()))
		return exitFailed
	}
	if tl.Err != nil && (!view || tl.Done()) {
		fmt.Fprintf(stderr, "rdmalab replay: %s (replayed up to there)\n", safe.Text(tl.Err.Error()))
		return exitFailed
	}
	return exitOK
}
