package viz

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// drawTitleBar lists the layouts, the current one bracketed, and on the
// right the behaviour, the engine's clock and the events seen.
func drawTitleBar(s tcell.Screen, r Rect, m *Model, th Theme) {
	fill(s, r, th.Bar)
	x := put(s, r.X, r.Y, r.Right(), " rdmalab ", th.BarKey)
	right := titleRight(m)
	room := r.W - (x - r.X) - len([]rune(right)) - 1
	for _, short := range []int{0, 1, 2} {
		tabs := tabLine(m.View.Layout, short, th)
		if tabs.width() <= room || short == 2 {
			x = tabs.draw(s, x, r.Y, r.Right())
			break
		}
	}
	if rw := len([]rune(right)); r.Right()-rw > x {
		put(s, r.Right()-rw, r.Y, r.Right(), right, th.Bar)
	}
}

// tabLine lists the layouts: long names, short names, or (form 2) only the
// current one.
func tabLine(cur Layout, form int, th Theme) line {
	var l line
	for i := Layout(0); i < numLayouts; i++ {
		if form == 2 && i != cur {
			continue
		}
		name := i.String()
		if form > 0 {
			name = i.short()
		}
		if i == cur {
			l = l.add(fmt.Sprintf("[%d %s]", i+1, name), th.BarKey)
		} else {
			l = l.add(fmt.Sprintf(" %d %s ", i+1, name), th.Bar)
		}
	}
	return l
}

func titleRight(m *Model) string {
	parts := []string{}
	if m.Snap.Behaviour != "" {
		parts = append(parts, m.Snap.Behaviour)
	}
	if m.Snap.Clock != "" {
		parts = append(parts, "t="+m.Snap.Clock)
	}
	parts = append(parts, fmt.Sprintf("ev %d", m.Seen()))
	return strings.Join(parts, " · ") + " "
}

// drawStatusBar says what the last action did (or where the picture comes
// from) and reminds of the keys.
func drawStatusBar(s tcell.Screen, r Rect, m *Model, th Theme) {
	fill(s, r, th.Bar)
	msg := m.Status
	if msg == "" {
		msg = m.Origin // where the picture comes from, until an action says more
	}
	if m.Busy {
		msg = "running… " + msg
	}
	var hints line
	keys := keyHints(m)
	for i := len(keys); i >= 0; i-- {
		hints = nil
		for _, k := range keys[:i] {
			hints = hints.add(" "+k[0], th.BarKey).add(" "+k[1], th.Bar)
		}
		if hints.width()+min(len([]rune(msg)), 36)+2 <= r.W || i == 0 {
			break
		}
	}
	hx := r.Right() - hints.width()
	st := th.Bar
	if m.StatusErr {
		st = th.Alarm
	}
	put(s, r.X, r.Y, hx-1, " "+msg, st)
	hints.draw(s, hx, r.Y, r.Right())
}
