package viz

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// packetsPane draws a capture: the packet list, the selected packet's
// detail tree and its bytes in hex. Until the captures package hands the
// model a PacketSource it says so.
type packetsPane struct{}

func (packetsPane) Title(m *Model, _ int) string {
	if m.Packets == nil || m.Packets.Len() == 0 {
		return "Packets"
	}
	return fmt.Sprintf("Packets · %d of %d", selectedPacket(m)+1, m.Packets.Len())
}

// selectedPacket is the packet the list has selected, kept in range.
func selectedPacket(m *Model) int {
	return min(max(m.View.Scroll[PanePackets], 0), m.Packets.Len()-1)
}

func (packetsPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	if m.Packets == nil || m.Packets.Len() == 0 {
		msg := []line{
			line{}.add("no capture loaded", th.Base),
			line{}.add("captures decode RoCE / RPC-over-RDMA here", th.Dim),
		}
		drawLines(s, Rect{r.X + 1, r.Y + r.H/3, r.W - 1, r.H - r.H/3}, msg, 0, th.Dim)
		return
	}
	n, sel := m.Packets.Len(), selectedPacket(m)
	listH := max(1, r.H/2)
	detailH := max(0, (r.H-listH)/2)
	hexH := r.H - listH - detailH
	// The list: a window of listH packets that keeps sel in view. Only the
	// rows shown are asked for, so a capture of any size costs the same.
	first := min(max(0, sel-listH/2), max(0, n-listH))
	width := len(fmt.Sprint(n))
	for i := 0; i < listH && first+i < n; i++ {
		st := th.Base
		if first+i == sel {
			st = th.HeaderSel
		}
		text := fmt.Sprintf("%*d %s", width, first+i+1, m.Packets.Summary(first+i))
		put(s, r.X, r.Y+i, r.Right(), pad(text, r.W), st)
	}
	y := r.Y + listH
	if detailH > 0 {
		var lines []line
		for _, d := range m.Packets.Detail(sel) {
			lines = append(lines, line{}.add(repeat("  ", d.Depth)+d.Text, th.Base))
		}
		drawLines(s, Rect{r.X, y, r.W, detailH}, lines, 0, th.Dim)
		y += detailH
	}
	if hexH > 0 {
		drawLines(s, Rect{r.X, y, r.W, hexH}, hexLines(m.Packets.Bytes(sel), hexH, th), 0, th.Dim)
	}
}

// hexLines is a hex dump, 16 bytes a line, of at most n lines.
func hexLines(b []byte, n int, th Theme) []line {
	var out []line
	for off := 0; off < len(b) && len(out) < n; off += 16 {
		row := b[off:min(off+16, len(b))]
		var hx, asc strings.Builder
		for i, c := range row {
			if i == 8 {
				hx.WriteByte(' ')
			}
			fmt.Fprintf(&hx, "%02x ", c)
			if c >= 0x20 && c < 0x7f {
				asc.WriteByte(c)
			} else {
				asc.WriteByte('.')
			}
		}
		out = append(out, line{}.add(fmt.Sprintf("%04x ", off), th.Dim).add(fmt.Sprintf("%-49s", hx.String()), th.Base).add(asc.String(), th.Dim))
	}
	return out
}
