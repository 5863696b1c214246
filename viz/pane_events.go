package viz

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// eventsPane draws what a replay says of its step, then the newest events, each named
// after the kernel function that emitted it; the newest is at the bottom.
type eventsPane struct{}

func (eventsPane) Title(m *Model, _ int) string {
	if m.Narration != "" && !lessonMode(m) {
		return "Narration & events"
	}
	return fmt.Sprintf("Events · %d kept", m.EventCount())
}

func (eventsPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	var narr []line
	if m.Narration != "" && !lessonMode(m) { // a lesson's has a pane of its own
		for _, l := range wrap(m.Narration, r.W, max(1, r.H/2)) {
			narr = append(narr, line{}.add(l, th.Good))
		}
		narr = append(narr, line{}.add(repeat("─", r.W), th.Sep))
	}
	drawLines(s, Rect{r.X, r.Y, r.W, len(narr)}, narr, 0, th.Dim)
	body := Rect{r.X, r.Y + len(narr), r.W, r.H - len(narr)}
	if body.Empty() {
		return
	}
	total := m.EventCount()
	if total == 0 {
		put(s, body.X, body.Y, body.Right(), "no events yet", th.Dim)
		return
	}
	// Scroll counts back from the newest; only the rows shown are built.
	back := min(max(m.View.Scroll[PaneEvents], 0), max(0, total-body.H))
	m.View.Scroll[PaneEvents] = back
	end := total - back
	start := max(0, end-body.H)
	for i := start; i < end; i++ {
		e := m.events.At(i)
		st := eventStyle(e.Kind, th)
		if i == total-1 {
			st = st.Bold(true)
		}
		put(s, body.X, body.Y+i-start, body.Right(), e.String(), st)
	}
	if back > 0 {
		put(s, body.Right()-1, body.Bottom()-1, body.Right(), "↓", th.Dim)
	}
}

func eventStyle(k trace.Kind, th Theme) tcell.Style {
	switch k {
	case trace.Call:
		return th.EvCall
	case trace.Return:
		return th.EvReturn
	case trace.Wait:
		return th.EvWait
	case trace.Fault:
		return th.EvFault
	case trace.Note:
		return th.EvNote
	}
	return th.EvPoint
}

// wrap breaks text into at most n lines of at most w runes at spaces; a
// word longer than w is cut. It stops at the n'th line, so a lesson's
// text costs what is shown, whatever its length.
func wrap(text string, w, n int) []string {
	if w < 1 || n < 1 {
		return nil
	}
	var out []string
	for para := range strings.SplitSeq(text, "\n") {
		para = safe.Display(para) // widths are those of what is drawn
		var cur []rune
		for word := range strings.FieldsSeq(para) {
			rw := []rune(word)
			switch {
			case len(cur) == 0:
				cur = rw
			case len(cur)+1+len(rw) <= w:
				cur = append(append(cur, ' '), rw...)
			default:
				out = append(out, string(cur))
				cur = rw
			}
			for len(cur) > w && len(out) < n {
				out = append(out, string(cur[:w]))
				cur = cur[w:]
			}
			if len(out) >= n {
				return out[:n]
			}
		}
		if out = append(out, string(cur)); len(out) >= n {
			return out[:n]
		}
	}
	return out
}
