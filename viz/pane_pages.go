package viz

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
)

// pagesPane draws rq_pages as boxes of cells, each cell a slice of the
// page with the glyph of where its bytes came from, the rc_curpage /
// rc_pageoff cursor under them, and the scatterlists beside.
type pagesPane struct{}

func (pagesPane) Title(m *Model, w int) string {
	for _, rd := range m.Snap.Reads {
		return fitTitle(w, "Pages & SGL", fmt.Sprintf(" · rc_curpage %d rc_pageoff %d", rd.CurPage, rd.PageOff), fmt.Sprintf(" · cur %d+%d", rd.CurPage, rd.PageOff))
	}
	return "Pages & SGL"
}

func (pagesPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	groups := pageGroups(&m.Snap)
	if len(groups) == 0 {
		drawLines(s, r, []line{
			line{}.add("no pages in use", th.Base),
			line{}.add("a WRITE with a Read chunk fills rq_pages", th.Dim),
		}, 0, th.Dim)
		return
	}
	ps := pageSizeOf(&m.Snap)
	var pages, table, compact []line
	boxRows := 1
	if r.H >= 14 || m.View.Zoomed {
		boxRows = 3
	}
	for _, g := range groups {
		pages = append(pages, groupLines(g, r.W, ps, boxRows, th)...)
		for _, c := range g.ctxts {
			table = append(table, sglTable(c, ps, th)...)
			compact = append(compact, sglCompact(c, ps, r.W, th)...)
		}
	}
	lines := pages
	if len(pages)+len(table)+1 <= r.H || m.View.Zoomed {
		lines = append(lines, table...)
	} else {
		lines = append(lines, compact...)
	}
	// Byte by byte, the pages whose bytes come from more than one place:
	// when zoomed, or when there is room.
	var bytes []line
	per := 64
	for per > 8 && per+8 > r.W {
		per /= 2
	}
	for _, g := range groups {
		for _, bx := range g.boxes {
			bytes = append(bytes, bx.byteMap(ps, per, th)...)
		}
	}
	if m.View.Zoomed || len(lines)+len(bytes)+1 <= r.H {
		lines = append(lines, bytes...)
	}
	if len(lines)+1 <= r.H {
		lines = append(lines, legend(th))
	}
	m.View.Scroll[PanePages] = drawLines(s, r, lines, m.View.Scroll[PanePages], th.Dim)
}

// groupLines draws one group: a title, then rows of page boxes; the row
// holding the cursor gets a line with ▲ under the cell rc_pageoff is in.
func groupLines(g pageGroup, w, pageSize, rows int, th Theme) []line {
	out := []line{line{}.add(g.title, th.Column)}
	if w >= 100 {
		for _, d := range g.detail {
			out = append(out, line{}.add("  "+d, th.Dim))
		}
	}
	k := 16
	for k > 4 && len(g.boxes)*(k+3) > w {
		k /= 2
	}
	per := max(1, (w+1)/(k+3))
	// Show at most rows rows of boxes, the cursor's among them.
	start, limit := 0, rows*per
	if len(g.boxes) > limit {
		if g.cursor {
			start = max(0, min(cursorBox(g)-per*(rows-1), len(g.boxes)-limit))
		}
		// First, where a narrow pane cannot cut it off: which boxes show.
		shown := fmt.Sprintf("%s–%s of %d · ", g.boxes[start].name, g.boxes[min(start+limit, len(g.boxes))-1].name, len(g.boxes))
		out[0] = append(line{}.add(shown, th.Cursor), out[0]...)
	}
	end := min(len(g.boxes), start+limit)
	cur := cursorBox(g)
	// One form of label for all the boxes shown: slot and page when every
	// one fits, else the page alone, so that each plainly names its box.
	slots := true
	for _, bx := range g.boxes[start:end] {
		if bx.slot < 0 || len(fmt.Sprintf("%d %s", bx.slot, bx.name)) > k+2 {
			slots = false
		}
	}
	for i := start; i < end; i += per {
		j := min(end, i+per)
		var boxes, names line
		for b := i; b < j; b++ {
			bx := g.boxes[b]
			boxes = boxes.add("[", th.Dim)
			boxes = append(boxes, bx.cells(k, pageSize, th)...)
			boxes = boxes.add("] ", th.Dim)
			names = names.add(pad(boxLabel(bx, k+2, slots), k+3), th.Dim)
		}
		out = append(out, boxes)
		// The cursor may sit one past the last page: the next page to fill.
		if g.cursor && cur >= i && (cur < j || (cur == j && j == len(g.boxes))) {
			col := (cur-i)*(k+3) + 1 + min(k-1, min(max(g.curOff, 0), pageSize)*k/pageSize)
			if cur == len(g.boxes) {
				col = min((cur-i)*(k+3)-1, w-1) // just past the last page
			}
			out = append(out, cursorLine(col, g.curPage, g.curOff, w, th))
		}
		out = append(out, names)
	}
	return out
}

// boxLabel names a box in at most w runes: slot and page when slots says
// the row has room for them, else the page, else the slot.
func boxLabel(bx pageBox, w int, slots bool) string {
	full := fmt.Sprintf("%d %s", bx.slot, bx.name)
	switch {
	case slots && bx.slot >= 0 && len(full) <= w:
		return full
	case bx.slot < 0 || len(bx.name) <= w:
		return fit(bx.name, w)
	}
	return fit(fmt.Sprint(bx.slot), w)
}

// cursorBox is the index of the box rc_curpage names (len(boxes) when it
// points past them).
func cursorBox(g pageGroup) int {
	for i, b := range g.boxes {
		if b.slot == g.curPage {
			return i
		}
	}
	n := 0
	for _, b := range g.boxes {
		if b.slot < g.curPage {
			n++
		}
	}
	return n
}

// cursorLine puts ▲ at col with a label after it, or before it when it
// does not fit on the right, shorter when it fits nowhere.
func cursorLine(col, page, off, w int, th Theme) line {
	for _, label := range []string{fmt.Sprintf("rc_curpage %d rc_pageoff %d", page, off), fmt.Sprintf("%d+%d", page, off)} {
		n := len([]rune(label))
		if col+2+n <= w {
			return line{}.add(repeat(" ", col), th.Base).add("▲", th.Cursor).add(" "+label, th.Cursor)
		}
		if col-n-1 >= 0 {
			return line{}.add(repeat(" ", col-n-1), th.Base).add(label+" ", th.Cursor).add("▲", th.Cursor)
		}
	}
	return line{}.add(repeat(" ", col), th.Base).add("▲", th.Cursor)
}
