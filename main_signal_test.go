package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pid is the process the pane's shell runs: rdmalab.
func (ts *tmuxSession) pid() int {
	ts.t.Helper()
	shell := strings.TrimSpace(ts.tmux("display-message", "-p", "-t", "e2e", "#{pane_pid}"))
	for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(20 * time.Millisecond) {
		kids, err := os.ReadFile(filepath.Join("/proc", shell, "task", shell, "children"))
		if err != nil {
			ts.t.Skipf("no /proc children list: %v", err)
		}
		if f := strings.Fields(string(kids)); len(f) > 0 {
			pid, err := strconv.Atoi(f[0])
			if err != nil {
				ts.t.Fatal(err)
			}
			return pid
		}
	}
	ts.t.Fatal("the pane's shell started nothing")
	return 0
}

// saneAfter checks what rdmalab left behind once a signal ended it: the
// shell's report of the status, the main screen (not the alternate one)
// and a cooked terminal (stty -a after it).
func (ts *tmuxSession) saneAfter(status string) {
	ts.t.Helper()
	scr := ts.waitFor(`(?s)EXITED ` + status + `.*icanon.*echoke`)
	for _, flag := range []string{"icanon", "echo", "isig", "icrnl", "opost"} {
		if !regexp.MustCompile(`(^|\s)` + flag + `(\s|$)`).MatchString(scr) {
			ts.t.Errorf("after the signal the terminal lacks %s:\n%s", flag, scr)
		}
	}
	if alt := strings.TrimSpace(ts.tmux("display-message", "-p", "-t", "e2e", "#{alternate_on}")); alt != "0" {
		ts.t.Errorf("after the signal the pane is still on the alternate screen (alternate_on %s)", alt)
	}
}

// TestTmuxViewSignals (issue 32 item 10): kill, timeout or a dropped ssh
// session end `rdmalab view` with the terminal given back, cooked and on
// its main screen, and the status a shell expects of a signal, 128+signo.
func TestTmuxViewSignals(t *testing.T) {
	needTmux(t)
	snapshot, err := filepath.Abs(filepath.Join("viz", "testdata", "compat-save.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			ts := startTmuxCmd(t, 100, 30, nil, []string{"view", "--snapshot", snapshot})
			ts.waitFor(`Pages & SGL`)
			if err := syscall.Kill(ts.pid(), sig); err != nil {
				t.Fatal(err)
			}
			ts.saneAfter(strconv.Itoa(128 + int(sig)))
		})
	}
}

// TestTmuxREPLViewSIGTERM: SIGTERM to the REPL while its view has the
// screen ends both with the terminal given back, and the REPL exits as
// the signal would have (143), not as a quit (0).
func TestTmuxREPLViewSIGTERM(t *testing.T) {
	needTmux(t)
	ts := startTmux(t, 100, 30)
	ts.waitFor(`sim fix2025>`)
	ts.start("view", `Pages & SGL`)
	if err := syscall.Kill(ts.pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ts.saneAfter(strconv.Itoa(128 + int(syscall.SIGTERM)))
}
