package viz

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine"
)

// socketPath is a short socket path (Unix socket paths are limited to
// about 100 bytes; t.TempDir can be longer).
func socketPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rdv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "s", SocketName)
}

// serve publishes src on path until the test ends or stop is called.
func serve(t *testing.T, path string, src Source) (stop func()) {
	t.Helper()
	p, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, src) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return")
		}
	}
	t.Cleanup(stop)
	return stop
}

func attach(t *testing.T, path string) Source {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, err := Attach(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sameAs waits until a viewer holds the session's state.
func sameAs(t *testing.T, what string, v Source, src *LabSource) {
	t.Helper()
	waitFor(t, what, func() bool {
		vs, ss := v.Snapshot(), src.Snapshot()
		ve, se := v.Events(1), src.Events(1)
		return vs.Clock == ss.Clock && vs.SQ.Avail == ss.SQ.Avail && len(ve) == 1 && len(se) == 1 && ve[0].Seq == se[0].Seq
	})
}

// Two viewers follow one session; they cannot step it; the socket is
// private; when the session restarts they reconnect.
func TestPublishTwoViewers(t *testing.T) {
	path := socketPath(t)
	src := live(stateRead3(t))
	stop := serve(t, path, src)

	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v mode %v, want a 0600 socket", err, fi.Mode())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %v, want 0700", di.Mode().Perm())
	}

	v1, v2 := attach(t, path), attach(t, path)
	sameAs(t, "viewer 1's first frame", v1, src)
	sameAs(t, "viewer 2's first frame", v2, src)
	if got := len(v1.Events(DefaultEvents)); got != len(src.Events(DefaultEvents)) {
		t.Errorf("viewer 1 holds %d events, the session %d", got, len(src.Events(DefaultEvents)))
	}

	if err := src.Do(func(l *engine.Lab) error { _, err := l.Complete(3, nil); return err }); err != nil {
		t.Fatal(err)
	}
	sameAs(t, "viewer 1 after the completions", v1, src)
	sameAs(t, "viewer 2 after the completions", v2, src)

	if err := v1.Act(ActStep); !errors.Is(err, ErrReadOnly) {
		t.Errorf("a viewer's step returned %v, want ErrReadOnly", err)
	}

	// The session ends: viewers say so, and follow the next one.
	stop()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("socket still there after Serve: %v", err)
	}
	waitFor(t, "viewer 1 to notice", func() bool { return strings.Contains(v1.(Describer).Describe(), "session gone") })
	next := live(stateRace(t))
	serve(t, path, next)
	sameAs(t, "viewer 1 on the new session", v1, next)
	sameAs(t, "viewer 2 on the new session", v2, next)
	if d := v2.(Describer).Describe(); !strings.HasPrefix(d, "attached to") {
		t.Errorf("viewer 2 says %q after reconnecting", d)
	}
}

func TestAttachNoSession(t *testing.T) {
	path := socketPath(t)
	_, err := Attach(context.Background(), path)
	want := "no rdmalab session is running (looked for " + path + ")"
	if err == nil || err.Error() != want {
		t.Fatalf("Attach: %v, want %q", err, want)
	}
	// A socket file nobody listens on says the same.
	os.MkdirAll(filepath.Dir(path), 0o700)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Attach(context.Background(), path); err == nil || err.Error() != want {
		t.Fatalf("Attach to a stale socket: %v, want %q", err, want)
	}
	// Publishing replaces the stale socket.
	serve(t, path, live(newLab(t, nil)))
	attach(t, path)
}

func TestListenRefusesASecondSession(t *testing.T) {
	path := socketPath(t)
	serve(t, path, live(newLab(t, nil)))
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "already publishes") {
		t.Fatalf("second Listen: %v", err)
	}
}

func TestPrivateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", fi.Mode().Perm())
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if err := privateDir(file); err == nil {
		t.Error("privateDir accepted a file")
	}
}

func TestSocketPath(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got := SocketPath(); got != "/run/user/1000/rdmalab/session.sock" {
		t.Errorf("with XDG_RUNTIME_DIR: %s", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got := SocketPath(); !strings.HasPrefix(got, os.TempDir()) || !strings.Contains(got, "rdmalab-") {
		t.Errorf("without XDG_RUNTIME_DIR: %s", got)
	}
}

// A live attach draws in a Viewer like any source.
func TestViewerOnAttach(t *testing.T) {
	path := socketPath(t)
	src := live(stateRace(t))
	serve(t, path, src)
	s, done := runView(t, &Viewer{Layout: LayoutPositions}, attach(t, path))
	waitFor(t, "the attached picture", func() bool {
		text := s.text()
		return strings.Contains(text, "NOT delivered") && strings.Contains(text, "attached to")
	})
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	waitRun(t, done)
}

// A viewer that re-attaches to a new session starts clean: none of the
// old session's events stay on screen before the new one runs anything.
func TestAttachNewSessionStartsClean(t *testing.T) {
	path := socketPath(t)
	stop := serve(t, path, live(stateRead3(t)))
	v := attach(t, path)
	m := NewModel(0)
	waitFor(t, "the first session's events", func() bool {
		m.Update(v.Snapshot(), v.Events(DefaultEvents))
		return m.EventCount() > 0
	})
	stop()
	waitFor(t, "the viewer to notice", func() bool { return strings.Contains(v.(Describer).Describe(), "session gone") })
	next := live(newLab(t, nil))
	if len(next.Events(1)) != 0 {
		t.Fatal("the new session has events before any command")
	}
	serve(t, path, next)
	waitFor(t, "the viewer on the new session", func() bool { return strings.HasPrefix(v.(Describer).Describe(), "attached to") })
	waitFor(t, "the old events to go", func() bool {
		m.Update(v.Snapshot(), v.Events(DefaultEvents))
		return m.EventCount() == 0 && len(v.Events(DefaultEvents)) == 0
	})
}

// A student who tries to attach to the trainer's session is told whose
// session folder is there and what to do instead, not only that none of
// theirs runs; their own folder is not mentioned.
func TestAttachSaysAnotherUsersSessionCannotBeJoined(t *testing.T) {
	dir := t.TempDir()
	theirs := filepath.Join(dir, "rdmalab-4242")
	if err := os.Mkdir(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 4242, 4242); err != nil {
		t.Skipf("cannot give a folder to another user here (%v): run as root to test", err)
	}
	if err := os.Mkdir(filepath.Join(dir, fmt.Sprintf("rdmalab-%d", os.Getuid())), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	_, err := Attach(context.Background(), socketPath(t))
	if err == nil {
		t.Fatal("attached")
	}
	msg := err.Error()
	if !strings.Contains(msg, "uid 4242) has an rdmalab session folder ("+theirs+")") && !strings.Contains(msg, "uid 4242 has an rdmalab session folder ("+theirs+")") {
		t.Errorf("the error does not name the other user's folder: %s", msg)
	}
	if !strings.Contains(msg, "the trainer runs serve") || strings.Count(msg, "session folder") != 1 {
		t.Errorf("the error: %s", msg)
	}
}
