package web

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// width is every drawing's width in SVG units: narrow enough that a phone
// (390 px) still reads its text, and a projector scales it up.
const width = 560

// figure is one drawing: shapes placed on the server, so the template
// only writes them out (and escapes every string).
type figure struct {
	ID, Title string
	H         int
	Rects     []rect
	Texts     []text
	Lines     []seg
	Empty     string // what to say when there is nothing to draw
}

// W is the drawing's width, for the template.
func (figure) W() int { return width }

type rect struct {
	X, Y, W, H   int
	Fill, Stroke string
	Thick        bool
	Tip          string // the tooltip (an SVG title)
}

type text struct {
	X, Y   int
	S      string
	Class  string // "", "dim", "bold", "bad", "good", "small"
	Anchor string // "", "middle", "end"
}

type seg struct {
	X1, Y1, X2, Y2 int
	Class          string
}

func (f *figure) rect(r rect) { f.Rects = append(f.Rects, r) }
func (f *figure) line(x1, y1, x2, y2 int, c string) {
	f.Lines = append(f.Lines, seg{x1, y1, x2, y2, c})
}

// text places s (escaped for display: a capture's controls become \x1b)
// with its baseline at y.
func (f *figure) text(x, y int, s, class string) {
	f.Texts = append(f.Texts, text{X: x, Y: y, S: safe.Text(s), Class: class})
}

func (f *figure) textAt(x, y int, s, class, anchor string) {
	f.Texts = append(f.Texts, text{X: x, Y: y, S: safe.Text(s), Class: class, Anchor: anchor})
}

// kinds are where a page's bytes came from, each with a colour and a
// pattern (pattern ids in defs.tmpl) so the drawing reads without colour.
var kinds = []struct {
	name, label, pattern string
}{
	{"inline", "inline (the Receive buffer)", "p-inline"},
	{"read", "read chunk (RDMA Read)", "p-read"},
	{"write", "write chunk (RDMA Write)", "p-write"},
	{"reply", "reply (Send)", "p-reply"},
	{"call", "call chunk", "p-call"},
	{"other", "other", "p-other"},
}

// kindOf sorts an extent's source into one of kinds.
func kindOf(source string) int {
	for i, k := range kinds[:len(kinds)-1] {
		if strings.HasPrefix(source, k.name) {
			return i
		}
	}
	return len(kinds) - 1
}

func fillOf(source string) string { return "url(#" + kinds[kindOf(source)].pattern + ")" }

func pageSize(s *snap.Snapshot) int {
	if ps := s.Settings.PageSize; ps > 0 && ps <= 1<<20 {
		return ps
	}
	return 4096
}

// Page boxes: perRow of them a row.
const (
	boxW, boxH = 124, 30
	perRow     = 4
	maxPages   = 256 // per group; the rest is counted
)

// pagesFigure draws each thread's rq_pages and each Read's rc_pages, the
// bytes of each page coloured and patterned by where they came from.
func pagesFigure(s *snap.Snapshot) figure {
	f := figure{ID: "pages", Title: "rq_pages: where each page's bytes came from"}
	ps := pageSize(s)
	y := 4
	used := map[int]bool{}
	// A label comes in lines short enough for the figure's width: a phone
	// scales it down, it does not clip it.
	group := func(pages []snap.Page, label ...string) {
		for _, l := range label {
			y += 16
			f.text(4, y, l, "bold")
		}
		y += 6
		// Many pages: a grid of small boxes, a label a row.
		bw, bh, per, gap, compact := boxW, boxH, perRow, 14, len(pages) > 2*perRow
		if compact {
			bw, bh, per, gap = 30, 20, 16, 4
		}
		for i, p := range pages[:min(len(pages), maxPages)] {
			x := 4 + (i%per)*(bw+gap)
			if i > 0 && i%per == 0 {
				y += bh + 18
			}
			var tip strings.Builder
			fmt.Fprintf(&tip, "%s (slot %d)", p.Name, p.Index)
			for _, e := range p.Extents {
				fmt.Fprintf(&tip, "\n%d+%d: %s", e.Off, e.Len, e.Source)
			}
			f.rect(rect{X: x, Y: y, W: bw, H: bh, Fill: "#fff", Stroke: "#555", Tip: safe.Text(tip.String())})
			for _, e := range p.Extents {
				off, n := min(max(e.Off, 0), ps), min(max(e.Len, 0), ps)
				w := max(1, min(n, ps-off)*bw/ps)
				used[kindOf(e.Source)] = true
				f.rect(rect{X: x + off*bw/ps, Y: y, W: w, H: bh, Fill: fillOf(e.Source), Stroke: "#222", Tip: safe.Text(fmt.Sprintf("%s %d+%d: %s", p.Name, e.Off, e.Len, e.Source))})
			}
			if !compact || i%per == 0 {
				f.text(x, y+bh+12, p.Name, "small")
			}
		}
		y += bh + 18
		if len(pages) > maxPages {
			y += 12
			f.text(4, y, fmt.Sprintf("… and %d more pages", len(pages)-maxPages), "dim")
		}
	}
	for _, t := range s.Threads {
		if len(t.Pages) > 0 {
			group(t.Pages, fmt.Sprintf("%s rq_pages · %s", t.Name, t.State))
		}
	}
	for _, rd := range s.Reads {
		if len(rd.Pages) > 0 {
			group(rd.Pages, fmt.Sprintf("Read list of xid %s · %d bytes read", rd.XID, rd.ReadBytes),
				fmt.Sprintf("rc_curpage %d · rc_pageoff %d", rd.CurPage, rd.PageOff))
		}
	}
	if len(used) == 0 {
		f.Empty = "no page holds bytes yet"
		return f
	}
	y = legend(&f, y+6)
	f.H = y
	return f
}

