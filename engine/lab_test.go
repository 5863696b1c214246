package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
)

func newLab(t testing.TB, mod func(*Settings)) *Lab {
	t.Helper()
	s := DefaultSettings()
	if mod != nil {
		mod(&s)
	}
	l, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	// The tests compare the file with what the client wrote: start empty.
	if err := l.NFS.Lookup("data").Truncate(0); err != nil {
		t.Fatal(err)
	}
	return l
}

// settle delivers every completion and runs every thread until nothing is
// left to do.
func settle(t testing.TB, l *Lab) {
	t.Helper()
	for i := 0; i < 10000; i++ {
		l.Continue()
		if _, err := l.Complete(-1, nil); err != nil {
			return
		}
	}
	t.Fatal("lab did not settle")
}

// checkIdle asserts the invariants that must hold when nothing is in flight.
func checkIdle(t *testing.T, l *Lab) {
	t.Helper()
	x := l.Server
	if x.SQAvail != x.SQDepth {
		t.Errorf("sc_sq_avail %d, want sc_sq_depth %d when idle", x.SQAvail, x.SQDepth)
	}
	if n := len(x.InUseRWCtxts()); n != 0 {
		for _, c := range x.InUseRWCtxts() {
			t.Errorf("rw#%d still %q when idle", c.ID, c.Where)
		}
		dumpTail(t, l, 30)
	}
	if got, want := len(x.RWCache)+x.LostRWCtxts()+x.FreedRWCtxts(), x.RWCreated(); got != want {
		t.Errorf("cached %d + lost %d + freed %d rw ctxts, want the %d created", len(x.RWCache), x.LostRWCtxts(), x.FreedRWCtxts(), want)
	}
	if len(x.OutstandingChains()) != 0 {
		t.Errorf("%d chains still outstanding", len(x.OutstandingChains()))
	}
	if x.AckedPos > x.PostSeq {
		t.Errorf("acked position %d passed the post sequence %d", x.AckedPos, x.PostSeq)
	}
}

func replyOf(t *testing.T, k *xprt.Call) []byte {
	t.Helper()
	if !k.Done || k.Reply == nil {
		t.Fatalf("call 0x%x not answered (err %q)", k.XID, k.Err)
	}
	return k.Reply.Inline
}

func TestWriteEndToEnd(t *testing.T) {
	for _, n := range []int{1, 100, 4096, 10000, 128 << 10, 1 << 20} {
		l := newLab(t, nil)
		k, err := l.Write(n, ChunkOpts{})
		if err != nil {
			t.Fatal(err)
		}
		settle(t, l)
		if got := l.NFS.Lookup("data").Bytes(); !bytes.Equal(got, Pattern(l.Set.Seed, 0, n)) {
			t.Fatalf("n=%d: the server stored %d bytes that differ from what the client sent", n, len(got))
		}
		msg := replyOf(t, k)
		var rh oncrpc.ReplyHeader
		off, err := rh.Decode(msg)
		if err != nil || rh.AcceptStat != oncrpc.Success {
			t.Fatalf("reply header %+v %v", rh, err)
		}
		var res nfs.Write3Res
		if _, err := res.Decode(msg[off:]); err != nil || res.Status != nfs.NFS3OK || int(res.Count) != n {
			t.Fatalf("WRITE3res %+v %v", res, err)
		}
		checkIdle(t, l)
		if l.Server.Counters.Reads == 0 {
			t.Errorf("n=%d: no RDMA Read was built", n)
		}
		if l.Server.AckedPos != 1 || l.Server.PostSeq != 1 {
			t.Errorf("positions: post_seq %d acked %d, want 1 1", l.Server.PostSeq, l.Server.AckedPos)
		}
	}
}

func TestReadEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		n    int
		opts ChunkOpts
	}{{128 << 10, ChunkOpts{}}, {1 << 20, ChunkOpts{Segments: 3, PageOff: 100}}, {300, ChunkOpts{Inline: true}}, {5000, ChunkOpts{Segments: 2}}} {
		l := newLab(t, nil)
		if _, err := l.Write(tc.n, ChunkOpts{}); err != nil {
			t.Fatal(err)
		}
		settle(t, l)
		k, err := l.Read(tc.n, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		settle(t, l)
		msg := replyOf(t, k)
		var rh oncrpc.ReplyHeader
		off, err := rh.Decode(msg)
		if err != nil {
			t.Fatal(err)
		}
		var res nfs.Read3Res
		if _, err := res.Decode(msg[off:], nfs.DataAuto); err != nil || res.Status != nfs.NFS3OK || int(res.Count) != tc.n {
			t.Fatalf("READ3res %+v %v", res, err)
		}
		data := res.Data
		if len(k.Reply.WriteChunks) > 0 {
			data = k.Reply.WriteChunks[0]
			if l.Server.Counters.Writes == 0 {
				t.Error("no RDMA Write was built")
			}
		}
		if !bytes.Equal(data, Pattern(l.Set.Seed, 0, tc.n)) {
			t.Fatalf("n=%d %+v: the client got %d bytes that differ from the file", tc.n, tc.opts, len(data))
		}
		checkIdle(t, l)
		if l.Server.AckedPos != 2 {
			t.Errorf("acked position %d, want 2", l.Server.AckedPos)
		}
	}
}

func TestReaddirUsesReplyChunk(t *testing.T) {
	l := newLab(t, nil)
	k, err := l.Readdir(16384, ChunkOpts{Segments: 2})
	if err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if !k.Done || k.Reply.Header.Proc.String() != "RDMA_NOMSG" || len(k.Reply.ReplyChunk) < 4096 {
		t.Fatalf("reply %+v", k.Reply)
	}
	msg := k.Reply.Message()
	var rh oncrpc.ReplyHeader
	off, err := rh.Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	var res nfs.ReadDir3Res
	if _, err := res.Decode(msg[off:]); err != nil || len(res.Entries) < 100 {
		t.Fatalf("READDIR3res: %d entries, %v", len(res.Entries), err)
	}
	checkIdle(t, l)
}

func TestLongCall(t *testing.T) {
	l := newLab(t, nil)
	if _, err := l.LongCall(20000, ChunkOpts{Segments: 2}); err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if got := l.NFS.Lookup("data").Bytes(); !bytes.Equal(got, Pattern(l.Set.Seed, 0, 20000)) {
		t.Fatalf("long call stored %d bytes that differ", len(got))
	}
	checkIdle(t, l)
}

// The seed's B2 makes every multi-chunk call fail; the lab shows the
// RDMA_ERROR and the disconnect the client sees.
func TestSeedMultipleChunksFail(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.Profile = "seed"; s.AutoComplete = true })
	msg := Pattern(1, 0, 400)
	k, err := l.Call(xprt.CallSpec{Label: "two read chunks", Msg: msg, ReadChunks: []xprt.ReadChunkSpec{
		{Pos: 100, Len: 100, Segments: []xprt.SegSpec{{Len: 100}}},
		{Pos: 300, Len: 40, Segments: []xprt.SegSpec{{Len: 40}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if k.Reply == nil || !strings.Contains(k.Err, "ERR_CHUNK") {
		t.Fatalf("client saw %q", k.Err)
	}
	if !l.Server.Close || !l.Server.Dead {
		t.Errorf("transport close %v dead %v, want both", l.Server.Close, l.Server.Dead)
	}
}

func TestInjectedReadFailureClosesTheConnection(t *testing.T) {
	l := newLab(t, nil)
	if _, err := l.Write(8192, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	l.Continue()
	l.Complete(1, nil) // the Send lands: the server has the call
	l.Continue()       // the thread builds and posts the Read
	st := verbs.StatusRemAccessErr
	if _, err := l.Complete(1, &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range l.History() {
		if e.Func == "svcrdma_wc_read_err" {
			found = true
		}
	}
	if !found || !l.Server.Close {
		t.Fatalf("read error not handled: close %v", l.Server.Close)
	}
	settle(t, l)
	if l.Server.SQAvail != l.Server.SQDepth {
		t.Errorf("sq_avail %d of %d after the flush", l.Server.SQAvail, l.Server.SQDepth)
	}
}

func TestStepNextFinish(t *testing.T) {
	l := newLab(t, nil)
	if _, err := l.Write(10000, ChunkOpts{}); err != nil {
		t.Fatal(err)
	}
	l.Complete(1, nil)
	// Step until the thread enters process_read_list, then step over it.
	for l.Step() {
		if e := l.Last(); e.Kind == trace.Call && e.Func == "svc_rdma_process_read_list" {
			break
		}
	}
	if l.Last().Func != "svc_rdma_process_read_list" {
		t.Fatalf("never entered svc_rdma_process_read_list; last %v", l.Last())
	}
	if !l.Next() {
		t.Fatal("next did not reach the return")
	}
	if e := l.Last(); e.Kind != trace.Return || e.Func != "svc_rdma_process_read_list" {
		t.Fatalf("next stopped at %v", e)
	}
	// finish leaves svc_rdma_recvfrom.
	if !l.Finish() || l.Last().Func != "svc_rdma_recvfrom" || l.Last().Kind != trace.Return {
		t.Fatalf("finish stopped at %v", l.Last())
	}
}

func TestSnapshotJSON(t *testing.T) {
	l := newLab(t, nil)
	l.Write(10000, ChunkOpts{})
	l.Complete(1, nil)
	l.Continue()
	s := l.Snapshot()
	if len(s.Reads) != 1 || len(s.Chains) != 1 || s.SQ.Avail != s.SQ.Depth-1 {
		t.Fatalf("snapshot reads %d chains %d avail %d", len(s.Reads), len(s.Chains), s.SQ.Avail)
	}
	r := s.Reads[0]
	if r.ReadBytes != 10000 || r.PageCount != 3 || len(r.RWCtxts) != 1 || len(r.RWCtxts[0].SGL) != 3 {
		t.Fatalf("read snapshot %+v", r)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"sc_sq_avail"`, `"rc_curpage"`, `"xpt_acked_pos"`, `"sgl"`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("snapshot JSON lacks %s", key)
		}
	}
}

// new2026 chains the Write chunk in front of the Send: one chain, one
// completion, and the Write chunk's resources come back with the Send.
func TestNew2026ChainsWriteChunkToSend(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.Profile = "new2026" })
	l.Write(20000, ChunkOpts{})
	settle(t, l)
	k, _ := l.Read(20000, ChunkOpts{Segments: 2})
	l.Complete(1, nil)
	l.Continue()
	chains := l.Server.OutstandingChains()
	if len(chains) != 1 {
		t.Fatalf("%d chains posted, want one (Writes chained to the Send)", len(chains))
	}
	var ops []string
	for w := chains[0].First; w != nil; w = w.Next {
		ops = append(ops, w.Op.String())
	}
	if len(ops) < 3 || ops[len(ops)-1] != "SEND" || ops[0] != "RDMA_WRITE" {
		t.Fatalf("chain %v, want RDMA_WRITEs then the SEND", ops)
	}
	settle(t, l)
	if !k.Done || !bytes.Equal(k.Reply.WriteChunks[0], Pattern(l.Set.Seed, 0, 20000)) {
		t.Fatal("READ data wrong")
	}
	checkIdle(t, l)
}

// Injected ib_post_send failures reach the seed's -ENOTCONN paths.
func TestInjectedPostSendFailure(t *testing.T) {
	l := newLab(t, nil)
	l.Write(10000, ChunkOpts{})
	l.Complete(1, nil)
	l.Server.Inject.PostSend = 1
	l.Continue()
	var gotErr bool
	for _, e := range l.History() {
		if e.Kind == trace.Return && e.Func == "svc_rdma_post_chunk_ctxt" && e.Err == "ENOTCONN" {
			gotErr = true
		}
	}
	if !gotErr || !l.Server.Close {
		t.Fatalf("want post_chunk_ctxt = -ENOTCONN and a close; close %v", l.Server.Close)
	}
	settle(t, l)
	checkIdle(t, l)
}

// A reply chain whose Send the provider refuses after taking the Reply
// chunk's Writes strands the send ctxt: the model says so with a FAULT.
func TestStrandedSendIsAFault(t *testing.T) {
	l := newLab(t, nil)
	l.Readdir(16384, ChunkOpts{})
	l.Complete(1, nil)
	l.Server.Inject.PostSendTail = 1
	l.Continue()
	found := false
	for _, e := range l.History() {
		if e.Kind == trace.Fault && e.Func == "stranded send ctxt" {
			found = true
		}
	}
	if !found || !l.Server.Close {
		t.Fatalf("want a stranded-send FAULT and a close")
	}
	// The stranded Writes flush like any WR, so ib_drain_qp returns.
	settle(t, l)
	if !hasEvent(l, trace.Return, "svc_rdma_free") || len(l.Server.OutstandingChains()) != 0 {
		t.Errorf("svc_rdma_free did not finish: %d chains outstanding", len(l.Server.OutstandingChains()))
	}
}

// A thread starved of SQ credits blocks in sc_send_wait until completions
// return credits, then goes on.
func TestStarvedThreadWaitsForCompletions(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.Threads = 2; s.SQDepth = 6; s.MaxSendSGEs = 1 })
	l.Write(5*4096, ChunkOpts{}) // 5 pages, max_sge 1: a 5-WQE Read chain
	l.Write(5*4096, ChunkOpts{})
	l.Complete(2, nil)
	l.Continue()
	snap := l.Snapshot()
	if snap.SQ.Starve == 0 || len(snap.SQ.Waiters) != 1 {
		t.Fatalf("starve %d waiters %v, want one thread waiting", snap.SQ.Starve, snap.SQ.Waiters)
	}
	settle(t, l)
	for _, k := range l.Client.Calls() {
		if !k.Done || k.Err != "" {
			t.Fatalf("call 0x%x done %v err %q", k.XID, k.Done, k.Err)
		}
	}
	checkIdle(t, l)
}

// A result payload outside the reply makes svc_rdma_send_write_chunk fail
// with -EMSGSIZE and the connection drop.
func TestBadPayloadIsEMSGSIZE(t *testing.T) {
	l := newLab(t, nil)
	l.Write(8192, ChunkOpts{})
	settle(t, l)
	l.Server.Inject.BadPayload = 1
	k, _ := l.Read(8192, ChunkOpts{})
	settle(t, l)
	var got bool
	for _, e := range l.History() {
		if e.Kind == trace.Return && e.Func == "svc_rdma_send_write_chunk" && e.Err == "EMSGSIZE" {
			got = true
		}
	}
	if !got || !l.Server.Close || k.Done {
		t.Fatalf("want send_write_chunk = -EMSGSIZE, a close and no reply; close %v done %v", l.Server.Close, k.Done)
	}
	checkIdle(t, l)
}

// The event history is a bounded ring: the newest events, in order.
func TestHistoryRing(t *testing.T) {
	l := newLab(t, nil)
	for i := 0; i < maxHistory+1234; i++ {
		l.note("test", "tick", "%d", i)
	}
	h := l.History()
	if len(h) != maxHistory || h[0].Seq != l.seq-maxHistory+1 || h[len(h)-1].Seq != l.seq {
		t.Fatalf("history of %d events, seq %d..%d, last %d", len(h), h[0].Seq, h[len(h)-1].Seq, l.seq)
	}
	for i := 1; i < len(h); i++ {
		if h[i].Seq != h[i-1].Seq+1 {
			t.Fatalf("history out of order at %d", i)
		}
	}
	if got := l.Since(l.seq - 5); len(got) != 5 || got[0].Seq != l.seq-4 {
		t.Fatalf("Since: %d events", len(got))
	}
	if got := l.Tail(3); len(got) != 3 || got[2].Seq != l.seq {
		t.Fatalf("Tail: %v", got)
	}
}

// A snapshot shares the lab's completions rather than copying them: they
// stay as they were while the lab goes on past the bound where it drops
// the oldest, and appending to them cannot write into the lab's.
func TestSnapshotCQStays(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	call := func() {
		t.Helper()
		if _, err := l.Write(100, ChunkOpts{Inline: true}); err != nil {
			t.Fatal(err)
		}
		l.Continue()
	}
	if s := l.Snapshot(); s.CQ != nil {
		t.Fatalf("a snapshot before any completion has CQ %v", s.CQ)
	}
	var (
		snaps []snap.Snapshot
		texts []string
	)
	for i := 0; i < 600; i++ {
		call()
		if i%10 != 0 {
			continue
		}
		s := l.Snapshot()
		if len(s.CQ) == 0 || cap(s.CQ) != len(s.CQ) {
			t.Fatalf("CQ of %d completions, capacity %d", len(s.CQ), cap(s.CQ))
		}
		snaps, texts = append(snaps, s), append(texts, fmt.Sprint(s.CQ))
	}
	if kept := l.Completions(); len(kept) > 1000 || kept[0].Seq <= snaps[0].CQ[len(snaps[0].CQ)-1].Seq {
		t.Fatalf("%d completions kept, from event %d: the oldest were not dropped", len(kept), kept[0].Seq)
	}
	for i, s := range snaps {
		if got := fmt.Sprint(s.CQ); got != texts[i] {
			t.Fatalf("snapshot %d's CQ changed:\n was %s\n now %s", i, texts[i], got)
		}
	}
}
