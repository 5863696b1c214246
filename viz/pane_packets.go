package viz

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/internal/cli"
)

// packetsPane draws a capture: a progress bar while it is being indexed,
// the RPC and chunk the selected packet belongs to, the packet list, the
// selected packet's detail tree with a selected line, and its bytes in hex
// with the selected line's bytes highlighted. Until a capture is loaded it
// says so.
type packetsPane struct{}

// The Packets pane asks a PacketSource for more through these optional
// interfaces; CaptureSource implements them all.
type (
	// FieldSource says which bytes of the packet each line of
	// Detail(i) shows, for the hex dump's highlight.
	FieldSource interface {
		Fields(i int) []ByteRange
	}
	// LinkSource links a packet to the RPC and chunk it belongs to.
	LinkSource interface {
		Place(i int) PacketPlace
		// Related lists the packets (indexes, in order) of the same RPC,
		// or of the same chunk.
		Related(i int, chunk bool) []int
	}
	// Indexing is a source still reading its capture.
	Indexing interface {
		Progress() PacketProgress
	}
	// ColumnSource gives a packet's summary in tshark's columns, which
	// the list aligns under a header row.
	ColumnSource interface {
		Columns(i int) PacketColumns
	}
)

// PacketColumns are tshark's default columns but the number.
type PacketColumns struct {
	Time, Source, Destination, Protocol, Length, Info string
}

// ByteRange is the bytes [Start, End) of a packet.
type ByteRange struct{ Start, End int }

// PacketPlace is where a packet belongs: Text is empty when it belongs to
// no RPC; Call and Reply are packet indexes, -1 when not in the capture.
type PacketPlace struct {
	Text        string
	Call, Reply int
	InChunk     bool // it moved chunk data: Related(i, true) lists the chunk's packets
	Of, In      int  // it is the Of'th (0-based) of the In packets of its RPC
}

// PacketProgress is how far indexing has got.
type PacketProgress struct {
	Fraction float64
	Packets  int
	Done     bool
	Err      error // why indexing stopped early
	Live     bool  // the capture is still coming: Fraction is not known
}

// PacketsView is what the Packets pane's keys chose, beyond the selected
// packet (ViewState.Scroll[PanePackets]).
type PacketsView struct {
	Detail bool   // the arrow keys move the detail tree's selection, not the list's
	Line   int    // the detail tree's selected line
	Label  string // its label: the packet after keeps a line of the same label selected
	Back   []int  // the packets jumps left, newest last (Backspace returns)
	// Left is how far the list is scrolled sideways, in columns.
	Left int
	// Closed are the tree nodes shown [+], by label: a node closed on one
	// packet stays closed on the next, as in termshark.
	Closed map[string]bool
}

// maxBack bounds the jumps remembered.
const maxBack = 64

// maxTreeIndent bounds a detail line's indentation: a depth the decoder
// reports is drawn, never trusted as a repeat count.
const maxTreeIndent = 32

func (packetsPane) Title(m *Model, w int) string {
	if m.Packets == nil || m.Packets.Len() == 0 {
		return "Packets"
	}
	name := ""
	if d, ok := m.Packets.(Describer); ok {
		name = " · " + d.Describe()
	}
	more := ""
	if ix, ok := m.Packets.(Indexing); ok && !ix.Progress().Done {
		more = "…"
	}
	if long, short := filterTitle(m); long != "" {
		return fitTitle(w, "Packets", fmt.Sprintf("%s · frame %d · %s", name, selectedPacket(m)+1, long), " · "+short)
	}
	return fitTitle(w, "Packets", fmt.Sprintf("%s · %d of %d%s", name, selectedPacket(m)+1, m.Packets.Len(), more),
		fmt.Sprintf(" · %d of %d%s", selectedPacket(m)+1, m.Packets.Len(), more))
}

// selectedPacket is the packet the list has selected, kept in range.
func selectedPacket(m *Model) int {
	return min(max(m.View.Scroll[PanePackets], 0), m.Packets.Len()-1)
}

