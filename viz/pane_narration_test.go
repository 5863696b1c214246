package viz

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/snap"
)

// lessonText is a lesson's narration as the REPL hands it to the views:
// the step and its command, how the last step went, then a long text.
func lessonText() string {
	var b strings.Builder
	b.WriteString("Building a read segment · step 3 of 12 · ⏎ until svc_rdma_build_read_segment\n")
	b.WriteString("last step (complete): ✗ calls[0].state is \"sent\", expected \"replied\"\n")
	for i := range 9 {
		fmt.Fprintf(&b, "Sentence %d of a paragraph long enough to need several lines in any pane. ", i)
	}
	b.WriteString("\n\nThe very last words.")
	return b.String()
}

// In lesson mode the narration has a pane of its own, whole: its last
// words and the verdict show at the sizes a class uses, and no empty
// Packets pane takes room while no capture is loaded.
func TestLessonNarrationWhole(t *testing.T) {
	for _, sz := range [][2]int{{160, 48}, {200, 60}, {100, 40}} {
		m := NewModel(0)
		m.Update(stateRead3(t).Snapshot(), nil)
		m.Narration = lessonText()
		_, got, placed := renderPlaced(t, m, NewTheme(256), sz[0], sz[1])
		screen := strings.Join(got, "\n")
		for _, want := range []string{"step 3 of 12", "✗ calls[0].state", "Sentence 8", "The very last words."} {
			if !strings.Contains(screen, want) {
				t.Errorf("%dx%d: %q not on the screen:\n%s", sz[0], sz[1], want, screen)
			}
		}
		if strings.Contains(screen, "no capture loaded") {
			t.Errorf("%dx%d: an empty Packets pane:\n%s", sz[0], sz[1], screen)
		}
		narr := false
		for _, p := range placed {
			narr = narr || p.Pane == PaneNarration
			if p.Pane == PanePackets {
				t.Errorf("%dx%d: Packets pane placed with no capture", sz[0], sz[1])
			}
		}
		if !narr {
			t.Errorf("%dx%d: no narration pane", sz[0], sz[1])
		}
		checkPlacements(t, placed, sz[0], sz[1])
	}
}

// A narration longer than its pane scrolls, and ↓ says there is more.
func TestLessonNarrationScrolls(t *testing.T) {
	m := NewModel(0)
	m.Narration = "head\n" + strings.Repeat("line\n", 200) + "the end"
	m.View.Selected = PaneNarration
	_, got := render(t, m, NewTheme(256), 160, 48)
	if strings.Contains(strings.Join(got, "\n"), "the end") || !strings.Contains(strings.Join(got, "\n"), "↓") {
		t.Fatalf("a long narration all on one screen, or no ↓:\n%s", strings.Join(got, "\n"))
	}
	m.View.Scroll[PaneNarration] = 1 << 16
	_, got = render(t, m, NewTheme(256), 160, 48)
	if !strings.Contains(strings.Join(got, "\n"), "the end") {
		t.Errorf("scrolled to the bottom, the end is not shown:\n%s", strings.Join(got, "\n"))
	}
}

// A replay's account of its step stays in the Events pane, as before.
func TestReplayNarrationStaysInEvents(t *testing.T) {
	m := NewModel(0)
	m.Can.Replay = true
	m.Narration = "frame 1: a step"
	_, _, placed := renderPlaced(t, m, NewTheme(256), 160, 48)
	for _, p := range placed {
		if p.Pane == PaneNarration {
			t.Fatal("a replay's narration got the lesson pane")
		}
	}
}

// The R/W contexts pane's counters never contradict each other: a lab
// says how its gets went, a replay (which sees no cache) and an older
// file without the counts say only how many were created.
func TestRWCountersAgree(t *testing.T) {
	lab := stateRead3(t).Snapshot()
	replay := lab
	replay.Recent = &snap.Recent{Sends: []snap.SendDone{{Pos: 1, OK: true}}}
	old := lab
	old.Recent = nil
	created := lab.RWCtxts.Created
	for name, c := range map[string]struct {
		s    snap.Snapshot
		want string
	}{
		"lab":      {lab, fmt.Sprintf("created %d · got %d new, 0 reused", created, created)},
		"replay":   {replay, fmt.Sprintf("created %d\n", created)},
		"old file": {old, fmt.Sprintf("created %d\n", created)},
	} {
		m := NewModel(0)
		m.Update(c.s, nil)
		m.View.Zoomed, m.View.Selected = true, PaneRW
		_, got := render(t, m, NewTheme(256), 80, 24)
		if text := strings.Join(got, "\n") + "\n"; !strings.Contains(text, c.want) {
			t.Errorf("%s: no %q:\n%s", name, c.want, text)
		}
	}
}
