package viz

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// drawPackets draws m at w×h and returns the loop (with the placements a
// click needs) and the rows.
func drawPackets(t *testing.T, m *Model, w, h int) (*loop, []string) {
	t.Helper()
	_, r, placed := renderPlaced(t, m, NewTheme(256), w, h)
	return &loop{m: m, placed: placed}, r
}

func rowWith(rows []string, s string) int {
	for i, r := range rows {
		if strings.Contains(r, s) {
			return i
		}
	}
	return -1
}

// The list has a header row, and each column starts under its name.
func TestPacketsHeaderAligned(t *testing.T) {
	m := captureModel(openCapture(t, nfs3Capture), 0)
	_, rows := drawPackets(t, m, 120, 40)
	h := rowWith(rows, "No. Time")
	if h < 0 {
		t.Fatalf("no header row:\n%s", strings.Join(rows, "\n"))
	}
	head := rows[h]
	for _, r := range rows[h+1 : h+6] {
		for _, col := range []struct{ name, value string }{{"Source", "192.0.2."}, {"Protocol", "RRoCE"}, {"Info", "CM: "}} {
			if i, j := strings.Index(r, col.value), strings.Index(head, col.name); i >= 0 && i != j {
				t.Errorf("%q at %d, its column %q at %d:\n%s\n%s", col.value, i, col.name, j, head, r)
			}
		}
	}
}

// → in the list scrolls it sideways (header too), ← back.
func TestPacketsScrollSideways(t *testing.T) {
	m := captureModel(openCapture(t, nfs3Capture), 0)
	l, before := drawPackets(t, m, 80, 30)
	press(l, tcell.KeyRight, 0)
	if m.View.Packets.Left != sidewaysStep || m.View.Packets.Detail {
		t.Fatalf("→ in the list: left %d, tree %v", m.View.Packets.Left, m.View.Packets.Detail)
	}
	_, after := drawPackets(t, m, 80, 30)
	h := rowWith(before, "No. Time")
	if after[h] != strings.TrimRight(cutLeft(before[h], sidewaysStep), " ") && !strings.HasPrefix(cutLeft(before[h], sidewaysStep), after[h]) {
		t.Errorf("header not scrolled:\n%q\n%q", before[h], after[h])
	}
	for range 20 { // stops at the widest row's end
		press(l, tcell.KeyRight, 0)
	}
	_, after = drawPackets(t, m, 80, 30)
	if !strings.Contains(after[h+1], "192.0.2.2:57940 → 192.0.2.1:20049") || m.View.Packets.Left > 100 {
		t.Errorf("the end of a long row is not shown (left %d): %q", m.View.Packets.Left, after[h+1])
	}
	for range 20 {
		press(l, tcell.KeyLeft, 0)
	}
	if m.View.Packets.Left != 0 {
		t.Errorf("← : left %d", m.View.Packets.Left)
	}
}

// The tree's nodes show [-]; ← on a node closes it ([+], its lines
// hidden), → opens it; the choice holds on the next packet.
func TestPacketsTreeFolds(t *testing.T) {
	m := captureModel(openCapture(t, nfs3Capture), 3)
	l, rows := drawPackets(t, m, 120, 50)
	if rowWith(rows, "[-] InfiniBand") < 0 || rowWith(rows, "Base Transport Header") < 0 {
		t.Fatalf("no open InfiniBand node:\n%s", strings.Join(rows, "\n"))
	}
	press(l, tcell.KeyEnter, 0)
	d := m.Packets.Detail(3)
	for range d {
		if d[m.View.Packets.Line].Text == "InfiniBand" {
			break
		}
		press(l, tcell.KeyDown, 0)
	}
	press(l, tcell.KeyLeft, 0)
	_, rows = drawPackets(t, m, 120, 50)
	if rowWith(rows, "[+] InfiniBand") < 0 || rowWith(rows, "Base Transport Header") >= 0 {
		t.Fatalf("InfiniBand not closed:\n%s", strings.Join(rows, "\n"))
	}
	m.View.Scroll[PanePackets] = 4 // the next packet: still closed
	_, rows = drawPackets(t, m, 120, 50)
	if rowWith(rows, "[+] InfiniBand") < 0 {
		t.Errorf("closed on packet 4, open on 5:\n%s", strings.Join(rows, "\n"))
	}
	press(l, tcell.KeyRight, 0)
	_, rows = drawPackets(t, m, 120, 50)
	if rowWith(rows, "[-] InfiniBand") < 0 || rowWith(rows, "Base Transport Header") < 0 {
		t.Errorf("→ did not open it:\n%s", strings.Join(rows, "\n"))
	}
}