// legend draws every kind's swatch and name from y; it returns the
// height used.
func legend(f *figure, y int) int {
	for i, k := range kinds {
		x := 4 + (i%2)*(width/2)
		if i%2 == 0 {
			y += 22
		}
		f.rect(rect{X: x, Y: y - 13, W: 28, H: 16, Fill: "url(#" + k.pattern + ")", Stroke: "#222"})
		f.text(x+34, y, k.label, "small")
	}
	return y + 8
}

// rwFigure draws the R/W contexts in use, each with its scatterlist, and
// the cache.
func rwFigure(s *snap.Snapshot) figure {
	f := figure{ID: "rw", Title: "R/W contexts and their scatterlists"}
	rw := s.RWCtxts
	y := 16
	head := fmt.Sprintf("%d in use · %d cached · created %d", len(rw.InUse), len(rw.Cached), rw.Created)
	if r := s.Recent; r != nil {
		head += fmt.Sprintf(" · got %d new, %d reused", r.RWNew, r.RWReused)
	}
	f.text(4, y, head, "")
	const sgeW, sgeH, gap = 62, 26, 6
	for _, c := range rw.InUse {
		y += 22
		label := fmt.Sprintf("ctxt #%d %s · %d SGEs (first sgl %d)", c.ID, c.Type, c.NEnts, c.FirstSGLNents)
		if c.Chained {
			label += " · chained"
		}
		if s.Recent != nil && s.Recent.RWGot[c.ID] {
			label += " · reused"
		}
		if c.Where != "" {
			label += " · " + c.Where
		}
		f.text(4, y, label, "bold")
		y += 6
		if len(c.SGL) > maxSGEs {
			y = compactSGL(&f, c, y)
			continue
		}
		for i, e := range c.SGL {
			per := (width - 8) / (sgeW + gap)
			if i > 0 && i%per == 0 {
				y += sgeH + 16
			}
			x := 4 + (i%per)*(sgeW+gap)
			if c.Chained && c.FirstSGLNents > 0 && i == c.FirstSGLNents-1 && i+1 < len(c.SGL) {
				f.line(x+sgeW+gap/2, y-2, x+sgeW+gap/2, y+sgeH+2, "chainbreak")
			}
			f.rect(rect{X: x, Y: y, W: sgeW, H: sgeH, Fill: fillOf(e.Source), Stroke: "#222", Tip: safe.Text(fmt.Sprintf("sg %d: %s +%d len %d %s %s", i, e.Page, e.Off, e.Len, e.Source, e.IOVA))})
			f.text(x, y+sgeH+11, fmt.Sprintf("%s %d", e.Page, e.Len), "small")
		}
		if len(c.SGL) > 0 {
			y += sgeH + 14
		}
	}
	y += 24
	f.text(4, y, "cache (top first):", "")
	x := 140
	for _, id := range rw.Cached {
		if x+44 > width {
			y += 26
			x = 140
		}
		f.rect(rect{X: x, Y: y - 15, W: 40, H: 20, Fill: "#eee", Stroke: "#555"})
		f.textAt(x+20, y, fmt.Sprintf("#%d", id), "small", "middle")
		x += 46
	}
	if len(rw.Cached) == 0 {
		f.text(x, y, "empty", "dim")
	}
	f.H = y + 10
	return f
}

// maxSGEs is the longest scatterlist drawn an SGE a box; a longer one is
// a strip of cells, as the terminal's compact view.
const maxSGEs = 32

