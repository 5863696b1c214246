package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The session socket goes with the session: after quit, Ctrl-D or
// SIGTERM nothing is left in $XDG_RUNTIME_DIR/rdmalab.
func TestSessionSocketRemovedOnExit(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(p *pty, cmd *exec.Cmd)
	}{
		{"quit", func(p *pty, cmd *exec.Cmd) { p.master.WriteString("quit\r") }},
		{"ctrl-d", func(p *pty, cmd *exec.Cmd) { p.master.WriteString("\x04") }},
		{"sigterm", func(p *pty, cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGTERM) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sock := filepath.Join(dir, "rdmalab", "session.sock")
			p := openPTY(t, 80, 24)
			cmd := startOnPTY(t, p, "XDG_RUNTIME_DIR="+dir)
			p.waitFor(t, "fix2025>", 10*time.Second)
			if _, err := os.Lstat(sock); err != nil {
				t.Fatalf("the session publishes no socket: %v", err)
			}
			tc.end(p, cmd)
			waitExit(t, cmd, "rdmalab did not exit")
			if _, err := os.Lstat(sock); err == nil {
				t.Errorf("%s is left behind", sock)
			}
		})
	}
}

// SIGTERM or SIGHUP while the view has the terminal ends the session
// too, socket and all: the view gives the terminal back first.
func TestSignalEndsTheView(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			sock := filepath.Join(dir, "rdmalab", "session.sock")
			p := openPTY(t, 100, 30)
			cmd := startOnPTY(t, p, "XDG_RUNTIME_DIR="+dir)
			p.waitFor(t, "fix2025>", 10*time.Second)
			p.master.WriteString("view\r")
			p.waitFor(t, "Pages", 10*time.Second)
			cmd.Process.Signal(sig)
			waitExit(t, cmd, "rdmalab did not exit with the view open")
			if _, err := os.Lstat(sock); err == nil {
				t.Errorf("%s is left behind", sock)
			}
		})
	}
}

// waitExit waits up to 10 s for cmd to end, or kills it and fails with why.
func waitExit(t *testing.T, cmd *exec.Cmd, why string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal(why)
	}
}
