package viz

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
)

// The Packets pane's keys (the groupPackets rows of the key table): they
// run with the pane selected and a capture in it.

// treeKey: Enter gives the arrows to the tree, or back to the list. In
// the list → and ← scroll it sideways; in the tree → opens the selected
// node (then goes to its first line), ← closes it (or goes to its parent).
func (l *loop) treeKey(k keyPress) {
	pv := &l.m.View.Packets
	if k.Key == tcell.KeyEnter {
		pv.Detail = !pv.Detail
		return
	}
	right := k.Key == tcell.KeyRight
	if !pv.Detail {
		g := l.packetsGeom()
		if right {
			pv.Left = min(pv.Left+sidewaysStep, max(0, widestRow(l.m.Packets, g)-g.list.W))
		} else {
			pv.Left = max(0, pv.Left-sidewaysStep)
		}
		return
	}
	d := l.m.Packets.Detail(selectedPacket(l.m))
	cur := shownLine(d, detailLine(d, pv), pv.Closed)
	if cur < 0 {
		return
	}
	closed := pv.Closed[lineLabel(d[cur])]
	switch {
	case right && hasChildren(d, cur) && closed:
		pv.toggleNode(d, cur)
	case right && hasChildren(d, cur):
		pv.selectLine(d, cur+1)
	case !right && hasChildren(d, cur) && !closed:
		pv.toggleNode(d, cur)
	case !right:
		if p := parentLine(d, cur); p >= 0 {
			pv.selectLine(d, p)
		}
	}
}

// packetsGeom is the Packets pane's layout as last drawn.
func (l *loop) packetsGeom() packetsGeom {
	for _, p := range l.placed {
		if p.Pane == PanePackets {
			return packetsLayout(packetsBody(p.Rect, l.m), l.m)
		}
	}
	return packetsGeom{}
}

// packetsScroll moves the selected packet, or, when the tree has the
// arrows, its selected line among those shown.
func (l *loop) packetsScroll(k keyPress) {
	pv := &l.m.View.Packets
	if !pv.Detail {
		l.scroll(PanePackets, l.scrollDelta(k))
		return
	}
	delta, page := scrollStep(k)
	if page {
		delta *= 10
	}
	d := l.m.Packets.Detail(selectedPacket(l.m))
	if len(d) == 0 {
		return
	}
	vis := visibleLines(d, pv.Closed)
	at := max(0, indexIn(vis, shownLine(d, detailLine(d, pv), pv.Closed)))
	pv.selectLine(d, vis[min(max(at+delta, 0), len(vis)-1)])
}

// packetsClick selects the packet or the tree line clicked; a click on a
// [+] or [-] opens or closes that node.
func (l *loop) packetsClick(body Rect, x, y int) {
	if l.m.Packets == nil || l.m.Packets.Len() == 0 {
		return
	}
	pv := &l.m.View.Packets
	body.H -= barHeight(l.m, body.W, body.H-1) // the filter bar, when open, is below the rest
	g := packetsLayout(packetsBody(body, l.m), l.m)
	switch {
	case g.list.Contains(x, y):
		if k := y - g.list.Y; k < len(g.rows) {
			l.m.View.Scroll[PanePackets], pv.Detail = g.rows[k], false
		}
	case g.tree.Contains(x, y):
		at := g.treeTop + y - g.tree.Y
		if at >= len(g.visible) {
			return
		}
		d := g.details // the lines g.visible counts
		k := g.visible[at]
		pv.selectLine(d, k)
		pv.Detail = true
		if markAt(d, k, x-g.tree.X) {
			pv.toggleNode(d, k)
		}
	}
}

// jumpBack returns to the packet the last jump left.
func (l *loop) jumpBack(keyPress) {
	pv := &l.m.View.Packets
	if len(pv.Back) == 0 {
		l.m.Status, l.m.StatusErr = "no jump to go back from", true
		return
	}
	i := pv.Back[len(pv.Back)-1]
	pv.Back = pv.Back[:len(pv.Back)-1]
	l.m.View.Scroll[PanePackets] = min(i, l.m.Packets.Len()-1)
	l.m.Status, l.m.StatusErr = fmt.Sprintf("back to packet %d", i+1), false
}

// seekKey moves the replay (a FrameSeeker) to the selected packet.
func (l *loop) seekKey(keyPress) {
	fs, ok := l.src.(FrameSeeker)
	if !ok {
		return
	}
	l.seek(fs, selectedPacket(l.m)+1) // packet i is frame i+1
}

// linkKey follows the links of the selected packet: x to its RPC's call,
// X to the reply, [ and ] through its chunk, { and } through its RPC.
func (l *loop) linkKey(k keyPress) {
	ls := l.m.Packets.(LinkSource)
	r := k.Rune
	sel := selectedPacket(l.m)
	pl := ls.Place(sel)
	if pl.Text == "" {
		l.m.Status, l.m.StatusErr = fmt.Sprintf("packet %d belongs to no RPC", sel+1), true
		return
	}
	switch r {
	case 'x', 'X':
		to, what := pl.Call, "call"
		if r == 'X' {
			to, what = pl.Reply, "reply"
		}
		if to < 0 {
			l.m.Status, l.m.StatusErr = fmt.Sprintf("the %s of this RPC is not in the capture", what), true
			return
		}
		l.jump(sel, to, "the "+what)
	default:
		chunk := r == '[' || r == ']'
		what := "chunk"
		if chunk && !pl.InChunk {
			chunk, what = false, "RPC (the packet moves no chunk data)"
		} else if !chunk {
			what = "RPC"
		}
		rel := ls.Related(sel, chunk)
		next := r == ']' || r == '}'
		to := -1
		for k, i := range rel {
			if next && i > sel {
				to = i
				break
			}
			if !next && i < sel {
				to = rel[k]
			}
		}
		if to < 0 {
			end := "last"
			if !next {
				end = "first"
			}
			l.m.Status, l.m.StatusErr = fmt.Sprintf("packet %d is the %s of its %s", sel+1, end, what), true
			return
		}
		l.jump(sel, to, fmt.Sprintf("%s packet %d of %d of its %s", map[bool]string{true: "next:", false: "previous:"}[next],
			indexIn(rel, to)+1, len(rel), what))
	}
}

func indexIn(s []int, v int) int {
	for k, x := range s {
		if x == v {
			return k
		}
	}
	return -1
}

// jump selects packet to, remembering from for Backspace.
func (l *loop) jump(from, to int, what string) {
	pv := &l.m.View.Packets
	if len(pv.Back) == maxBack {
		pv.Back = append(pv.Back[:0], pv.Back[1:]...)
	}
	pv.Back = append(pv.Back, from)
	l.m.View.Scroll[PanePackets] = to
	l.m.Status, l.m.StatusErr = fmt.Sprintf("%s: packet %d (⌫ back to %d)", what, to+1, from+1), false
}
