package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/replay"
	"github.com/rdmalab/rdmalab/internal/cli"
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
           a capture replayed to its end as the server's work
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
			fmt.Fprintf(stderr, "rdmalab serve: %v\n", err)
			return exitFailed
		}
		ctx, caught, stop := onSignals(ctx)
		defer stop()
		srv, err := web.Listen(src, origin, web.Options{Addr: *addr})
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab serve: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "serving %s read-only at\n  %s\nhand that URL out: the page needs its token; Ctrl-C stops\n", origin, srv.URL())
		<-ctx.Done()
		srv.Close()
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
	tl, err := replay.OpenFile(capture, replay.ReadOptions{MaxExpand: maxExpand})
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", capture, err)
	}
	defer tl.Close()
	p := tl.Player()
	p.End()
	f := web.Frame{Snapshot: p.Snapshot(), Events: p.Events(1000), Narration: p.Narration()}
	sel := 0
	if st := p.Step(); st != nil {
		sel = st.Frame
	}
	if f.Packets, err = capturePackets(capture, maxExpand, sel); err != nil {
		return nil, "", err
	}
	return web.Static(f), p.Describe(), nil
}

// servedPackets is how many packets of a capture the page lists, around
// the one it shows.
const servedPackets = 2000

// capturePackets decodes the list around frame sel (from 1), and that
// packet's tree and bytes.
func capturePackets(path string, maxExpand int64, sel int) (*web.Packets, error) {
	x, err := decode.OpenIndexWith(path, decode.IndexOptions{MaxExpand: maxExpand})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer x.Close()
	n, err := x.Wait(context.Background(), -1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	first := max(0, min(sel-servedPackets/2, n-servedPackets))
	p := &web.Packets{Name: path, Total: n, First: first + 1}
	for i := first; i < min(n, first+servedPackets); i++ {
		p.List = append(p.List, x.Summary(i))
	}
	if sel >= 1 && sel <= n {
		p.Selected = sel
		for _, d := range x.Detail(sel - 1) {
			p.Detail = append(p.Detail, web.DetailLine{Depth: d.Depth, Text: d.Text})
		}
		p.Bytes = x.Bytes(sel - 1)
	}
	return p, nil
}
