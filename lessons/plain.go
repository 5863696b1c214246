package lessons

import (
	"regexp"
	"strings"
)

var (
	mdBold = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	mdLink = regexp.MustCompile(`\[([^\]\n]+)\]\(([^)\s]+)\)`)
)

// Plain renders a lesson's Markdown narration for a terminal: headings
// lose their #s, bold its stars, a link shows as "text (address)". Code
// spans keep their backquotes: they mark what the learner types.
func Plain(md string) string {
	lines := strings.Split(md, "\n")
	for i, ln := range lines {
		if t := strings.TrimLeft(ln, "#"); len(t) < len(ln) && (t == "" || t[0] == ' ') {
			ln = strings.TrimSpace(t)
		}
		ln = mdBold.ReplaceAllString(ln, "$1$2")
		ln = mdLink.ReplaceAllString(ln, "$1 ($2)")
		lines[i] = ln
	}
	return strings.Join(lines, "\n")
}
