package viz

import (
	"fmt"
	"math"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine/snap"
)

// positionsPane draws the reply-position patch: a number line with every
// cached reply at its position, sc_post_seq (P) and xpt_acked_pos (A), the
// replies the DRC now knows were delivered, and the Send completions in the
// order they came back: one that comes back behind the acked position is
// where, without sc_post_lock, the acknowledgement ran ahead.
type positionsPane struct{}

func (positionsPane) Title(m *Model, w int) string {
	p := m.Snap.Positions
	lock := "on"
	if !p.PostLock {
		lock = "OFF"
	}
	return fitTitle(w, "Positions", fmt.Sprintf(" · sc_post_seq %d · xpt_acked_pos %d · post lock %s", p.PostSeq, p.AckedPos, lock),
		fmt.Sprintf(" P%d A%d lock %s", p.PostSeq, p.AckedPos, lock))
}

// replyMark is how a reply shows on the number line.
func replyMark(r snap.Reply, premature bool, th Theme) span {
	switch {
	case premature:
		return span{"!", th.Alarm}
	case r.Evicted:
		return span{"×", th.Dim}
	case r.Acked:
		return span{"●", th.Good}
	}
	return span{"○", th.Base}
}

func (positionsPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	p := m.Snap.Positions
	if !p.Enabled {
		drawLines(s, r, []line{line{}.add("reply positions are off (set positions on)", th.Dim)}, 0, th.Dim)
		return
	}
	queued := queuedPositions(m.Snap.Chains)
	lines := numberLine(p, queued, r.W, th)
	lines = append(lines, sendOrder(m.facts.sends, th))
	wide := r.W >= 56
	head := fmt.Sprintf("%3s %-10s %s", "pos", "xid", "delivered?")
	if wide {
		head = fmt.Sprintf("%3s %-10s %-8s %s", "pos", "xid", "proc", "delivered?")
	}
	lines = append(lines, line{}.add(head, th.Column))
	if len(p.Replies) == 0 {
		lines = append(lines, line{}.add("no cached reply yet", th.Dim))
	}
	var z lazyLines
	z.addLines(lines...)
	z.add(len(p.Replies), func(i int) line { // thousands, from a file: only those in view
		rp := p.Replies[i]
		return replyLine(rp, queued[rp.Pos], wide, th)
	})
	m.View.Scroll[PanePositions] = drawLazy(s, r, &z, m.View.Scroll[PanePositions], th.Dim)
}

// queuedPositions are the reply positions whose Send is still on the SQ.
func queuedPositions(chains []snap.Chain) map[uint64]bool {
	out := map[uint64]bool{}
	for _, c := range chains {
		if c.Pos > 0 {
			out[c.Pos] = true
		}
	}
	return out
}

// numberLine draws positions lo..hi: tick labels, the axis with each reply,
// and the P and A markers on their own row.
func numberLine(p snap.Positions, queued map[uint64]bool, w int, th Theme) []line {
	// Positions may come from a file or a socket: +1 saturates, and every
	// loop below runs over the span shown, never up to hi.
	hi := next(max(p.PostSeq, p.AckedPos))
	for _, r := range p.Replies {
		hi = max(hi, next(r.Pos))
	}
	hi = max(hi, 3)
	// Spread the positions over the width, 3 to 8 cells apart; when even
	// 3 is too many, show the newest ones.
	step := min(8, max(3, (w-2)/int(min(hi, 1<<16))))
	span64 := uint64(max((w-2)/step, 1))
	lo := uint64(0)
	if hi > span64 {
		lo = hi - span64
	}
	col := func(pos uint64) int { return int(pos-lo) * step }
	n := int(hi-lo)*step + 1
	ticks := []rune(repeat(" ", n))
	for i := uint64(0); i <= hi-lo; i++ {
		pos := lo + i
		label := []rune(fmt.Sprint(pos))
		c := col(pos)
		if c+len(label) <= n {
			copy(ticks[c:], label)
		}
	}
	axis := make(line, 0, n)
	marks := map[int]span{}
	for _, r := range p.Replies {
		if r.Pos >= lo && r.Pos <= hi {
			marks[col(r.Pos)] = replyMark(r, r.Acked && queued[r.Pos], th)
		}
	}
	for c := 0; c < n; c++ {
		if sp, ok := marks[c]; ok {
			axis = append(axis, sp)
		} else if c%step == 0 {
			axis = append(axis, span{"┼", th.Dim})
		} else {
			axis = append(axis, span{"─", th.Dim})
		}
	}
	axis = axis.add("▶", th.Dim)
	// P and A on one row; when they share a position A goes first and P
	// one cell right.
	row := []span{}
	padTo := func(c int) {
		if w := c - line(row).width(); w > 0 {
			row = append(row, span{repeat(" ", w), th.Base})
		}
	}
	ac, pc := col(max(p.AckedPos, lo)), col(max(p.PostSeq, lo))
	if pc <= ac {
		pc = ac + 1
	}
	padTo(ac)
	row = append(row, span{"A", th.Acked})
	padTo(pc)
	row = append(row, span{"P", th.PostSeq})
	if key := " A=xpt_acked_pos P=sc_post_seq"; line(row).width()+len(key) <= w {
		row = append(row, span{key, th.Dim})
	}
	return []line{line{}.add(string(ticks), th.Dim), axis, line(row)}
}

// next is pos+1, or pos when that would wrap.
func next(pos uint64) uint64 {
	if pos == math.MaxUint64 {
		return pos
	}
	return pos + 1
}

// sendOrder lists the Send completions as they came back; one whose
// position is behind an earlier one is marked ↩: with a plain store the
// acked position would have stepped back there.
func sendOrder(sends []sendDone, th Theme) line {
	l := line{}.add("Send completions:", th.Base)
	if len(sends) == 0 {
		return l.add(" none yet", th.Dim)
	}
	var top uint64
	for _, sd := range sends {
		switch {
		case !sd.ok:
			l = l.add(fmt.Sprintf(" %d✗", sd.pos), th.Alarm)
		case sd.pos < top:
			l = l.add(fmt.Sprintf(" %d↩", sd.pos), th.Alarm)
		default:
			l = l.add(fmt.Sprintf(" %d✓", sd.pos), th.Good)
		}
		top = max(top, sd.pos)
	}
	return l
}

// replyLine says whether a cached reply is known delivered; acked while
// its Send is still queued is the race the post lock prevents.
func replyLine(r snap.Reply, queued, wide bool, th Theme) line {
	mark := replyMark(r, r.Acked && queued, th)
	head := fmt.Sprintf("%3d %-10s ", r.Pos, r.XID)
	if wide {
		head = fmt.Sprintf("%3d %-10s %-8s ", r.Pos, r.XID, fit(r.Proc, 8))
	}
	l := line{}.add(head, th.Base).add(mark.text, mark.st)
	var what string
	switch {
	case r.Acked && queued && wide:
		what = " acked, but its Send is still queued: NOT delivered"
	case r.Acked && queued:
		what = " NOT delivered"
	case r.Evicted:
		what = " delivered, evicted"
	case r.Acked && wide:
		what = " delivered (pos ≤ acked)"
	case r.Acked:
		what = " delivered"
	case r.Pos == 0:
		what = " no position yet"
	default:
		what = " not yet acked"
	}
	st := mark.st
	if st == th.Base {
		st = th.Dim
	}
	return l.add(strings.TrimRight(what, " "), st)
}
