package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/live"
	"github.com/rdmalab/rdmalab/internal/atomicfile"
	"github.com/rdmalab/rdmalab/internal/follow"
	"github.com/rdmalab/rdmalab/viz"
)

// streamed says the view's capture is still coming: standard input, a
// live interface, or a file being written.
func (o viewOptions) streamed() bool {
	return o.capture == "-" || o.live.iface != "" || o.live.follow
}

// checkStream says what is wrong with the flags of a view of a capture
// still coming.
func (o viewOptions) checkStream() error {
	l := o.live
	switch {
	case l.iface != "" && o.capture != "":
		return errors.New("-i captures live: not with --capture")
	case l.iface == "" && (l.filter != "" || l.save != "" || l.all):
		return errors.New("-f, -w and --all-frames go with -i")
	case l.follow && (o.capture == "" || o.capture == "-"):
		return errors.New("--follow goes with --capture FILE, a file still being written")
	case l.iface != "" && o.snapshot != "":
		return errors.New("--snapshot or -i, not both")
	}
	return nil
}

// viewStream shows a capture as it comes. Standard input and a live
// capture are written to a file (-w's, or a temporary one) that the view
// indexes as it grows: the view goes back to any packet by its offset.
func viewStream(ctx context.Context, o viewOptions, stdin io.Reader, stderr io.Writer) int {
	defer leanGC()()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := o.live
	if l.follow {
		return viewFollow(ctx, o, stderr)
	}
	var h *live.Handle
	name := "standard input"
	if l.iface != "" {
		prog, err := live.Program(l.filter, l.all)
		if err != nil {
			return captureFilterError(stderr, "view", l.filter, err)
		}
		if h, err = live.Open(l.iface, prog, live.Snaplen); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
		defer h.Close()
		name = l.iface + " (live)"
	}
	// The file the stream is written to, and read back from.
	var w io.Writer
	var path string
	var save *atomicfile.File
	if l.save != "" {
		var err error
		if save, err = atomicfile.Create(l.save); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: -w: %v\n", err)
			return exitFailed
		}
		defer save.Abort()
		w, path = save, save.TempName()
	} else {
		f, err := os.CreateTemp("", "rdmalab-view-*.pcapng")
		if err != nil {
			fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
			return exitFailed
		}
		defer f.Close()
		defer os.Remove(f.Name())
		w, path = f, f.Name()
	}
	rf, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	// The reader ends at the file's end once the stream has ended (or the
	// view has).
	feedCtx, fed := context.WithCancel(ctx)
	fr := follow.New(feedCtx, rf)
	done := make(chan error, 1)
	go func() {
		var err error
		if h != nil {
			err = live.Run(ctx, h, w, 0)
		} else {
			_, err = io.Copy(w, stdin)
		}
		fed()
		done <- err
	}()
	x, err := decode.OpenIndexStream(name, fr, rf, decode.IndexOptions{MaxExpand: o.maxExpand})
	if err != nil {
		fr.Close()
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	defer x.Close()
	code := runStreamScreen(ctx, x, name, stderr)
	cancel()
	if h == nil {
		return code // a copy blocked on standard input ends with the process
	}
	ferr := <-done
	stats := h.Stats()
	if ferr != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", ferr)
		code = exitFailed
	}
	reportCapture(stderr, "view", l.iface, stats)
	if save != nil {
		if err := save.Commit(); err != nil {
			fmt.Fprintf(stderr, "rdmalab view: -w: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stderr, "rdmalab view: saved %s to %s\n", frames(stats.Captured), l.save)
	}
	return code
}

// viewFollow shows a file another program is still writing.
func viewFollow(ctx context.Context, o viewOptions, stderr io.Writer) int {
	fr, err := follow.Open(ctx, o.capture)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	at, err := os.Open(o.capture)
	if err != nil {
		fr.Close()
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	defer at.Close()
	x, err := decode.OpenIndexStream(o.capture, fr, at, decode.IndexOptions{MaxExpand: o.maxExpand})
	if err != nil {
		fr.Close()
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	defer x.Close()
	return runStreamScreen(ctx, x, filepath.Base(o.capture)+" (growing)", stderr)
}

func runStreamScreen(ctx context.Context, x *decode.Index, name string, stderr io.Writer) int {
	screen, err := viz.NewScreen()
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitRuntime
	}
	if err := viz.RunCaptureStream(ctx, screen, x, name); err != nil {
		fmt.Fprintf(stderr, "rdmalab view: %v\n", err)
		return exitFailed
	}
	return exitOK
}
