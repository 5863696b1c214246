package sim

import (
	"bytes"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

func state(t *testing.T, q verbs.QP) verbs.QPState {
	t.Helper()
	return q.State()
}

func TestRemoteAccessErrors(t *testing.T) {
	tests := []struct {
		name   string
		opcode verbs.WROpcode
		access verbs.Access // of the remote MR
		mutate func(addr uint64, rkey uint32) (uint64, uint32)
		length int
	}{
		{"wrong rkey index", verbs.WRRDMAWrite, rw, func(a uint64, k uint32) (uint64, uint32) { return a, k ^ 0x100 }, 64},
		{"wrong key byte", verbs.WRRDMAWrite, rw, func(a uint64, k uint32) (uint64, uint32) { return a, k ^ 1 }, 64},
		{"past the end", verbs.WRRDMAWrite, rw, func(a uint64, k uint32) (uint64, uint32) { return a + 4096 - 10, k }, 64},
		{"before the start", verbs.WRRDMARead, rw, func(a uint64, k uint32) (uint64, uint32) { return a - 1, k }, 64},
		{"address wraps", verbs.WRRDMARead, rw, func(a uint64, k uint32) (uint64, uint32) { return ^uint64(0) - 8, k }, 64},
		{"write to read-only", verbs.WRRDMAWrite, verbs.AccessRemoteRead, func(a uint64, k uint32) (uint64, uint32) { return a, k }, 64},
		{"read from write-only", verbs.WRRDMARead, verbs.AccessLocalWrite | verbs.AccessRemoteWrite, func(a uint64, k uint32) (uint64, uint32) { return a, k }, 64},
		{"no remote access", verbs.WRRDMARead, verbs.AccessLocalWrite, func(a uint64, k uint32) (uint64, uint32) { return a, k }, 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, Config{Seed: 11}, defaultOpts())
			local, lmr := reg(t, p.a, 4096, verbs.AccessLocalWrite, 1)
			remote, rmr := reg(t, p.b, 4096, tc.access, 50)
			_, good := reg(t, p.b, 64, rw, 0)
			origLocal, origRemote := bytes.Clone(local), bytes.Clone(remote)
			addr, rkey := tc.mutate(rmr.Addr(), rmr.RKey())
			postRecv(t, p.a.qp, 500)
			postRecv(t, p.b.qp, 600)
			postRecv(t, p.b.qp, 601)
			postSend(t, p.a.qp,
				&verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{sge(lmr, 0, 8)}, RemoteAddr: good.Addr(), RKey: good.RKey()},
				// The failing WR is unsignaled: it completes anyway.
				&verbs.SendWR{WRID: 2, Opcode: tc.opcode, SGList: []verbs.SGE{sge(lmr, 1000, tc.length)}, RemoteAddr: addr, RKey: rkey},
				&verbs.SendWR{WRID: 3, Opcode: verbs.WRSend},
				&verbs.SendWR{WRID: 4, Opcode: verbs.WRSend, Signaled: true},
			)
			p.f.DeliverAll()
			// WR 1 ran and is retired by WR 2's error completion; 3 and 4 flush.
			wantWCs(t, "requester send cq", pollAll(p.a.scq),
				wcWant{2, verbs.StatusRemAccessErr}, wcWant{3, verbs.StatusWRFlushErr}, wcWant{4, verbs.StatusWRFlushErr})
			wantWCs(t, "requester recv cq", pollAll(p.a.rcq), wcWant{500, verbs.StatusWRFlushErr})
			// rxe's responder goes to ERR after a NAK too.
			wantWCs(t, "responder recv cq", pollAll(p.b.rcq), wcWant{600, verbs.StatusWRFlushErr}, wcWant{601, verbs.StatusWRFlushErr})
			if s := state(t, p.a.qp); s != verbs.QPSErr {
				t.Errorf("requester state %v", s)
			}
			if s := state(t, p.b.qp); s != verbs.QPSErr {
				t.Errorf("responder state %v", s)
			}
			if !bytes.Equal(local[8:], origLocal[8:]) || !bytes.Equal(remote, origRemote) {
				t.Errorf("the refused operation moved bytes")
			}
			if info, _ := p.f.QPInfo(p.a.qp.Num()); info.SQOutstanding != 0 || info.RQPosted != 0 {
				t.Errorf("after the flush: %d send WRs and %d receives outstanding", info.SQOutstanding, info.RQPosted)
			}
			if n := len(p.f.Pending()); n != 0 {
				t.Errorf("%d operations still pending", n)
			}
		})
	}
}

