package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A 1 MiB paste at the prompt (issue 9) is refused within a second or
// two, not run, kept in no history (neither ours nor go-prompt's Up
// arrow), and the prompt goes on; before, it froze the REPL for most of a
// minute and broke every later session's history.
func TestTmuxHugePaste(t *testing.T) {
	needTmux(t)
	ts := startTmux(t, 100, 30)
	ts.waitFor(`sim fix2025>`)
	paste := filepath.Join(t.TempDir(), "paste")
	if err := os.WriteFile(paste, []byte("write "+strings.Repeat("9", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	ts.tmux("load-buffer", paste)
	ts.tmux("paste-buffer", "-t", "e2e")
	ts.keys("Enter")
	ts.waitFor(`error: line of 1048582 bytes is over the 65536-byte \(64 KiB\) limit: not run, and not kept in history`)
	ts.run("engine", `engine sim: the embedded`)
	ts.run("history", `\n +2  history\n`)
	if scr := ts.screen(false); strings.Contains(scr, "999") {
		t.Errorf("the pasted line is in the history:\n%s", scr)
	}
	ts.keys("Up")
	ts.waitFor(`fix2025> history\n`)
	ts.keys("Up")
	ts.waitFor(`fix2025> engine\n`)
	ts.keys("Up") // nothing older: the refused line was never added
	time.Sleep(200 * time.Millisecond)
	if scr := ts.screen(false); strings.Contains(scr, "999") {
		t.Errorf("Up recalled the refused line:\n%s", scr)
	}
	ts.keys("C-u")
	ts.keys("C-d")
	scr := ts.waitFor(`(?s)EXITED 0.*icanon.*echoke`)
	for _, flag := range []string{"icanon", "echo", "isig"} {
		if !regexp.MustCompile(`(^|\s)` + flag + `(\s|$)`).MatchString(scr) {
			t.Errorf("after exit the terminal lacks %s:\n%s", flag, scr)
		}
	}
}
