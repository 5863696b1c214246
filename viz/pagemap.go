package viz

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
)

// pageRange is a byte range of a page and where its bytes come from;
// landed is false for bytes a posted RDMA Read has yet to bring.
type pageRange struct {
	off, n int
	src    byteSource
	landed bool
}

// pageBox is one page as drawn: its slot in rq_pages (-1 when the view
// cannot tell) and its ranges.
type pageBox struct {
	slot   int
	name   string
	ranges []pageRange
	memo   *boxMemo // what is drawn of the box, worked out once a snapshot
}

// pageGroup is a row of pages drawn together, with the scatterlists that
// point into them.
type pageGroup struct {
	title   string
	detail  []string
	boxes   []pageBox
	cursor  bool // rc_curpage / rc_pageoff apply
	curPage int
	curOff  int
	ctxts   []snap.RWCtxt
}

// pageGroups sorts the snapshot's pages into groups: each Read being
// pulled, then each thread's own pages, then the pages the R/W contexts of
// Write and Reply chunks send from. A page appears once.
func pageGroups(s *snap.Snapshot) []pageGroup {
	known := map[string]snap.Page{}
	for _, t := range s.Threads {
		for _, p := range t.Pages {
			known[p.Name] = p
		}
	}
	drawn := map[string]bool{}
	inRead := map[int]bool{}
	var out []pageGroup
	for _, rd := range s.Reads {
		g := readGroup(rd, s.Threads, known)
		for _, bx := range g.boxes {
			drawn[bx.name] = true
		}
		for _, c := range rd.RWCtxts {
			inRead[c.ID] = true
		}
		out = append(out, g)
	}
	out = append(out, threadGroups(s.Threads, drawn)...)
	return append(out, chunkGroups(s.RWCtxts.InUse, inRead, drawn, known)...)
}

// readGroup is a Read being pulled: its rc_pages (or, mid-walk and after
// svc_rdma_read_complete, the thread's rq_pages) and what its SGLs point
// at, with the rc_curpage / rc_pageoff cursor.
func readGroup(rd snap.Read, threads []snap.Thread, known map[string]snap.Page) pageGroup {
	g := pageGroup{title: fmt.Sprintf("rc_pages · xid %s · %d B · %d WQEs", rd.XID, rd.ReadBytes, rd.SQECount),
		detail: rd.Chunks, cursor: true, curPage: rd.CurPage, curOff: rd.PageOff, ctxts: rd.RWCtxts}
	var b boxBuilder
	for _, p := range rd.Pages {
		b.page(p.Index, p.Name, p.Extents)
	}
	if len(rd.Pages) == 0 {
		sgl := sglPages(rd.RWCtxts)
		for _, t := range threads {
			if walking(t) || sharesPages(t, sgl) {
				for _, p := range t.Pages {
					b.page(p.Index, p.Name, p.Extents)
				}
			}
		}
	}
	for _, c := range rd.RWCtxts {
		for _, e := range c.SGL {
			b.planned(e, c.Where, known)
		}
	}
	g.boxes = b.sorted()
	return g
}

// threadGroups are the threads' pages no Read group has drawn.
func threadGroups(threads []snap.Thread, drawn map[string]bool) []pageGroup {
	var out []pageGroup
	for _, t := range threads {
		var b boxBuilder
		for _, p := range t.Pages {
			if !drawn[p.Name] {
				b.page(p.Index, p.Name, p.Extents)
				drawn[p.Name] = true
			}
		}
		if len(b.boxes) > 0 {
			out = append(out, pageGroup{title: t.Name + " rq_pages", boxes: b.sorted()})
		}
	}
	return out
}

// chunkGroups are the pages Write and Reply chunk contexts send from, one
// group per owner ("write chunk 0", "reply chunk").
func chunkGroups(inUse []snap.RWCtxt, inRead map[int]bool, drawn map[string]bool, known map[string]snap.Page) []pageGroup {
	byOwner := map[string]int{}
	var out []pageGroup
	for _, c := range inUse {
		if inRead[c.ID] || c.Where == "read cc" || len(c.SGL) == 0 {
			continue
		}
		i, ok := byOwner[c.Where]
		if !ok {
			i = len(out)
			byOwner[c.Where] = i
			out = append(out, pageGroup{title: c.Where + " payload"})
		}
		out[i].ctxts = append(out[i].ctxts, c)
	}
	for i := range out {
		var b boxBuilder
		for _, c := range out[i].ctxts {
			for _, e := range c.SGL {
				if !drawn[e.Page] || b.has(e.Page) {
					b.planned(e, c.Where, known)
				}
			}
		}
		out[i].boxes = b.sorted()
		for j := range out[i].boxes {
			drawn[out[i].boxes[j].name] = true
			out[i].boxes[j].slot = -1 // not in rq_pages order: name the page only
		}
	}
	return out
}

