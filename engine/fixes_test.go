package engine

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
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
	if got := l.NFS.Lookup("data").Bytes(); !bytes.Equal(got, Pattern(l.Set.Seed, 0, 65536)) {
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
	want := snap.SGE{Page: "mr#1", Len: 65536, IOVA: fmt.Sprintf("0x%x", mr.IOVA())}
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

// writeMsg is an NFSv3 WRITE of n pattern bytes to "data" and the XDR
// position of its data.
func writeMsg(l *Lab, n int) ([]byte, int) {
	return nfsd.WriteCall(l.NFS.Lookup("data").FH, 0, Pattern(l.Set.Seed, 0, n))
}

// rebuilt sends spec, runs the server until svc_rdma_read_complete has
// rebuilt the call in rq_arg, and returns the call and those bytes.
func rebuilt(t *testing.T, l *Lab, spec xprt.CallSpec) (*xprt.Call, []byte) {
	t.Helper()
	k, err := l.Call(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Complete(1, nil); err != nil {
		t.Fatal(err)
	}
	l.Continue()
	if _, err := l.Complete(-1, nil); err != nil {
		t.Fatal(err)
	}
	if !l.RunUntil("svc_rdma_read_complete", true) {
		dumpTail(t, l, 20)
		t.Fatalf("the call's Reads did not complete")
	}
	return k, l.Rqsts[0].Arg.Flatten(l.Server.PageSize)
}

func segs(n int) []xprt.SegSpec { return []xprt.SegSpec{{Len: n}} }

// GC-15 with a client that sends a position-zero chunk as xprtrdma does:
// RDMA_NOMSG, the call chunk carrying the message less Read chunk R1. The
// rebuild of B4's profiles loses exactly the last position(R1) bytes;
// NEW2026 rebuilds the client's message whole.
func TestGC15CallChunkWithReadChunk(t *testing.T) {
	for _, p := range []svcrdma.Profile{svcrdma.ProfileSeed, svcrdma.ProfileFix2025, svcrdma.ProfileNew2026} {
		t.Run(string(p), func(t *testing.T) {
			l := newLab(t, func(s *Settings) { s.Profile = string(p) })
			msg, dataPos := writeMsg(l, 8192+3000-124)
			if dataPos != 124 || len(msg) != 11192 {
				t.Fatalf("message %d bytes, data at %d", len(msg), dataPos)
			}
			k, got := rebuilt(t, l, xprt.CallSpec{Label: "GC-15", Msg: msg, ReadChunks: []xprt.ReadChunkSpec{
				{Pos: 0, Len: 8192, Segments: segs(8192)},
				{Pos: 1000, Len: 3000, Segments: segs(3000)},
			}})
			if k.Header.Proc != rpcrdma.ProcNoMsg || len(k.Inline) != 0 || len(k.Header.ReadList) != 2 ||
				k.Header.ReadList[0].Position != 0 || k.Header.ReadList[0].Length != 8192 {
				t.Fatalf("sent %v with %d inline bytes, read list %+v", k.Header.Proc, len(k.Inline), k.Header.ReadList)
			}
			want := k.Spec.Msg
			if p != svcrdma.ProfileNew2026 {
				want = want[:len(want)-1000] // B4: the last position(R1) bytes are not read
			}
			if !bytes.Equal(got, want) {
				t.Errorf("rebuilt %d bytes, want the client's %d (of %d)", len(got), len(want), len(k.Spec.Msg))
			}
		})
	}
}

// A lone Read chunk whose length is not a multiple of 4: if it ends the
// data item its XDR pad travels nowhere and the server's roundup stands in
// for it; if it ends inside the data the chunk carries the stream bytes
// under the roundup. Either way the server rebuilds the client's message.
func TestLoneReadChunkRoundup(t *testing.T) {
	for _, tc := range []struct {
		name     string
		data     int
		endsItem bool
		chunk    int // what the client registers
	}{
		{"ends the data item", 10002, true, 10002},
		{"ends inside the data", 10050, false, 10004},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLab(t, nil)
			msg, pos := writeMsg(l, tc.data)
			k, got := rebuilt(t, l, xprt.CallSpec{Label: tc.name, Msg: msg, ReadChunks: []xprt.ReadChunkSpec{
				{Pos: pos, Len: 10002, Segments: segs(10002), EndsItem: tc.endsItem}}})
			if n := k.Header.ReadList[0].Length; int(n) != tc.chunk {
				t.Errorf("the chunk carries %d bytes, want %d", n, tc.chunk)
			}
			want := k.Spec.Msg
			if len(got) != len(want) {
				t.Fatalf("rebuilt %d bytes, want %d", len(got), len(want))
			}
			// The pad the Read never writes is the only difference allowed.
			skip := 0
			if tc.endsItem {
				skip = 2
			}
			end := pos + 10002
			if !bytes.Equal(got[:end], want[:end]) || !bytes.Equal(got[end+skip:], want[end+skip:]) {
				t.Errorf("the rebuilt message differs from the client's outside the XDR pad")
			}
			settle(t, l)
			if d := l.NFS.Lookup("data").Bytes(); !bytes.Equal(d, Pattern(l.Set.Seed, 0, tc.data)) {
				t.Errorf("nfsd stored %d bytes that differ from the client's %d", len(d), tc.data)
			}
		})
	}
}