func TestLocalProtectionErrors(t *testing.T) {
	tests := []struct {
		name string
		// build returns the WR to post; it may post receives on b.
		build      func(p *pair, lmr, otherPD verbs.MR, roMR verbs.MR) *verbs.SendWR
		wantSend   verbs.Status
		wantRecv   []wcWant // on b's recv CQ
		peerBroken bool
	}{
		{"bad lkey", func(p *pair, lmr, _, _ verbs.MR) *verbs.SendWR {
			s := sge(lmr, 0, 8)
			s.LKey ^= 0x100
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{s}}
		}, verbs.StatusLocProtErr, nil, false},
		{"sge past the end of the MR", func(p *pair, lmr, _, _ verbs.MR) *verbs.SendWR {
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{sge(lmr, 4000, 200)}}
		}, verbs.StatusLocProtErr, nil, false},
		{"huge sge", func(p *pair, lmr, _, _ verbs.MR) *verbs.SendWR {
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{sge(lmr, 0, 1<<31)}}
		}, verbs.StatusLocProtErr, nil, false},
		{"lkey of another PD", func(p *pair, _, other, _ verbs.MR) *verbs.SendWR {
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{sge(other, 0, 8)}}
		}, verbs.StatusLocProtErr, nil, false},
		{"read sink without LOCAL_WRITE", func(p *pair, _, _, ro verbs.MR) *verbs.SendWR {
			rmr := regOn(p.b, 64, rw)
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMARead, Signaled: true, SGList: []verbs.SGE{sge(ro, 0, 8)},
				RemoteAddr: rmr.Addr(), RKey: rmr.RKey()}
		}, verbs.StatusLocProtErr, nil, false},
		{"receive buffer without LOCAL_WRITE", func(p *pair, lmr, _, _ verbs.MR) *verbs.SendWR {
			ro := regOn(p.b, 64, 0)
			p.b.qp.PostRecv(&verbs.RecvWR{WRID: 70, SGList: []verbs.SGE{sge(ro, 0, 64)}})
			p.b.qp.PostRecv(&verbs.RecvWR{WRID: 71})
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{sge(lmr, 0, 8)}}
		}, verbs.StatusRemOpErr, []wcWant{{70, verbs.StatusLocProtErr}, {71, verbs.StatusWRFlushErr}}, true},
		{"message longer than the receive", func(p *pair, lmr, _, _ verbs.MR) *verbs.SendWR {
			rb := regOn(p.b, 64, verbs.AccessLocalWrite)
			p.b.qp.PostRecv(&verbs.RecvWR{WRID: 80, SGList: []verbs.SGE{sge(rb, 0, 16)}})
			p.b.qp.PostRecv(&verbs.RecvWR{WRID: 81, SGList: []verbs.SGE{sge(rb, 0, 64)}})
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{sge(lmr, 0, 17)}}
		}, verbs.StatusRemInvReqErr, []wcWant{{80, verbs.StatusLocLenErr}, {81, verbs.StatusWRFlushErr}}, true},
		{"send with invalidate of a bad key", func(p *pair, lmr, _, _ verbs.MR) *verbs.SendWR {
			rb := regOn(p.b, 64, verbs.AccessLocalWrite)
			p.b.qp.PostRecv(&verbs.RecvWR{WRID: 90, SGList: []verbs.SGE{sge(rb, 0, 64)}})
			return &verbs.SendWR{WRID: 1, Opcode: verbs.WRSendWithInv, Signaled: true, InvalidateRKey: rb.RKey()}
		}, verbs.StatusRemInvReqErr, []wcWant{{90, verbs.StatusRemInvReqErr}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, Config{Seed: 12}, defaultOpts())
			_, lmr := reg(t, p.a, 4096, verbs.AccessLocalWrite, 1)
			_, ro := reg(t, p.a, 4096, 0, 1)
			pd2, err := p.a.dev.AllocPD()
			must(t, err)
			other, err := pd2.RegMR(make([]byte, 64), verbs.AccessLocalWrite)
			must(t, err)
			wr := tc.build(p, lmr, other, ro)
			postSend(t, p.a.qp, wr, &verbs.SendWR{WRID: 2, Opcode: verbs.WRSend})
			p.f.DeliverAll()
			wantWCs(t, "send cq", pollAll(p.a.scq), wcWant{1, tc.wantSend}, wcWant{2, verbs.StatusWRFlushErr})
			wantWCs(t, "peer recv cq", pollAll(p.b.rcq), tc.wantRecv...)
			if got := state(t, p.b.qp) == verbs.QPSErr; got != tc.peerBroken {
				t.Errorf("peer in ERR = %v, want %v", got, tc.peerBroken)
			}
			if s := state(t, p.a.qp); s != verbs.QPSErr {
				t.Errorf("requester state %v", s)
			}
		})
	}
}

