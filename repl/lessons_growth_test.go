package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allocated is the bytes f allocates: unlike the time it takes, the same
// on every run and every machine.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A session starts without reading the lessons: a trainer's folder of
// big lesson files costs a start nothing (each start parsed the whole
// catalog first), and learn still lists them.
func TestSessionStartReadsNoLesson(t *testing.T) {
	dir := t.TempDir()
	big := "---\nname: big\ntitle: Big\nsummary: s\nlevel: beginner\n---\n```rdmalab\nwrite 1\n" +
		strings.Repeat("hint x\n", 100_000) + "```\n"
	if err := os.WriteFile(filepath.Join(dir, "big.md"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func(dirs []string) uint64 {
		return allocated(func() {
			s, err := NewSession(Options{LessonDirs: dirs})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
		})
	}
	start(nil) // the first session builds what every later one shares
	plain, with := start(nil), start([]string{dir})
	if with > plain+64<<10 {
		t.Errorf("a session allocates %d bytes, %d with a folder of one %d-byte lesson: it was read at the start", plain, with, len(big))
	}
	s, err := NewSession(Options{LessonDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	if err := s.Exec("learn", Pos{}, &out); err != nil || !strings.Contains(out.String(), "big              Big ("+dir+")") {
		t.Errorf("learn: %v\n%s", err, out.String())
	}
}
