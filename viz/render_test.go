package viz

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// render draws m on a w×h simulation screen and returns the screen and
// its rows as text (trailing spaces cut).
func render(t testing.TB, m *Model, th Theme, w, h int) (tcell.SimulationScreen, []string) {
	t.Helper()
	s, r, _ := renderPlaced(t, m, th, w, h)
	return s, r
}

// renderPlaced is render that also returns where Draw placed things (what
// a click needs).
func renderPlaced(t testing.TB, m *Model, th Theme, w, h int) (tcell.SimulationScreen, []string, []Placement) {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Fini)
	s.SetSize(w, h)
	placed := Draw(s, m, th)
	s.Show()
	return s, rows(s), placed
}

// rows is the shown screen, one string a row, trailing spaces cut.
func rows(s tcell.SimulationScreen) []string {
	cells, w, h := s.GetContents()
	out := make([]string, h)
	for y := 0; y < h; y++ {
		var b strings.Builder
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteRune(' ')
				continue
			}
			b.WriteRune(c.Runes[0])
		}
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}