// walking reports whether t is inside svc_rdma_process_read_list.
func walking(t snap.Thread) bool {
	return slices.Contains(t.Frames, kernel.SvcRdmaProcessReadList.Name())
}

// sglPages is the set of pages the contexts' SGLs point into.
func sglPages(ctxts []snap.RWCtxt) map[string]bool {
	set := map[string]bool{}
	for _, c := range ctxts {
		for _, e := range c.SGL {
			set[e.Page] = true
		}
	}
	return set
}

func sharesPages(t snap.Thread, sgl map[string]bool) bool {
	for _, p := range t.Pages {
		if sgl[p.Name] {
			return true
		}
	}
	return false
}

// boxBuilder collects pages by name, keeping the order pages are met.
type boxBuilder struct {
	boxes []pageBox
	index map[string]int
	taken map[int]bool // slots of the boxes
	skip  map[int]int  // a taken slot → a slot past it to look from (free)
	last  int          // slot of the page met last, for pages whose slot is unknown
}

func (b *boxBuilder) has(name string) bool { _, ok := b.index[name]; return ok }

func (b *boxBuilder) box(name string, slot int) *pageBox {
	if b.index == nil {
		b.index, b.taken, b.skip, b.last = map[string]int{}, map[int]bool{}, map[int]int{}, -1
	}
	if i, ok := b.index[name]; ok {
		if slot >= 0 && b.boxes[i].slot < 0 {
			b.boxes[i].slot = slot
			b.taken[slot] = true
		}
		b.last = max(b.last, b.boxes[i].slot)
		return &b.boxes[i]
	}
	if slot < 0 {
		// The walk fills rq_pages in order: an SGL page we have no slot
		// for comes after the last page met.
		slot = b.free(b.last + 1)
	}
	b.last = slot
	b.taken[slot] = true
	b.index[name] = len(b.boxes)
	b.boxes = append(b.boxes, pageBox{slot: slot, name: name})
	return &b.boxes[len(b.boxes)-1]
}

// free is the first slot from slot on that no box has. Slots never become
// free again, so the skips it leaves stay true and a page list of any
// shape costs about linear time.
func (b *boxBuilder) free(slot int) int {
	s := slot
	for b.taken[s] {
		if n, ok := b.skip[s]; ok && n > s {
			s = n
		} else {
			s++
		}
	}
	for x := slot; x < s; {
		n, ok := b.skip[x]
		if !ok || n <= x {
			n = x + 1
		}
		if b.taken[x] {
			b.skip[x] = s
		}
		x = n
	}
	return s
}

// page adds a page whose slot and landed extents are known.
func (b *boxBuilder) page(slot int, name string, ext []snap.Extent) {
	bx := b.box(name, slot)
	for _, e := range ext {
		bx.ranges = append(bx.ranges, pageRange{off: e.Off, n: e.Len, src: parseSource(e.Source, ""), landed: true})
	}
}

// planned adds the range an SGL entry points at; write payload is in the
// page already, Read data is not until the Read completes.
func (b *boxBuilder) planned(e snap.SGE, owner string, known map[string]snap.Page) {
	src := parseSource(e.Source, owner)
	bx := b.box(e.Page, -1)
	if p, ok := known[e.Page]; ok && len(bx.ranges) == 0 {
		for _, x := range p.Extents {
			bx.ranges = append(bx.ranges, pageRange{off: x.Off, n: x.Len, src: parseSource(x.Source, ""), landed: true})
		}
	}
	bx.ranges = append(bx.ranges, pageRange{off: e.Off, n: e.Len, src: src, landed: src.kind == srcWrite || src.kind == srcReply})
}

// sorted returns the boxes in slot order.
func (b *boxBuilder) sorted() []pageBox {
	out := slices.Clone(b.boxes)
	slices.SortStableFunc(out, func(x, y pageBox) int { return cmp.Compare(x.slot, y.slot) })
	memos := make([]boxMemo, len(out)) // one allocation, not one a page
	for i := range out {
		out[i].memo = &memos[i]
	}
	return out
}

// boxMemo keeps what drawing a box works out from its ranges, so that a
// frame costs what it shows, not what the page holds: the pages of a
// snapshot are built once (Model.pageData) and drawn many times.
type boxMemo struct {
	runs  []byteRun
	end   int
	done  bool
	cells [cellSlots][]pageRange // [log2 k]: the range each of k cells shows
	rows  [rowSlots][]int        // [log2 per]: the byte map's entries (rowFold or a row)
	rowsN [rowSlots]bool         // rows[i] is worked out
}

// The k and per the Pages pane uses: k ≤ 16 cells a box, per ≤ 64 bytes a row.
const cellSlots, rowSlots = 5, 7

