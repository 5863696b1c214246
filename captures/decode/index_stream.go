package decode

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// OpenIndexStream indexes a capture that is still coming (a pipe saved
// as it is read, a live capture, a file being written): src returns its
// bytes as they come, waiting at its end for more, and ends (io.EOF)
// with the capture; at reads back the bytes src has returned; name is
// what errors and the view call it. It waits for the file header. Its
// Progress has no Fraction (the size is not known) until it is Done.
func OpenIndexStream(name string, src io.ReadCloser, at io.ReaderAt, opt IndexOptions) (*Index, error) {
	return openIndex(name, src, at, -1, opt)
}

// runStream is run for a stream: each record is read without the lock,
// since reading may wait for the next packet to come, and the watchers
// hear of the last packets even when none follow them.
func (x *Index) runStream(r *pcapfile.Reader) {
	var rec pcapfile.Record
	var last time.Time
	var pending atomic.Bool // a notify is due
	for !x.stop.Load() {
		err := r.Next(&rec)
		x.mu.Lock()
		end := false
		switch {
		case x.stop.Load():
			end = true
		case err != nil:
			if !errors.Is(err, io.EOF) {
				x.err = fileError(x.path, err)
			}
			end = true
		case x.n == maxFrames:
			x.err = fileError(x.path, fmt.Errorf("frame %d: more frames than an index holds (%d)", x.n+1, maxFrames))
			end = true
		default:
			x.add(&rec, x.dec.Decode(&rec))
		}
		if end {
			x.dec.Finish()
			x.done = true
		}
		close(x.moved)
		x.moved = make(chan struct{})
		x.mu.Unlock()
		switch {
		case end:
			x.notify()
			return
		case time.Since(last) > streamNotify:
			last = time.Now()
			x.notify()
		case pending.CompareAndSwap(false, true):
			time.AfterFunc(streamNotify, func() {
				pending.Store(false)
				x.notify()
			})
		}
	}
}

// streamNotify is how often at most the watchers of a stream's index
// hear of new packets: the view redraws no faster.
const streamNotify = 50 * time.Millisecond
