package viz

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/watch"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Reconnection backoff: the first retry comes quickly (a session that
// restarts is back at once), later ones settle at the ceiling.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 2 * time.Second
)

// Attach connects to the session publishing on path and returns a
// read-only Source that follows it. When the session goes away the source
// says so and reconnects, with backoff, until ctx is done. With no session
// running at all it returns an error that says where it looked.
func Attach(ctx context.Context, path string) (Source, error) {
	return attachLimit(ctx, path, maxSnapshotFile)
}

// attachLimit is Attach with frames bounded by limit bytes: a frame is a
// snapshot file's worth.
func attachLimit(ctx context.Context, path string, limit int) (Source, error) {
	c, err := dialSession(path)
	if err != nil {
		var u *untrusted
		if errors.As(err, &u) {
			return nil, err
		}
		if isNotRunning(err) {
			msg := fmt.Sprintf("no rdmalab session is running (looked for %s)", path)
			if others := othersSessionDirs(os.TempDir()); len(others) > 0 {
				msg += fmt.Sprintf("; %s, but a view attaches only to its own user's sessions: "+
					"for a class, the trainer runs serve and hands out its URL", others[0])
			}
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("attach to %s: %w", path, err)
	}
	a := &attached{path: path, events: trace.NewRing(DefaultEvents),
		status: "attached to " + path, limit: limit}
	go a.run(ctx, c)
	return a, nil
}

// attached is the Source Attach returns.
type attached struct {
	path  string
	limit int // bytes of a frame

	mu     sync.Mutex
	snap   snap.Snapshot
	events trace.Ring
	seen   uint64
	narr   string
	status string
	took   bool // a good frame came since goodFrames last asked
	w      watch.Set
}

var (
	_ Watcher   = (*attached)(nil)
	_ Describer = (*attached)(nil)
	_ Narrator  = (*attached)(nil)
	_ ReadOnly  = (*attached)(nil)
)

// run reads frames, and reconnects when the session goes away. A panic
// here would kill the process under a raw terminal: it becomes the status.
func (a *attached) run(ctx context.Context, c net.Conn) {
	defer func() {
		if r := recover(); r != nil {
			a.setStatus(fmt.Sprintf("viewer stopped: %v", r))
		}
	}()
	var pause time.Duration // grows while the session sends only bad frames
	for {
		err := a.read(ctx, c)
		if ctx.Err() != nil {
			return
		}
		var bad *badFrameError
		refused := ""
		if errors.As(err, &bad) {
			a.setStatus(fmt.Sprintf("%v: reconnecting to %s", err, a.path))
			refused = fmt.Sprintf(" (its last frame was refused: %v)", bad.err)
			if a.goodFrames() {
				pause = 0
			}
			pause = min(max(2*pause, retryFirst), retryMax)
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
		} else {
			a.setStatus(fmt.Sprintf("session gone (%v): waiting for it on %s", err, a.path))
		}
		if c = redial(ctx, a.path); c == nil {
			return
		}
		a.forget() // it may be another session: its first frame brings what it holds
		a.setStatus("attached to " + a.path + safe.Display(refused))
	}
}

// goodFrames reports whether a frame was taken since it was last asked.
func (a *attached) goodFrames() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok := a.took
	a.took = false
	return ok
}

// badFrameError is a frame the session sent that is no frame.
type badFrameError struct{ err error }

func (e *badFrameError) Error() string {
	return "the session sent a bad frame: " + safe.Display(e.err.Error())
}
func (e *badFrameError) Unwrap() error { return e.err }

// readFrame reads one line of r, at most limit bytes of it; the reader
// never holds more than limit plus r's buffer, whatever the peer sends.
func readFrame(r *bufio.Reader, buf []byte, limit int) ([]byte, error) {
	buf = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > limit {
			return nil, &badFrameError{fmt.Errorf("a frame longer than the %d MiB limit", limit>>20)}
		}
		buf = append(buf, chunk...)
		if err == nil {
			return buf, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// read decodes frames from c until it fails or ctx is done, then closes c.
func (a *attached) read(ctx context.Context, c net.Conn) error {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
		}
		c.Close()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	var buf []byte
	for {
		line, err := readFrame(r, buf, a.limit)
		if err != nil {
			return err
		}
		var f Frame
		if err := json.Unmarshal(line, &f); err != nil {
			return &badFrameError{placeJSONError(line, err)}
		}
		a.take(f)
		if buf = line; cap(buf) > 1<<20 {
			buf = nil // one big frame does not keep its buffer
		}
	}
}

// redial tries path again and again, backing off, until it answers or ctx
// is done (nil).
func redial(ctx context.Context, path string) net.Conn {
	wait := retryFirst
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		if c, err := dialSession(path); err == nil {
			return c
		}
		wait = min(2*wait, retryMax)
	}
}

// take stores a frame and tells the watchers.
func (a *attached) take(f Frame) {
	a.mu.Lock()
	a.snap, a.narr = f.Snapshot, f.Narration
	if !a.took {
		a.took, a.status = true, "attached to "+a.path
	}
	if n := len(f.Events); n > 0 && f.Events[n-1].Seq < a.seen {
		a.events.Reset() // the session restarted
		a.seen = 0
	}
	for _, e := range f.Events {
		if e.Seq > a.seen {
			a.events.Push(e)
			a.seen = e.Seq
		}
	}
	a.mu.Unlock()
	a.w.Notify()
}

// forget drops what the last connection brought.
func (a *attached) forget() {
	a.mu.Lock()
	a.snap, a.narr, a.seen = snap.Snapshot{}, "", 0
	a.events.Reset()
	a.mu.Unlock()
}

func (a *attached) setStatus(s string) {
	a.mu.Lock()
	a.status = s
	a.mu.Unlock()
	a.w.Notify()
}

func (a *attached) Snapshot() snap.Snapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.snap
}

func (a *attached) Events(n int) []trace.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.events.Tail(n)
}

func (a *attached) Act(Action) error { return ErrReadOnly }

// ReadOnly says the view binds no stepping key: the session steps from
// its own REPL.
func (a *attached) ReadOnly() bool { return true }

func (a *attached) Describe() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

func (a *attached) Narration() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.narr
}

func (a *attached) Watch(f func()) (stop func()) { return a.w.Add(f) }
