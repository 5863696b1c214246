package repl

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
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

// A start reads the history's tail, not the whole file: twice the history
// costs no more, and the lines recalled are the last ones the whole file
// gives, whatever their lengths (a 200 MB history took 1 s to start).
func TestHistoryReadsTheTail(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int, line func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(line(i) + "\n")
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	load := func(path string) (lines []string, all []string, cost uint64) {
		cost = testutil.Allocated(func() {
			h, l, _, err := openHistory(path)
			if err != nil {
				t.Fatal(err)
			}
			h.Close()
			lines = l
		})
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		all, _ = readHistory(f, 0, st.Size())
		return lines, all, cost
	}
	short := func(i int) string { return fmt.Sprintf("write %d", i) }
	_, _, one := load(write("h1", 100_000, short))
	lines, all, two := load(write("h2", 200_000, short))
	if two > one*3/2 {
		t.Errorf("a history twice as long allocates %d bytes, not %d: it was read whole", two, one)
	}
	if len(lines) != maxHistoryLoad || !reflect.DeepEqual(lines, all) {
		t.Errorf("recalled %d lines, the last %q; want the file's last %d", len(lines), lines[len(lines)-1], maxHistoryLoad)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 20 {
		mixed := func(i int) string {
			if rng.IntN(50) == 0 {
				return "\x1b[2J" // skipped
			}
			return strings.Repeat("x", rng.IntN(300)) + fmt.Sprint(i)
		}
		lines, all, _ := load(write(fmt.Sprint("m", k), 1000+rng.IntN(3000), mixed))
		if !reflect.DeepEqual(lines, all) {
			t.Fatalf("file %d: the tail gave %d lines, the whole file's last are %d", k, len(lines), len(all))
		}
	}
}