func (packetsPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	r = drawFilterBar(s, r, m, th)
	y := r.Y
	if m.Packets != nil {
		if ix, ok := m.Packets.(Indexing); ok {
			if pr := ix.Progress(); !pr.Done || pr.Err != nil {
				progressLine(pr, r.W, th).draw(s, r.X, y, r.Right())
				y++
			}
		}
	}
	if m.Packets == nil || m.Packets.Len() == 0 {
		msg := []line{
			line{}.add("no capture loaded", th.Base),
			line{}.add("capture open FILE at the prompt decodes one here", th.Dim),
		}
		if m.Packets != nil {
			msg = []line{line{}.add("reading the capture…", th.Dim)}
		}
		top := max(y, r.Y+r.H/3)
		drawLines(s, Rect{r.X + 1, top, r.W - 1, r.Bottom() - top}, msg, 0, th.Dim)
		return
	}
	src, pv := m.Packets, &m.View.Packets
	sel := selectedPacket(m)
	if ls, ok := src.(LinkSource); ok && y < r.Bottom() {
		placeLine(ls.Place(sel), r.W, th).draw(s, r.X, y, r.Right())
	}
	g := packetsLayout(packetsBody(Rect{r.X, r.Y - 1, r.W, r.H + 1}, m), m)
	selSt := th.HeaderSel
	if pv.Detail {
		selSt = th.Header
	}
	if g.header >= 0 {
		put(s, r.X, g.header, r.Right(), pad(cutLeft(listHeader(g.cols), pv.Left), r.W), th.Column)
	}
	// The list: a window of rows that keeps sel in view. Only the rows
	// shown are asked for, so a capture of any size costs the same.
	for i, p := range g.rows {
		st := th.Base
		if p == sel {
			st = selSt
		}
		if i == g.stray {
			st = st.Dim(true) // selected, but the filter does not pass it
		}
		put(s, r.X, g.list.Y+i, r.Right(), pad(cutLeft(listRow(src, p, g.cols), pv.Left), r.W), st)
	}
	details := g.details // the lines g.visible counts
	var fields []ByteRange
	if fs, ok := src.(FieldSource); ok {
		fields = fs.Fields(sel)
	}
	cur := g.cur
	if g.tree.H > 0 {
		lineSt := th.Header
		if pv.Detail {
			lineSt = th.HeaderSel
		}
		var lines []line
		for _, k := range g.visible {
			text := treeText(details, k, pv)
			if k == cur {
				lines = append(lines, line{}.add(pad(text, r.W), lineSt))
			} else {
				lines = append(lines, line{}.add(text, th.Base))
			}
		}
		drawLines(s, g.tree, lines, g.treeTop, th.Dim)
	}
	hexH := g.hex.H
	y = g.hex.Y
	if hexH > 0 {
		var hl ByteRange
		b := src.Bytes(sel)
		if cur >= 0 && cur < len(fields) && (fields[cur] != ByteRange{0, len(b)}) {
			hl = fields[cur] // a line that shows the whole frame highlights nothing
		}
		rows := (len(b) + 15) / 16
		top := 0
		if hl.End > hl.Start && (hl.End-1)/16 >= hexH {
			top = hl.Start/16 - 1 // the row before the field, for context
		}
		top = clampScroll(top, rows, hexH)
		drawLines(s, Rect{r.X, y, r.W, hexH}, hexLines(b, top, hexH, hl, th), 0, th.Dim)
		if top > 0 {
			put(s, r.Right()-1, y, r.Right(), "↑", th.Dim)
		}
	}
}

// packetsBody is the part of the pane (its rect, title row included)
// under the title, the progress line and the place line: what
// packetsLayout divides.
func packetsBody(pane Rect, m *Model) Rect {
	y := pane.Y + 1
	if ix, ok := m.Packets.(Indexing); ok {
		if pr := ix.Progress(); !pr.Done || pr.Err != nil {
			y++
		}
	}
	if _, ok := m.Packets.(LinkSource); ok {
		y++
	}
	return Rect{pane.X, y, pane.W, max(0, pane.Bottom()-y)}
}

