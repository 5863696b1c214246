package viz

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// goldenState is an engine state the golden tests draw.
type goldenState struct {
	name string
	lab  func(testing.TB) *Model
}

func goldenStates() []goldenState {
	return []goldenState{
		{"read3", func(t testing.TB) *Model { return modelOf(stateRead3(t)) }},
		{"chained", func(t testing.TB) *Model { return modelOf(stateChained(t)) }},
		{"starved", func(t testing.TB) *Model { return modelOf(stateStarved(t)) }},
		{"race", func(t testing.TB) *Model { return modelOf(stateRace(t)) }},
	}
}

// checkGolden compares rows with testdata/name.golden; with
// RDMALAB_UPDATE_GOLDEN=1 it writes the file instead.
func checkGolden(t *testing.T, name string, got []string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	text := strings.Join(got, "\n") + "\n"
	if os.Getenv("RDMALAB_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with RDMALAB_UPDATE_GOLDEN=1 to create it)", err)
	}
	wantRows := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	for i := 0; i < max(len(got), len(wantRows)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(wantRows) {
			w = wantRows[i]
		}
		if g != w {
			t.Errorf("%s row %d:\n got %q\nwant %q", path, i, g, w)
		}
	}
}

func TestGolden(t *testing.T) {
	sizes := [][2]int{{80, 24}, {200, 60}}
	for _, st := range goldenStates() {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s_%dx%d", st.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				_, got := render(t, st.lab(t), NewTheme(256), sz[0], sz[1])
				checkGolden(t, name, got)
			})
		}
	}
}

// The layouts that put one state's pane first, at the smallest size.
func TestGoldenLayouts(t *testing.T) {
	states := append(goldenStates(),
		goldenState{"racelate", func(t testing.TB) *Model { return modelOf(stateRaceLate(t)) }},
		goldenState{"write2", func(t testing.TB) *Model { return modelOf(stateWrite2(t)) }})
	for _, tc := range []struct {
		state  string
		layout Layout
	}{
		{"chained", LayoutRead},
		{"starved", LayoutWrite},
		{"write2", LayoutWrite},
		{"race", LayoutPositions},
		{"racelate", LayoutPositions},
		{"read3", LayoutPackets},
	} {
		name := fmt.Sprintf("%s_%s_80x24", tc.state, strings.ReplaceAll(tc.layout.String(), " ", "_"))
		t.Run(name, func(t *testing.T) {
			var m *Model
			for _, st := range states {
				if st.name == tc.state {
					m = st.lab(t)
				}
			}
			m.View.Layout = tc.layout
			m.View.Selected = layouts(tc.layout)[0].cells[0].pane
			_, got := render(t, m, NewTheme(256), 80, 24)
			checkGolden(t, name, got)
		})
	}
}

// find returns the first cell at or after row y0 whose text is r, and its
// style.
func find(t *testing.T, s tcell.SimulationScreen, r string, y0 int) (x, y int, st tcell.Style) {
	t.Helper()
	cells, w, h := s.GetContents()
	for y := y0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) > 0 && string(c.Runes[0]) == r {
				return x, y, c.Style
			}
		}
	}
	t.Fatalf("no %q on screen", r)
	return
}

func styleAt(s tcell.SimulationScreen, x, y int) tcell.Style {
	cells, w, _ := s.GetContents()
	return cells[y*w+x].Style
}

