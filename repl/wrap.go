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
	if utf8.RuneCountInString(l) <= width {
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
	var b strings.Builder
	line := l
	for utf8.RuneCountInString(line) > width {
		cut := breakAt(line, width, max(indent, hang, 1))
		if cut <= 0 {
			break
		}
		b.WriteString(strings.TrimRight(line[:cut], " "))
		b.WriteByte('\n')
		rest := strings.TrimLeft(line[cut:], " ")
		line = strings.Repeat(" ", hang) + rest
	}
	b.WriteString(line)
	return b.String()
}

// breakAt is the byte offset of the last blank at or before column width
// and after column from, or -1.
func breakAt(line string, width, from int) int {
	col, last := 0, -1
	for i, r := range line {
		if col > width {
			break
		}
		if r == ' ' && col > from {
			last = i
		}
		col++
	}
	return last
}

// reflow joins the lines of a prose paragraph so fitText can fill them;
// indented lines (lists) and lines after one ending in ':' stay as they
// are.
func reflow(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		n := len(out)
		if n > 0 && l != "" && !strings.HasPrefix(l, " ") && out[n-1] != "" &&
			!strings.HasPrefix(out[n-1], " ") && !strings.HasSuffix(out[n-1], ":") {
			out[n-1] += " " + l
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
