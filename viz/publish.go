package viz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/atomicfile"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Frames carry at most this many events; a viewer needs the recent ones.
const maxFrameEvents = 1000

// writeTimeout drops a viewer that stops reading instead of stalling.
const writeTimeout = 5 * time.Second

// pollEvery is how often a source that cannot be watched is re-read.
const pollEvery = time.Second

// Publisher serves a session's pictures on a Unix socket: one JSON Frame a
// line to each connected viewer, now and after every change. Viewers only
// read; anything they send is ignored.
type Publisher struct {
	path string
	ln   net.Listener
}

// Listen makes the socket at path (mode 0600, in a 0700 directory). A
// stale socket left by a session that died (a socket that refuses
// connections) is replaced; one a running session listens on is an
// error, and so is anything at path that is not a socket: it is left
// alone.
func Listen(path string) (*Publisher, error) {
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("publish: %w", err)
	}
	return &Publisher{path: path, ln: ln}, nil
}

// removeStale removes path if it is a socket nobody listens on.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket (%s): leaving it alone; remove it if it is not needed", path, atomicfile.Describe(fi.Mode()))
	}
	c, err := net.DialTimeout("unix", path, 200*time.Millisecond)
	if err == nil {
		c.Close()
		return fmt.Errorf("an rdmalab session already publishes on %s", path)
	}
	if !errors.Is(err, errConnRefused) {
		return fmt.Errorf("%s neither answers nor refuses (%v): leaving it alone", path, err)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// Accept backoff after a temporary failure (out of file descriptors),
// as net/http's server does: the session keeps publishing once some
// descriptors are free again.
const (
	acceptRetryFirst = 5 * time.Millisecond
	acceptRetryMax   = time.Second
)

// Path is the socket's path.
func (p *Publisher) Path() string { return p.path }

// Close stops accepting viewers and removes the socket's file; Serve
// returns soon after. Closing twice is harmless.
func (p *Publisher) Close() error {
	if err := p.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// Publish listens on path and serves src until ctx is done.
func Publish(ctx context.Context, path string, src Source) error {
	p, err := Listen(path)
	if err != nil {
		return err
	}
	return p.Serve(ctx, src)
}

// Serve sends src's pictures to every viewer that connects until ctx is
// done, then closes the socket (removing its file) and returns nil.
func (p *Publisher) Serve(ctx context.Context, src Source) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	h := &hub{subs: map[chan struct{}]struct{}{}}
	if w, ok := src.(Watcher); ok {
		defer w.Watch(h.notify)()
	} else {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(pollEvery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					h.notify()
				}
			}
		}()
	}
	go func() {
		<-ctx.Done()
		p.ln.Close()
	}()
	var wait time.Duration
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			if !acceptRetry(err) {
				return fmt.Errorf("publish on %s: %w", p.path, err)
			}
			wait = min(max(2*wait, acceptRetryFirst), acceptRetryMax)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
			continue
		}
		wait = 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			serveViewer(ctx, c, src, h)
		}()
	}
}

// serveViewer feeds one viewer until it leaves, a write fails or ctx is
// done. A panic in the source ends this viewer, not the session.
func serveViewer(ctx context.Context, c net.Conn, src Source, h *hub) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.Close()
	defer func() { _ = recover() }() // a broken source ends this viewer only
	ch := h.add()
	defer h.remove(ch)
	go func() {
		io.Copy(io.Discard, c) // returns when the viewer hangs up
		cancel()
	}()
	go func() {
		<-ctx.Done()
		c.Close()
	}()
	enc := safe.NewJSONEncoder(c)
	var seen uint64
	for {
		f := Frame{Snapshot: src.Snapshot(), Events: src.Events(maxFrameEvents)}
		if n, ok := src.(Narrator); ok {
			f.Narration = n.Narration()
		}
		f.Events, seen = newerThan(f.Events, seen)
		c.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := enc.Encode(f); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
	}
}

// newerThan keeps the events after seq (all of them when the sequence went
// back: a new lab) and returns the new high-water mark.
func newerThan(evs []trace.Event, seq uint64) ([]trace.Event, uint64) {
	if len(evs) == 0 {
		return evs, seq
	}
	last := evs[len(evs)-1].Seq
	if last < seq {
		return evs, last
	}
	i := len(evs)
	for i > 0 && evs[i-1].Seq > seq {
		i--
	}
	return evs[i:], last
}

// hub tells every viewer's writer that the source changed; a writer that
// is busy gets one pending wake-up, so changes coalesce.
type hub struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}
}

func (h *hub) add() chan struct{} {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch
}

func (h *hub) remove(ch chan struct{}) {
	h.mu.Lock()
	delete(h.subs, ch)
	h.mu.Unlock()
}

func (h *hub) notify() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