// Key cells carry the style that marks them, and a glyph besides.
func TestKeyCellStyles(t *testing.T) {
	th := NewTheme(256)
	t.Run("signaled WR", func(t *testing.T) {
		s, _ := render(t, modelOf(stateRead3(t)), th, 80, 24)
		x, y, st := find(t, s, "◆", 0)
		if st != th.Signaled {
			t.Errorf("◆ style %v, want Signaled", st)
		}
		if got := styleAt(s, 2, y); got != th.Signaled {
			t.Errorf("the signaled WR's number at (2,%d) has style %v, want Signaled", y, got)
		}
		if x < 30 {
			t.Errorf("◆ at column %d, before the WR's columns", x)
		}
		if _, _, st := find(t, s, "▲", 0); st != th.Cursor {
			t.Errorf("cursor style %v, want Cursor", st)
		}
	})
	t.Run("acked marker", func(t *testing.T) {
		m := modelOf(stateRace(t))
		m.View.Layout, m.View.Selected = LayoutPositions, PanePositions
		s, rows := render(t, m, th, 80, 24)
		ax, ay, st := find(t, s, "A", 2)
		if st != th.Acked {
			t.Errorf("A at (%d,%d) style %v, want Acked (row %q)", ax, ay, st, rows[ay])
		}
		px, _, pst := find(t, s, "P", ay)
		if pst != th.PostSeq {
			t.Errorf("P style %v, want PostSeq", pst)
		}
		// Both positions are 2: A on the 2, P one cell right.
		if px != ax+1 {
			t.Errorf("P at column %d, want %d", px, ax+1)
		}
		if _, _, st := find(t, s, "!", 2); st != th.Alarm {
			t.Errorf("premature reply mark style %v, want Alarm", st)
		}
	})
	t.Run("starved gauge", func(t *testing.T) {
		s, _ := render(t, modelOf(stateStarved(t)), th, 80, 24)
		if _, _, st := find(t, s, "█", 0); st != th.Alarm {
			t.Errorf("gauge style %v, want Alarm when threads wait", st)
		}
	})
}

// NO_COLOR: the monochrome picture has the same text as the coloured one
// (glyphs carry the meaning) and no colour in any cell.
func TestNoColor(t *testing.T) {
	mono := NewTheme(0)
	if !mono.Mono {
		t.Fatal("NewTheme(0) is not monochrome")
	}
	for _, st := range goldenStates() {
		t.Run(st.name, func(t *testing.T) {
			_, colour := render(t, st.lab(t), NewTheme(256), 80, 24)
			s, plain := render(t, st.lab(t), mono, 80, 24)
			if strings.Join(colour, "\n") != strings.Join(plain, "\n") {
				t.Error("the monochrome picture's text differs from the coloured one")
			}
			cells, _, _ := s.GetContents()
			for i, c := range cells {
				if c.Style.Foreground(tcell.ColorDefault).Background(tcell.ColorDefault) != c.Style {
					t.Fatalf("cell %d (%q) has a colour under NO_COLOR", i, string(c.Runes))
				}
			}
		})
	}
}

// Every size down to 1×1, every layout, zoomed or not, with help up or
// not: nothing panics and panes stay inside the screen and apart.
func TestAnySize(t *testing.T) {
	models := []*Model{NewModel(0), modelOf(stateChained(t)), modelOf(stateRace(t))}
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	th := NewTheme(256)
	for _, m := range models {
		for lay := Layout(0); lay < numLayouts; lay++ {
			for _, zoom := range []bool{false, true} {
				m.View = ViewState{Layout: lay, Zoomed: zoom, Help: zoom, Selected: PaneEvents}
				for w := 1; w <= 91; w += 9 {
					for h := 1; h <= 28; h += 3 {
						s.SetSize(w, h)
						checkPlacements(t, Draw(s, m, th), w, h)
					}
				}
			}
		}
	}
}

func checkPlacements(t *testing.T, placed []Placement, w, h int) {
	t.Helper()
	for i, p := range placed {
		r := p.Rect
		if r.X < 0 || r.Y < 0 || r.Right() > w || r.Bottom() > h {
			t.Fatalf("%dx%d: pane %d at %+v leaves the screen", w, h, p.Pane, r)
		}
		for _, q := range placed[i+1:] {
			if overlap(r, q.Rect) {
				t.Fatalf("%dx%d: panes %d %+v and %d %+v overlap", w, h, p.Pane, r, q.Pane, q.Rect)
			}
		}
	}
}

func overlap(a, b Rect) bool {
	return a.X < b.Right() && b.X < a.Right() && a.Y < b.Bottom() && b.Y < a.Bottom()
}

// At 80×24 the overview keeps the panes a class needs and drops the rest.
func TestOverviewAt80x24(t *testing.T) {
	placed := arrange(ViewState{Layout: LayoutOverview}, Rect{0, 1, 80, 22})
	got := map[PaneID]bool{}
	for _, p := range placed {
		got[p.Pane] = true
	}
	for _, p := range []PaneID{PanePages, PaneSQ, PaneChain, PanePositions, PaneEvents} {
		if !got[p] {
			t.Errorf("pane %d dropped at 80x24", p)
		}
	}
	if got[PanePackets] || got[PaneRW] {
		t.Errorf("placed %v: Packets and R/W should give way at 80x24", placed)
	}
}