func regOn(e *end, n int, acc verbs.Access) verbs.MR {
	mr, err := e.pd.RegMR(make([]byte, n), acc)
	if err != nil {
		panic(err)
	}
	return mr
}

func TestPostSendChecks(t *testing.T) {
	o := defaultOpts()
	o.cap.MaxSendSGE = 2
	o.cap.MaxRecvSGE = 1
	o.cap.MaxSendWR = 4
	o.cap.MaxRecvWR = 2
	t.Run("too many SGEs names the bad WR", func(t *testing.T) {
		p := newPair(t, Config{Seed: 13}, o)
		_, mr := reg(t, p.a, 64, 0, 0)
		s := sge(mr, 0, 1)
		w1 := &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{s, s}}
		w2 := &verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{s, s, s}}
		w3 := &verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite}
		w1.Next, w2.Next = w2, w3
		bad, err := p.a.qp.PostSend(w1)
		if bad != w2 || !errIs(err, verbs.EINVAL) {
			t.Fatalf("bad = %v, err = %v; want wr 2, EINVAL", bad, err)
		}
		if ops := p.f.Pending(); len(ops) != 1 || ops[0].WRID != 1 {
			t.Errorf("pending = %v, want only wr 1", ops)
		}
		rbad, err := p.a.qp.PostRecv(&verbs.RecvWR{WRID: 9, SGList: []verbs.SGE{s, s}})
		if rbad == nil || rbad.WRID != 9 || !errIs(err, verbs.EINVAL) {
			t.Errorf("post recv: bad %v err %v", rbad, err)
		}
	})
	t.Run("send queue full names the bad WR", func(t *testing.T) {
		p := newPair(t, Config{Seed: 13}, o)
		var wrs []*verbs.SendWR
		for i := range 6 {
			wrs = append(wrs, &verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRSend})
		}
		for i := 0; i+1 < len(wrs); i++ {
			wrs[i].Next = wrs[i+1]
		}
		bad, err := p.a.qp.PostSend(wrs[0])
		if bad != wrs[4] || !errIs(err, verbs.ENOMEM) {
			t.Fatalf("bad = %v, err = %v; want wr 4, ENOMEM", bad, err)
		}
		if n := len(p.f.Pending()); n != 4 {
			t.Errorf("%d pending, want 4", n)
		}
	})
	t.Run("receive queue full", func(t *testing.T) {
		p := newPair(t, Config{Seed: 13}, o)
		r3 := &verbs.RecvWR{WRID: 3}
		bad, err := p.b.qp.PostRecv(&verbs.RecvWR{WRID: 1, Next: &verbs.RecvWR{WRID: 2, Next: r3}})
		if bad != r3 || !errIs(err, verbs.ENOMEM) {
			t.Errorf("bad = %v, err = %v; want wr 3, ENOMEM", bad, err)
		}
	})
	t.Run("unsignaled WRs hold their slots until a signaled one completes", func(t *testing.T) {
		p := newPair(t, Config{Seed: 13}, o)
		for i := range 3 {
			postSend(t, p.a.qp, &verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRRDMAWrite})
			p.f.DeliverAll()
		}
		if wcs := pollAll(p.a.scq); len(wcs) != 0 {
			t.Fatalf("unsignaled WRs completed: %+v", wcs)
		}
		if info, _ := p.f.QPInfo(p.a.qp.Num()); info.SQOutstanding != 3 {
			t.Fatalf("outstanding = %d, want 3", info.SQOutstanding)
		}
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite})
		// Four unsignaled WRs fill a 4-deep queue: the next post fails even
		// though everything has executed. Signal at least every max_send_wr-th WR.
		p.f.DeliverAll()
		if _, err := p.a.qp.PostSend(&verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMAWrite, Signaled: true}); !errIs(err, verbs.ENOMEM) {
			t.Fatalf("post into a queue of executed unsignaled WRs: %v, want ENOMEM", err)
		}
		// Moving to ERR flushes them all, unsignaled too.
		must(t, p.a.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}))
		wantWCs(t, "flush", pollAll(p.a.scq), wcWant{0, verbs.StatusWRFlushErr}, wcWant{1, verbs.StatusWRFlushErr},
			wcWant{2, verbs.StatusWRFlushErr}, wcWant{3, verbs.StatusWRFlushErr})
	})
	t.Run("a signaled completion retires the unsignaled ones before it", func(t *testing.T) {
		p := newPair(t, Config{Seed: 13}, o)
		postSend(t, p.a.qp,
			&verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite},
			&verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite},
			&verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, Signaled: true},
			&verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMAWrite})
		p.f.DeliverAll()
		wantWCs(t, "send", pollAll(p.a.scq), wcWant{3, verbs.StatusSuccess})
		if info, _ := p.f.QPInfo(p.a.qp.Num()); info.SQOutstanding != 1 {
			t.Errorf("outstanding = %d, want 1 (wr 4)", info.SQOutstanding)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		p := newPair(t, Config{Seed: 13}, o)
		if bad, err := p.a.qp.PostSend(nil); bad != nil || !errIs(err, verbs.EINVAL) {
			t.Errorf("nil wr: %v %v", bad, err)
		}
		if _, err := p.a.qp.PostRecv(nil); !errIs(err, verbs.EINVAL) {
			t.Errorf("nil recv wr: %v", err)
		}
		for _, w := range []*verbs.SendWR{
			{WRID: 1, Opcode: verbs.WRRegMR},
			{WRID: 2, Opcode: verbs.WROpcode(99)},
			{WRID: 3, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{{Length: 1 << 31}, {Length: 1}}},
		} {
			if bad, err := p.a.qp.PostSend(w); bad != w || !errIs(err, verbs.EINVAL) {
				t.Errorf("wr %d: bad %v err %v", w.WRID, bad, err)
			}
		}
		if n := len(p.f.Pending()); n != 0 {
			t.Errorf("%d pending after refused posts", n)
		}
		// A zero-length WRITE names no memory: its rkey is not checked.
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMAWrite, Signaled: true, RKey: 0xdead})
		p.f.DeliverAll()
		wantWCs(t, "zero write", pollAll(p.a.scq), wcWant{4, verbs.StatusSuccess})
		// Nil and foreign MRs in REG_MR fail as completions, not panics.
		other := newPair(t, Config{Seed: 14}, o)
		fmr, _ := other.a.pd.AllocMR(1)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 5, Opcode: verbs.WRRegMR, Signaled: true, MR: fmr})
		p.f.DeliverAll()
		wantWCs(t, "foreign mr", pollAll(p.a.scq), wcWant{5, verbs.StatusLocQPOpErr})
	})
}

