package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// tmuxShell runs shell (with rdmalab as $RDMALAB) in a detached tmux
// session of cols×rows, then says how it exited.
func tmuxShell(t *testing.T, cols, rows int, shell string) *tmuxSession {
	t.Helper()
	needTmux(t)
	bin, err := exec.LookPath("rdmalab")
	if err != nil {
		t.Fatalf("rdmalab is not on PATH: %v", err)
	}
	dir := t.TempDir()
	ts := &tmuxSession{t: t, sock: filepath.Join(dir, "tmux.sock")}
	env := "env XDG_RUNTIME_DIR=" + dir + " XDG_STATE_HOME=" + filepath.Join(dir, "state") + " TERM=screen RDMALAB=" + bin + " "
	ts.tmux("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		env+"sh -c '"+shell+"; echo EXITED $?; sleep 600'")
	t.Cleanup(func() { exec.Command("tmux", "-S", ts.sock, "kill-server").Run() })
	return ts
}

// view --capture - shows a capture from a pipe: every packet, the list
// title naming standard input; q ends it.
func TestViewCaptureStdin(t *testing.T) {
	capture := testutil.Capture(t, "sim-nfs3.pcap")
	ts := tmuxShell(t, 120, 30, "cat "+capture+" | $RDMALAB view --capture -")
	ts.waitFor(`Packets · standard input · 1 of 47\b`)
	ts.keys("End") // the last packet
	ts.waitFor(`47 of 47`)
	ts.waitFor(`\n *47 [^\n]*RC Acknowledge`)
	ts.keys("q")
	ts.waitFor(`EXITED 0`)
}

// view --capture FILE --follow shows a file still being written, the
// list growing with it and saying it is live.
func TestViewFollow(t *testing.T) {
	data := testutil.ReadFile(t, testutil.Capture(t, "sim-nfs3.pcap"))
	path := filepath.Join(t.TempDir(), "growing.pcap")
	half := 9000 // inside a record past the CM handshake
	if err := os.WriteFile(path, data[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	ts := tmuxShell(t, 120, 30, "$RDMALAB view --capture "+path+" --follow")
	scr := ts.waitFor(`live · \d+ packets so far`)
	if strings.Contains(scr, "of 47") {
		t.Fatalf("the whole capture before it was written:\n%s", scr)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for off := half; off < len(data); off += 4000 {
		f.Write(data[off:min(off+4000, len(data))])
		time.Sleep(50 * time.Millisecond)
	}
	ts.waitFor(`growing.pcap \(growing\) · 1 of 47…`)
	ts.waitFor(`live · 47 packets so far`)
	ts.keys("q")
	ts.waitFor(`EXITED 0`)
}
