package viz

import (
	"fmt"
	"slices"
)

// Layout is an arrangement of panes a key switches to.
type Layout int

// The layouts, in key order (1-5).
const (
	LayoutOverview Layout = iota
	LayoutRead
	LayoutWrite
	LayoutPositions
	LayoutPackets
	numLayouts
)

func (l Layout) String() string {
	switch l {
	case LayoutOverview:
		return "overview"
	case LayoutRead:
		return "read path"
	case LayoutWrite:
		return "write path"
	case LayoutPositions:
		return "positions"
	case LayoutPackets:
		return "packets"
	}
	return fmt.Sprintf("layout(%d)", int(l))
}

// short is the name a narrow title bar uses.
func (l Layout) short() string {
	switch l {
	case LayoutOverview:
		return "over"
	case LayoutRead:
		return "read"
	case LayoutWrite:
		return "write"
	case LayoutPositions:
		return "pos"
	case LayoutPackets:
		return "pkts"
	}
	return l.String()
}

// PaneID names a pane.
type PaneID int

// The panes.
const (
	PanePages PaneID = iota
	PaneRW
	PaneChain
	PaneSQ
	PanePositions
	PanePackets
	PaneEvents
	// PaneNarration is a lesson's text, beside the layout's panes while a
	// lesson runs (lessonArrange).
	PaneNarration
	numPanes
)

// slot is a pane in a layout row: its share of the row and how much it
// matters when the screen is too small for everything (lowest goes first).
type slot struct {
	pane   PaneID
	weight int
	prio   int
}

// row is a band of panes side by side.
type row struct {
	weight int
	cells  []slot
}

// layouts returns the rows of layout l, freshly allocated (arrange edits them).
func layouts(l Layout) []row {
	switch l {
	case LayoutRead:
		return []row{
			{6, []slot{{PanePages, 5, 9}, {PaneRW, 2, 6}}},
			{4, []slot{{PaneChain, 3, 8}, {PaneSQ, 2, 5}}},
			{3, []slot{{PaneEvents, 1, 7}}},
		}
	case LayoutWrite:
		return []row{
			{5, []slot{{PaneChain, 3, 9}, {PaneRW, 2, 6}}},
			{4, []slot{{PanePages, 3, 8}, {PaneSQ, 2, 7}}},
			{3, []slot{{PaneEvents, 1, 5}}},
		}
	case LayoutPositions:
		return []row{
			{6, []slot{{PanePositions, 1, 9}}},
			{4, []slot{{PaneSQ, 2, 8}, {PaneChain, 3, 6}}},
			{3, []slot{{PaneEvents, 1, 7}}},
		}
	case LayoutPackets:
		return []row{
			{8, []slot{{PanePackets, 1, 9}}},
			{3, []slot{{PaneEvents, 1, 5}}},
		}
	}
	return []row{
		{5, []slot{{PanePages, 3, 9}, {PaneSQ, 2, 8}, {PaneRW, 2, 3}}},
		{3, []slot{{PaneChain, 3, 7}, {PanePositions, 2, 6}}},
		{4, []slot{{PaneEvents, 3, 5}, {PanePackets, 2, 1}}},
	}
}

// minSize is the smallest area, title row included, a pane still reads in.
func minSize(p PaneID) (w, h int) {
	switch p {
	case PanePages:
		return 40, 5
	case PaneRW:
		return 26, 4
	case PaneChain:
		return 44, 4
	case PaneSQ:
		return 26, 5
	case PanePositions:
		return 30, 6
	case PanePackets:
		return 50, 4
	}
	return 30, 3
}

// Lesson mode gives the narration a column of its own on a screen at least
// lessonWide columns wide, narrationMin to narrationMax of them; on a
// narrower one it sits above the panes.
const (
	lessonWide   = 120
	narrationMin = 50
	narrationMax = 80
)

// lessonMode reports whether m shows a lesson: narration that is not a
// replay's account of its step.
func lessonMode(m *Model) bool { return m.Narration != "" && !m.Can.Replay }

// lessonArrange places the narration pane and, in the rest of area, the
// layout's panes, without the Packets pane while no capture is loaded.
func lessonArrange(m *Model, area Rect) []Placement {
	v := m.View
	if area.Empty() || v.Zoomed {
		return arrange(v, area)
	}
	rows := layouts(v.Layout)
	if m.Packets == nil && v.Layout != LayoutPackets {
		rows = withoutPane(rows, PanePackets)
	}
	var narr, rest Rect
	if area.W >= lessonWide {
		w := min(max(area.W/3, narrationMin), narrationMax)
		narr = Rect{area.X, area.Y, w, area.H}
		rest = Rect{area.X + w + 1, area.Y, area.W - w - 1, area.H}
	} else {
		need := 1 + len(narrationLines(m.Narration, area.W-1, area.H))
		h := min(need, max(6, area.H/2), area.H)
		narr = Rect{area.X, area.Y, area.W, h}
		rest = Rect{area.X, area.Y + h, area.W, area.H - h}
	}
	return append([]Placement{{PaneNarration, narr}}, arrangeRows(v, rows, rest)...)
}

