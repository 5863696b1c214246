package repl

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longNarrationLesson writes a lesson whose one step is narrated by a
// paragraph of n short lines, and returns its folder.
func longNarrationLesson(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	text := "---\nname: long\ntitle: Long\nsummary: s\nlevel: beginner\n---\n" +
		strings.Repeat("a\n", n) + "```rdmalab\nwrite 100\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "long.md"), []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// pacedLong is a paced session at the step of longNarrationLesson.
func pacedLong(tb testing.TB, n int) *Session {
	tb.Helper()
	s, err := NewSession(Options{LessonDirs: []string{longNarrationLesson(tb, n)}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	s.tty = true
	if err := s.Exec("learn long", Pos{}, io.Discard); err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkNarrationLines proposes a step narrated by 1k, 10k and 100k
// lines again ("again" at a paced lesson): alone, as at a terminal no
// view watches, and with a view reading the narration after it. The time
// per op grows ten times with each size, no faster.
func BenchmarkNarrationLines(b *testing.B) {
	for _, view := range []bool{false, true} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			name := fmt.Sprintf("noview/%d", n)
			if view {
				name = fmt.Sprintf("view/%d", n)
			}
			b.Run(name, func(b *testing.B) {
				s := pacedLong(b, n)
				for b.Loop() {
					s.LessonInput("again", io.Discard, io.Discard)
					if view && !strings.Contains(s.shared.Narration(), "a a a") {
						b.Fatal("no narration for the view")
					}
				}
			})
		}
	}
}

// BenchmarkFitTextLine wraps one line of 1k, 10k and 100k words.
func BenchmarkFitTextLine(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		line := strings.Repeat("word ", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				fitText(line, textWidth)
			}
		})
	}
}