// slotOf is where a boxMemo keeps what is worked out for n (a power of two
// the panes use: k cells, per bytes a row), or -1 for another n.
func slotOf(n, slots int) int {
	if n <= 0 || n&(n-1) != 0 || bits.Len(uint(n))-1 >= slots {
		return -1
	}
	return bits.Len(uint(n)) - 1
}

// byteRun is bytes [start, end) of a page whose source is r (ok false: a
// hole nothing was written to).
type byteRun struct {
	start, end int
	r          pageRange
	ok         bool
}

// same reports whether two runs draw alike: one glyph, landed or not.
func (a byteRun) same(b byteRun) bool {
	if a.ok != b.ok {
		return false
	}
	return !a.ok || a.r.src.glyph() == b.r.src.glyph() && a.r.landed == b.r.landed
}

// runsOf is the page cut where its bytes change source, in
// O(ranges log ranges) whatever the page size: a byte's source is the
// first landed range over it, else the first range over it.
func runsOf(ranges []pageRange, pageSize int) ([]byteRun, int) {
	end := 0
	for _, r := range ranges {
		end = max(end, min(r.off+r.n, pageSize))
	}
	if end <= 0 {
		return nil, 0
	}
	if len(ranges) == 1 { // most pages: no sort, no heap
		r := ranges[0]
		lo := min(max(r.off, 0), end)
		runs := make([]byteRun, 0, 2)
		if lo > 0 {
			runs = append(runs, byteRun{start: 0, end: lo})
		}
		if lo < end {
			runs = append(runs, byteRun{start: lo, end: end, r: r, ok: true})
		}
		return runs, end
	}
	type iv struct{ lo, hi, prio int }
	var ivs []iv
	points := []int{0, end}
	for i, r := range ranges {
		lo, hi := max(r.off, 0), min(r.off+r.n, end)
		if lo >= hi {
			continue
		}
		prio := i
		if !r.landed {
			prio += len(ranges)
		}
		ivs = append(ivs, iv{lo, hi, prio})
		points = append(points, lo, hi)
	}
	slices.SortFunc(ivs, func(a, b iv) int { return cmp.Compare(a.lo, b.lo) })
	slices.Sort(points)
	points = slices.Compact(points)
	var h rangeHeap
	var runs []byteRun
	next := 0
	for p := 0; p+1 < len(points); p++ {
		at := points[p]
		for ; next < len(ivs) && ivs[next].lo <= at; next++ {
			h.push(ivs[next].prio, ivs[next].hi)
		}
		for len(h) > 0 && h[0].hi <= at {
			h.pop()
		}
		run := byteRun{start: at, end: points[p+1]}
		if len(h) > 0 {
			prio := h[0].prio
			run.r, run.ok = ranges[prio%len(ranges)], true
		}
		if n := len(runs); n > 0 && runs[n-1].same(run) {
			runs[n-1].end = run.end
			continue
		}
		runs = append(runs, run)
	}
	return runs, end
}

// rangeHeap is a min-heap of ranges by priority (the lower wins a byte).
type rangeHeap []struct{ prio, hi int }

func (h *rangeHeap) push(prio, hi int) {
	*h = append(*h, struct{ prio, hi int }{prio, hi})
	x := *h
	for i := len(x) - 1; i > 0; {
		p := (i - 1) / 2
		if x[p].prio <= x[i].prio {
			break
		}
		x[p], x[i] = x[i], x[p]
		i = p
	}
}

func (h *rangeHeap) pop() {
	x := *h
	n := len(x) - 1
	x[0] = x[n]
	x = x[:n]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < n && x[l].prio < x[small].prio {
			small = l
		}
		if l+1 < n && x[l+1].prio < x[small].prio {
			small = l + 1
		}
		if small == i {
			break
		}
		x[i], x[small] = x[small], x[i]
		i = small
	}
	*h = x
}

// runs is the box's byte runs, worked out on first use.
func (bx pageBox) runs(pageSize int) ([]byteRun, int) {
	m := bx.memo
	if m == nil {
		return runsOf(bx.ranges, pageSize)
	}
	if !m.done {
		m.runs, m.end = runsOf(bx.ranges, pageSize)
		m.done = true
	}
	return m.runs, m.end
}

// cells renders a page as k cells: each shows the source covering most of
// its bytes, landed bytes before planned ones.
func (bx pageBox) cells(k, pageSize int, th Theme) line {
	var best []pageRange
	m, slot := bx.memo, slotOf(k, cellSlots)
	if m != nil && slot >= 0 && m.cells[slot] != nil {
		best = m.cells[slot]
	} else {
		best = bx.cellSources(k, pageSize)
		if m != nil && slot >= 0 {
			m.cells[slot] = best
		}
	}
	l := make(line, 0, k)
	for _, r := range best {
		l = append(l, span{string(r.src.mark(r.landed)), th.bytes(r.src, r.landed)})
	}
	return l
}

