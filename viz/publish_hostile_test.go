package viz

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Only a socket that refuses connections is stale: a regular file, a
// directory or a link at the socket's path is left alone, with a message
// that says what it is.
func TestListenLeavesNonSockets(t *testing.T) {
	for _, tc := range []struct {
		kind string
		make func(path string) error
	}{
		{"a regular file", func(p string) error { return os.WriteFile(p, []byte("notes"), 0o600) }},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"a symbolic link", func(p string) error { return os.Symlink("/etc/passwd", p) }},
		{"a named pipe (FIFO)", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			path := socketPath(t)
			if err := privateDir(filepath.Dir(path)); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			_, err := Listen(path)
			want := path + " exists and is not a socket (" + tc.kind + "): leaving it alone"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Listen: %v, want …%s…", err, want)
			}
			if _, err := os.Lstat(path); err != nil {
				t.Errorf("%s was removed: %v", tc.kind, err)
			}
		})
	}
	// A socket nobody listens on is stale and replaced (TestAttachNoSession
	// covers it through Attach too).
	path := socketPath(t)
	privateDir(filepath.Dir(path))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	p, err := Listen(path)
	if err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	p.ln.Close()
}

// failingListener fails its first n Accepts with err.
type failingListener struct {
	net.Listener
	n     atomic.Int32
	err   error
	calls atomic.Int32
}

func (l *failingListener) Accept() (net.Conn, error) {
	l.calls.Add(1)
	if l.n.Add(-1) >= 0 {
		return nil, l.err
	}
	return l.Listener.Accept()
}

func emfile() error {
	return &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
}

// Out of file descriptors, Accept fails with EMFILE: the publisher backs
// off and tries again, the socket stays, and viewers attach once
// descriptors are free. An error that does not pass still ends Serve.
func TestServeSurvivesEMFILE(t *testing.T) {
	path := socketPath(t)
	p, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	fl := &failingListener{Listener: p.ln, err: emfile()}
	fl.n.Store(8) // 5 ms doubling: 1.3 s of failures
	p.ln = fl
	src := live(stateRead3(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, src) }()
	v := attach(t, path) // queued in the backlog while Accept fails
	waitFor(t, "the viewer's first frame after EMFILE", func() bool { return v.Snapshot().Clock == src.Snapshot().Clock })
	if fl.calls.Load() < 9 {
		t.Errorf("%d Accepts", fl.calls.Load())
	}
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("the socket went away: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}

	// Something that does not pass ends Serve with an error naming it.
	p, err = Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := &failingListener{Listener: p.ln, err: &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EINVAL)}}
	bad.n.Store(1)
	p.ln = bad
	err = p.Serve(context.Background(), src)
	if err == nil || !strings.Contains(err.Error(), "invalid argument") {
		t.Errorf("Serve after EINVAL: %v", err)
	}
}