// GC-13's numbers (Read chunks at 100 and 4200, 4000 and 50 bytes) make a
// well-formed WRITE of 4126 bytes once B1 and B5 are gone: with several
// chunks the server places them by position alone, so the data's XDR pad
// travels inline and the rebuild is the client's message.
func TestGC13NumbersWriteWhole(t *testing.T) {
	for _, p := range []svcrdma.Profile{svcrdma.ProfileFix2025, svcrdma.ProfileNew2026} {
		t.Run(string(p), func(t *testing.T) {
			l := newLab(t, func(s *Settings) {
				s.Profile = string(p)
				s.Bugs = map[string]bool{string(svcrdma.B5): false}
			})
			msg, pos := writeMsg(l, 4200+50-124)
			k, got := rebuilt(t, l, xprt.CallSpec{Label: "GC-13", Msg: msg, ReadChunks: []xprt.ReadChunkSpec{
				{Pos: 100, Len: 4000, Segments: segs(4000)},
				{Pos: 4200, Len: 50, Segments: segs(50), EndsItem: 4250 == pos+4126},
			}})
			if len(k.Inline) != 202 || !bytes.Equal(got, k.Spec.Msg) {
				t.Fatalf("%d inline bytes; rebuilt %d bytes, want the client's %d", len(k.Inline), len(got), len(k.Spec.Msg))
			}
			settle(t, l)
			if d := l.NFS.Lookup("data").Bytes(); !bytes.Equal(d, Pattern(l.Set.Seed, 0, 4126)) {
				t.Errorf("nfsd stored %d bytes that differ from the client's 4126", len(d))
			}
		})
	}
}

// An answered call shows what its reply says: the RPC accept status when
// the call failed there, else the NFS status; a summary keeps it.
func TestCallStatus(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	msg, _ := writeMsg(l, 11068)
	if _, err := l.Call(xprt.CallSpec{Label: "GC-15", Msg: msg, ReadChunks: []xprt.ReadChunkSpec{
		{Pos: 0, Len: 8192, Segments: segs(8192)}, {Pos: 1000, Len: 3000, Segments: segs(3000)}}}); err != nil {
		t.Fatal(err)
	}
	dirWrite, _ := nfsd.WriteCall(l.NFS.Root.FH, 0, []byte("to a directory"))
	if _, err := l.Call(xprt.CallSpec{Label: "WRITE to /", Msg: dirWrite}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Write(4096, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ { // the first calls shrink to summaries
		if _, err := l.Read(4096, ChunkOpts{}); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, l)
	want := []string{"GARBAGE_ARGS", "NFS3ERR_STALE", "NFS3_OK"}
	calls := l.Snapshot().Calls
	if !l.Client.Calls()[0].Summary {
		t.Fatalf("the first call was not summarised")
	}
	for i, w := range want {
		if calls[i].State != "answered" || calls[i].Status != w {
			t.Errorf("call %d (%s): %s %q, want answered %q", i, calls[i].Label, calls[i].State, calls[i].Status, w)
		}
	}
}

// A READ whose Write chunk is shorter than the data: svc_rdma_result_payload
// refuses it with -E2BIG, the NFS encoder fails, and nfsd answers
// SYSTEM_ERR with nothing after the accept status. No RDMA Write is
// posted, the chunk comes back empty, and the connection stays up.
func TestReadIntoTooSmallWriteChunk(t *testing.T) {
	for _, p := range []svcrdma.Profile{svcrdma.ProfileFix2025, svcrdma.ProfileNew2026} {
		t.Run(string(p), func(t *testing.T) {
			l := newLab(t, func(s *Settings) { s.Profile = string(p) })
			if _, err := l.Write(20000, ChunkOpts{}); err != nil {
				t.Fatal(err)
			}
			settle(t, l)
			writes := l.Server.Counters.Writes
			k, err := l.Read(20000, ChunkOpts{ChunkLen: 8192, Segments: 2})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(k.Header.WriteList); n != 1 || len(k.Header.WriteList[0].Segments) != 2 ||
				k.Header.WriteList[0].Segments[0].Length+k.Header.WriteList[0].Segments[1].Length != 8192 {
				t.Fatalf("write list %+v, want one 8192-byte chunk of 2 segments", k.Header.WriteList)
			}
			settle(t, l)
			var e2big bool
			for _, e := range l.History() {
				if e.Kind == trace.Return && e.Func == "svc_rdma_result_payload" && e.Err == "E2BIG" {
					e2big = true
				}
			}
			if !e2big || !k.Done || l.Server.Close || l.Server.Counters.Writes != writes {
				t.Fatalf("-E2BIG %v, answered %v, closing %v, Write pieces %d → %d", e2big, k.Done, l.Server.Close, writes, l.Server.Counters.Writes)
			}
			r := k.Reply
			if r.RPC.AcceptStat != oncrpc.SystemErr || len(r.Inline) != 24 {
				t.Errorf("reply %v with %d inline bytes, want SYSTEM_ERR and only the 24-byte RPC header", r.RPC.AcceptStat, len(r.Inline))
			}
			if len(r.Header.WriteList) != 1 || len(r.WriteChunks[0]) != 0 {
				t.Errorf("the Write chunk came back with %d bytes, want none", len(r.WriteChunks[0]))
			}
			if st := l.Snapshot().Calls[1].Status; st != "SYSTEM_ERR" {
				t.Errorf("show calls status %q", st)
			}
			checkIdle(t, l)
		})
	}
}
