package viz

import (
	"strings"

	"github.com/gdamore/tcell/v2"
)

// narrationPane draws a lesson's text whole: its first line (the step and
// its command) as the title, then how the last step went and the
// narration, scrolled with the pane's keys.
type narrationPane struct{}

// Title is the narration's first line when it fits; else the body begins
// with it.
func (narrationPane) Title(m *Model, w int) string {
	head, _, _ := strings.Cut(m.Narration, "\n")
	if headFits(head, w) {
		return head
	}
	return "Lesson"
}

// headFits reports whether the first line fits the title row of a pane
// w columns wide (the selection mark takes one).
func headFits(head string, w int) bool { return len([]rune(head)) <= w-1 }

func (narrationPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	scroll := max(m.View.Scroll[PaneNarration], 0)
	// Only the lines up to the ones shown (and one more, for ↓) are
	// wrapped: the cost is what is on the screen, whatever the length.
	want := scroll + r.H + 1
	var lines []line
	if head, _, _ := strings.Cut(m.Narration, "\n"); !headFits(head, r.W) {
		for _, t := range wrap(head, r.W-1, want) {
			lines = append(lines, line{}.add(t, th.Column))
		}
	}
	for _, t := range narrationLines(m.Narration, r.W-1, want-len(lines)) {
		lines = append(lines, line{}.add(t, narrationStyle(t, th)))
	}
	m.View.Scroll[PaneNarration] = drawLines(s, r, lines, scroll, th.Dim)
}

// narrationLines is the narration after its first line, wrapped to w
// columns, at most n lines of it.
func narrationLines(text string, w, n int) []string {
	_, body, _ := strings.Cut(text, "\n")
	return wrap(strings.TrimRight(body, "\n"), w, n)
}

// narrationStyle marks the verdict lines: what held, what did not.
func narrationStyle(t string, th Theme) tcell.Style {
	switch {
	case strings.Contains(t, "✗"):
		return th.Alarm
	case strings.HasPrefix(t, "last step") || strings.Contains(t, "✓"):
		return th.Good
	}
	return th.Base
}
