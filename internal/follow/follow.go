// Package follow reads a file another program is still writing, as
// tail -f does: at its end a read waits for more rather than returning
// io.EOF, until its context ends. A record half written is so waited
// for, not taken for a damaged file.
package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Poll is how often a reader at the end of its file looks for more: a
// stat and a read, cheap enough to do ten times a second.
const Poll = 100 * time.Millisecond

// Reader reads a growing file.
type Reader struct {
	ctx     context.Context
	f       *os.File
	off     int64
	poll    time.Duration
	stopped bool
}

// Open opens path for reading as it grows, until ctx ends.
func Open(ctx context.Context, path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: --follow reads a regular file, not a %s", path, describe(st.Mode()))
	}
	return New(ctx, f), nil
}

// New reads f from where it is as it grows, until ctx ends; closing the
// Reader closes f.
func New(ctx context.Context, f *os.File) *Reader {
	return &Reader{ctx: ctx, f: f, poll: Poll}
}

func describe(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "pipe (a pipe is read as it comes without --follow)"
	case m.IsDir():
		return "directory"
	case m&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// Read reads what the file holds past the last read; at its end it
// waits until more is written or the context ends, and returns io.EOF
// then. A file that shrinks under it (truncated, or replaced by a
// shorter one) is an error: what it read no longer stands.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var t *time.Timer
	for {
		n, err := r.f.Read(p)
		r.off += int64(n)
		if n > 0 {
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if st, err := r.f.Stat(); err == nil && st.Size() < r.off {
			return 0, fmt.Errorf("%s shrank to %d bytes after %d were read: truncated or replaced", r.f.Name(), st.Size(), r.off)
		}
		if t == nil {
			t = time.NewTimer(r.poll)
			defer t.Stop()
		} else {
			t.Reset(r.poll)
		}
		if r.stopped {
			return 0, io.EOF
		}
		select {
		case <-r.ctx.Done():
			// One more read: what the writer wrote before it ended.
			r.stopped = true
		case <-t.C:
		}
	}
}

// Stopped says the context ended the reading: whatever the reader of the
// stream says of its end (a record cut short), the writer had not done.
func (r *Reader) Stopped() bool { return r.stopped }

// Offset is how many bytes were read.
func (r *Reader) Offset() int64 { return r.off }

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }
