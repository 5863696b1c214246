package viz

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/snap"
)

// The panes draw what happened lately from the snapshot's Recent, with
// no event to parse it back from: an R/W context's origin and the gets,
// what a waiting thread needs, and the order Send completions came in.
func TestFactsFromSnapshot(t *testing.T) {
	m := NewModel(0)
	m.Update(snap.Snapshot{
		RWCtxts:   snap.RWCtxts{InUse: []snap.RWCtxt{{ID: 3, Type: "MULTI_WR", NEnts: 1, Where: "read cc"}}, Created: 1},
		SQ:        snap.SQ{Depth: 4, Avail: 1, Waiters: []string{"nfsd1: svc_rdma_sq_wait"}},
		Positions: snap.Positions{Enabled: true},
		Recent: &snap.Recent{RWNew: 1, RWReused: 2, RWGot: map[int]bool{3: true}, SQNeed: map[string]int{"nfsd1": 3},
			Sends: []snap.SendDone{{Pos: 2, OK: true}, {Pos: 1, OK: true}, {Pos: 3}}},
	}, nil)
	_, rows := render(t, m, NewTheme(256), 200, 60)
	m.View.Layout = LayoutPositions
	_, more := render(t, m, NewTheme(256), 200, 60)
	m.View.Layout = LayoutOverview
	screen := strings.Join(append(rows, more...), "\n")
	for _, want := range []string{"got 1 new, 2 reused", "read cc reused", "nfsd1 waits, needs 3 SQEs", "Send completions: 2✓ 1↩ 3✗"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	// An older snapshot without Recent draws without the facts.
	m.Update(snap.Snapshot{RWCtxts: snap.RWCtxts{InUse: []snap.RWCtxt{{ID: 3, Type: "MULTI_WR", Where: "read cc"}}}}, nil)
	_, rows = render(t, m, NewTheme(256), 200, 60)
	if screen := strings.Join(rows, "\n"); strings.Contains(screen, "reused") && !strings.Contains(screen, "0 reused") {
		t.Errorf("a snapshot without Recent drew an origin:\n%s", screen)
	}
}
