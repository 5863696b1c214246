package lessons

import (
	"fmt"
	"strings"
	"testing"
)

const benchFront = "---\nname: big\ntitle: Big\nsummary: s\nlevel: beginner\n---\n"

// bigLesson is a lesson with n lines of one shape: each is what a
// trainer's file may hold many of, in the one place it piles up.
func bigLesson(shape string, n int) []byte {
	var b strings.Builder
	b.WriteString(benchFront)
	rep := func(s string) { b.WriteString(strings.Repeat(s, n)) }
	switch shape {
	case "hint":
		b.WriteString("```rdmalab\nwrite 1\n")
		rep("hint x\n")
		b.WriteString("```\n")
	case "narration":
		rep("a\n")
		b.WriteString("```rdmalab\nwrite 1\n```\n")
	case "comment":
		b.WriteString("```rdmalab\n")
		rep("# c\n")
		b.WriteString("write 1\n```\n")
	case "expect":
		// MaxChecks after each command, as many commands as it takes.
		b.WriteString("```rdmalab\n")
		for i := 0; i < n; i += MaxChecks {
			b.WriteString("write 1\n")
			b.WriteString(strings.Repeat("expect a\n", min(MaxChecks, n-i)))
		}
		b.WriteString("```\n")
	case "outro":
		b.WriteString("```rdmalab\nwrite 1\n```\n")
		rep("a\n")
	case "fence":
		b.WriteString("```text\n")
		rep("a\n")
		b.WriteString("```\n```rdmalab\nwrite 1\n```\n")
	default:
		panic(shape)
	}
	return []byte(b.String())
}

var benchShapes = []string{"hint", "narration", "comment", "expect", "outro", "fence"}

// BenchmarkParseLines parses lessons of 1k, 10k and 100k lines of each
// shape: the time per op grows ten times with each size, no faster.
func BenchmarkParseLines(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range []int{1_000, 10_000, 100_000} {
			data := bigLesson(shape, n)
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if _, err := Parse("big.md", data, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
