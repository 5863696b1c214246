package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/viz"
)

// runView is `rdmalab view [--snapshot FILE | --capture FILE]`: attach
// read-only to the session running in another terminal, draw a saved
// snapshot, or browse a capture.
func runView(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rdmalab view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	snapshot := fs.String("snapshot", "", "draw a state saved with the REPL's save FILE")
	capture := fs.String("capture", "", "browse a capture's packets: list, tree, hex")
	maxExpand := cli.MaxExpandFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: rdmalab view [--snapshot FILE | --capture FILE [--max-expand SIZE]]\n"+
			"  without a flag, a live view of the session running in another terminal\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "rdmalab view: unknown argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	case *snapshot != "" && *capture != "":
		fmt.Fprintln(stderr, "rdmalab view: --snapshot or --capture, not both")
		return exitUsage
	case *maxExpand != 0 && *capture == "":
		fmt.Fprintln(stderr, "rdmalab view: --max-expand goes with --capture")
		return exitUsage
	}
	if *capture != "" {
		if err := checkCapture(*capture, int64(*maxExpand)); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
	}
	if !isTerminal(stdout) {
		fmt.Fprintln(stderr, "rdmalab view: the view needs a terminal")
		return exitUsage
	}
	ctx := context.Background()
	if *capture != "" {
		return viewCapture(ctx, *capture, int64(*maxExpand), stderr)
	}
	if *snapshot != "" {
		// A bad file is reported before the screen is touched.
		if _, err := viz.LoadSnapshot(*snapshot); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
		screen, err := viz.NewScreen()
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitRuntime
		}
		if err := viz.RunSnapshot(ctx, screen, *snapshot); err != nil {
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

// viewCapture browses a capture in the packets layout.
func viewCapture(ctx context.Context, path string, maxExpand int64, stderr io.Writer) int {
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
