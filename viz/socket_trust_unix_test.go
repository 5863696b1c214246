//go:build unix

package viz

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the uid tests running as root give what another user owns.
const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: only root can make a file another user's")
	}
}

// attachRefused checks that Attach refuses path with an error naming it
// and holding each of want.
func attachRefused(t *testing.T, path string, want ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := Attach(ctx, path)
	if err == nil {
		t.Fatalf("Attach took %s (status %q)", path, a.(*attached).Describe())
	}
	for _, w := range append(want, path, "refusing") {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q: %v", w, err)
		}
	}
}

// TestAttachRefusesUntrustedSocket (issue 32 item 11): a viewer with
// XDG_RUNTIME_DIR unset dials /tmp/rdmalab-$UID/session.sock, which
// another user could have made first; a folder others may write to, a
// folder or socket of another uid, or a link, are refused before anything
// is read.
func TestAttachRefusesUntrustedSocket(t *testing.T) {
	t.Run("folder 0777", func(t *testing.T) {
		path := socketPath(t)
		serve(t, path, live(newLab(t, nil)))
		if err := os.Chmod(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		attachRefused(t, path, "mode 0777")
	})
	t.Run("folder a link", func(t *testing.T) {
		path := socketPath(t)
		serve(t, path, live(newLab(t, nil)))
		link := filepath.Join(filepath.Dir(filepath.Dir(path)), "link")
		if err := os.Symlink(filepath.Dir(path), link); err != nil {
			t.Fatal(err)
		}
		attachRefused(t, filepath.Join(link, SocketName), "not a directory")
	})
	t.Run("folder of another uid", func(t *testing.T) {
		needRoot(t)
		path := socketPath(t)
		serve(t, path, live(newLab(t, nil)))
		if err := os.Chown(filepath.Dir(path), nobody, nobody); err != nil {
			t.Fatal(err)
		}
		attachRefused(t, path, "belongs to uid 65534")
	})
	t.Run("socket of another uid", func(t *testing.T) {
		needRoot(t)
		path := socketPath(t)
		serve(t, path, live(newLab(t, nil)))
		if err := os.Lchown(path, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		attachRefused(t, path, "belongs to uid 65534")
	})
	t.Run("ours", func(t *testing.T) {
		path := socketPath(t)
		serve(t, path, live(newLab(t, nil)))
		attach(t, path)
	})
}

// TestTrustedPeer: the peer's uid, as SO_PEERCRED gives it, must be ours.
func TestTrustedPeer(t *testing.T) {
	if err := trustedPeer("/x/session.sock", os.Getuid()+1, true); err == nil ||
		!strings.Contains(err.Error(), "/x/session.sock") || !strings.Contains(err.Error(), "runs as uid") {
		t.Errorf("another uid: %v", err)
	}
	if err := trustedPeer("/x/session.sock", os.Getuid(), true); err != nil {
		t.Errorf("our uid: %v", err)
	}
	if err := trustedPeer("/x/session.sock", 0, false); err != nil {
		t.Errorf("a system that cannot tell: %v", err)
	}
}

// peerHelperEnv makes the test binary a listener on the path it names
// (TestPeerHelper): run as another uid, it stands in for another user's
// fake session.
const peerHelperEnv = "RDMALAB_PEER_HELPER_SOCK"

func TestPeerHelper(t *testing.T) {
	path := os.Getenv(peerHelperEnv)
	if path == "" {
		t.Skip("the listener of TestAttachRefusesAnotherUsersListener")
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(`{"snapshot":{},"narration":"a fake session"}` + "\n"))
		}
	}()
	io.Copy(io.Discard, os.Stdin) // until the test closes it
}

// TestAttachRefusesAnotherUsersListener: the folder and the socket file are
// ours, but the process listening on it runs as another uid: SO_PEERCRED
// tells, and the viewer refuses it.
func TestAttachRefusesAnotherUsersListener(t *testing.T) {
	needRoot(t)
	if !isLinux() {
		t.Skip("no SO_PEERCRED here")
	}
	// The listener's own folder, and a copy of this binary it can run.
	hdir, err := os.MkdirTemp("", "rdpeer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(hdir) })
	bin := filepath.Join(hdir, "viz.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(hdir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	hsock := filepath.Join(hdir, "s.sock")
	cmd := exec.Command(bin, "-test.run=^TestPeerHelper$")
	cmd.Env = append(os.Environ(), peerHelperEnv+"="+hsock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the listener did not start: %q %v", line, err)
	}
	// Its socket, moved into a folder of ours and made ours.
	path := socketPath(t)
	if err := privateDir(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(hsock, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(path, os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	if err := trustedSocket(path); err != nil {
		t.Fatalf("the files should pass, the peer not: %v", err)
	}
	attachRefused(t, path, "runs as uid 65534")
}