func TestQPStateMachine(t *testing.T) {
	f := NewFabric(Config{Seed: 15})
	o := defaultOpts()
	a := newEnd(t, f, "a", o)
	b := newEnd(t, f, "b", o)
	w := &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend}
	check := func(when string) {
		t.Helper()
		if bad, err := a.qp.PostSend(w); bad != w || !errIs(err, verbs.EINVAL) {
			t.Errorf("post send in %s: bad %v err %v, want EINVAL", when, bad, err)
		}
	}
	check("RESET")
	if _, err := a.qp.PostRecv(&verbs.RecvWR{WRID: 1}); !errIs(err, verbs.EINVAL) {
		t.Errorf("post recv in RESET: %v", err)
	}
	if err := a.qp.Modify(verbs.QPAttr{State: verbs.QPSRTR}); !errIs(err, verbs.EINVAL) {
		t.Errorf("RESET->RTR: %v", err)
	}
	must(t, a.qp.Modify(verbs.QPAttr{State: verbs.QPSInit}))
	check("INIT")
	postRecv(t, a.qp, 77) // allowed from INIT on
	for _, bad := range []verbs.QPAttr{
		{State: verbs.QPSRTR, RemoteNode: "nowhere", DestQPNum: b.qp.Num()},
		{State: verbs.QPSRTR, RemoteNode: "b", DestQPNum: 12345},
		{State: verbs.QPSRTR, RemoteNode: "a", DestQPNum: a.qp.Num()},
		{State: verbs.QPSRTR, RemoteNode: "b", DestQPNum: b.qp.Num(), PathMTU: 1500},
		{State: verbs.QPSRTS},
	} {
		if err := a.qp.Modify(bad); !errIs(err, verbs.EINVAL) {
			t.Errorf("modify %+v: %v, want EINVAL", bad, err)
		}
	}
	must(t, a.qp.Modify(verbs.QPAttr{State: verbs.QPSRTR, RemoteNode: "b", DestQPNum: b.qp.Num()}))
	check("RTR")
	if err := a.qp.Modify(verbs.QPAttr{State: verbs.QPSRTS, RNRRetry: 8}); !errIs(err, verbs.EINVAL) {
		t.Errorf("rnr_retry 8: %v", err)
	}
	must(t, a.qp.Modify(verbs.QPAttr{State: verbs.QPSRTS}))
	if a.qp.State() != verbs.QPSRTS {
		t.Fatalf("state %v", a.qp.State())
	}
	// b never connected back: a's requests are dropped.
	postSend(t, a.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Signaled: true})
	f.DeliverAll()
	wantWCs(t, "unconnected peer", pollAll(a.scq), wcWant{2, verbs.StatusRetryExcErr})
	wantWCs(t, "flushed recv", pollAll(a.rcq), wcWant{77, verbs.StatusWRFlushErr})

	// In ERR, posts are accepted and flush when delivered, signaled or not.
	postSend(t, a.qp, &verbs.SendWR{WRID: 3, Opcode: verbs.WRSend}, &verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMARead, Signaled: true})
	if ops := f.Pending(); len(ops) != 2 || !ops[0].Flush || ops[0].PSN.Count != 0 {
		t.Fatalf("pending in ERR = %v", ops)
	}
	if wcs := pollAll(a.scq); len(wcs) != 0 {
		t.Fatalf("flushes before delivery: %+v", wcs)
	}
	op, ok := f.DeliverNext()
	if !ok || op.WRID != 3 || op.Status != verbs.StatusWRFlushErr {
		t.Errorf("DeliverNext = %v %v", op, ok)
	}
	if ops := f.Pending(); len(ops) != 1 || ops[0].WRID != 4 {
		t.Errorf("after one flush delivered, pending = %v", ops)
	}
	wantWCs(t, "one flush", pollAll(a.scq), wcWant{3, verbs.StatusWRFlushErr})
	f.DeliverAll()
	wantWCs(t, "flush in ERR", pollAll(a.scq), wcWant{4, verbs.StatusWRFlushErr})
	postRecv(t, a.qp, 78) // flushed at once
	wantWCs(t, "recv in ERR", pollAll(a.rcq), wcWant{78, verbs.StatusWRFlushErr})

	// ERR -> RESET -> INIT -> RTR -> RTS reconnects.
	must(t, a.qp.Modify(verbs.QPAttr{State: verbs.QPSReset}))
	if a.qp.State() != verbs.QPSReset {
		t.Fatalf("state %v", a.qp.State())
	}
	connect(t, a, "a", b, "b", o)
	postRecv(t, b.qp, 1)
	postSend(t, a.qp, &verbs.SendWR{WRID: 5, Opcode: verbs.WRSend, Signaled: true})
	f.DeliverAll()
	wantWCs(t, "reconnected", pollAll(a.scq), wcWant{5, verbs.StatusSuccess})
}