// A click on a list row selects that packet; on a tree line, that line;
// on its [-], it closes the node.
func TestPacketsClick(t *testing.T) {
	m := captureModel(openCapture(t, nfs3Capture), 0)
	l, rows := drawPackets(t, m, 120, 50)
	y := rowWith(rows, "  5 0.050688")
	if y < 0 {
		t.Fatalf("no packet 5 row:\n%s", strings.Join(rows, "\n"))
	}
	click := func(x, y int) {
		l.lastBtn = 0
		l.mouse(tcell.NewEventMouse(x, y, tcell.Button1, tcell.ModNone))
		l.mouse(tcell.NewEventMouse(x, y, tcell.ButtonNone, tcell.ModNone))
	}
	click(10, y)
	if sel := m.View.Scroll[PanePackets]; sel != 4 {
		t.Fatalf("clicked packet 5, selected %d", sel+1)
	}
	l, rows = drawPackets(t, m, 120, 50)
	y = rowWith(rows, "[-] InfiniBand")
	if y < 0 {
		t.Fatalf("no InfiniBand node:\n%s", strings.Join(rows, "\n"))
	}
	click(20, y)
	if d := m.Packets.Detail(4); !m.View.Packets.Detail || d[m.View.Packets.Line].Text != "InfiniBand" {
		t.Errorf("clicked the InfiniBand line: tree %v, line %d", m.View.Packets.Detail, m.View.Packets.Line)
	}
	l, rows = drawPackets(t, m, 120, 50) // the tree keeps its selection in view
	y = rowWith(rows, "[-] InfiniBand")
	click(len([]rune(rows[y][:strings.Index(rows[y], "[-]")]))+1, y)
	if _, rows = drawPackets(t, m, 120, 50); rowWith(rows, "[+] InfiniBand") < 0 {
		t.Errorf("a click on [-] did not close the node:\n%s", strings.Join(rows, "\n"))
	}
}

// changingTree is a capture still being indexed: each time the selected
// packet's tree is asked for it has a line fewer (a note that its reply
// is still to come goes once the reply is indexed).
type changingTree struct {
	manyPackets
	asked *int
}

func (c changingTree) Detail(i int) []DetailLine {
	*c.asked++
	d := []DetailLine{{Text: "Frame"}, {Depth: 1, Text: "a child"}}
	for k := range max(0, 8-*c.asked) {
		d = append(d, DetailLine{Depth: 1, Text: "note " + string(rune('a'+k))})
	}
	return d
}

// The pane draws the tree it laid out, though the source's tree changed
// since (the index goes on while the pane draws), and a click
// on its last line selects a line of the tree it was drawn from.
func TestPacketsTreeChanges(t *testing.T) {
	asked := 0
	m := captureModel(changingTree{manyPackets(10), &asked}, 0)
	l, rows := drawPackets(t, m, 100, 60)
	last := rowWith(rows, "note f")
	if last < 0 {
		t.Fatalf("no tree drawn:\n%s", strings.Join(rows, "\n"))
	}
	for p := range l.placed {
		if l.placed[p].Pane == PanePackets {
			l.packetsClick(l.placed[p].Rect, 6, last)
		}
	}
	if !m.View.Packets.Detail {
		t.Error("the click selected no tree line")
	}
}
