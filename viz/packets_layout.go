package viz

import "fmt"

// Where the Packets pane puts the list, its header row, the detail tree
// and the hex dump: Draw and a mouse click work it out the same way, so a
// click selects the row drawn under it.

// packetsGeom is the pane's layout below the place line.
type packetsGeom struct {
	header  int   // the list's header row (-1: none)
	list    Rect  // the packet rows
	rows    []int // the packets in the list's rows (listRows)
	stray   int   // the row of a selected packet the filter does not pass (-1: none)
	cols    listCols
	tree    Rect
	details []DetailLine // the selected packet's, asked once: they grow as indexing goes on
	visible []int        // the detail lines shown, the closed nodes' children left out
	cur     int          // the selected detail line (-1: none)
	treeTop int          // the index in visible of the tree's first row
	hex     Rect
}

// listCols are the widths of the list's columns for the rows shown.
type listCols struct {
	columns             bool // the source gives columns; else one summary
	num, time, src, dst int
	proto, length       int
}

// packetsLayout lays out r (the pane's body below the place line) for m.
func packetsLayout(r Rect, m *Model) packetsGeom {
	pv := &m.View.Packets
	src, sel := m.Packets, selectedPacket(m)
	rest := r.H
	listH := max(1, rest*2/5)
	detailH := max(0, (rest-listH)*3/5)
	g := packetsGeom{header: -1}
	y := r.Y
	if listH >= 3 {
		g.header = y
		y++
		listH--
	}
	g.list = Rect{r.X, y, r.W, listH}
	g.rows, g.stray = listRows(m, listH)
	g.cols = measureCols(src, g.rows)
	y += listH
	details := src.Detail(sel)
	g.tree, g.details = Rect{r.X, y, r.W, detailH}, details
	g.visible = visibleLines(details, pv.Closed)
	g.cur = shownLine(details, detailLine(details, pv), pv.Closed)
	at := max(0, indexIn(g.visible, g.cur))
	g.treeTop = clampScroll(at-detailH/2, len(g.visible), detailH)
	y += detailH
	g.hex = Rect{r.X, y, r.W, max(0, r.Bottom()-y)}
	return g
}

// measureCols sizes the columns to the widest value among the packets
// rows, within bounds: an IPv6 address or a long protocol name widens its
// column, a hostile one does not take the row.
func measureCols(src PacketSource, rows []int) listCols {
	c := listCols{num: max(3, len(fmt.Sprint(src.Len()))), time: 4, src: 6, dst: 11, proto: 8, length: 6}
	cs, ok := src.(ColumnSource)
	if !ok {
		return c
	}
	c.columns = true
	for _, i := range rows {
		k := cs.Columns(i)
		c.time = max(c.time, min(runeLen(k.Time), 14))
		c.src = max(c.src, min(runeLen(k.Source), 39))
		c.dst = max(c.dst, min(runeLen(k.Destination), 39))
		c.proto = max(c.proto, min(runeLen(k.Protocol), 12))
		c.length = max(c.length, min(runeLen(k.Length), 8))
	}
	return c
}

func runeLen(s string) int { return len([]rune(s)) }

// listHeader is the header row over the columns.
func listHeader(c listCols) string {
	if !c.columns {
		return fmt.Sprintf("%*s %s", c.num, "No.", "Summary")
	}
	return fmt.Sprintf("%*s %-*s %-*s %-*s %-*s %*s %s", c.num, "No.", c.time, "Time", c.src, "Source",
		c.dst, "Destination", c.proto, "Protocol", c.length, "Length", "Info")
}

// listRow is packet i's row, its columns under the header's.
func listRow(src PacketSource, i int, c listCols) string {
	cs, ok := src.(ColumnSource)
	if !c.columns || !ok {
		return fmt.Sprintf("%*d %s", c.num, i+1, src.Summary(i))
	}
	k := cs.Columns(i)
	return fmt.Sprintf("%*d %-*s %-*s %-*s %-*s %*s %s", c.num, i+1, c.time, fit(k.Time, c.time), c.src, fit(k.Source, c.src),
		c.dst, fit(k.Destination, c.dst), c.proto, fit(k.Protocol, c.proto), c.length, fit(k.Length, c.length), k.Info)
}

// cutLeft drops the first n runes of s: the list scrolled sideways.
func cutLeft(s string, n int) string {
	r := []rune(s)
	if n <= 0 {
		return s
	}
	if n >= len(r) {
		return ""
	}
	return string(r[n:])
}

// hasChildren reports whether detail line k is a node with lines under it.
func hasChildren(d []DetailLine, k int) bool {
	return k >= 0 && k+1 < len(d) && d[k+1].Depth > d[k].Depth
}

// visibleLines are the detail lines shown: those under a closed node are
// left out.
func visibleLines(d []DetailLine, closed map[string]bool) []int {
	out := make([]int, 0, len(d))
	hideBelow := -1
	for k, l := range d {
		if hideBelow >= 0 && l.Depth > hideBelow {
			continue
		}
		hideBelow = -1
		out = append(out, k)
		if hasChildren(d, k) && closed[lineLabel(l)] {
			hideBelow = l.Depth
		}
	}
	return out
}

// shownLine is line k, or the closed node it is hidden under.
func shownLine(d []DetailLine, k int, closed map[string]bool) int {
	if k < 0 {
		return k
	}
	shown := k
	depth := d[k].Depth
	for j := k - 1; j >= 0; j-- {
		if d[j].Depth < depth {
			depth = d[j].Depth
			if hasChildren(d, j) && closed[lineLabel(d[j])] {
				shown = j
			}
		}
	}
	return shown
}

// treeText is detail line k as the tree draws it: indented, with [-] or
// [+] before a node.
func treeText(d []DetailLine, k int, pv *PacketsView) string {
	mark := "    "
	if hasChildren(d, k) {
		mark = "[-] "
		if pv.Closed[lineLabel(d[k])] {
			mark = "[+] "
		}
	}
	return repeat("  ", min(d[k].Depth, maxTreeIndent)) + mark + d[k].Text
}

// markAt reports whether column x of the tree (from its left edge) falls
// on the [+]/[-] of detail line k.
func markAt(d []DetailLine, k, x int) bool {
	at := 2 * min(d[k].Depth, maxTreeIndent)
	return hasChildren(d, k) && x >= at && x < at+3
}

// toggleNode opens or closes detail line k.
func (pv *PacketsView) toggleNode(d []DetailLine, k int) {
	if !hasChildren(d, k) {
		return
	}
	if pv.Closed == nil {
		pv.Closed = map[string]bool{}
	}
	label := lineLabel(d[k])
	if pv.Closed[label] {
		delete(pv.Closed, label)
	} else {
		pv.Closed[label] = true
	}
}

// selectLine selects detail line k.
func (pv *PacketsView) selectLine(d []DetailLine, k int) {
	pv.Line, pv.Label = k, lineLabel(d[k])
}

// parentLine is the node detail line k sits under (-1 at the top).
func parentLine(d []DetailLine, k int) int {
	for j := k - 1; j >= 0; j-- {
		if d[j].Depth < d[k].Depth {
			return j
		}
	}
	return -1
}

// sidewaysStep is how far ← and → move the list.
const sidewaysStep = 8

// widestRow bounds the sideways scroll: the longest row shown.
func widestRow(src PacketSource, g packetsGeom) int {
	w := runeLen(listHeader(g.cols))
	for _, i := range g.rows {
		w = max(w, runeLen(listRow(src, i, g.cols)))
	}
	return w
}
