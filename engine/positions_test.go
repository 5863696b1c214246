package engine

import (
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/xprt"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// stepThreadUntil steps one thread until an event of fn (any kind).
func stepThreadUntil(t *testing.T, l *Lab, thread, fn string) {
	t.Helper()
	for i := 0; i < 10000; i++ {
		if err := l.StepThread(thread); err != nil {
			t.Fatalf("%s: %v (looking for %s)", thread, err, fn)
		}
		if l.Last().Func == fn {
			return
		}
	}
	t.Fatalf("%s never reached %s", thread, fn)
}

// twoWrites gets two inline WRITEs received, one per thread, and runs
// nfsd0 to the point where it has its Send's position but has not posted.
func twoWrites(t *testing.T, lock bool) *Lab {
	l := newLab(t, func(s *Settings) { s.Threads = 2; s.PostLock = lock })
	for i := 0; i < 2; i++ {
		if _, err := l.Write(64, ChunkOpts{Inline: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Complete(2, nil); err != nil {
		t.Fatal(err)
	}
	stepThreadUntil(t, l, "nfsd0", "sc_post_seq")
	return l
}

// GC-20: without sc_post_lock two threads can post their Sends out of
// position order, and the acked position then runs ahead of a reply that
// was never delivered.
func TestGC20RaceWithoutPostLock(t *testing.T) {
	l := twoWrites(t, false)
	if l.Server.PostSeq != 1 {
		t.Fatalf("post_seq %d", l.Server.PostSeq)
	}
	// nfsd1 takes position 2 and posts first.
	stepThreadUntil(t, l, "nfsd1", "svc_rdma_post_send")
	stepThreadUntil(t, l, "nfsd1", "svc_rdma_post_send") // its return
	stepThreadUntil(t, l, "nfsd0", "svc_rdma_post_send")
	chains := l.Server.OutstandingChains()
	if len(chains) != 2 || chains[0].Seq != 2 || chains[1].Seq != 1 {
		t.Fatalf("SQ order: %+v, want Send#2 before Send#1", chains)
	}
	l.Continue()
	// Send#2 completes first: the acked position says 2 while reply 1
	// still waits on the Send Queue.
	if _, err := l.Complete(1, nil); err != nil {
		t.Fatal(err)
	}
	if l.Server.AckedPos != 2 {
		t.Fatalf("acked %d, want 2", l.Server.AckedPos)
	}
	snap := l.Snapshot()
	var premature bool
	for _, r := range snap.Positions.Replies {
		if r.Pos == 1 && r.Acked && r.SendQueued {
			premature = true
		}
		if r.Pos == 2 && r.SendQueued {
			t.Errorf("reply 2's Send completed, yet it says queued")
		}
	}
	if !premature {
		t.Fatalf("reply at position 1 should test acknowledged, its Send still queued: %+v", snap.Positions.Replies)
	}
	// Send#1 flushes: the reply the DRC thinks delivered never was.
	st := verbs.StatusWRFlushErr
	l.Complete(1, &st)
	if l.Server.AckedPos != 2 {
		t.Errorf("a flushed Send moved the acked position to %d", l.Server.AckedPos)
	}
}

// With sc_post_lock the second thread waits for the first to post, so the
// Send Queue holds the Sends in position order.
func TestGC20PostLockKeepsOrder(t *testing.T) {
	l := twoWrites(t, true)
	if l.Server.PostLock.Holder() != "nfsd0" {
		t.Fatalf("lock holder %q", l.Server.PostLock.Holder())
	}
	stepThreadUntil(t, l, "nfsd1", "spin_lock(sc_post_lock)")
	if l.Last().Kind != trace.Wait {
		t.Fatalf("nfsd1 should block on the lock: %v", l.Last())
	}
	if err := l.StepThread("nfsd1"); err == nil {
		t.Fatal("nfsd1 ran while nfsd0 held sc_post_lock")
	}
	l.Continue()
	chains := l.Server.OutstandingChains()
	if len(chains) != 2 || chains[0].Seq != 1 || chains[1].Seq != 2 {
		t.Fatalf("SQ order wrong: %+v", chains)
	}
	var acked []uint64
	for {
		if _, err := l.Complete(1, nil); err != nil {
			break
		}
		acked = append(acked, l.Server.AckedPos)
	}
	if len(acked) < 2 || acked[0] != 1 || acked[len(acked)-1] != 2 {
		t.Errorf("acked positions over time %v, want 1 then 2", acked)
	}
}

// GC-19: replies get positions in posting order, an RDMA_ERROR takes a
// number but gives no reply position, a successful Send completion
// acknowledges up to its position, a flush acknowledges nothing.
func TestGC19PositionsAndAcknowledgement(t *testing.T) {
	l := newLab(t, nil)
	wa, _ := l.Write(64, ChunkOpts{Inline: true})
	wb, _ := l.Write(64, ChunkOpts{Inline: true})
	one := uint32(2)
	bad, err := l.Call(xprt.CallSpec{Label: "version 2", Msg: nfsd.NullCall(), Vers: one})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Complete(3, nil); n != 3 {
		t.Fatalf("delivered %d client Sends", n)
	}
	l.Continue()
	if l.Server.PostSeq != 3 {
		t.Fatalf("post_seq %d, want 3 (two replies and an RDMA_ERROR)", l.Server.PostSeq)
	}
	if len(l.NFS.DRC) != 2 || l.NFS.DRC[0].XID != wa.XID || l.NFS.DRC[0].Pos != 1 || l.NFS.DRC[1].Pos != 2 {
		t.Fatalf("DRC %+v, want A at 1 and B at 2", l.NFS.DRC)
	}
	if l.Server.AckedPos != 0 {
		t.Fatalf("acked %d before any Send completed", l.Server.AckedPos)
	}
	if _, err := l.Complete(1, nil); err != nil {
		t.Fatal(err)
	}
	if l.Server.AckedPos != 1 || !wa.Done {
		t.Fatalf("after Send#1: acked %d, reply A delivered %v", l.Server.AckedPos, wa.Done)
	}
	acked := map[string]bool{}
	for _, r := range l.Snapshot().Positions.Replies {
		acked[r.XID] = r.Acked
	}
	if !acked[fmt.Sprintf("0x%x", wa.XID)] || acked[fmt.Sprintf("0x%x", wb.XID)] {
		t.Fatalf("acked flags %v: A must be acknowledged, B not", acked)
	}
	// The connection drops: Send#2 and the RDMA_ERROR flush.
	l.Disconnect()
	settle(t, l)
	if l.Server.AckedPos != 1 {
		t.Errorf("flushes moved the acked position to %d", l.Server.AckedPos)
	}
	if wb.Done || bad.Done {
		t.Errorf("flushed replies reached the client")
	}
}

// nfsd_cache_lookup evicts an entry whose reply the transport acknowledged,
// and only then.
func TestDRCEvictsAcknowledgedEntries(t *testing.T) {
	l := newLab(t, nil)
	wa, _ := l.Write(64, ChunkOpts{Inline: true})
	l.Complete(1, nil)
	l.Continue()
	if len(l.NFS.DRC) != 1 || l.NFS.DRC[0].Pos != 1 {
		t.Fatalf("DRC %+v", l.NFS.DRC)
	}
	// B arrives before A's Send completed: A stays.
	wb, _ := l.Write(64, ChunkOpts{Inline: true})
	l.Complete(1, nil) // B's Send; A's reply Send is still pending? deliver order decides
	l.Continue()
	settle(t, l)
	if !wa.Done || !wb.Done || l.Server.AckedPos != 2 {
		t.Fatalf("replies A %v B %v acked %d", wa.Done, wb.Done, l.Server.AckedPos)
	}
	// A third call's lookup now finds both acknowledged and evicts them.
	l.Write(64, ChunkOpts{Inline: true})
	l.Complete(1, nil)
	l.Continue()
	evicted := map[uint32]bool{}
	for _, e := range l.NFS.Evicted {
		evicted[e.XID] = true
	}
	if !evicted[wa.XID] || !evicted[wb.XID] {
		t.Fatalf("evicted %v, want A and B", evicted)
	}
	if len(l.NFS.DRC) != 1 || l.NFS.DRC[0].Pos != 3 {
		t.Fatalf("DRC after the lookup %+v, want only the new entry at position 3", l.NFS.DRC)
	}
	var seen bool
	for _, e := range l.History() {
		if e.Func == "nfsd_cache_evict" {
			seen = true
		}
	}
	if !seen {
		t.Error("no nfsd_cache_evict event")
	}
}

// GC-19 step 8: a reply whose ib_post_send fails still runs the reply-sent
// hook: the entry leaves flight with c_pos 0 and is never acked-evictable.
func TestGC19FailedPostLeavesPositionZero(t *testing.T) {
	l := newLab(t, nil)
	wa, _ := l.Write(64, ChunkOpts{Inline: true})
	if _, err := l.Complete(1, nil); err != nil {
		t.Fatal(err)
	}
	l.Server.Inject.PostSend = 1 // the reply's Send is the next post
	l.Continue()
	if l.Server.PostSeq != 1 || l.Rqsts[0].ReplyPos != 0 {
		t.Fatalf("sc_post_seq %d, rq_reply_pos %d; want the number consumed and no position", l.Server.PostSeq, l.Rqsts[0].ReplyPos)
	}
	if len(l.NFS.DRC) != 1 {
		t.Fatalf("DRC %+v", l.NFS.DRC)
	}
	e := l.NFS.DRC[0]
	if e.XID != wa.XID || e.Pos != 0 || e.Inflight {
		t.Fatalf("entry %+v: want c_pos 0, not in flight", *e)
	}
	if !hasEvent(l, trace.Point, "nfsd_cache_reply_sent", "c_pos", "0") {
		t.Errorf("nfsd_cache_reply_sent did not run")
	}
	l.Server.AckedPos = 1 << 40 // even a huge acked position
	if nfsd.Acked(e, l.Server) {
		t.Errorf("an entry at position 0 tests acknowledged")
	}
}
