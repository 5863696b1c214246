package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/captures/pcapfile"
	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/viz"
)

// runView is `rdmalab view [--snapshot FILE | --capture FILE]`: attach
// read-only to the session running in another terminal, draw a saved
// snapshot, or browse a capture.
func runView(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	snapshot, capture := "", ""
	args, maxExpand, err := cli.TakeMaxExpand(args)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitUsage
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--capture" && i+1 < len(args):
			capture = args[i+1]
			i++
		case strings.HasPrefix(a, "--capture="):
			capture = strings.TrimPrefix(a, "--capture=")
		case a == "--snapshot" && i+1 < len(args):
			snapshot = args[i+1]
			i++
		case strings.HasPrefix(a, "--snapshot="):
			snapshot = strings.TrimPrefix(a, "--snapshot=")
		default:
			fmt.Fprintf(stderr, "rdmalab view: unknown argument %q\n%s", a, usage)
			return exitUsage
		}
	}
	if snapshot != "" && capture != "" {
		fmt.Fprintf(stderr, "rdmalab view: --snapshot or --capture, not both\n%s", usage)
		return exitUsage
	}
	if maxExpand != 0 && capture == "" {
		fmt.Fprintf(stderr, "rdmalab view: --max-expand goes with --capture\n%s", usage)
		return exitUsage
	}
	cli.ApplyMaxExpand(maxExpand)
	if capture != "" {
		if err := checkCapture(capture); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
	}
	if !isTerminal(stdout) {
		fmt.Fprintln(stderr, "rdmalab view: the view needs a terminal")
		return exitUsage
	}
	ctx := context.Background()
	if capture != "" {
		return viewCapture(ctx, capture, stderr)
	}
	if snapshot != "" {
		// A bad file is reported before the screen is touched.
		if _, err := viz.LoadSnapshot(snapshot); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
		screen, err := viz.NewScreen()
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitRuntime
		}
		if err := viz.RunSnapshot(ctx, screen, snapshot); err != nil {
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
func checkCapture(path string) error {
	f, err := pcapfile.Open(path)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return err
	}
	return f.Close()
}

// viewCapture browses a capture in the packets layout.
func viewCapture(ctx context.Context, path string, stderr io.Writer) int {
	screen, err := viz.NewScreen()
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitRuntime
	}
	if err := viz.RunCapture(ctx, screen, path); err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	return exitOK
}
