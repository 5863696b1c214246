package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/live"
	"github.com/rdmalab/rdmalab/internal/atomicfile"
	"github.com/rdmalab/rdmalab/internal/follow"
)

// liveFlags are the flags of a capture that is not a finished file: a
// live interface (-i, with -f, -w, --all-frames) or a file still being
// written (--follow).
type liveFlags struct {
	iface, filter, save string
	all, follow         bool
}

func (l *liveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.iface, "i", "", "capture live on an interface")
	fs.StringVar(&l.filter, "f", "", "a capture filter in tcpdump's syntax")
	fs.StringVar(&l.save, "w", "", "save what -i captures (pcapng)")
	fs.BoolVar(&l.all, "all-frames", false, "the kernel keeps what -f says, RoCE or not")
	fs.BoolVar(&l.follow, "follow", false, "read a file as it grows")
}

// check says what is wrong with the flags given args (the files).
func (l *liveFlags) check(args []string) error {
	switch {
	case l.iface == "" && (l.filter != "" || l.all):
		return errors.New("-f and --all-frames go with -i")
	case l.save != "" && l.follow:
		return errors.New("-w with --follow: save the file when it is complete (decode -w OUT FILE)")
	case l.iface != "" && len(args) > 0:
		return fmt.Errorf("-i captures live: no FILE (%q) with it", args[0])
	case l.iface != "" && l.follow:
		return errors.New("--follow reads a file: not with -i")
	case l.follow && len(args) == 1 && args[0] == "-":
		return errors.New("--follow reads a file; standard input is read as it comes without it")
	}
	return nil
}

// interrupted is ctx until the first Ctrl-C (or SIGTERM): what ends a
// live capture or a followed file, the way to stop them, not a failure.
func interrupted(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// errDecodeEnded tells the capture that the decoder read all it wanted
// (-c, or a failed write of its output).
var errDecodeEnded = errors.New("the decoder stopped reading")

// decodeLive decodes what -i captures, as it comes, with o.
func decodeLive(ctx context.Context, l liveFlags, o decode.Output, stdout, stderr io.Writer) int {
	prog, err := live.Program(l.filter, l.all)
	if err != nil {
		return captureFilterError(stderr, "decode", l.filter, err)
	}
	h, err := live.Open(l.iface, prog, live.Snaplen)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
		return exitFailed
	}
	var save *atomicfile.File
	if l.save != "" {
		if save, err = atomicfile.Create(l.save); err != nil {
			h.Close()
			fmt.Fprintf(stderr, "rdmalab decode: -w: %v\n", err)
			return exitFailed
		}
		defer save.Abort()
	}
	ctx, stop := interrupted(ctx)
	defer stop()
	what := live.RoCEFilter
	switch {
	case l.filter != "" && l.all:
		what = l.filter
	case l.filter != "":
		what = "(" + l.filter + ") and (" + live.RoCEFilter + ")"
	case l.all:
		what = "every frame"
	}
	fmt.Fprintf(stderr, "rdmalab decode: capturing on %s: %s; Ctrl-C stops\n", l.iface, what)

	pr, pw := io.Pipe()
	var w io.Writer = pw
	if save != nil {
		w = io.MultiWriter(save, pw) // the file first: it keeps what the decoder stopped reading
	}
	captured := make(chan error, 1)
	go func() {
		err := live.Run(ctx, h, w, o.Count)
		pw.Close()
		captured <- err
	}()
	o.Flush = true
	anomalies, derr := decode.WriteStream(stdout, pr, l.iface, o)
	pr.CloseWithError(errDecodeEnded)
	stop()
	cerr := <-captured
	stats := h.Stats()
	h.Close()
	if errors.Is(cerr, errDecodeEnded) {
		cerr = nil
	}
	code := exitOK
	if cerr != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", cerr)
		code = exitFailed
	}
	if derr != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", derr)
		code = exitFailed
	}
	reportCapture(stderr, "decode", l.iface, stats)
	if save != nil {
		if err := save.Commit(); err != nil {
			fmt.Fprintf(stderr, "rdmalab decode: -w: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stderr, "rdmalab decode: saved %s to %s\n", frames(stats.Captured), l.save)
		if o.Check {
			// What --check found, as the frames' comments: the file
			// is read again, since a note may land on an earlier frame.
			if err := saveAnnotated(l.save, l.save, decode.Output{Check: true, MaxExpand: o.MaxExpand}, stderr); err != nil {
				fmt.Fprintf(stderr, "rdmalab decode: -w: %v\n", err)
				return exitFailed
			}
		}
	}
	if code == exitOK && anomalies > 0 {
		code = exitFailed
	}
	return code
}

// decodeFollow decodes the capture at path as it grows, until Ctrl-C.
func decodeFollow(ctx context.Context, path string, o decode.Output, stdout, stderr io.Writer) int {
	ctx, stop := interrupted(ctx)
	defer stop()
	r, err := follow.Open(ctx, path)
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
		return exitFailed
	}
	defer r.Close()
	o.Flush = true
	anomalies, err := decode.WriteStream(stdout, r, path, o)
	if err != nil && r.Stopped() && errors.Is(err, io.ErrUnexpectedEOF) {
		// Ctrl-C while the writer was in the middle of a record.
		fmt.Fprintf(stderr, "rdmalab decode: stopped at byte %d, inside a record not yet written whole (%v)\n", r.Offset(), err)
		err = nil
	}
	if err != nil {
		fmt.Fprintf(stderr, "rdmalab decode: %v\n", err)
		return exitFailed
	}
	if anomalies > 0 {
		return exitFailed
	}
	return exitOK
}

// captureFilterError prints -f's mistake with a caret under its column
// and returns the usage status.
func captureFilterError(stderr io.Writer, cmd, filter string, err error) int {
	var fe *live.FilterError
	if errors.As(err, &fe) {
		fmt.Fprintf(stderr, "rdmalab %s: -f: %v\n    %s\n    %s^\n", cmd, err, filter, strings.Repeat(" ", fe.Col-1))
	} else {
		fmt.Fprintf(stderr, "rdmalab %s: -f: %v\n", cmd, err)
	}
	return exitUsage
}

// reportCapture prints a live capture's counts when it ends.
func reportCapture(stderr io.Writer, cmd, iface string, s live.Stats) {
	fmt.Fprintf(stderr, "rdmalab %s: %s read on %s (the kernel's filter kept %d, of which it dropped %d for want of room)\n",
		cmd, frames(s.Captured), iface, s.Received, s.Dropped)
}

func frames(n uint64) string {
	if n == 1 {
		return "1 frame"
	}
	return fmt.Sprintf("%d frames", n)
}
