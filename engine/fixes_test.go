package engine

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/xprt"
)

// hasEvent reports whether the history holds an event of fn whose args
// include every key=value given.
func hasEvent(l *Lab, kind trace.Kind, fn string, kv ...string) bool {
	for _, e := range l.History() {
		if e.Kind != kind || e.Func != fn {
			continue
		}
		ok := true
		for i := 0; i+1 < len(kv); i += 2 {
			found := false
			for _, a := range e.Args {
				if a.Key == kv[i] && a.Val == kv[i+1] {
					found = true
				}
			}
			ok = ok && found
		}
		if ok {
			return true
		}
	}
	return false
}

// A QP granted more send SGEs than svcrdma asked for takes the WRs built
// for the grant: the rw core sizes them by cap.max_send_sge as returned,
// svcrdma re-reads sc_max_send_sges from it, and the provider enforces it.
func TestGrantedSendSGEsCarryTheReads(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.QPMaxSendSGE = 8 })
	x := l.Server
	if x.QP().Cap().MaxSendSGE != 8 || x.QPMaxReadSGE != 8 || x.MaxSendSGEs != 8 {
		t.Fatalf("cap %d, max_read_sge %d, sc_max_send_sges %d; want 8 each", x.QP().Cap().MaxSendSGE, x.QPMaxReadSGE, x.MaxSendSGEs)
	}
	if _, err := l.Write(65536, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if !hasEvent(l, trace.Point, "rdma_rw_init_map_wrs", "nr_ops", "2", "max_sge", "8") {
		t.Errorf("the 16-page Read was not built as 2 WRs of 8 SGEs")
	}
	if x.Close {
		dumpTail(t, l, 20)
		t.Fatalf("the transport closed: the QP refused what it granted")
	}
	if got := l.NFS.Lookup("data").Data; !bytes.Equal(got, Pattern(l.Set.Seed, 0, 65536)) {
		t.Errorf("stored %d bytes that differ from the client's", len(got))
	}
	checkIdle(t, l)
}

// svc_rdma_free drains the QP first (ib_drain_qp): the Receives the
// disconnect flushes are handled before the transport's queues and caches
// go, never on a freed transport.
func TestFreeWaitsForReceiveFlushes(t *testing.T) {
	l := newLab(t, nil)
	l.Server.Inject.DMAMap = 1
	if _, err := l.Write(4096, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Complete(1, nil); err != nil {
		t.Fatal(err)
	}
	l.Continue()
	flushes, lastFlush, freed := 0, -1, -1
	for i, e := range l.History() {
		switch {
		case e.Kind == trace.Call && e.Func == "svc_rdma_wc_receive" && hasArg(e, "status", "WR_FLUSH_ERR"):
			flushes++
			lastFlush = i
		case e.Func == "svc_rdma_flush_recv_queues":
			freed = i
		}
	}
	if flushes != l.Server.FCCredits || freed < 0 || lastFlush > freed {
		dumpTail(t, l, 10)
		t.Fatalf("%d Receive flushes (want %d), the last at event %d, svc_rdma_flush_recv_queues at %d: want every flush first",
			flushes, l.Server.FCCredits, lastFlush, freed)
	}
	if !hasEvent(l, trace.Return, "svc_rdma_free") {
		t.Errorf("svc_rdma_free did not return")
	}
}

func hasArg(e trace.Event, key, val string) bool {
	for _, a := range e.Args {
		if a.Key == key && a.Val == val {
			return true
		}
	}
	return false
}

// On the MR path the RDMA op's one SGE is the MR's range: the snapshot
// names the MR and its IOVA, not a page.
func TestMRPathSGENamesTheMR(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.MaxSGLRd = 8 })
	if _, err := l.Write(65536, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Complete(1, nil); err != nil {
		t.Fatal(err)
	}
	l.Continue()
	chains := l.Snapshot().Chains
	if len(chains) != 1 || len(chains[0].WRs) != 2 {
		t.Fatalf("chains %+v, want one REG_MR → RDMA_READ chain", chains)
	}
	reg, rd := chains[0].WRs[0], chains[0].WRs[1]
	if reg.Opcode != "REG_MR" || len(reg.SGEs) != 16 || reg.SGEs[0].Page == "NULL" {
		t.Errorf("REG_MR lists %d pages from %+v", len(reg.SGEs), reg.SGEs)
	}
	c := l.Server.OutstandingChains()[0]
	mr := c.First.Next.MR
	want := SGESnap{Page: "mr#1", Len: 65536, IOVA: fmt.Sprintf("0x%x", mr.IOVA())}
	if len(rd.SGEs) != 1 || rd.SGEs[0] != want || mr.IOVA() == 0 {
		t.Errorf("RDMA_READ SGEs %+v, want [%+v]", rd.SGEs, want)
	}
}

// A call chunk completes through svc_rdma_read_complete_pzrc, as the
// kernel names it; several Read chunks through _multiple.
func TestReadCompleteNames(t *testing.T) {
	l := newLab(t, nil)
	if _, err := l.LongCall(10000, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if !hasEvent(l, trace.Point, "svc_rdma_read_complete_pzrc") || hasEvent(l, trace.Point, "svc_rdma_read_complete_multiple") {
		t.Errorf("a long call did not complete through svc_rdma_read_complete_pzrc")
	}
	l = newLab(t, func(s *Settings) { s.Profile = "new2026" })
	msg := Pattern(1, 0, 400)
	if _, err := l.Call(xprt.CallSpec{Label: "two read chunks", Msg: msg, ReadChunks: []xprt.ReadChunkSpec{
		{Pos: 100, Len: 100, Segments: []xprt.SegSpec{{Len: 100}}},
		{Pos: 300, Len: 40, Segments: []xprt.SegSpec{{Len: 40}}},
	}}); err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if !hasEvent(l, trace.Point, "svc_rdma_read_complete_multiple") || hasEvent(l, trace.Point, "svc_rdma_read_complete_pzrc") {
		t.Errorf("two Read chunks did not complete through svc_rdma_read_complete_multiple")
	}
}
