package viz

import (
	"fmt"
	"sort"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/engine/snap"
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

// pageData is the Pages pane's picture of a snapshot: the groups of pages
// with their byte runs, and the SGLs' items, worked out once and kept until
// the snapshot changes (Model.Update). A frame then costs its visible
// lines, plus a step for each group (at most maxList groups): the line
// indexes of the tables, packed lists and byte maps are kept too.
type pageData struct {
	groups  []pageGroup
	ctxts   []snap.RWCtxt // every group's contexts, in order
	sgls    []*sglMemo    // of each of ctxts
	table   index         // where each context's table starts
	compact map[int]*packed
	bytes   map[int]*byteMaps
}

// index is where each of a run of parts starts, for lazyLines-like
// lookups: the part line i is in, and the line in it.
type index struct{ starts []int }

func (x *index) add(n int) {
	x.starts = append(x.starts, x.len()+n)
}

// len is the lines of all the parts.
func (x *index) len() int {
	if len(x.starts) == 0 {
		return 0
	}
	return x.starts[len(x.starts)-1]
}

// find is the part holding line i and i's line in it.
func (x *index) find(i int) (int, int) {
	p := sort.Search(len(x.starts), func(k int) bool { return x.starts[k] > i })
	if p == 0 {
		return 0, i
	}
	return p, i - x.starts[p-1]
}

// packed is the contexts' compact lists in w columns.
type packed struct {
	index
	breaks [][]int
}

// byteMaps is the byte maps of every box, per bytes a row.
type byteMaps struct {
	index
	boxes []*pageBox
}

func pageDataOf(m *Model, th Theme) *pageData {
	if m.pages != nil {
		return m.pages
	}
	ps := pageSizeOf(&m.Snap)
	d := &pageData{groups: pageGroups(&m.Snap), compact: map[int]*packed{}, bytes: map[int]*byteMaps{}}
	for _, g := range d.groups {
		for _, c := range g.ctxts {
			sm := newSGLMemo(c, ps, th)
			d.ctxts, d.sgls = append(d.ctxts, c), append(d.sgls, sm)
			d.table.add(sm.n)
		}
	}
	m.pages = d
	return d
}

// tableLines are every context's table.
func (d *pageData) tableLines(th Theme) *lazyLines {
	var z lazyLines
	z.add(d.table.len(), func(i int) line {
		c, j := d.table.find(i)
		return tableLine(d.ctxts[c], d.sgls[c], j, th)
	})
	return &z
}

// compactLines are every context's compact list in w columns.
func (d *pageData) compactLines(w int, th Theme) *lazyLines {
	p := d.compact[w]
	if p == nil {
		p = &packed{}
		for _, sm := range d.sgls {
			br := packBreaks(sm.head, sm.widths, w)
			p.breaks = append(p.breaks, br)
			p.add(len(br))
		}
		d.compact[w] = p
	}
	var z lazyLines
	z.add(p.len(), func(i int) line {
		c, j := p.find(i)
		return compactLine(d.ctxts[c], d.sgls[c], p.breaks[c], j, th)
	})
	return &z
}

// byteLines are the byte maps of the pages with more than one source.
func (d *pageData) byteLines(ps, per, w int, th Theme) *lazyLines {
	bm := d.bytes[per]
	if bm == nil {
		bm = &byteMaps{}
		for _, g := range d.groups {
			for i := range g.boxes {
				if n := g.boxes[i].byteMapLen(ps, per); n > 0 {
					bm.boxes = append(bm.boxes, &g.boxes[i])
					bm.add(n)
				}
			}
		}
		d.bytes[per] = bm
	}
	var z lazyLines
	z.add(bm.len(), func(i int) line {
		b, j := bm.find(i)
		return bm.boxes[b].byteMapLine(j, ps, per, w, th)
	})
	return &z
}

func (pagesPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	d := pageDataOf(m, th)
	groups := d.groups
	if len(groups) == 0 {
		drawLines(s, r, []line{
			line{}.add("no pages in use", th.Base),
			line{}.add("a WRITE with a Read chunk fills rq_pages", th.Dim),
		}, 0, th.Dim)
		return
	}
	ps := pageSizeOf(&m.Snap)
	var lines lazyLines
	boxRows := 1
	if r.H >= 14 || m.View.Zoomed {
		boxRows = 3
	}
	for _, g := range groups {
		lines.add(groupLen(g, r.W, boxRows), memoLines(func() []line { return groupLines(g, r.W, ps, boxRows, th) }))
	}
	if lines.len()+d.table.len()+1 <= r.H || m.View.Zoomed {
		lines.addAll(d.tableLines(th))
	} else {
		lines.addAll(d.compactLines(r.W, th))
	}
	// Byte by byte, the pages whose bytes come from more than one place:
	// when zoomed, or when there is room.
	per := 64
	for per > 8 && per+8 > r.W {
		per /= 2
	}
	bytes := d.byteLines(ps, per, r.W, th)
	if m.View.Zoomed || lines.len()+bytes.len()+1 <= r.H {
		lines.addAll(bytes)
	}
	if lines.len()+1 <= r.H {
		lines.addLines(legend(th))
	}
	m.View.Scroll[PanePages] = drawLazy(s, r, &lines, m.View.Scroll[PanePages], th.Dim)
}

// groupShape is how a group is laid out in w columns: k cells a box, per
// boxes a row, boxes start..end shown (at most rows rows, the cursor's
// among them), and the box the cursor is at.
type groupShape struct{ k, per, start, end, cur int }

func shapeOf(g pageGroup, w, rows int) groupShape {
	k := 16
	for k > 4 && len(g.boxes)*(k+3) > w {
		k /= 2
	}
	per := max(1, (w+1)/(k+3))
	start, limit := 0, rows*per
	cur := cursorBox(g)
	if len(g.boxes) > limit && g.cursor {
		start = max(0, min(cur-per*(rows-1), len(g.boxes)-limit))
	}
	return groupShape{k: k, per: per, start: start, end: min(len(g.boxes), start+limit), cur: cur}
}

// cursorIn reports whether the row of boxes i..j gets the cursor's line:
// the cursor may sit one past the last page, the next page to fill.
func (sh groupShape) cursorIn(g pageGroup, i, j int) bool {
	return g.cursor && sh.cur >= i && (sh.cur < j || (sh.cur == j && j == len(g.boxes)))
}

// groupLen is how many lines groupLines draws, without drawing them.
func groupLen(g pageGroup, w, rows int) int {
	n := 1
	if w >= 100 {
		n += len(g.detail)
	}
	sh := shapeOf(g, w, rows)
	for i := sh.start; i < sh.end; i += sh.per {
		n += 2
		if sh.cursorIn(g, i, min(sh.end, i+sh.per)) {
			n++
		}
	}
	return n
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
	sh := shapeOf(g, w, rows)
	k, per, start, end, cur := sh.k, sh.per, sh.start, sh.end, sh.cur
	if len(g.boxes) > rows*per {
		// First, where a narrow pane cannot cut it off: which boxes show.
		shown := fmt.Sprintf("%s–%s of %d · ", g.boxes[start].name, g.boxes[end-1].name, len(g.boxes))
		out[0] = append(line{}.add(shown, th.Cursor), out[0]...)
	}
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
		if sh.cursorIn(g, i, j) {
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
