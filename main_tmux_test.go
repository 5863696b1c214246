package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives rdmalab in a detached tmux session on a private
// server socket.
type tmuxSession struct {
	t    *testing.T
	sock string
}

func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
			t.Fatal("tmux is not installed, and RDMALAB_REQUIRE_TOOLS=1 requires it (apt-get install tmux)")
		}
		t.Skip("tmux is not installed: skipping the end-to-end terminal test (set RDMALAB_REQUIRE_TOOLS=1 to make this a failure)")
	}
}

// startTmux runs rdmalab at cols x rows, then `stty -a` once it exits so
// the test can see the terminal it left behind.
func startTmux(t *testing.T, cols, rows int, env ...string) *tmuxSession {
	t.Helper()
	return startTmuxCmd(t, cols, rows, env, nil)
}

// startTmuxCmd runs `rdmalab ARGS...` with the extra environment env in a
// detached tmux session of cols×rows.
func startTmuxCmd(t *testing.T, cols, rows int, env, args []string) *tmuxSession {
	t.Helper()
	bin, err := exec.LookPath("rdmalab")
	if err != nil {
		t.Fatalf("rdmalab is not on PATH: %v", err)
	}
	dir := t.TempDir()
	ts := &tmuxSession{t: t, sock: filepath.Join(dir, "tmux.sock")}
	// A private runtime dir: a session the developer has open elsewhere
	// must not change what the test sees (the socket notice).
	env = append(env, "XDG_RUNTIME_DIR="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "TERM=screen")
	cmd := strings.Join(append([]string{bin}, args...), " ")
	shell := "env " + strings.Join(env, " ") + " " + cmd + "; echo EXITED $?; stty -a; sleep 600"
	ts.tmux("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), shell)
	t.Cleanup(func() { exec.Command("tmux", "-S", ts.sock, "kill-server").Run() })
	return ts
}

func (ts *tmuxSession) tmux(args ...string) string {
	ts.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", ts.sock}, args...)...).CombinedOutput()
	if err != nil {
		ts.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends key names (Tab, Enter, C-d) or, with literal, text.
func (ts *tmuxSession) keys(k ...string) {
	ts.tmux(append([]string{"send-keys", "-t", "e2e"}, k...)...)
}
func (ts *tmuxSession) text(s string) { ts.tmux("send-keys", "-t", "e2e", "-l", s) }

func (ts *tmuxSession) screen(escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", "e2e"}
	if escapes {
		args = append(args, "-e")
	}
	return ts.tmux(args...)
}

// waitFor polls the screen until re matches it.
func (ts *tmuxSession) waitFor(re string) string {
	ts.t.Helper()
	rx := regexp.MustCompile(re)
	var scr string
	for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(20 * time.Millisecond) {
		if scr = ts.screen(false); rx.MatchString(scr) {
			return scr
		}
	}
	ts.t.Fatalf("the screen never matched %q:\n%s", re, scr)
	return ""
}

// start types a command, presses Enter and waits for what it should
// print: for a command that keeps the terminal (a view) and ends later.
func (ts *tmuxSession) start(cmd, want string) string {
	ts.t.Helper()
	ts.text(cmd)
	ts.keys("Enter")
	return ts.waitFor(want)
}

// run is start for a command that ends: it then waits for a fresh prompt
// on the last line, or the shell's report that rdmalab exited. Keys sent
// while the output is still coming would be drawn into it.
func (ts *tmuxSession) run(cmd, want string) string {
	ts.t.Helper()
	ts.start(cmd, want)
	return ts.waitFor(`\n[^\n]*> *\s*\z|EXITED \d+`)
}

// TestTmux is the newcomer's first session, in a real terminal: the
// banner, Tab, help, a WRITE and a READ stepped to the acknowledged
// position, history recall, Ctrl-C, Ctrl-D, and a usable terminal after.
func TestTmux(t *testing.T) {
	needTmux(t)
	ts := startTmux(t, 100, 30)
	scr := ts.waitFor(`sim fix2025>`)
	if !strings.Contains(scr, "rdmalab: a lab for the Linux NFS/RDMA server") || !strings.Contains(scr, "learn first-write") {
		t.Errorf("banner:\n%s", scr)
	}

	// Tab on an empty line opens the command menu, with descriptions.
	ts.keys("Tab")
	ts.waitFor(`write +NFSv3 WRITE: the data goes in a Read chunk`)
	ts.keys("C-u")
	// Completion of an argument, then Tab selects the first candidate.
	ts.text("show s")
	ts.waitFor(`sgl +the scatterlist of each rw ctxt in use`)
	ts.keys("C-u")

	ts.run("help", `session: engine, settings, scripts\n(.*\n)*  history +lines entered`)

	// A WRITE, stepped by hand to the acknowledged position.
	ts.run("trace off", `trace off\n`)
	ts.run("write 10000", `next: 1 operation\(s\) on the wire, first client SEND`)
	ts.run("complete", `delivered 1 operation\(s\)`)
	ts.run("recv", `nfsd0 took xid 0x5eed0010: RDMA_MSG, 52-byte transport header`)
	ts.run("readlist", `sgl\[2\] pg3 +off +0 len +1808`)
	ts.run("complete", `(?s)> complete\n.*delivered 1 operation\(s\)\n.*> complete\n.*delivered 1`)
	ts.run("reply", `chain 1: reply, posted by nfsd0, 1 SQE\(s\), position 1`)
	ts.keys("C-l")
	ts.run("complete", `delivered 1 operation`)
	ts.run("show positions", `sc_post_seq 1, xpt_acked_pos 1;.*\n  xid 0x5eed0010 WRITE +pos 1 +acked`)

	// A READ: the data comes back by RDMA Write.
	ts.keys("C-l")
	ts.run("read 10000", `write chunk 0 +- +10000 +0x`)
	ts.run("complete", `delivered 1 operation`)
	ts.run("recv", `nfsd0 took xid 0x5eed0011`)
	ts.run("reply", `chain 2: reply, posted by nfsd0, 1 SQE\(s\), position 2`)
	ts.run("complete all", `delivered 2 operation\(s\)`)
	ts.keys("C-l")
	ts.run("show positions", `sc_post_seq 2, xpt_acked_pos 2`)

	// Errors do not end the session.
	ts.run("wirte 4096", "error: unknown command \"wirte\": did you mean `write`\\?")

	// Up arrow and Ctrl-R recall; Ctrl-C clears the line.
	ts.keys("Up")
	ts.waitFor(`fix2025> wirte 4096\n`)
	ts.keys("C-u")
	ts.text("read")
	ts.keys("C-r")
	ts.waitFor(`fix2025> read 10000\n`)
	ts.keys("C-c")
	ts.waitFor(`fix2025> read 10000\nsim fix2025>\n`)

	// Ctrl-D leaves; the terminal is cooked again.
	ts.keys("C-d")
	scr = ts.waitFor(`(?s)EXITED 0.*icanon.*echoke`) // stty -a has printed its local flags
	for _, flag := range []string{"icanon", "echo", "isig", "icrnl", "opost"} {
		if !regexp.MustCompile(`(^|\s)` + flag + `(\s|$)`).MatchString(scr) {
			t.Errorf("after exit the terminal lacks %s:\n%s", flag, scr)
		}
	}
}

// At 80x24 with NO_COLOR the banner fits, the menu opens and nothing is
// coloured.
func TestTmuxSmallNoColor(t *testing.T) {
	needTmux(t)
	ts := startTmux(t, 80, 24, "NO_COLOR=1")
	scr := ts.waitFor(`sim fix2025>`)
	lines := strings.Split(scr, "\n")
	if !strings.HasPrefix(lines[1], "engine: sim") || !strings.HasPrefix(lines[2], "help lists the commands") {
		t.Errorf("the banner wraps at 80 columns:\n%s", scr)
	}
	ts.text("complete --status REM_")
	ts.waitFor(`REM_ACCESS_ERR +the responder rejected the rkey`)
	if esc := ts.screen(true); regexp.MustCompile("\x1b\\[[0-9;]*(3[0-7]|4[0-7]|9[0-7])m").MatchString(esc) {
		t.Errorf("colours with NO_COLOR:\n%q", esc)
	}
	ts.keys("C-u")
	ts.run("quit", `EXITED 0`)
}
