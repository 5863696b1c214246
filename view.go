package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/viz"
)

// runView is `rdmalab view [--snapshot FILE]`: attach read-only to the
// session running in another terminal, or draw a saved snapshot.
func runView(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	snapshot := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
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
	if !isTerminal(stdout) {
		fmt.Fprintln(stderr, "rdmalab view: the view needs a terminal")
		return exitUsage
	}
	ctx := context.Background()
	if snapshot != "" {
		// A bad file is reported before the screen is touched.
		if _, err := viz.LoadSnapshot(snapshot); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
		screen, err := tcell.NewScreen()
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
	screen, err := tcell.NewScreen()
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