// compactSGL draws c's SGL as rows of narrow cells from y, a dashed mark
// where the chain breaks; it returns where the next line goes.
func compactSGL(f *figure, c snap.RWCtxt, y int) int {
	const per, cw, ch = 64, 8, 14
	for i, e := range c.SGL {
		if i > 0 && i%per == 0 {
			y += ch + 4
		}
		x := 4 + (i%per)*cw
		f.rect(rect{X: x, Y: y, W: cw, H: ch, Fill: fillOf(e.Source), Stroke: "#222", Tip: safe.Text(fmt.Sprintf("sg %d: %s +%d len %d %s %s", i, e.Page, e.Off, e.Len, e.Source, e.IOVA))})
		if c.Chained && c.FirstSGLNents > 0 && i == c.FirstSGLNents-1 && i+1 < len(c.SGL) {
			f.line(x+cw, y-3, x+cw, y+ch+3, "chainbreak")
		}
	}
	return y + ch + 10
}

// maxWRs is how many WRs of a chain are drawn; the rest are counted.
const maxWRs = 12

// chainsFigure draws the chains on the Send Queue, one box a WR.
func chainsFigure(s *snap.Snapshot) figure {
	f := figure{ID: "chains", Title: "WR chains on the Send Queue"}
	if len(s.Chains) == 0 {
		f.Empty = "no chain posted"
		return f
	}
	const wrW, wrH = 128, 40
	y := 4
	for _, c := range s.Chains {
		y += 16
		label := fmt.Sprintf("%s · %s · %d SQEs", c.Owner, c.Task, c.SQECount)
		if c.Pos != 0 {
			label += fmt.Sprintf(" · pos %d", c.Pos)
		}
		f.text(4, y, label, "bold")
		y += 6
		for i, w := range c.WRs[:min(len(c.WRs), maxWRs)] {
			if i > 0 && i%perRow == 0 {
				y += wrH + 10
			}
			x := 4 + (i%perRow)*(wrW+10)
			if i%perRow != 0 {
				f.line(x-10, y+wrH/2, x, y+wrH/2, "arrow")
			}
			fill := "#f4f4f4"
			if w.CQE != "" {
				fill = "#dfeedd"
			}
			tip := fmt.Sprintf("wr_id %d %s %d bytes", w.WRID, w.Opcode, w.Bytes)
			if w.Remote != "" {
				tip += " remote " + w.Remote + " rkey " + w.RKey
			}
			f.rect(rect{X: x, Y: y, W: wrW, H: wrH, Fill: fill, Stroke: "#333", Thick: w.Signaled, Tip: safe.Text(tip)})
			f.text(x+4, y+15, w.Opcode, "small bold")
			sub := fmt.Sprintf("%d B · %d SGE", w.Bytes, len(w.SGEs))
			if w.Signaled {
				sub += " · signaled"
			}
			f.text(x+4, y+29, sub, "small")
			if w.CQE != "" {
				f.text(x+4, y+38, w.CQE, "small dim")
			}
		}
		y += wrH + 4
		if n := len(c.WRs) - maxWRs; n > 0 {
			y += 14
			last := c.WRs[len(c.WRs)-1]
			f.text(4, y, fmt.Sprintf("… and %d more WRs; the last %s %d B%s", n, last.Opcode, last.Bytes, map[bool]string{true: " signaled", false: ""}[last.Signaled]), "dim")
			y += 4
		}
	}
	f.H = y + 6
	return f
}

// sqFigure draws the Send Queue's gauge and who waits for SQEs.
func sqFigure(s *snap.Snapshot) figure {
	f := figure{ID: "sq", Title: "Send Queue"}
	q := s.SQ
	y := 18
	f.text(4, y, fmt.Sprintf("sc_sq_avail %d of %d · %d starved · max %d SGEs a Send", q.Avail, q.Depth, q.Starve, q.MaxSGEs), "")
	y += 8
	gw := width - 8
	f.rect(rect{X: 4, Y: y, W: gw, H: 22, Fill: "#fff", Stroke: "#333"})
	if q.Depth > 0 {
		used := min(max(q.Depth-q.Avail, 0), q.Depth)
		f.rect(rect{X: 4, Y: y, W: used * gw / q.Depth, H: 22, Fill: "url(#p-used)", Stroke: "#333", Tip: fmt.Sprintf("%d SQEs in use", used)})
	}
	y += 38
	if len(q.Waiters) == 0 {
		f.text(4, y, "no thread waits for SQEs", "dim")
	}
	for _, w := range q.Waiters {
		label := w + " waits"
		if s.Recent != nil {
			if n, ok := s.Recent.SQNeed[w]; ok {
				label += fmt.Sprintf(" for %d SQEs", n)
			}
		}
		f.text(4, y, label, "bad")
		y += 16
	}
	f.H = y + 6
	return f
}

