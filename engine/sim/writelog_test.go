package sim

import (
	"slices"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// spansOf is the write log of a region the simulator registered.
func spansOf(t *testing.T, mr verbs.MR) []verbs.Span {
	t.Helper()
	l, ok := mr.(verbs.LoggedMR)
	if !ok {
		t.Fatalf("%T keeps no write log", mr)
	}
	return slices.Clone(l.WriteLog().Spans())
}

// TestNoteMerges: the RDMA Writes a region takes are noted in its write
// log, merged where they meet, in whatever order they land; NAKed writes,
// RDMA Reads and the region's own local use are not; the log outlives
// Dereg and a REG_MR starts it afresh.
func TestNoteMerges(t *testing.T) {
	p := newPair(t, Config{Seed: 3}, defaultOpts())
	_, lmr := reg(t, p.a, 16384, verbs.AccessLocalWrite, 1)
	_, rmr := reg(t, p.b, 16384, rw, 100)
	write := func(id uint64, off, n int, want verbs.Status) {
		t.Helper()
		postSend(t, p.a.qp, &verbs.SendWR{WRID: id, Opcode: verbs.WRRDMAWrite, Signaled: true,
			SGList: []verbs.SGE{sge(lmr, 0, n/2), sge(lmr, 8000, n-n/2)}, RemoteAddr: rmr.Addr() + uint64(off), RKey: rmr.RKey()})
		p.f.DeliverAll()
		wantWCs(t, "write", pollAll(p.a.scq), wcWant{id, want})
	}
	if got := spansOf(t, rmr); len(got) != 0 {
		t.Fatalf("a new region's log = %v, want empty", got)
	}
	write(1, 4096, 4096, verbs.StatusSuccess)
	write(2, 0, 4096, verbs.StatusSuccess)    // touches the first from below
	write(3, 12000, 100, verbs.StatusSuccess) // apart
	write(4, 12100, 50, verbs.StatusSuccess)  // follows it
	// A READ of the region and a READ into the local region note nothing.
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 5, Opcode: verbs.WRRDMARead, Signaled: true,
		SGList: []verbs.SGE{sge(lmr, 0, 3000)}, RemoteAddr: rmr.Addr() + 9000, RKey: rmr.RKey()})
	p.f.DeliverAll()
	wantWCs(t, "read", pollAll(p.a.scq), wcWant{5, verbs.StatusSuccess})
	if got, want := spansOf(t, rmr), []verbs.Span{{Off: 0, Len: 8192}, {Off: 12000, Len: 150}}; !slices.Equal(got, want) {
		t.Errorf("after four writes: %v, want %v", got, want)
	}
	if got := spansOf(t, lmr); len(got) != 0 {
		t.Errorf("the READ's sink logged %v: only RDMA Writes are noted", got)
	}
	write(6, 8000, 4050, verbs.StatusSuccess) // bridges the two
	if got, want := spansOf(t, rmr), []verbs.Span{{Off: 0, Len: 12150}}; !slices.Equal(got, want) {
		t.Errorf("after a bridging write: %v, want %v", got, want)
	}

	// A write past the end is NAKed and stores nothing.
	write(7, 16000, 1000, verbs.StatusRemAccessErr)
	if got, want := spansOf(t, rmr), []verbs.Span{{Off: 0, Len: 12150}}; !slices.Equal(got, want) {
		t.Errorf("after a NAKed write: %v, want %v", got, want)
	}
	must(t, rmr.Dereg())
	if got, want := spansOf(t, rmr), []verbs.Span{{Off: 0, Len: 12150}}; !slices.Equal(got, want) {
		t.Errorf("after Dereg: %v, want %v", got, want)
	}

	t.Run("REG_MR resets", func(t *testing.T) {
		p := newPair(t, Config{Seed: 5}, defaultOpts())
		mr, key := fastReg(t, p.f, p.b, make([]byte, 4096), rw)
		_, smr := reg(t, p.a, 64, 0, 3)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true,
			SGList: []verbs.SGE{sge(smr, 0, 64)}, RemoteAddr: mr.Addr() + 100, RKey: key})
		p.f.DeliverAll()
		wantWCs(t, "write", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess})
		if got, want := spansOf(t, mr), []verbs.Span{{Off: 100, Len: 64}}; !slices.Equal(got, want) {
			t.Errorf("fast-registered region's log = %v, want %v", got, want)
		}
		reregister(t, p, mr, key, 2)
		if got := spansOf(t, mr); len(got) != 0 {
			t.Errorf("after REG_MR over new pages: %v, want empty", got)
		}
	})
}
