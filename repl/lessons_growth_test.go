package repl

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

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
		return testutil.Allocated(func() {
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

// Proposing a step narrated by twice the lines costs at most three times
// the memory, with no view and with one reading the narration: the
// paragraph is never rebuilt line by line (200 000 lines froze the REPL
// for minutes, even with no view attached).
func TestNarrationGrowsLinearly(t *testing.T) {
	const n = 10_000
	for _, view := range []bool{false, true} {
		cost := func(n int) uint64 {
			s := pacedLong(t, n)
			return testutil.Allocated(func() {
				s.LessonInput("again", io.Discard, io.Discard)
				if view && !strings.Contains(s.shared.Narration(), "a a a") {
					t.Fatal("no narration for the view")
				}
			})
		}
		if one, two := cost(n), cost(2*n); two > 3*one {
			t.Errorf("view %v: %d lines allocate %d bytes, %d lines %d: %.1f times", view, n, one, 2*n, two, float64(two)/float64(one))
		}
	}
}

// An indented line of twice the words is wrapped with at most three
// times the memory: the rest of the line is not copied at each cut.
func TestFitTextGrowsLinearly(t *testing.T) {
	cost := func(n int) uint64 {
		line := "  " + strings.Repeat("word ", n)
		return testutil.Allocated(func() { fitText(line, textWidth) })
	}
	if one, two := cost(10_000), cost(20_000); two > 3*one {
		t.Errorf("10000 words allocate %d bytes, 20000 words %d: %.1f times", one, two, float64(two)/float64(one))
	}
}

// stepsLesson writes a lesson of n steps, quiet or not, and returns its
// folder.
func stepsLesson(t *testing.T, n int, quiet bool) string {
	t.Helper()
	dir := t.TempDir()
	block := "```rdmalab\n"
	if quiet {
		block = "```rdmalab quiet\n"
	}
	text := "---\nname: steps\ntitle: Steps\nsummary: s\nlevel: beginner\n---\n" +
		block + strings.Repeat("write 100\n", n) + "```\n```rdmalab\nwrite 100\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "steps.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// endingWriter ends the session, as SIGTERM does (interactive.go), at
// the write that holds say for the n-th time: the signal comes while a
// lesson runs a series of steps.
type endingWriter struct {
	bytes.Buffer
	s   *Session
	say string
	n   int
}

func (w *endingWriter) Write(p []byte) (int, error) {
	if w.n > 0 && bytes.Contains(p, []byte(w.say)) {
		if w.n--; w.n == 0 {
			w.s.Interrupt()
			w.s.Leave()
		}
	}
	return w.Buffer.Write(p)
}

// A lesson's series of steps stops when the session must end: the quiet
// steps a proposal runs, and the steps back runs again. The signal
// handler could act, but the lesson ran every step before the REPL could
// look at it.
func TestLessonStepsStopWhenSessionEnds(t *testing.T) {
	const n = 40
	s, _ := pacedSession(t, Options{LessonDirs: []string{stepsLesson(t, n, true)}})
	out := &endingWriter{s: s, say: "(setting the scene)", n: 3}
	if err := s.Exec("learn steps", Pos{}, out); err != nil {
		t.Fatal(err)
	}
	if ran := len(s.lab.Client.Calls()); ran > 3 {
		t.Errorf("%d of %d quiet steps ran; the session was told to end at the third", ran, n)
	}

	s, _ = pacedSession(t, Options{LessonDirs: []string{stepsLesson(t, n, false)}})
	// What a step prints goes to where the lesson began, back's too.
	out = &endingWriter{s: s, say: "NFSv3 WRITE 100"}
	if err := s.Exec("learn steps", Pos{}, out); err != nil {
		t.Fatal(err)
	}
	for range n {
		s.LessonInput("", out, out)
	}
	if at := s.lesson.tutor.Index(); at != n {
		t.Fatalf("at step %d, want %d", at+1, n+1)
	}
	out.n = 3
	s.LessonInput("back", out, out)
	if ran := len(s.lab.Client.Calls()); ran > 3 {
		t.Errorf("back ran %d of %d steps again; the session was told to end at the third", ran, n-1)
	}
}