// cqRows is how many of the newest completions the CQ drawing lists.
const cqRows = 12

// cqFigure lists the newest completions.
func cqFigure(s *snap.Snapshot) figure {
	f := figure{ID: "cq", Title: "Completion Queue"}
	if len(s.CQ) == 0 {
		f.Empty = "no completion yet"
		return f
	}
	y := 16
	f.text(4, y, fmt.Sprintf("%d completions, newest last", len(s.CQ)), "dim")
	for _, c := range s.CQ[max(0, len(s.CQ)-cqRows):] {
		y += 17
		class := "small"
		if c.Status != "" && c.Status != "SUCCESS" && c.Status != "IB_WC_SUCCESS" {
			class = "small bad"
		}
		f.text(4, y, fmt.Sprintf("#%d %s %s wr_id %d %s %s %d B", c.Seq, c.Side, c.Queue, c.WRID, c.Opcode, c.Status, c.Bytes), class)
	}
	f.H = y + 8
	return f
}

// positionsFigure draws the replies on a number line with the acked
// position, then the DRC entries.
func positionsFigure(s *snap.Snapshot) figure {
	f := figure{ID: "positions", Title: "Reply positions"}
	p := s.Positions
	y := 16
	state := "off"
	if p.Enabled {
		state = "on"
	}
	lock := "post lock off"
	if p.PostLock {
		lock = "post lock on"
		if p.LockHeld != "" {
			lock += ", held by " + p.LockHeld
		}
	}
	f.text(4, y, fmt.Sprintf("patch %s · %s · sc_post_seq %d · xpt_acked_pos %d", state, lock, p.PostSeq, p.AckedPos), "")
	vals := []uint64{p.AckedPos, p.PostSeq}
	for _, r := range p.Replies {
		vals = append(vals, r.Pos)
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	if hi == lo {
		hi = lo + 1
	}
	const left, right = 20, width - 20
	xOf := func(v uint64) int { return left + int((v-lo)*uint64(right-left)/(hi-lo)) }
	y += 44
	f.line(left, y, right, y, "axis")
	f.textAt(left, y+16, fmt.Sprint(lo), "small", "middle")
	f.textAt(right, y+16, fmt.Sprint(hi), "small", "middle")
	for _, r := range p.Replies {
		x := xOf(r.Pos)
		fill, tip := "#fff", "in flight"
		switch {
		case r.Acked && r.SendQueued:
			fill, tip = "#d62728", "acked while its Send is queued: premature"
		case r.Acked:
			fill, tip = "#2ca02c", "acked"
		case r.Evicted:
			fill, tip = "#999", "evicted"
		}
		f.rect(rect{X: x - 5, Y: y - 14, W: 10, H: 10, Fill: fill, Stroke: "#222", Tip: safe.Text(fmt.Sprintf("xid %s %s pos %d: %s", r.XID, r.Proc, r.Pos, tip))})
	}
	ax := xOf(p.AckedPos)
	f.line(ax, y-26, ax, y+4, "acked")
	anchor := "middle"
	switch {
	case ax < left+40:
		anchor = ""
	case ax > right-40:
		anchor = "end"
	}
	f.textAt(ax, y-30, fmt.Sprintf("acked %d", p.AckedPos), "small bold", anchor)
	y += 36
	if len(p.Replies) == 0 {
		f.text(4, y, "no DRC entry", "dim")
	}
	for _, r := range p.Replies {
		var st []string
		for _, c := range []struct {
			on bool
			s  string
		}{{r.Acked, "acked"}, {r.Inflight, "in flight"}, {r.Evicted, "evicted"}, {r.SendQueued, "Send queued"}, {r.PosFromRqst, "pos from rq_reply_pos"}} {
			if c.on {
				st = append(st, c.s)
			}
		}
		class := "small"
		if r.Acked && r.SendQueued {
			class = "small bad"
		}
		f.text(4, y, fmt.Sprintf("xid %s %s pos %d %s", r.XID, r.Proc, r.Pos, strings.Join(st, ", ")), class)
		y += 16
	}
	f.H = y
	return f
}

// figures are every drawing of s, in the page's order.
func figures(s *snap.Snapshot) []figure {
	return []figure{pagesFigure(s), rwFigure(s), chainsFigure(s), sqFigure(s), cqFigure(s), positionsFigure(s)}
}

// wrCount is the WRs on the Send Queue, for the page's summary.
func wrCount(s *snap.Snapshot) int {
	n := 0
	for _, c := range s.Chains {
		n += len(c.WRs)
	}
	return n
}
