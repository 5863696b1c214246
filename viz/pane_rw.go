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
	lines := []line{line{}.add(fmt.Sprintf("created %d · got %d new, %d reused", rw.Created, f.rwNew, f.rwReuse), th.Base)}
	if len(rw.InUse) == 0 {
		lines = append(lines, line{}.add("none in use", th.Dim))
	}
	for _, c := range rw.InUse {
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
		lines = append(lines, l.add(" "+c.Where+" ", th.Base).add(origin, ost))
	}
	cache := "cache: empty"
	if len(rw.Cached) > 0 {
		ids := make([]string, len(rw.Cached))
		for i, id := range rw.Cached {
			ids[i] = fmt.Sprintf("rw#%d", id)
		}
		cache = "cache (top first): " + strings.Join(ids, " ")
	}
	lines = append(lines, line{}.add(cache, th.Dim))
	m.View.Scroll[PaneRW] = drawLines(s, r, lines, m.View.Scroll[PaneRW], th.Dim)
}
