package viz

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine"
)

// stateRaceNow: the race the moment it happens: both replies posted
// without the post lock, position 2 first; its Send completes while the
// position-1 Send is still queued and both threads are still inside
// svc_rdma_sendto (their DRC entries have no c_pos yet).
func stateRaceNow(t testing.TB) *engine.Lab {
	l := newLab(t, func(s *engine.Settings) { s.Threads = 2; s.PostLock = false })
	for range 2 {
		must[any](t)(l.Write(64, engine.ChunkOpts{Inline: true}))
	}
	must[int](t)(l.Complete(2, nil))
	stepThreadUntil(t, l, "nfsd0", "sc_post_seq")
	stepThreadUntil(t, l, "nfsd1", "svc_rdma_post_send")
	stepThreadUntil(t, l, "nfsd1", "rq_reply_pos")
	stepThreadUntil(t, l, "nfsd0", "rq_reply_pos")
	must[int](t)(l.Complete(1, nil))
	return l
}

// The positions pane flags the race when it happens, not once the
// threads have returned: position 1 is behind xpt_acked_pos 2 while its
// Send is still queued.
func TestRaceFlaggedWhenItHappens(t *testing.T) {
	l := stateRaceNow(t)
	snap := l.Snapshot()
	if snap.Positions.AckedPos != 2 {
		t.Fatalf("xpt_acked_pos %d, want 2", snap.Positions.AckedPos)
	}
	m := modelOf(l)
	m.View.Layout, m.View.Selected = LayoutPositions, PanePositions
	_, rows := render(t, m, NewTheme(256), 80, 24)
	screen := strings.Join(rows, "\n")
	for _, want := range []string{"  1 0x5eed0010 WRITE    ! acked, but its Send is still queued: NOT delivered", "  2 0x5eed0011 WRITE    ● delivered"} {
		if !strings.Contains(screen, want) {
			t.Errorf("no %q in\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "no position yet") {
		t.Errorf("a posted reply shows no position:\n%s", screen)
	}
	// The snapshot (show positions) says where the positions come from.
	for _, r := range snap.Positions.Replies {
		if !r.PosFromRqst || r.Pos == 0 || !r.Inflight {
			t.Errorf("reply %s: pos %d from rq_reply_pos %v, in flight %v", r.XID, r.Pos, r.PosFromRqst, r.Inflight)
		}
	}
}
