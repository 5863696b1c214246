package viz

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine"
)

// stateReadlist64k: `write 64k`, complete, recv, readlist: the 16 pages
// of the Read chunk posted, none landed.
func stateReadlist64k(t testing.TB) *engine.Lab {
	l := newLab(t, nil)
	must[any](t)(l.Write(65536, engine.ChunkOpts{}))
	must[int](t)(l.Complete(1, nil))
	l.Continue()
	return l
}

var shownRange = regexp.MustCompile(`pg(\d+)–pg(\d+) of (\d+)`)

// The labels under the page boxes name the boxes above them: at each
// size, the pages the title says are shown, one label per box, in order.
func TestPageLabelsNameTheirBoxes(t *testing.T) {
	l := stateReadlist64k(t)
	for _, size := range [][2]int{{120, 40}, {80, 24}, {40, 12}} {
		m := modelOf(l)
		if size[0] == 40 {
			m.View.Zoomed = true // the pages pane alone: at 40x12 nothing else fits
		}
		_, rows := render(t, m, NewTheme(256), size[0], size[1])
		first, last := 0, 0
		var labels []string
		for i, r := range rows {
			if g := shownRange.FindStringSubmatch(r); g != nil && first == 0 {
				fmt.Sscan(g[1], &first)
				fmt.Sscan(g[2], &last)
			}
			if first > 0 && strings.HasPrefix(r, "[") && i+1 < len(rows) {
				// The label row is the next one without the cursor.
				lr := rows[i+1]
				if strings.Contains(lr, "▲") && i+2 < len(rows) {
					lr = rows[i+2]
				}
				boxes := strings.Count(strings.Split(r, "│")[0], "[")
				f := strings.Fields(strings.Split(lr, "│")[0])
				if len(f) != boxes {
					t.Errorf("%dx%d: %d boxes, labels %q", size[0], size[1], boxes, lr)
				}
				labels = append(labels, f...)
			}
		}
		if first == 0 {
			t.Fatalf("%dx%d: no page range shown:\n%s", size[0], size[1], strings.Join(rows, "\n"))
		}
		var want []string
		for p := first; p <= last; p++ {
			want = append(want, fmt.Sprintf("pg%d", p))
		}
		if strings.Join(labels, " ") != strings.Join(want, " ") {
			t.Errorf("%dx%d: shown pg%d–pg%d, labels %q", size[0], size[1], first, last, labels)
		}
	}
}

// Pending and landed bytes differ in shape, not only in colour: under
// NO_COLOR (the mono theme) a posted Read's pages show ░, and the read
// chunk's digit once the Read landed.
func TestPendingBytesHaveTheirOwnGlyph(t *testing.T) {
	l := stateReadlist64k(t)
	boxRow := func() string {
		_, rows := render(t, modelOf(l), NewTheme(0), 120, 40)
		for _, r := range rows {
			if strings.HasPrefix(r, "[") {
				return strings.Split(r, "│")[0]
			}
		}
		t.Fatalf("no page boxes:\n%s", strings.Join(rows, "\n"))
		return ""
	}
	if r := boxRow(); !strings.Contains(r, "[░░░░]") || strings.Contains(r, "0") {
		t.Errorf("Reads posted, not landed: %q", r)
	}
	must[int](t)(l.Complete(-1, nil))
	if r := boxRow(); !strings.Contains(r, "[0000]") || strings.Contains(r, "░") {
		t.Errorf("Reads landed: %q", r)
	}
}
