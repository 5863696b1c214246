package viz

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine/snap"
)

// chainPane draws the WR chains on the Send Queue, one WR a line: the one
// that carries the cqe is marked ◆, the Send that ends a reply chain ◀.
type chainPane struct{}

func (chainPane) Title(m *Model, w int) string {
	n := 0
	for _, c := range m.Snap.Chains {
		n += c.SQECount
	}
	if m.Snap.SQ.Depth == 0 { // a replayed capture: the depth is not on the wire
		return fitTitle(w, "WR chains", fmt.Sprintf(" · %d WQEs posted", n), fmt.Sprintf(" · %d WQEs", n))
	}
	return fitTitle(w, "WR chains", fmt.Sprintf(" · %d WQEs posted · sc_sq_avail %d/%d", n, m.Snap.SQ.Avail, m.Snap.SQ.Depth),
		fmt.Sprintf(" · %d WQEs · avail %d/%d", n, m.Snap.SQ.Avail, m.Snap.SQ.Depth))
}

// wrCols says which columns fit a width.
type wrCols struct {
	remote, rkey bool
	w            int
}

func colsFor(w int) wrCols { return wrCols{remote: w >= 84, rkey: w >= 68, w: w} }

func (chainPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	chains := m.Snap.Chains
	if len(chains) == 0 {
		lines := append([]line{line{}.add("no chain on the Send Queue", th.Dim)}, waitLines(m, th)...)
		drawLines(s, r, lines, 0, th.Dim)
		return
	}
	cols := colsFor(r.W)
	head := line{}.add(wrHeader(cols), th.Column)
	waiting := waitLines(m, th)
	var lines lazyLines
	lines.addLines(head)
	lines.addAll(chainLines(chains, cols, 0, th))
	lines.addLines(waiting...)
	if lines.len() > r.H && !m.View.Zoomed {
		lines = lazyLines{}
		lines.addLines(head)
		lines.addAll(chainLines(chains, cols, 2, th))
		lines.addLines(waiting...)
	}
	m.View.Scroll[PaneChain] = drawLazy(s, r, &lines, m.View.Scroll[PaneChain], th.Dim)
}

// chainLines lists each chain and its WRs; with keep > 0, a long chain
// shows its first keep WRs, a "… N more" line and its last WR. Only the
// lines in view are drawn: a chain may hold thousands of WRs.
func chainLines(chains []snap.Chain, cols wrCols, keep int, th Theme) *lazyLines {
	var z lazyLines
	for i, c := range chains {
		folded := keep > 0 && len(c.WRs) > keep+2
		n := len(c.WRs)
		if folded {
			n = keep + 2
		}
		z.add(1+n, func(k int) line {
			if k == 0 {
				h := fmt.Sprintf("%d. %s · %s · %d WQEs", i+1, c.Owner, c.Task, c.SQECount)
				if c.Pos > 0 {
					h += fmt.Sprintf(" · reply pos %d", c.Pos)
				}
				return line{}.add(h, th.Column)
			}
			j := k - 1
			if folded && j == keep {
				return line{}.add(fmt.Sprintf("   … %d more %s …", len(c.WRs)-keep-1, c.WRs[j].Opcode), th.Dim)
			}
			if folded && j == keep+1 {
				j = len(c.WRs) - 1
			}
			return wrLine(j+1, c.WRs[j], cols, th)
		})
	}
	return &z
}

// waitLines are the chains built but not posted: their thread waits for
// SQEs (svcrdma_sq_full said how many).
func waitLines(m *Model, th Theme) []line {
	var out []line
	for _, w := range m.Snap.SQ.Waiters {
		task, _, _ := strings.Cut(w, ":")
		if n, ok := m.facts.sqNeed[task]; ok {
			out = append(out, line{}.add(fmt.Sprintf("… %s waits to post %d WQEs: sc_sq_avail %d", task, n, m.Snap.SQ.Avail), th.Alarm))
		}
	}
	return out
}

func wrHeader(cols wrCols) string {
	h := fmt.Sprintf("%3s %-13s %3s %7s", "#", "opcode", "sge", "bytes")
	if cols.remote {
		h += fmt.Sprintf(" %-15s", "remote_addr")
	}
	if cols.rkey {
		h += fmt.Sprintf(" %-10s", "rkey")
	}
	return h
}

// wrLine is one WR: opcode, SGE count, length, remote address and rkey,
// and what marks it.
func wrLine(n int, w snap.WR, cols wrCols, th Theme) line {
	send := strings.HasPrefix(w.Opcode, "SEND")
	st := th.Base
	switch {
	case w.Signaled:
		st = th.Signaled
	case send:
		st = th.Send
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%3d %-13s %3d %7d", n, w.Opcode, len(w.SGEs), w.Bytes)
	if cols.remote {
		fmt.Fprintf(&b, " %-15s", w.Remote)
	}
	if cols.rkey {
		fmt.Fprintf(&b, " %-10s", w.RKey)
	}
	l := line{}.add(b.String(), st)
	if send {
		l = l.add(" ◀ Send", th.Send)
	}
	if w.Signaled {
		cqe := w.CQE
		if l.width()+3+len(cqe) > cols.w {
			cqe = strings.TrimPrefix(cqe, "svc_rdma_")
		}
		l = l.add(" ◆ "+cqe, th.Signaled)
	}
	return l
}