// progressLine is "indexing 34% · 340,112 packets" and a bar, or why
// indexing stopped.
func progressLine(pr PacketProgress, w int, th Theme) line {
	if pr.Done {
		return line{}.add(fit(fmt.Sprintf("stopped after %s packets: %v", cli.Thousands(pr.Packets), pr.Err), w), th.Alarm)
	}
	if pr.Live {
		return line{}.add(fit(fmt.Sprintf("live · %s packets so far, more as they come", cli.Thousands(pr.Packets)), w), th.Base)
	}
	text := fmt.Sprintf("indexing %d%% · %s packets ", int(pr.Fraction*100), cli.Thousands(pr.Packets))
	l := line{}.add(text, th.Base)
	if bar := w - len([]rune(text)); bar > 0 {
		done := min(max(int(pr.Fraction*float64(bar)), 0), bar)
		l = l.add(strings.Repeat("█", done), th.GaugeUsed).add(strings.Repeat("░", bar-done), th.GaugeFree)
	}
	return l
}

// placeLine names the RPC and chunk of the selected packet, and the keys
// that follow the links.
func placeLine(pl PacketPlace, w int, th Theme) line {
	if pl.Text == "" {
		return line{}.add("not part of an RPC", th.Dim)
	}
	head := fmt.Sprintf("%d of %d · ", pl.Of+1, pl.In)
	keys, room := "", w-len([]rune(head))
	for _, k := range []string{" x call  X reply  [ ] chunk  { } RPC  ⌫ back", " x X [ ] { } ⌫"} {
		if r := w - len([]rune(head)) - len([]rune(k)); r >= 50 {
			keys, room = k, r
			break
		}
	}
	return line{}.add(head, th.Dim).add(pad(fit(pl.Text, room), room), th.Column).add(keys, th.Dim)
}

// detailLine is the selected line of a detail tree: the one pv names, or,
// when this packet's tree has another line there, the first line with the
// same label.
func detailLine(d []DetailLine, pv *PacketsView) int {
	if len(d) == 0 {
		return -1
	}
	k := min(max(pv.Line, 0), len(d)-1)
	if pv.Label == "" || lineLabel(d[k]) == pv.Label {
		return k
	}
	for j := range d {
		if lineLabel(d[j]) == pv.Label {
			return j
		}
	}
	return k
}

// lineLabel is what a detail line is about: its depth and its text up to
// the first colon or comma.
func lineLabel(d DetailLine) string {
	t := d.Text
	if k := strings.IndexAny(t, ":,"); k >= 0 {
		t = t[:k]
	}
	return fmt.Sprintf("%d %s", d.Depth, t)
}

// hexLines is a hex dump, 16 bytes a line, from row top, of at most n
// lines, with the bytes of hl highlighted (the spaces between them too,
// so that a field reads as one block).
func hexLines(b []byte, top, n int, hl ByteRange, th Theme) []line {
	in := func(at int) bool { return at >= hl.Start && at < hl.End }
	var out []line
	for off := top * 16; off < len(b) && len(out) < n; off += 16 {
		row := b[off:min(off+16, len(b))]
		l := line{}.add(fmt.Sprintf("%04x ", off), th.Dim)
		var asc line
		for i, c := range row {
			at := off + i
			st, ascSt := th.Base, th.Dim
			if in(at) {
				st, ascSt = th.HeaderSel, th.HeaderSel
			}
			if i == 8 {
				gap := th.Base
				if in(at-1) && in(at) {
					gap = st
				}
				l = l.add(" ", gap)
			}
			sp := th.Base
			if in(at) && in(at+1) && i < len(row)-1 {
				sp = st
			}
			l = l.add(fmt.Sprintf("%02x", c), st).add(" ", sp)
			ch := "."
			if c >= 0x20 && c < 0x7f {
				ch = string(rune(c))
			}
			asc = asc.add(ch, ascSt)
		}
		if w := l.width(); w < 5+49 {
			l = l.add(strings.Repeat(" ", 5+49-w), th.Base)
		}
		out = append(out, append(l, asc...))
	}
	return out
}