func TestCreateChecks(t *testing.T) {
	f := NewFabric(Config{})
	d, err := f.NewDevice("n", verbs.DeviceAttr{})
	must(t, err)
	if d.Attr() != DefaultAttr() {
		t.Errorf("zero attr did not take the defaults: %+v", d.Attr())
	}
	if _, err := f.NewDevice("n", DefaultAttr()); !errIs(err, verbs.EBUSY) {
		t.Errorf("duplicate node: %v", err)
	}
	if _, err := f.NewDevice("", DefaultAttr()); !errIs(err, verbs.EINVAL) {
		t.Errorf("empty node: %v", err)
	}
	for _, n := range []int{0, -1, 32768} {
		if _, err := d.CreateCQ(n); !errIs(err, verbs.EINVAL) {
			t.Errorf("CreateCQ(%d): %v", n, err)
		}
	}
	pd, _ := d.AllocPD()
	cq, _ := d.CreateCQ(16)
	for _, c := range []verbs.QPCap{
		{MaxSendWR: 16385},
		{MaxRecvWR: 16385},
		{MaxSendSGE: 33},
		{MaxRecvSGE: 33},
		{MaxSendWR: -1},
		{MaxInlineData: 4096},
	} {
		if _, err := pd.CreateQP(verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Cap: c}); !errIs(err, verbs.EINVAL) {
			t.Errorf("CreateQP(%+v): %v", c, err)
		}
	}
	if _, err := pd.CreateQP(verbs.QPInitAttr{Cap: verbs.QPCap{MaxSendWR: 1}}); !errIs(err, verbs.EINVAL) {
		t.Errorf("CreateQP without CQs: %v", err)
	}
	want := verbs.QPCap{MaxSendWR: 16384, MaxRecvWR: 100, MaxSendSGE: 32, MaxRecvSGE: 1}
	q, err := pd.CreateQP(verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq, Cap: want})
	must(t, err)
	if q.Cap() != want {
		t.Errorf("Cap() = %+v, want %+v", q.Cap(), want)
	}
	if _, err := pd.RegMR(nil, 0); !errIs(err, verbs.EINVAL) {
		t.Errorf("RegMR(nil): %v", err)
	}
	if _, err := pd.RegMR(make([]byte, 1), verbs.AccessRemoteWrite); !errIs(err, verbs.EINVAL) {
		t.Errorf("REMOTE_WRITE without LOCAL_WRITE: %v", err)
	}
	if _, err := pd.DMAMap(nil); !errIs(err, verbs.EINVAL) {
		t.Errorf("DMAMap(nil): %v", err)
	}
	for _, n := range []int{0, 513} {
		if _, err := pd.AllocMR(n); !errIs(err, verbs.EINVAL) {
			t.Errorf("AllocMR(%d): %v", n, err)
		}
	}
	mr, _ := pd.RegMR(make([]byte, 8), 0)
	must(t, mr.Dereg())
	if err := mr.Dereg(); !errIs(err, verbs.EINVAL) {
		t.Errorf("double dereg: %v", err)
	}
	if err := cq.Destroy(); !errIs(err, verbs.EBUSY) {
		t.Errorf("destroy a CQ in use: %v", err)
	}
	if err := pd.Dealloc(); !errIs(err, verbs.EBUSY) {
		t.Errorf("dealloc a PD in use: %v", err)
	}
	must(t, q.Destroy())
	must(t, cq.Destroy())
	must(t, pd.Dealloc())
	must(t, d.Close())
	if _, err := d.AllocPD(); err == nil {
		t.Errorf("AllocPD on a closed device succeeded")
	}
	if _, err := f.NewDevice("n", DefaultAttr()); err != nil {
		t.Errorf("node name not freed by Close: %v", err)
	}
}

