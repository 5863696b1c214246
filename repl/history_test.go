package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "rdmalab", "history")
	h, lines, _, err := openHistory(path)
	if err != nil || len(lines) != 0 {
		t.Fatalf("%v %q", err, lines)
	}
	for _, l := range []string{"write 1M", "complete"} {
		if err := h.Append(l); err != nil {
			t.Fatal(err)
		}
	}
	// Appended at once: another process sees the lines before Close.
	b, _ := os.ReadFile(path)
	if string(b) != "write 1M\ncomplete\n" {
		t.Errorf("file holds %q", b)
	}
	h.Close()
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode().Perm(), want, err)
		}
	}
	h, lines, _, err = openHistory(path)
	if err != nil || strings.Join(lines, ";") != "write 1M;complete" {
		t.Fatalf("reload: %v %q", err, lines)
	}
	h.Close()
}

func TestHistoryFileModeRepaired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	os.WriteFile(path, []byte("help\n"), 0o644)
	h, lines, _, err := openHistory(path)
	if err != nil || len(lines) != 1 {
		t.Fatal(err, lines)
	}
	h.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

func TestDefaultHistoryFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if got := DefaultHistoryFile(); got != "/x/state/rdmalab/history" {
		t.Errorf("%q", got)
	}
	t.Setenv("XDG_STATE_HOME", "relative") // the spec says: ignore it
	t.Setenv("HOME", "/home/u")
	if got := DefaultHistoryFile(); got != "/home/u/.local/state/rdmalab/history" {
		t.Errorf("%q", got)
	}
}

func TestHistoryNilIsQuiet(t *testing.T) {
	var h *historyFile
	if h.Append("x") != nil || h.Close() != nil {
		t.Error("a nil history file is not a no-op")
	}
}
