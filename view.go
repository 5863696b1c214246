package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/repl"
	"github.com/rdmalab/rdmalab/viz"
)

// viewCommand is `rdmalab view [--snapshot FILE | --capture FILE]`:
// attach read-only to the session running in another terminal, draw a
// saved snapshot, or browse a capture.
func viewCommand() *command {
	c := newCommand(command{
		UsageLine: "rdmalab view [--snapshot FILE | --capture FILE|- [--follow] [--max-expand SIZE] | -i IFACE [-f FILTER] [--all-frames] [-w FILE]]",
		Short:     "view a live session, a saved state or a capture",
		Long: `
Without a flag, attaches read-only to the session running in another
terminal and redraws at each of its steps: what a class watches while the
trainer types. The view needs a terminal.

  --snapshot FILE
           draw a state saved with the REPL's save FILE
  --capture FILE
           browse a capture's packets: list, tree, hex; / filters them
           with a display filter as decode -Y reads it. FILE - reads
           standard input, and the list grows as packets come
  --follow FILE is still being written: the list grows with it
  -i IFACE browse a live capture on IFACE as it comes (Linux; root or
           CAP_NET_RAW); q ends it and prints the counts
  -f FILTER, --all-frames, -w FILE
           with -i: the capture filter and the file saved, as decode -i
           takes them
  ` + cli.MaxExpandHelp + `
`,
	})
	snapshot := c.Flag.String("snapshot", "", "draw a state saved with the REPL's save FILE")
	capture := c.Flag.String("capture", "", "browse a capture's packets: list, tree, hex")
	maxExpand := cli.MaxExpandFlag(c.Flag)
	var lf liveFlags
	lf.register(c.Flag)
	c.Run = func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return runView(ctx, c, args, viewOptions{*snapshot, *capture, int64(*maxExpand), lf, stdin}, stdout, stderr)
	}
	return c
}

// viewOptions are the flags of rdmalab view.
type viewOptions struct {
	snapshot, capture string
	maxExpand         int64
	live              liveFlags
	stdin             io.Reader
}

// onSignals is ctx cancelled by the first of repl.Terminating: the
// view's loop then returns and finalises its screen (cooked mode, the
// main screen back). caught is the status a shell expects of the signal
// (exitSignal) once one came, else 0; stop ends the watch.
func onSignals(ctx context.Context) (_ context.Context, caught func() int, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, repl.Terminating()...)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			got.Store(int32(exitSignal(sig)))
			cancel()
		case <-done:
		}
	}()
	return ctx, func() int { return int(got.Load()) }, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// runView is rdmalab view once its flags are parsed. A terminating
// signal gives the terminal back and exits 128+signo.
func runView(ctx context.Context, c *command, args []string, o viewOptions, stdout, stderr io.Writer) int {
	ctx, caught, stop := onSignals(ctx)
	defer stop()
	code := runViewOn(ctx, c, args, o, stdout, stderr)
	if sig := caught(); sig != 0 {
		return sig
	}
	return code
}

func runViewOn(ctx context.Context, c *command, args []string, o viewOptions, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0:
		return c.usageError(stderr, "unknown argument %q", args[0])
	case o.snapshot != "" && o.capture != "":
		fmt.Fprintln(stderr, "rdmalab view: --snapshot or --capture, not both")
		return exitUsage
	case o.maxExpand != 0 && o.capture == "":
		fmt.Fprintln(stderr, "rdmalab view: --max-expand goes with --capture")
		return exitUsage
	}
	if err := o.checkStream(); err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitUsage
	}
	if o.streamed() {
		if !isTerminal(stdout) {
			fmt.Fprintln(stderr, "rdmalab view: the view needs a terminal")
			return exitUsage
		}
		return viewStream(ctx, o, o.stdin, stderr)
	}
	if o.capture != "" {
		if err := checkCapture(o.capture, o.maxExpand); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
	}
	if !isTerminal(stdout) {
		fmt.Fprintln(stderr, "rdmalab view: the view needs a terminal")
		return exitUsage
	}
	if o.capture != "" {
		return viewCapture(ctx, o.capture, o.maxExpand, stderr)
	}
	if o.snapshot != "" {
		// A bad file is reported before the screen is touched.
		if _, err := viz.LoadSnapshot(o.snapshot); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
		screen, err := viz.NewScreen()
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitRuntime
		}
		if err := viz.RunSnapshot(ctx, screen, o.snapshot); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	src, err := viz.Attach(ctx, viz.SocketPath())
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	screen, err := viz.NewScreen()
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitRuntime
	}
	if err := (&viz.Viewer{}).Run(ctx, screen, src); err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitRuntime
	}
	return exitOK
}

// checkCapture says what is wrong with a file that is no capture, before
// the screen is touched.
func checkCapture(path string, maxExpand int64) error {
	f, err := pcapfile.OpenWith(path, pcapfile.Options{MaxExpand: maxExpand})
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return err
	}
	return f.Close()
}

// leanGC has the collector run once the heap grows by a quarter, not
// double, while a view indexes a capture: the index grows with the file,
// and the default would let the peak reach twice what it keeps. The
// index's records hold no pointers, so the extra collections cost little
// (about 0.3 s of CPU over a million frames). It returns the restore.
func leanGC() (restore func()) {
	old := debug.SetGCPercent(25)
	return func() { debug.SetGCPercent(old) }
}

// viewCapture browses a capture in the packets layout.
func viewCapture(ctx context.Context, path string, maxExpand int64, stderr io.Writer) int {
	defer leanGC()()
	screen, err := viz.NewScreen()
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitRuntime
	}
	if err := viz.RunCapture(ctx, screen, path, maxExpand); err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	return exitOK
}