func TestCQOverrun(t *testing.T) {
	o := defaultOpts()
	o.cqe = 2
	p := newPair(t, Config{Seed: 16}, o)
	for i := range 3 {
		postSend(t, p.a.qp, &verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRRDMAWrite, Signaled: true})
	}
	p.f.DeliverAll()
	wantWCs(t, "cq", pollAll(p.a.scq), wcWant{0, verbs.StatusSuccess}, wcWant{1, verbs.StatusSuccess})
	if n, err := p.f.CQOverruns(p.a.scq); err != nil || n != 1 {
		t.Errorf("overruns = %d, %v; want 1", n, err)
	}
	if _, err := p.f.CQOverruns(nil); err == nil {
		t.Errorf("CQOverruns(nil) succeeded")
	}
}

func TestDeadObjects(t *testing.T) {
	f := NewFabric(Config{Seed: 17})
	d, _ := f.NewDevice("n", DefaultAttr())
	pd, _ := d.AllocPD()
	must(t, pd.Dealloc())
	if err := pd.Dealloc(); !errIs(err, verbs.EINVAL) {
		t.Errorf("double dealloc: %v", err)
	}
	if _, err := pd.RegMR(make([]byte, 1), 0); !errIs(err, verbs.EINVAL) {
		t.Errorf("RegMR on a dead PD: %v", err)
	}
	if _, err := pd.AllocMR(1); !errIs(err, verbs.EINVAL) {
		t.Errorf("AllocMR on a dead PD: %v", err)
	}
	if _, err := pd.DMAMap(make([]byte, 1)); !errIs(err, verbs.EINVAL) {
		t.Errorf("DMAMap on a dead PD: %v", err)
	}
	p := newPair(t, Config{Seed: 18}, defaultOpts())
	must(t, p.b.qp.Destroy())
	if err := p.b.qp.Destroy(); !errIs(err, verbs.EINVAL) {
		t.Errorf("double destroy: %v", err)
	}
	if _, err := p.b.qp.PostSend(&verbs.SendWR{}); !errIs(err, verbs.EINVAL) {
		t.Errorf("post on a destroyed QP: %v", err)
	}
	if err := p.b.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}); !errIs(err, verbs.EINVAL) {
		t.Errorf("modify a destroyed QP: %v", err)
	}
	if _, ok := p.f.QPInfo(p.b.qp.Num()); ok {
		t.Errorf("QPInfo of a destroyed QP")
	}
	// The peer's requests to a destroyed QP are dropped.
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMARead, Signaled: true})
	p.f.DeliverAll()
	wantWCs(t, "to a destroyed peer", pollAll(p.a.scq), wcWant{1, verbs.StatusRetryExcErr})
	must(t, p.b.dev.Close())
	if err := p.b.dev.Close(); !errIs(err, verbs.EINVAL) {
		t.Errorf("double close: %v", err)
	}
}

