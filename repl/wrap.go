package repl

import (
	"strings"
	"unicode/utf8"
)

// textWidth is the width help and tables are fitted to: an 80-column
// terminal without its last column (writing there wraps on some).
const textWidth = 79

// fitText wraps every line of s longer than width at blanks. A continued
// line is indented as its line was, or, for a table row ("name  text"),
// to the column where its last column starts.
func fitText(s string, width int) string {
	var b strings.Builder
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(wrapLine(l, width))
	}
	return b.String()
}

func wrapLine(l string, width int) string {
	n := utf8.RuneCountInString(l)
	if n <= width {
		return l
	}
	indent := len(l) - len(strings.TrimLeft(l, " "))
	hang := indent
	// A table row: continue under the text after the last wide gap.
	if i := strings.LastIndex(l[:min(len(l), width)], "  "); i > indent {
		if col := i + 2; col < width-20 && strings.TrimSpace(l[:i]) != "" {
			hang = col
		}
	}
	from := max(indent, hang, 1)
	var b strings.Builder
	b.Grow(len(l) + len(l)/max(width, 1)*(hang+1))
	// The line being cut is pad blanks, then rest (n runes): the rest is
	// never copied to put the blanks before it, nor counted again.
	pad, rest := 0, l
	for pad+n > width {
		cut, runes := breakAt(rest, pad, width, from)
		if cut <= 0 {
			break
		}
		if head := strings.TrimRight(rest[:cut], " "); head != "" {
			writeBlanks(&b, pad)
			b.WriteString(head)
		}
		b.WriteByte('\n')
		next := strings.TrimLeft(rest[cut:], " ")
		n -= runes + len(rest) - cut - len(next)
		pad, rest = hang, next
	}
	writeBlanks(&b, pad)
	b.WriteString(rest)
	return b.String()
}

func writeBlanks(b *strings.Builder, n int) {
	for range n {
		b.WriteByte(' ')
	}
}

// breakAt is the byte offset in line of its last blank at or before
// column width and after column from, the line starting at column col;
// or -1. It also returns the runes before that blank. It reads no
// further than column width.
func breakAt(line string, col, width, from int) (cut, runes int) {
	cut, runes = -1, 0
	k := 0
	for i, r := range line {
		if col > width {
			break
		}
		if r == ' ' && col > from {
			cut, runes = i, k
		}
		col++
		k++
	}
	return cut, runes
}

// reflow joins the lines of a prose paragraph so fitText can fill them;
// indented lines (lists) and lines after one ending in ':' stay as they
// are. Each line is written once: joining by adding a line to the one
// before it copied the paragraph so far at every line.
func reflow(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	// head is the first piece of the line being written, tail the last.
	head, tail := "", ""
	for i, l := range strings.Split(s, "\n") {
		if i > 0 && l != "" && !strings.HasPrefix(l, " ") && head != "" &&
			!strings.HasPrefix(head, " ") && !strings.HasSuffix(tail, ":") {
			b.WriteByte(' ')
			b.WriteString(l)
			tail = l
			continue
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		head, tail = l, l
	}
	return b.String()
}
