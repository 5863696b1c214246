package viz

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// rwPane draws the R/W contexts: those in use, with the chunk context that
// owns them and whether their last get reused a cached one, then the cache.
type rwPane struct{}

func (rwPane) Title(m *Model, w int) string {
	rw := m.Snap.RWCtxts
	return fitTitle(w, "R/W contexts", fmt.Sprintf(" · %d in use · %d cached", len(rw.InUse), len(rw.Cached)),
		fmt.Sprintf(" %d used %d cached", len(rw.InUse), len(rw.Cached)))
}

func (rwPane) Draw(s tcell.Screen, r Rect, m *Model, th Theme) {
	if r.Empty() {
		return
	}
	rw := m.Snap.RWCtxts
	f := &m.facts
	counts := fmt.Sprintf("created %d", rw.Created)
	if f.rwGets {
		counts += fmt.Sprintf(" · got %d new, %d reused", f.rwNew, f.rwReuse)
	}
	lines := []line{line{}.add(counts, th.Base)}
	if len(rw.InUse) == 0 {
		lines = append(lines, line{}.add("none in use", th.Dim))
	}
	var z lazyLines
	z.addLines(lines...)
	z.add(len(rw.InUse), func(i int) line { // thousands, from a file: only those in view
		c := rw.InUse[i]
		origin, ost := "", th.Dim
		if reused, ok := f.rwReused[c.ID]; ok {
			origin = "new"
			if reused {
				origin, ost = "reused", th.Good
			}
		}
		l := line{}.add(fmt.Sprintf("rw#%-2d", c.ID), th.Column).add(fmt.Sprintf(" %-9s %3d", c.Type, c.NEnts), th.Base)
		if c.Chained {
			l = l.add("↪", th.ChainLink)
		} else {
			l = l.add(" ", th.Base)
		}
		return l.add(" "+c.Where+" ", th.Base).add(origin, ost)
	})
	z.addLines(line{}.add(cacheLine(rw.Cached, r.W), th.Dim))
	m.View.Scroll[PaneRW] = drawLazy(s, r, &z, m.View.Scroll[PaneRW], th.Dim)
}

// cacheLine lists the cached contexts, top first, as many as fit in w
// columns: the list may hold thousands.
func cacheLine(cached []int, w int) string {
	if len(cached) == 0 {
		return "cache: empty"
	}
	var b strings.Builder
	b.WriteString("cache (top first):")
	for _, id := range cached {
		if b.Len() > w {
			break
		}
		fmt.Fprintf(&b, " rw#%d", id)
	}
	return b.String()
}
