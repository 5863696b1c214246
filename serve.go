package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/repl"
	"github.com/rdmalab/rdmalab/viz"
	"github.com/rdmalab/rdmalab/viz/web"
)

// serveCommand is `rdmalab serve [--addr ADDR] (--snapshot FILE |
// --capture FILE)`: the class page over a saved state or a replayed
// capture, read-only, until interrupted. A live session serves itself
// (rdmalab --serve ADDR, or serve in its REPL).
func serveCommand() *command {
	c := newCommand(command{
		UsageLine: "rdmalab serve [--addr ADDR] (--snapshot FILE | --capture FILE [--max-expand SIZE])",
		Short:     "a class web page of a saved state or a replayed capture",
		Long: `
Serves a web page a class opens in its browsers: the pictures of the
terminal view (pages, SGLs, R/W contexts, chains, SQ, CQ, positions,
events), read-only, until Ctrl-C. It prints the URL to hand out; the page
needs the random token in it. A live session serves itself: rdmalab
--serve ADDR, rdmalab learn --serve ADDR NAME, or serve in its REPL.

  --addr ADDR
           where to listen (default 127.0.0.1 on a free port;
           0.0.0.0:8080 opens it to the room)
  --snapshot FILE
           a state saved with the REPL's save FILE
  --capture FILE
           a capture replayed to its end as the server's work (its
           end state only: rdmalab replay --serve ADDR FILE lets the
           class follow each step the trainer's view takes)
  ` + cli.MaxExpandHelp + `
`,
	})
	addr := c.Flag.String("addr", "", "where to listen")
	snapshot := c.Flag.String("snapshot", "", "a state saved with save FILE")
	capture := c.Flag.String("capture", "", "a capture replayed to its end")
	maxExpand := cli.MaxExpandFlag(c.Flag)
	c.Run = func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		switch {
		case len(args) > 0:
			return c.usageError(stderr, "unknown argument %q", args[0])
		case (*snapshot == "") == (*capture == ""):
			return c.usageError(stderr, "--snapshot FILE or --capture FILE, one of them")
		case *maxExpand != 0 && *capture == "":
			return c.usageError(stderr, "--max-expand goes with --capture")
		}
		src, origin, err := staticSource(*snapshot, *capture, int64(*maxExpand))
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab serve: %s\n", safe.Text(err.Error()))
			return exitFailed
		}
		ctx, caught, stop := onSignals(ctx)
		defer stop()
		srv, err := web.Listen(src, origin, web.Options{Addr: *addr})
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab serve: %s\n", safe.Text(err.Error()))
			return exitFailed
		}
		fmt.Fprintf(stdout, "serving %s read-only at\n  %s\nhand that URL out: the page needs its token; Ctrl-C stops\n", origin, srv.URL())
		<-ctx.Done()
		srv.Close()
		fmt.Fprintf(stderr, "rdmalab serve: stopped serving %s; the pages say the session ended\n", srv.URL())
		if sig := caught(); sig != 0 {
			return sig
		}
		return exitOK
	}
	return c
}

// staticSource is the picture of a saved state or of a capture replayed
// to its end, and what to call it.
func staticSource(snapshot, capture string, maxExpand int64) (web.Source, string, error) {
	if snapshot != "" {
		f, err := viz.LoadSnapshot(snapshot)
		if err != nil {
			return nil, "", err
		}
		return web.Static(web.Frame{Snapshot: f.Snapshot, Events: f.Events, Narration: f.Narration}), "snapshot " + snapshot, nil
	}
	f, origin, err := repl.CaptureFrame(capture, maxExpand)
	if err != nil {
		return nil, "", err
	}
	return web.Static(f), origin, nil
}