// cellSources is the range each of k cells shows: O(k × ranges), once a
// snapshot for each k.
func (bx pageBox) cellSources(k, pageSize int) []pageRange {
	out := make([]pageRange, k)
	for c := range k {
		lo, hi := c*pageSize/k, (c+1)*pageSize/k
		score := 0
		for _, r := range bx.ranges {
			ov := min(hi, r.off+r.n) - max(lo, r.off)
			if ov <= 0 {
				continue
			}
			if r.landed {
				ov += pageSize
			}
			if ov > score {
				out[c], score = r, ov
			}
		}
	}
	return out
}

// rowFold is the byte map's entry for rows without a change, folded.
const rowFold = -1

// mapRows is the byte map's entries after its summary line: the rows of
// per bytes holding a change of source, and a rowFold for each stretch of
// rows between them. nil when the page has one source and no hole.
func (bx pageBox) mapRows(pageSize, per int) []int {
	m, slot := bx.memo, slotOf(per, rowSlots)
	if m != nil && slot >= 0 && m.rowsN[slot] {
		return m.rows[slot]
	}
	runs, end := bx.runs(pageSize)
	var out []int
	if per >= 8 && len(runs) >= 2 {
		var buf [8]int
		changed := buf[:0] // rows holding a change of source, in order
		note := func(row int) {
			if n := len(changed); n == 0 || changed[n-1] < row {
				changed = append(changed, row)
			}
		}
		for _, r := range runs[1:] {
			note((r.start - 1) / per)
			note(r.start / per)
		}
		prev := -1
		for _, row := range changed {
			if row > prev+1 {
				out = append(out, rowFold)
			}
			out, prev = append(out, row), row
		}
		if prev < (end-1)/per {
			out = append(out, rowFold)
		}
	}
	if m != nil && slot >= 0 {
		m.rows[slot], m.rowsN[slot] = out, true
	}
	return out
}

// byteMapLen is how many lines byteMap draws.
func (bx pageBox) byteMapLen(pageSize, per int) int {
	rows := bx.mapRows(pageSize, per)
	if len(rows) == 0 {
		return 0
	}
	return 1 + len(rows)
}

// byteMapLine is line i of the byte map, one glyph a byte, of the rows of
// a page where its bytes change source: a page filled from one place says
// nothing more than its box, but where an inline range meets a Read chunk
// the boundary is what a lesson shows, and a copy landing a few bytes off
// (the seed's B1) is visible only byte by byte. Each row is per bytes;
// rows without a change are folded into "…". Line 0 names the runs, as
// many as fit in w runes (w < 0: all of them).
func (bx pageBox) byteMapLine(i, pageSize, per, w int, th Theme) line {
	runs, end := bx.runs(pageSize)
	if i == 0 {
		head := bx.name + " byte by byte: "
		return line{}.add(head, th.Column).add(joinRuns(runs, w-len([]rune(head))), th.Dim)
	}
	row := bx.mapRows(pageSize, per)[i-1]
	if row == rowFold {
		return line{}.add("        …", th.Dim)
	}
	l := line{}.add(fmt.Sprintf("  %5d ", row*per), th.Dim)
	at, _ := slices.BinarySearchFunc(runs, row*per, func(r byteRun, b int) int {
		if r.end <= b {
			return -1
		}
		if r.start > b {
			return 1
		}
		return 0
	})
	for b := row * per; b < min(end, (row+1)*per); b++ {
		for runs[at].end <= b {
			at++
		}
		r := runs[at]
		if !r.ok {
			l = l.add("·", th.Dim)
			continue
		}
		l = l.add(string(r.r.src.mark(r.r.landed)), th.bytes(r.r.src, r.r.landed))
	}
	return l
}

// byteMap is the whole byte map (for tests: the pane draws the lines it
// shows).
func (bx pageBox) byteMap(pageSize, per int, th Theme) []line {
	n := bx.byteMapLen(pageSize, per)
	out := make([]line, n)
	for i := range out {
		out[i] = bx.byteMapLine(i, pageSize, per, -1, th)
	}
	if n == 0 {
		return nil
	}
	return out
}

// joinRuns names the runs, " · " between them, stopping once w runes are
// written (w < 0: no limit): a page of thousands of runs shows the first
// few in a pane, and costs no more.
func joinRuns(runs []byteRun, w int) string {
	var b strings.Builder
	n := 0
	for i, r := range runs {
		if w >= 0 && n >= w {
			break
		}
		name := "nothing written"
		if r.ok {
			name = r.r.src.label()
			if !r.r.landed {
				name += " (to come)"
			}
		}
		s := fmt.Sprintf("%d-%d %s", r.start, r.end-1, name)
		if i > 0 {
			s = " · " + s
		}
		b.WriteString(s)
		n += utf8.RuneCountInString(s)
	}
	return b.String()
}