// withoutPane is rows with pane p taken out.
func withoutPane(rows []row, p PaneID) []row {
	for i := range rows {
		rows[i].cells = slices.DeleteFunc(rows[i].cells, func(c slot) bool { return c.pane == p })
	}
	return dropEmpty(rows)
}

// Placement is where a pane is drawn: Rect includes its title row.
type Placement struct {
	Pane PaneID
	Rect Rect
}

// arrange places the panes of view v in area. Panes that cannot have their
// minimum size are dropped, least important first; when none fits, the
// selected pane (or the layout's most important one) takes the whole area.
func arrange(v ViewState, area Rect) []Placement {
	if area.Empty() {
		return nil
	}
	if v.Zoomed {
		return []Placement{{v.Selected, area}}
	}
	return arrangeRows(v, layouts(v.Layout), area)
}

// arrangeRows is arrange for the rows given.
func arrangeRows(v ViewState, rows []row, area Rect) []Placement {
	if area.Empty() {
		return nil
	}
	fallback := mostImportant(rows, v.Selected)
	for {
		rows = dropEmpty(rows)
		if len(rows) == 0 {
			return []Placement{{fallback, area}}
		}
		if sumMinH(rows) > area.H {
			rows = dropLeastRow(rows)
			continue
		}
		if i, ok := tooWide(rows, area.W); ok {
			rows[i].cells = dropLeastCell(rows[i].cells)
			continue
		}
		break
	}
	var out []Placement
	heights := share(area.H, len(rows), 0, func(i int) (int, int) { return rowMinH(rows[i]), rows[i].weight })
	y := area.Y
	for i, r := range rows {
		widths := share(area.W, len(r.cells), 1, func(j int) (int, int) {
			w, _ := minSize(r.cells[j].pane)
			return w, r.cells[j].weight
		})
		x := area.X
		for j, c := range r.cells {
			out = append(out, Placement{c.pane, Rect{x, y, widths[j], heights[i]}})
			x += widths[j] + 1
		}
		y += heights[i]
	}
	return out
}

// share splits total among n parts separated by sep cells: each gets its
// minimum, and what is left goes by weight, the remainder to the last.
func share(total, n, sep int, part func(int) (min, weight int)) []int {
	out := make([]int, n)
	left, weights := total-sep*(n-1), 0
	for i := range out {
		m, w := part(i)
		out[i] = m
		left -= m
		weights += w
	}
	given := 0
	for i := range out {
		_, w := part(i)
		add := 0
		if i == n-1 {
			add = left - given
		} else if weights > 0 {
			add = left * w / weights
		}
		out[i] += add
		given += add
	}
	return out
}

func rowMinH(r row) int {
	h := 0
	for _, c := range r.cells {
		_, mh := minSize(c.pane)
		h = max(h, mh)
	}
	return h
}

func sumMinH(rows []row) int {
	n := 0
	for _, r := range rows {
		n += rowMinH(r)
	}
	return n
}

// tooWide finds a row whose panes' minimum widths exceed w.
func tooWide(rows []row, w int) (int, bool) {
	for i, r := range rows {
		need := len(r.cells) - 1
		for _, c := range r.cells {
			mw, _ := minSize(c.pane)
			need += mw
		}
		if need > w {
			return i, true
		}
	}
	return 0, false
}

func dropEmpty(rows []row) []row {
	out := rows[:0]
	for _, r := range rows {
		if len(r.cells) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// dropLeastRow removes the row whose most important pane matters least.
func dropLeastRow(rows []row) []row {
	least, at := 1<<30, 0
	for i, r := range rows {
		best := 0
		for _, c := range r.cells {
			best = max(best, c.prio)
		}
		if best < least {
			least, at = best, i
		}
	}
	return append(rows[:at], rows[at+1:]...)
}

func dropLeastCell(cells []slot) []slot {
	at := 0
	for i, c := range cells {
		if c.prio < cells[at].prio {
			at = i
		}
	}
	return append(cells[:at], cells[at+1:]...)
}

// mostImportant is the pane a tiny screen shows: the selected one if the
// layout has it, else the layout's most important.
func mostImportant(rows []row, sel PaneID) PaneID {
	best, bp := PaneID(0), -1
	for _, r := range rows {
		for _, c := range r.cells {
			if c.pane == sel {
				return sel
			}
			if c.prio > bp {
				best, bp = c.pane, c.prio
			}
		}
	}
	return best
}
