package web

import "strings"

// A lesson's narration is Markdown-ish text wrapped at ~72 columns in its
// file: the page reflows it to the width it has, as the terminal does,
// instead of keeping the file's line breaks.

// block is a paragraph, a list item or preformatted lines of narration.
type block struct {
	Kind  string // "p", "li" or "pre"
	Spans []span
}

// span is a run of text; Code marks a `code` span.
type span struct {
	Text string
	Code bool
}

// prose splits text (already escaped for display) into blocks: blank
// lines end a paragraph, "- ", "* " and "1. " start a list item, lines
// indented four spaces or fenced with ``` are kept as they are.
func prose(text string) []block {
	var out []block
	var para []string
	flush := func(kind string) {
		if len(para) > 0 {
			out = append(out, block{Kind: kind, Spans: spans(strings.Join(para, " "))})
			para = nil
		}
	}
	kind, fenced := "p", false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush(kind)
			fenced = !fenced
		case fenced || strings.HasPrefix(line, "    "):
			flush(kind)
			out = append(out, block{Kind: "pre", Spans: []span{{Text: line}}})
		case trimmed == "":
			flush(kind)
			kind = "p"
		case isItem(trimmed):
			flush(kind)
			kind = "li"
			para = append(para, trimmed)
		default:
			para = append(para, trimmed)
		}
	}
	flush(kind)
	return out
}

// isItem says whether a line starts a list item.
func isItem(s string) bool {
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") {
		return true
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(s[i:], ". ")
}

// spans cuts s at its backticks: the odd runs are code. An unpaired
// backtick is text.
func spans(s string) []span {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an odd number of backticks: the last is text
		parts[len(parts)-2] += "`" + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	var out []span
	for i, p := range parts {
		if p != "" {
			out = append(out, span{Text: p, Code: i%2 == 1})
		}
	}
	return out
}