// The same with a real RLIMIT_NOFILE, in a child process: the session
// uses up its descriptors on viewers, Accept fails with EMFILE, the
// viewers leave, and a new viewer attaches.
func TestServeSurvivesRlimitNofile(t *testing.T) {
	if path := os.Getenv("RDMALAB_TEST_EMFILE_SOCKET"); path != "" {
		emfileChild(path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := socketPath(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeSurvivesRlimitNofile$")
	cmd.Env = append(os.Environ(), "RDMALAB_TEST_EMFILE_SOCKET="+path)
	stdin, _ := cmd.StdinPipe()
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	// Not the socket file: it appears at bind, before listen, and a dial
	// in between is refused.
	waitFor(t, "the child's listening socket", func() bool { return strings.Contains(out.String(), "listening") })
	// Hold viewers until the child's Accept runs out of descriptors.
	var conns []net.Conn
	for i := 0; i < 64; i++ {
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatalf("dial %d: %v\n%s", i, err, out.String())
		}
		conns = append(conns, c)
	}
	waitFor(t, "the child's EMFILE", func() bool { return strings.Contains(out.String(), "EMFILE seen") })
	for _, c := range conns {
		c.Close()
	}
	// Once they are gone, a viewer attaches and gets a frame.
	waitFor(t, "a frame after EMFILE", func() bool {
		c, err := net.Dial("unix", path)
		if err != nil {
			return false
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(time.Second))
		line, err := bufio.NewReader(c).ReadBytes('\n')
		return err == nil && json.Valid(line)
	})
}

// syncBuffer is a buffer a child process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// emfileChild publishes on path with 40 file descriptors and reports the
// first EMFILE its Accept meets; it ends when its stdin closes.
func emfileChild(path string) {
	p, err := Listen(path)
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	var seen atomic.Bool
	p.ln = &emfileSpy{Listener: p.ln, seen: &seen}
	lim := syscall.Rlimit{Cur: 40, Max: 40}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(1)
	}
	fmt.Println("listening")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	go func() {
		for !seen.Load() {
			time.Sleep(5 * time.Millisecond)
		}
		fmt.Println("EMFILE seen")
	}()
	if err := p.Serve(ctx, StaticSource(Frame{}, "child")); err != nil {
		fmt.Println("serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type emfileSpy struct {
	net.Listener
	seen *atomic.Bool
}

func (l *emfileSpy) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if errors.Is(err, syscall.EMFILE) {
		l.seen.Store(true)
	}
	return c, err
}

// endless is a peer that sends one JSON frame that never ends, and
// counts what it sent.
type endless struct{ n atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	if e.n.Load() == 0 && len(p) > 0 {
		p[0] = '{'
	}
	e.n.Add(int64(len(p)))
	return len(p), nil
}

// A frame is read to its limit and no further: the reader never holds
// more than the limit and its buffer.
func TestReadFrameBounded(t *testing.T) {
	const limit = 1 << 20
	var src endless
	r := bufio.NewReaderSize(&src, 64<<10)
	_, err := readFrame(r, nil, limit)
	var bad *badFrameError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "a frame longer than the 1 MiB limit") {
		t.Fatalf("error %v", err)
	}
	if got := src.n.Load(); got > limit+2*(64<<10) {
		t.Errorf("read %d bytes for a %d limit", got, limit)
	}
	// Frames within the limit come one a line.
	r = bufio.NewReaderSize(strings.NewReader("{\"a\":1}\n{}\n"+strings.Repeat("x", 200<<10)+"\n"), 16)
	for _, want := range []int{8, 3, 200<<10 + 1} {
		line, err := readFrame(r, nil, limit)
		if err != nil || len(line) != want {
			t.Fatalf("line of %d bytes (%v), want %d", len(line), err, want)
		}
	}
	if _, err := readFrame(r, nil, limit); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}
}

// fakeSession is a socket that answers each viewer with send.
func fakeSession(t *testing.T, send func(c net.Conn)) string {
	t.Helper()
	path := socketPath(t)
	privateDir(filepath.Dir(path))
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				send(c)
			}()
		}
	}()
	return path
}

// A fake session sends one endless frame: the viewer stops at the limit,
// says so, and keeps trying; its memory stays bounded.
func TestAttachEndlessFrame(t *testing.T) {
	const maxFrame = 4 << 20
	var conns atomic.Int32
	first := make(chan int64, 1)
	path := fakeSession(t, func(c net.Conn) {
		buf := make([]byte, 1<<20)
		for i := range buf {
			buf[i] = ' '
		}
		buf[0] = '{'
		var sent int64
		for sent < 4*int64(maxFrame) {
			n, err := c.Write(buf)
			sent += int64(n)
			if err != nil {
				break
			}
			buf[0] = ' '
		}
		if conns.Add(1) == 1 {
			first <- sent
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, err := attachLimit(ctx, path, maxFrame)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the frame limit", func() bool {
		return strings.Contains(a.(Describer).Describe(), "the session sent a bad frame: a frame longer than the 4 MiB limit")
	})
	if got := <-first; got > int64(maxFrame)+16<<20 {
		t.Errorf("the viewer took %d MiB of one frame", got>>20)
	}
}

// A session whose frame carries a claim out of range is refused like a
// snapshot file, and the viewer shows the next good frame.
func TestAttachRefusesBadFrame(t *testing.T) {
	good, err := json.Marshal(Frame{Snapshot: stateRead3(t).Snapshot()})
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	path := fakeSession(t, func(c net.Conn) {
		if n.Add(1) == 1 {
			fmt.Fprintf(c, "{\"snapshot\": {}, \"events\": [{\"seq\": 1, \"kind\": \"call\", \"depth\": %d}]}\n", int64(1)<<40)
			return
		}
		c.Write(append(good, '\n'))
		time.Sleep(time.Second)
	})
	a := attach(t, path)
	waitFor(t, "the refusal", func() bool {
		return strings.Contains(a.(Describer).Describe(), "bad frame: field events[0].depth: 1099511627776 is out of range (0..255): reconnecting")
	})
	waitFor(t, "the good frame", func() bool { return a.Snapshot().Clock != "" })
	if d := a.(Describer).Describe(); d != "attached to "+path {
		t.Errorf("after a good frame the status says %q", d)
	}
	if evs := a.Events(10); len(evs) != 0 {
		t.Errorf("the bad frame's events were kept: %v", evs)
	}
}
