package lessons

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// Twice the lines of any shape cost at most three times the memory: no
// part of a lesson is gathered by copying what came before it (a hint
// of 100 000 lines took 11 s to parse).
func TestParseGrowsLinearly(t *testing.T) {
	const n = 10_000
	for _, shape := range benchShapes {
		cost := func(n int) uint64 {
			data := bigLesson(shape, n)
			return testutil.Allocated(func() {
				if _, err := Parse("big.md", data, nil); err != nil {
					t.Fatal(err)
				}
			})
		}
		if one, two := cost(n), cost(2*n); two > 3*one {
			t.Errorf("%s: %d lines allocate %d bytes, %d lines %d: %.1f times", shape, n, one, 2*n, two, float64(two)/float64(one))
		}
	}
}

// A hint of many lines is still their words joined by blanks.
func TestParseHintLines(t *testing.T) {
	l, err := Parse("f.md", bigLesson("hint", 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := l.Steps[0].Hint; h != "x x x" {
		t.Errorf("hint %q, want %q", h, "x x x")
	}
	text := benchFront + "```rdmalab\nwrite 1\nhint  one \nexpect a\nhint two\n```\n```rdmalab\nhint three\nwrite 2\n```\n"
	if l, err = Parse("f.md", []byte(text), nil); err != nil {
		t.Fatal(err)
	}
	if h0, h1 := l.Steps[0].Hint, l.Steps[1].Hint; h0 != "one two three" || h1 != "" {
		t.Errorf("hints %q and %q, want \"one two three\" and none", h0, h1)
	}
}

// The checks after one command are bounded: each is weighed against all
// the command did.
func TestParseTooManyChecks(t *testing.T) {
	text := benchFront + "```rdmalab\nwrite 1\n" + strings.Repeat("expect a\n", MaxChecks+1) + "```\n"
	_, err := Parse("f.md", []byte(text), nil)
	want := "f.md:109:1: more than 100 checks after one command"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
