package viz

import "github.com/gdamore/tcell/v2"

// Pane is one part of the picture. Draw fills r (the area under the
// pane's title row) from m and never draws outside it.
type Pane interface {
	// Title is the pane's title row, fitted to w columns where it can.
	Title(m *Model, w int) string
	Draw(s tcell.Screen, r Rect, m *Model, th Theme)
}

// paneOf returns the pane drawn for id.
func paneOf(id PaneID) Pane {
	switch id {
	case PanePages:
		return pagesPane{}
	case PaneRW:
		return rwPane{}
	case PaneChain:
		return chainPane{}
	case PaneSQ:
		return sqPane{}
	case PanePositions:
		return positionsPane{}
	case PanePackets:
		return packetsPane{}
	case PaneNarration:
		return narrationPane{}
	}
	return eventsPane{}
}

// Draw draws a whole frame of m on s (without showing it) and returns
// where each pane went, for mouse hits. Only cells that changed since the
// last frame are written to s.
func Draw(s tcell.Screen, m *Model, th Theme) []Placement {
	var r renderer
	return r.draw(s, m, th)
}

// renderer keeps the frame buffer from one frame to the next.
type renderer struct{ off offscreen }

func (rd *renderer) draw(screen tcell.Screen, m *Model, th Theme) []Placement {
	rd.off.reset(screen, th.Base)
	placed := drawFrame(&rd.off, m, th)
	rd.off.flush()
	rd.off.Screen = nil // the buffer outlives the frame, the screen need not
	return placed
}

// drawFrame draws every part of a frame on s.
func drawFrame(s tcell.Screen, m *Model, th Theme) []Placement {
	w, h := s.Size()
	area := Rect{0, 0, w, h}
	if h >= 4 {
		drawTitleBar(s, Rect{0, 0, w, 1}, m, th)
		area.Y, area.H = 1, h-1
	}
	if h >= 6 {
		drawStatusBar(s, Rect{0, h - 1, w, 1}, m, th)
		area.H--
	}
	var placed []Placement
	if lessonMode(m) {
		placed = lessonArrange(m, area)
	} else {
		placed = arrange(m.View, area)
	}
	for _, p := range placed {
		drawPane(s, p, m, th)
	}
	if m.View.Help {
		drawHelp(s, Rect{0, 0, w, h}, m, th)
	}
	return placed
}

// drawPane draws a pane's title row, its body and the separator on its
// right.
func drawPane(s tcell.Screen, p Placement, m *Model, th Theme) {
	r := p.Rect
	if r.Empty() {
		return
	}
	pane := paneOf(p.Pane)
	st, mark := th.Header, " "
	if p.Pane == m.View.Selected {
		st, mark = th.HeaderSel, "▸"
	}
	title := mark + pane.Title(m, r.W-1)
	if m.View.Zoomed {
		title += " [zoom: z]"
	}
	fill(s, Rect{r.X, r.Y, r.W, 1}, st)
	put(s, r.X, r.Y, r.Right(), fit(title, r.W), st)
	body := Rect{r.X, r.Y + 1, r.W, r.H - 1}
	pane.Draw(s, body, m, th)
	if r.Right() < screenWidth(s) {
		for y := r.Y; y < r.Bottom(); y++ {
			s.Put(r.Right(), y, "│", th.Sep)
		}
	}
}

// fitTitle is name+long when it fits w, else name+short.
func fitTitle(w int, name, long, short string) string {
	if len([]rune(name+long)) <= w {
		return name + long
	}
	return name + short
}

func screenWidth(s tcell.Screen) int {
	w, _ := s.Size()
	return w
}
