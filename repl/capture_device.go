package repl

// `capture start` on a real device: the lab has no wire of its own, so
// its RoCE packets are recorded where they cross the server device's
// netdev (captures/live: a packet socket with a kernel filter), as
// pcapng, into the same atomic file the sim's recording uses.

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/rdmalab/rdmalab/captures/live"
	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/internal/atomicfile"
)

// deviceRecording is a live capture on the lab's netdev, running in its
// own goroutine until stop.
type deviceRecording struct {
	site   engine.CaptureSite
	h      *live.Handle
	cancel context.CancelFunc
	done   chan error
	w      *stampWriter
}

// stampWriter passes writes on and remembers when the last one came: the
// capture writes whenever its socket has nothing more queued.
type stampWriter struct {
	w    io.Writer
	last atomic.Int64 // unix nanoseconds
}

func (s *stampWriter) Write(p []byte) (int, error) {
	s.last.Store(time.Now().UnixNano())
	return s.w.Write(p)
}

// Settling: stop waits until no frame has come for settleQuiet (the last
// ACKs of what the learner ran), at most settleMax.
const (
	settleQuiet = 300 * time.Millisecond
	settleMax   = 3 * time.Second
)

// startDevice begins recording lab's RoCE packets to w, or says why it
// cannot: the packets would not cross a netdev (both QPs behind one),
// or the packet socket needs CAP_NET_RAW.
func startDevice(lab *engine.Lab, w io.Writer) (*deviceRecording, error) {
	site, err := lab.CaptureSite()
	if err != nil {
		return nil, err
	}
	return startOn(site, w)
}

// startOn begins recording site's RoCE packets to w.
func startOn(site engine.CaptureSite, w io.Writer) (*deviceRecording, error) {
	prog, err := live.Program("", false)
	if err != nil {
		return nil, err
	}
	h, err := live.Open(site.Netdev, prog, live.Snaplen)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &deviceRecording{site: site, h: h, cancel: cancel, done: make(chan error, 1), w: &stampWriter{w: w}}
	d.w.last.Store(time.Now().UnixNano())
	go func() { d.done <- live.Run(ctx, h, d.w, 0) }()
	return d, nil
}

// what the recording is, for the messages.
func (d *deviceRecording) what() string {
	return fmt.Sprintf("%s's RoCE packets on %s (%s)", d.site.Device, d.site.Netdev, live.RoCEFilter)
}

// stop ends the capture once the netdev has been quiet a moment, and
// returns its counts and the first error writing it met.
func (d *deviceRecording) stop() (live.Stats, error) {
	for end := time.Now().Add(settleMax); time.Now().Before(end); {
		if time.Since(time.Unix(0, d.w.last.Load())) >= settleQuiet {
			break
		}
		time.Sleep(settleQuiet / 6)
	}
	d.cancel()
	err := <-d.done
	st := d.h.Stats()
	d.h.Close()
	if err != nil {
		err = fmt.Errorf("capture on %s: %w", d.site.Netdev, err)
	}
	return st, err
}

// notes are what stop says besides the count: drops, and an empty file's
// likely reason.
func (d *deviceRecording) notes(out io.Writer, st live.Stats) {
	if st.Dropped > 0 {
		fmt.Fprintf(out, "note: the kernel dropped %d of the frames the filter kept (no room in the socket's buffer): the file lacks them\n", st.Dropped)
	}
	if st.Captured > 0 {
		return
	}
	if !d.site.Software {
		fmt.Fprintf(out, "note: no RoCE packet crossed %s: %s\n", d.site.Netdev, d.site.Offload())
		return
	}
	fmt.Fprintf(out, "note: no RoCE packet crossed %s while recording: did the lab send anything (a call, reply, complete)?\n", d.site.Netdev)
}

// captureStartDevice is capture start on a real device.
func (c *Ctx) captureStartDevice(file, path string, out io.Writer) error {
	s := c.S
	af, err := atomicfile.Create(path)
	if err != nil {
		return fileErr(err, path, file)
	}
	d, err := startDevice(s.lab, af)
	if err != nil {
		af.Abort()
		return fmt.Errorf("capture start %s: %w", shown(file), err)
	}
	s.capture.rec = &recording{f: af, name: file, lab: s.lab, lesson: c.jail != nil, left: &s.tmp, dev: d}
	s.tmp.add(af.TempName())
	fmt.Fprintf(out, "recording %s to %s: capture stop ends it\n", d.what(), shown(file))
	if !d.site.Software {
		fmt.Fprintf(out, "note: %s\n", d.site.Offload())
	}
	return nil
}

// errSaveOnDevice is capture save on a real device: nothing was kept.
func errSaveOnDevice(r *recording) error {
	if r != nil && r.dev != nil {
		return fmt.Errorf("capture save writes the sim's record of its own wire; on a real device the packets are recorded only as they cross the netdev, by the recording running to %s: capture stop writes it", shown(r.name))
	}
	return fmt.Errorf("capture save writes the sim's record of its own wire; a real device's packets are not kept as they cross its netdev: capture start FILE records them from now on, capture stop writes FILE")
}