func TestStrings(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{psnRange(0xffffff, 2).String(), "16777215..0"},
		{psnRange(5, 0).String(), "-"},
		{ACK.String(), "ACK"},
		{NAKRemoteAccess.String(), "NAK remote access error"},
		{Response(99).String(), "Response(99)"},
		{verbs.Op{ID: 1, Node: "c", QPNum: 2, PeerNode: "s", PeerQPNum: 3, Opcode: verbs.WRSend, WRID: 4, Bytes: 5, PSN: psnRange(6, 1), Flush: true}.String(),
			"#1 c qp 2 -> s qp 3 SEND wr_id 0x4 5B psn 6..6 due 0s flush"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for r := NoResponse; r <= NAKRemoteOp; r++ {
		if r.String() == "" || r.String()[0] == 'R' && r != RNRNAK {
			t.Errorf("response %d has no name", r)
		}
	}
}

// A device that grants more send SGEs than asked returns the grant in the
// QP's cap and takes WRs up to it: the cap returned is the cap enforced.
func TestGrantedSendSGEsAreEnforced(t *testing.T) {
	f := NewFabric(Config{Seed: 3})
	if _, err := f.NewDevice("big", DefaultAttr(), GrantSendSGE(33)); !errIs(err, verbs.EINVAL) {
		t.Errorf("a grant over max_send_sge: %v", err)
	}
	o := defaultOpts()
	o.cap.MaxSendSGE = 5
	a := &end{}
	d, err := f.NewDevice("client", DefaultAttr(), GrantSendSGE(8))
	must(t, err)
	a.dev = d
	a.pd, _ = d.AllocPD()
	a.scq, _ = d.CreateCQ(o.cqe)
	a.rcq, _ = d.CreateCQ(o.cqe)
	a.qp, err = a.pd.CreateQP(verbs.QPInitAttr{SendCQ: a.scq, RecvCQ: a.rcq, Cap: o.cap})
	must(t, err)
	if got := a.qp.Cap().MaxSendSGE; got != 8 {
		t.Fatalf("cap.max_send_sge %d, want the grant 8", got)
	}
	b := newEnd(t, f, "server", o)
	connect(t, a, "client", b, "server", o)
	_, mr := reg(t, a, 64, 0, 0)
	s := sge(mr, 0, 1)
	eight := &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{s, s, s, s, s, s, s, s}}
	if bad, err := a.qp.PostSend(eight); err != nil {
		t.Fatalf("8 SGEs on a QP granted 8: bad %v err %v", bad, err)
	}
	nine := &verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, SGList: append(eight.SGList[:8:8], s)}
	if _, err := a.qp.PostSend(nine); !errIs(err, verbs.EINVAL) {
		t.Errorf("9 SGEs on a QP granted 8: %v", err)
	}
	// Asking for more than the grant gets what was asked.
	q, err := a.pd.CreateQP(verbs.QPInitAttr{SendCQ: a.scq, RecvCQ: a.rcq, Cap: verbs.QPCap{MaxSendWR: 4, MaxSendSGE: 12}})
	must(t, err)
	if got := q.Cap().MaxSendSGE; got != 12 {
		t.Errorf("asked 12 with a grant of 8: cap %d", got)
	}
}
