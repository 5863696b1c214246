package viz

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
)

// The Packets pane's keys (the groupPackets rows of the key table): they
// run with the pane selected and a capture in it.

// treeKey gives the arrows to the detail tree (→), back to the list (←),
// or toggles between them (Enter).
func (l *loop) treeKey(k keyPress) {
	pv := &l.m.View.Packets
	switch k.Key {
	case tcell.KeyRight:
		pv.Detail = true
	case tcell.KeyLeft:
		pv.Detail = false
	default:
		pv.Detail = !pv.Detail
	}
}

// packetsScroll moves the selected packet, or, when the tree has the
// arrows, its selected line.
func (l *loop) packetsScroll(k keyPress) {
	pv := &l.m.View.Packets
	if !pv.Detail {
		l.scroll(PanePackets, l.scrollDelta(k.Key))
		return
	}
	delta := map[tcell.Key]int{tcell.KeyUp: -1, tcell.KeyDown: 1, tcell.KeyPgUp: -10, tcell.KeyPgDn: 10,
		tcell.KeyHome: -1 << 20, tcell.KeyEnd: 1 << 20}[k.Key]
	d := l.m.Packets.Detail(selectedPacket(l.m))
	if len(d) == 0 {
		return
	}
	i := min(max(detailLine(d, pv)+delta, 0), len(d)-1)
	pv.Line, pv.Label = i, lineLabel(d[i])
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
