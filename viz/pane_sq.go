package viz

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine/snap"
)

// sqPane draws the Send Queue accounting as a gauge (█ in flight, ·
// available), the threads waiting for SQEs and the starve counter, then
// the completions in the order they were polled.
type sqPane struct{}

func (sqPane) Title(m *Model, w int) string {
	sq := m.Snap.SQ
	starved := ""
	if len(sq.Waiters) > 0 {
		starved = " STARVED"
	}
	if sq.Depth == 0 {
		n := inFlight(&m.Snap)
		return fitTitle(w, "", fmt.Sprintf("Send Queue · %d WQEs in flight, depth unknown · CQ", n), fmt.Sprintf("SQ %d in flight · CQ", n))
	}
	return fitTitle(w, "", fmt.Sprintf("Send Queue %d/%d avail%s · CQ", sq.Avail, sq.Depth, starved),
		fmt.Sprintf("SQ %d/%d%s · CQ", sq.Avail, sq.Depth, starved))
}

func (sqPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	sq := m.Snap.SQ
	lines := []line{gauge(sq, r.W, th)}
	if sq.Depth == 0 {
		lines[0] = line{}.add("sc_sq_depth unknown (not on the wire)", th.Dim)
	}
	st := th.Base
	if sq.Starve > 0 {
		st = th.Alarm
	}
	lines = append(lines, line{}.add(fmt.Sprintf("in flight %d · ", inFlight(&m.Snap)), th.Base).add(fmt.Sprintf("sq_starve %d", sq.Starve), st))
	var z lazyLines
	z.addLines(lines...)
	z.add(2*len(sq.Waiters), func(i int) line { // thousands, from a file: only those in view
		w := sq.Waiters[i/2]
		task, _, _ := strings.Cut(w, ":")
		if i%2 == 1 {
			return line{}.add("  in "+strings.TrimSpace(strings.TrimPrefix(w, task+":")), th.Dim)
		}
		need := ""
		if n, ok := m.facts.sqNeed[task]; ok {
			need = fmt.Sprintf(" needs %d SQEs", n)
		}
		return line{}.add(fmt.Sprintf("! %s waits,%s", task, strings.TrimSuffix(need, ",")), th.Alarm)
	})
	cq := m.Snap.CQ
	z.addLines(line{}.add(fmt.Sprintf("CQ · %d completions, newest last", len(cq)), th.Column))
	room := r.H - z.len()
	if m.View.Zoomed {
		room = len(cq)
	}
	shown := cq[max(0, len(cq)-max(room, 1)):]
	z.add(len(shown), func(i int) line { return cqLine(shown[i], r.W, th) })
	m.View.Scroll[PaneSQ] = drawLazy(s, r, &z, m.View.Scroll[PaneSQ], th.Dim)
}

// inFlight is the WQEs on the Send Queue: what sc_sq_avail lacks of the
// depth, or, when the depth is unknown (a replayed capture), the WQEs of
// the chains posted.
func inFlight(s *snap.Snapshot) int {
	if s.SQ.Depth > 0 {
		return s.SQ.Depth - s.SQ.Avail
	}
	n := 0
	for _, c := range s.Chains {
		n += c.SQECount
	}
	return n
}

// gauge draws sc_sq_avail against sc_sq_depth; the numbers are printed so
// the bar is never the only way to read them.
func gauge(sq snap.SQ, w int, th Theme) line {
	label := fmt.Sprintf(" %d/%d", sq.Avail, sq.Depth)
	n := w - len(label) - 2
	l := line{}.add("[", th.Dim)
	if n > 0 && sq.Depth > 0 {
		used := (sq.Depth - sq.Avail) * n / sq.Depth
		if sq.Avail < sq.Depth && used == 0 {
			used = 1 // one WQE in flight still shows
		}
		used = min(max(used, 0), n)
		ust := th.GaugeUsed
		if sq.Avail*4 < sq.Depth || len(sq.Waiters) > 0 {
			ust = th.Alarm
		}
		l = l.add(repeat("█", used), ust).add(repeat("·", n-used), th.GaugeFree)
	}
	return l.add("]", th.Dim).add(label, th.Base)
}

// cqLine is one completion; a status other than SUCCESS is marked !.
func cqLine(c snap.Completion, w int, th Theme) line {
	side := c.Side
	switch side {
	case "server":
		side = "srv"
	case "client":
		side = "cli"
	}
	wr := fmt.Sprint(c.WRID)
	if c.WRID > 0xffffff {
		wr = fmt.Sprintf("%#x", c.WRID)
	}
	text := fmt.Sprintf("%s %-4s %-10s %5d", side, c.Queue, c.Opcode, c.Bytes)
	if w >= 60 {
		text += " wr_id " + wr
	}
	if c.Status == "SUCCESS" {
		return line{}.add(text+" ", th.Base).add("✓", th.Good)
	}
	return line{}.add(text+" ", th.Base).add("! "+c.Status, th.Alarm)
}
