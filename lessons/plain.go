package lessons

import (
	"regexp"
	"strings"
)

var (
	mdBold   = regexp.MustCompile(`(?s)\*\*([^*]+?)\*\*|__([^_]+?)__`)
	mdItalic = regexp.MustCompile(`(?s)(^|[\s(])[*_]([^*_\s](?:[^*_]*?[^*_\s])?)[*_]([\s).,;:!?]|$)`)
	mdLink   = regexp.MustCompile(`\[([^\]\n]+)\]\(([^)\s]+)\)`)
)

// Plain renders a lesson's Markdown narration for a terminal: headings
// lose their #s, bold and italics their stars (also when they run over a
// line break), a link shows as "text (address)". Code spans keep their
// backquotes — they mark what the learner types — and nothing inside
// them changes, so rc_curpage keeps its underscores.
func Plain(md string) string {
	lines := strings.Split(md, "\n")
	for i, ln := range lines {
		if t := strings.TrimLeft(ln, "#"); len(t) < len(ln) && (t == "" || t[0] == ' ') {
			lines[i] = strings.TrimSpace(t)
		}
	}
	// Emphasis may span lines of a paragraph, never a code span.
	parts := strings.Split(strings.Join(lines, "\n"), "`")
	for i := 0; i < len(parts); i += 2 {
		p := mdBold.ReplaceAllString(parts[i], "$1$2")
		p = mdItalic.ReplaceAllString(p, "$1$2$3")
		parts[i] = mdLink.ReplaceAllString(p, "$1 ($2)")
	}
	return strings.Join(parts, "`")
}
