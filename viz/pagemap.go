package viz

import (
	"cmp"
	"fmt"
	"slices"

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
	return slices.Contains(t.Frames, "svc_rdma_process_read_list")
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
	return out
}

// cells renders a page as k cells: each shows the source covering most of
// its bytes, landed bytes before planned ones.
func (bx pageBox) cells(k, pageSize int, th Theme) line {
	l := make(line, 0, k)
	for c := 0; c < k; c++ {
		lo, hi := c*pageSize/k, (c+1)*pageSize/k
		best, score := pageRange{}, 0
		for _, r := range bx.ranges {
			ov := min(hi, r.off+r.n) - max(lo, r.off)
			if ov <= 0 {
				continue
			}
			if r.landed {
				ov += pageSize
			}
			if ov > score {
				best, score = r, ov
			}
		}
		l = append(l, span{string(best.src.mark(best.landed)), th.bytes(best.src, best.landed)})
	}
	return l
}

// byteMap draws, one glyph a byte, the rows of a page where its bytes
// change source: a page filled from one place says nothing more than its
// box, but where an inline range meets a Read chunk the boundary is what
// a lesson shows, and a copy landing a few bytes off (the seed's B1) is
// visible only byte by byte. Each row is `per` bytes; rows without a
// change are folded into "…".
func (bx pageBox) byteMap(pageSize, per int, th Theme) []line {
	if per < 8 || len(bx.ranges) == 0 {
		return nil
	}
	end := 0
	for _, r := range bx.ranges {
		end = max(end, min(r.off+r.n, pageSize))
	}
	// src is the source of byte i: a landed range before a planned one.
	src := func(i int) (pageRange, bool) {
		var best pageRange
		found := false
		for _, r := range bx.ranges {
			if i >= r.off && i < r.off+r.n && (!found || r.landed && !best.landed) {
				best, found = r, true
			}
		}
		return best, found
	}
	key := func(i int) string {
		r, ok := src(i)
		if !ok {
			return ""
		}
		return fmt.Sprintf("%c%v", r.src.glyph(), r.landed)
	}
	// The ranges in order, holes included, for the summary line.
	var runs []string
	changes := map[int]bool{} // rows holding a change of source
	start, prev := 0, key(0)
	for i := 1; i <= end; i++ {
		k := ""
		if i < end {
			k = key(i)
		}
		if i < end && k == prev {
			continue
		}
		r, ok := src(start)
		name := "nothing written"
		if ok {
			name = r.src.label()
			if !r.landed {
				name += " (to come)"
			}
		}
		runs = append(runs, fmt.Sprintf("%d-%d %s", start, i-1, name))
		if i < end {
			changes[i/per] = true
			if (i-1)/per != i/per {
				changes[(i-1)/per] = true
			}
		}
		start, prev = i, k
	}
	if len(runs) < 2 {
		return nil
	}
	out := []line{line{}.add(bx.name+" byte by byte: ", th.Column).add(joinRuns(runs), th.Dim)}
	folded := false
	for row := 0; row*per < end; row++ {
		if !changes[row] {
			if !folded {
				out = append(out, line{}.add("        …", th.Dim))
				folded = true
			}
			continue
		}
		folded = false
		l := line{}.add(fmt.Sprintf("  %5d ", row*per), th.Dim)
		for i := row * per; i < min(end, (row+1)*per); i++ {
			r, ok := src(i)
			if !ok {
				l = l.add("·", th.Dim)
				continue
			}
			l = l.add(string(r.src.mark(r.landed)), th.bytes(r.src, r.landed))
		}
		out = append(out, l)
	}
	return out
}

func joinRuns(runs []string) string {
	s := ""
	for i, r := range runs {
		if i > 0 {
			s += " · "
		}
		s += r
	}
	return s
}
