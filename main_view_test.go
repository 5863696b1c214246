package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTmuxLiveView: the REPL in one pane, `rdmalab view` in another; each
// step in the first redraws the second, and `view` / `q` inside the REPL
// leaves a working prompt.
func TestTmuxLiveView(t *testing.T) {
	needTmux(t)
	bin, err := exec.LookPath("rdmalab")
	if err != nil {
		t.Fatalf("rdmalab is not on PATH: %v", err)
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "tmux.sock")
	env := "env XDG_RUNTIME_DIR=" + dir + " XDG_STATE_HOME=" + filepath.Join(dir, "state") + " TERM=screen "
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	tmux("-f", "/dev/null", "new-session", "-d", "-s", "lv", "-x", "200", "-y", "50", env+bin+"; sleep 600")
	waitFor := func(pane, re string) string {
		t.Helper()
		rx := regexp.MustCompile(re)
		var scr string
		for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(30 * time.Millisecond) {
			if scr = tmux("capture-pane", "-p", "-t", pane); rx.MatchString(scr) {
				return scr
			}
		}
		t.Fatalf("pane %s never showed %q; it shows:\n%s", pane, re, scr)
		return ""
	}
	repl, view := "lv.0", "lv.1"
	waitFor(repl, `(?m)^sim fix2025>\s*$`)
	tmux("split-window", "-h", "-t", "lv", env+bin+" view; sleep 600")
	waitFor(view, `attached to `)
	waitFor(view, `no call yet|Pages`)

	line := func(s string) {
		tmux("send-keys", "-t", repl, "-l", s)
		tmux("send-keys", "-t", repl, "Enter")
	}
	line("write 10000 --segments 3")
	line("complete")
	line("readlist")
	scr := waitFor(view, `RDMA_READ[\s\S]*RDMA_READ[\s\S]*RDMA_READ`)
	if !strings.Contains(scr, "3 WQEs") {
		t.Errorf("the attached view does not show the 3-WQE Read chain:\n%s", scr)
	}
	line("complete all")
	line("reply")
	line("complete all")
	waitFor(view, `xpt_acked_pos 1|A1|P1 A1`)

	// view inside the REPL, then q: the prompt works again.
	line("view")
	waitFor(repl, `\? help q quit`)
	tmux("send-keys", "-t", repl, "q")
	waitFor(repl, `(?m)^sim fix2025>\s*$`)
	line("show sq")
	waitFor(repl, `sc_sq_avail 1610 \(0 in use\)`)
}
