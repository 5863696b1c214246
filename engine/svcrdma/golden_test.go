package svcrdma

// Golden cases: the kernel's behaviour worked by hand on small inputs,
// numbered GC-01 to GC-23 (the numbers lessons and other tests cite), on
// profileG unless said.

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

func sgl(entries ...SGE) string { return sglString(entries) }

func (h *harness) rq() *Rqst { return h.x.NewRqst("nfsd0") }

// GC-01: a head kvec written to a Reply chunk segment is one SINGLE_WR.
func TestGC01SingleWRWriteOfHeadKvec(t *testing.T) {
	attr, cfg := profileG()
	h := newHarness(t, attr, cfg, NewBehaviour(ProfileFix2025))
	r0 := h.x.allocPage()
	chunk := &Chunk{Segments: []Segment{{Handle: 0x11, Length: 4096, Offset: 0x1000}}, Length: 4096}
	info := &WriteInfo{Chunk: chunk}
	h.run(func(tk *sched.Task) { h.x.ccInit(tk, &info.CC) })
	var err error
	h.run(func(tk *sched.Task) { err = h.x.iovWrite(tk, info, Kvec{Page: r0, Off: 0, Len: 100}) })
	if err != nil {
		t.Fatal(err)
	}
	if len(info.CC.RWCtxts) != 1 {
		t.Fatalf("rw ctxts %d", len(info.CC.RWCtxts))
	}
	c := info.CC.RWCtxts[0]
	if len(c.SGL) != 2 {
		t.Errorf("get_rw_ctxt asked for %d entries, want (100>>12)+2 = 2", len(c.SGL))
	}
	if got, want := sglString(c.SGL[:c.NEnts]), sgl(SGE{Page: r0, Off: 0, Len: 100}); got != want {
		t.Errorf("SGL %s want %s", got, want)
	}
	if c.RW.Type != RWSingleWR || info.CC.SQECount != 1 {
		t.Errorf("type %v sqecount %d, want SINGLE_WR 1", c.RW.Type, info.CC.SQECount)
	}
	w := c.RW.WRs[0]
	if w.Op != verbs.WRRDMAWrite || w.RemoteAddr != 0x1000 || w.RKey != 0x11 || len(w.SGL) != 1 {
		t.Errorf("WR %v", w)
	}
	if info.SegNo != 0 || info.SegOff != 100 {
		t.Errorf("seg_no %d seg_off %d, want 0 100", info.SegNo, info.SegOff)
	}
}

// readSegment runs build_read_segment from a fresh head and returns the ctxt.
func (h *harness) readSegment(rq *Rqst, head *RecvCtxt, seg Segment) (*RWCtxt, error) {
	var err error
	h.run(func(tk *sched.Task) { err = h.x.buildReadSegment(tk, rq, head, seg, "read chunk 0 seg 0") })
	if err != nil || len(head.CC.RWCtxts) == 0 {
		return nil, err
	}
	return head.CC.RWCtxts[0], nil
}

// GC-04: an iWARP Read uses an MR: REG_MR then RDMA_READ_WITH_INV.
func TestGC04IWARPReadUsesMR(t *testing.T) {
	attr, cfg := profileG()
	attr.IWARP = true
	attr.MaxFastRegPageListLen = 128
	h := newHarness(t, attr, cfg, NewBehaviour(ProfileFix2025))
	h.x.mrPool = h.x.mrPool[:2]
	m1, m2 := h.x.mrPool[0], h.x.mrPool[1]
	rq := h.rq()
	for round := 1; round <= 2; round++ {
		head := &RecvCtxt{}
		h.run(func(tk *sched.Task) { h.x.ccInit(tk, &head.CC) })
		c, err := h.readSegment(rq, head, Segment{Handle: 0x33, Length: 40000, Offset: 0x20000})
		if err != nil {
			t.Fatal(err)
		}
		if c.RW.Type != RWMR || head.CC.SQECount != 2 {
			t.Fatalf("round %d: type %v wqes %d, want MR 2", round, c.RW.Type, head.CC.SQECount)
		}
		key := m1.Key
		first := h.x.rdmaRWCtxWrs(&c.RW, &head.CC.CQE, nil)
		if first.Op != verbs.WRRegMR || first.MR != m1 || first.Next.Op != verbs.WRRDMAReadWithInv ||
			first.Next.Bytes() != 40000 || first.Next.RemoteAddr != 0x20000 || !first.Next.Signaled {
			t.Fatalf("round %d: chain %s", round, chainString(first))
		}
		if m1.NeedInval || m1.Key == key || m1.Key&^0xff != key&^0xff {
			t.Errorf("after chain build: need_inval %v key %#x (was %#x)", m1.NeedInval, m1.Key, key)
		}
		h.run(func(tk *sched.Task) { h.x.ccRelease(tk, &head.CC, FromDevice) })
		if len(h.x.mrPool) != 2 || h.x.mrPool[0] != m1 || h.x.mrPool[1] != m2 {
			t.Fatalf("round %d: pool not [M1,M2] after release", round)
		}
	}
}

// writePages builds a Write of n full reply pages into one segment.
func (h *harness) writePages(n int, seg Segment) (*WriteInfo, error) {
	xdr := &XdrBuf{PageLen: n * 4096, Len: n * 4096}
	for i := 0; i < n; i++ {
		xdr.Pages = append(xdr.Pages, h.x.allocPage())
	}
	info := &WriteInfo{Chunk: &Chunk{Segments: []Segment{seg}, Length: seg.Length}}
	h.run(func(tk *sched.Task) { h.x.ccInit(tk, &info.CC) })
	var err error
	h.run(func(tk *sched.Task) { err = h.x.pagesWrite(tk, info, xdr, 0, xdr.PageLen) })
	return info, err
}

// GC-05: force_mr: the second use of an MR adds a LOCAL_INV.
func TestGC05ForceMRSecondUseAddsLocalInv(t *testing.T) {
	attr, cfg := profileG()
	cfg.ForceMR = true
	h := newHarness(t, attr, cfg, NewBehaviour(ProfileFix2025))
	h.x.mrPool = h.x.mrPool[:2]
	m1, m2 := h.x.mrPool[0], h.x.mrPool[1]
	seg := Segment{Handle: 0x55, Length: 12288, Offset: 0x40000}

	info, err := h.writePages(3, seg)
	if err != nil || info.CC.SQECount != 2 {
		t.Fatalf("first write: err %v wqes %d, want 2", err, info.CC.SQECount)
	}
	first := h.x.rdmaRWCtxWrs(&info.CC.RWCtxts[0].RW, &info.CC.CQE, nil)
	if first.Op != verbs.WRRegMR || first.Next.Op != verbs.WRRDMAWrite || !m1.NeedInval {
		t.Fatalf("first chain %s need_inval %v", chainString(first), m1.NeedInval)
	}
	oldKey := m1.Key
	h.run(func(tk *sched.Task) { h.x.ccRelease(tk, &info.CC, ToDevice) })

	info2, err := h.writePages(3, seg)
	if err != nil || info2.CC.SQECount != 3 {
		t.Fatalf("second write: err %v wqes %d, want 3", err, info2.CC.SQECount)
	}
	first = h.x.rdmaRWCtxWrs(&info2.CC.RWCtxts[0].RW, &info2.CC.CQE, nil)
	if first.Op != verbs.WRLocalInv || first.InvRKey != oldKey || first.MR != m1 ||
		first.Next.Op != verbs.WRRegMR || first.Next.Next.Op != verbs.WRRDMAWrite {
		t.Fatalf("second chain %s (old key %#x)", chainString(first), oldKey)
	}
	// Variant: both in flight: the third write takes M2, fresh: 2 WQEs.
	info3, err := h.writePages(3, seg)
	if err != nil || info3.CC.SQECount != 2 || info3.CC.RWCtxts[0].RW.regs[0].mr != m2 {
		t.Fatalf("in-flight variant: err %v wqes %d", err, info3.CC.SQECount)
	}
}

// GC-06: 300 pages under force_mr split across pages_per_mr = 256.
func TestGC06MRSplitAcrossPagesPerMR(t *testing.T) {
	attr, cfg := profileG()
	cfg.ForceMR = true
	h := newHarness(t, attr, cfg, NewBehaviour(ProfileFix2025))
	info, err := h.writePages(300, Segment{Handle: 0x66, Length: 1228800, Offset: 0x100000})
	if err != nil {
		t.Fatal(err)
	}
	c := info.CC.RWCtxts[0]
	if len(c.SGL) != 302 || !c.Chained || c.NEnts != 300 {
		t.Errorf("sgl cap %d chained %v nents %d, want 302 true 300", len(c.SGL), c.Chained, c.NEnts)
	}
	if c.RW.NrOps != 2 || info.CC.SQECount != 4 {
		t.Errorf("nr_ops %d wqes %d, want 2 4", c.RW.NrOps, info.CC.SQECount)
	}
	first := h.x.rdmaRWCtxWrs(&c.RW, &info.CC.CQE, nil)
	var got []string
	for w := first; w != nil; w = w.Next {
		switch w.Op {
		case verbs.WRRegMR:
			got = append(got, fmt.Sprintf("REG(M%d)", w.MR.ID))
		default:
			got = append(got, fmt.Sprintf("%v(%d,0x%x)", w.Op, w.Bytes(), w.RemoteAddr))
		}
	}
	want := "[REG(M1) RDMA_WRITE(1048576,0x100000) REG(M2) RDMA_WRITE(180224,0x200000)]"
	if fmt.Sprint(got) != want {
		t.Errorf("chain %v\nwant  %s", got, want)
	}
}

// GC-07: the max_sgl_rd threshold and MR-pool exhaustion.
func TestGC07MaxSGLRdAndPoolExhaustion(t *testing.T) {
	attr, cfg := profileG()
	attr.MaxSGLRd = 16
	for _, tc := range []struct {
		name      string
		pages     int
		emptyPool bool
		beh       Behaviour
		wantType  RWType
		wantWQE   int
		wantErr   error
	}{
		{"17 entries use an MR", 17, false, NewBehaviour(ProfileSeed), RWMR, 2, nil},
		{"16 entries use MULTI_WR", 16, false, NewBehaviour(ProfileSeed), RWMultiWR, 4, nil},
		{"empty pool is fatal in seed", 17, true, NewBehaviour(ProfileSeed), 0, 0, errIO},
		{"empty pool falls back in new2026", 17, true, NewBehaviour(ProfileNew2026), RWMultiWR, 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, attr, cfg, tc.beh)
			if tc.emptyPool {
				h.x.mrPool = nil
			}
			head := &RecvCtxt{}
			h.run(func(tk *sched.Task) { h.x.ccInit(tk, &head.CC) })
			c, err := h.readSegment(h.rq(), head, Segment{Handle: 0x77, Length: uint32(tc.pages * 4096), Offset: 0x5000})
			if err != tc.wantErr {
				t.Fatalf("err %v want %v", err, tc.wantErr)
			}
			if err != nil {
				if len(h.x.RWCache) != 1 {
					t.Errorf("failed ctxt not returned to the cache")
				}
				return
			}
			if c.RW.Type != tc.wantType || head.CC.SQECount != tc.wantWQE {
				t.Errorf("type %v wqes %d, want %v %d", c.RW.Type, head.CC.SQECount, tc.wantType, tc.wantWQE)
			}
			if tc.wantType == RWMR {
				h.x.rdmaRWCtxWrs(&c.RW, &head.CC.CQE, nil)
				h.run(func(tk *sched.Task) { h.x.ccRelease(tk, &head.CC, FromDevice) })
				head2 := &RecvCtxt{}
				h.run(func(tk *sched.Task) { h.x.ccInit(tk, &head2.CC) })
				if _, err := h.readSegment(h.rq(), head2, Segment{Handle: 0x78, Length: 17 * 4096}); err != nil || head2.CC.SQECount != 3 {
					t.Errorf("reuse: err %v wqes %d, want 3 (LOCAL_INV added)", err, head2.CC.SQECount)
				}
			}
		})
	}
}

// GC-10: SQ credit thresholds for chunk posts and Sends.
func TestGC10SQCreditThresholds(t *testing.T) {
	attr, cfg := profileG()
	chunk := func(tk *sched.Task, h *harness, n int) *ChunkCtxt {
		cc := &ChunkCtxt{}
		h.x.ccInit(tk, cc)
		cc.CQE = CQE{Name: "test"}
		rw := &RWCtxt{RW: RWCtx{Type: RWSingleWR, NrOps: 1, WRs: []*WR{{Op: verbs.WRRDMAWrite}}}}
		cc.RWCtxts = []*RWCtxt{rw}
		cc.SQECount = n
		return cc
	}
	t.Run("seed chunk waits at avail 3", func(t *testing.T) {
		h := newHarness(t, attr, cfg, NewBehaviour(ProfileSeed))
		h.x.SQAvail = 3
		h.s.Go("nfsd0", false, func(tk *sched.Task) { _ = h.x.postChunkCtxt(tk, chunk(tk, h, 3)) })
		for {
			ev, ok := h.s.Step()
			if !ok {
				break
			}
			h.ev = append(h.ev, ev)
		}
		if h.x.Counters.SQStarve != 1 || h.x.SQAvail != 3 || len(h.pd.qp.chains) != 0 {
			t.Fatalf("starve %d avail %d posted %d", h.x.Counters.SQStarve, h.x.SQAvail, len(h.pd.qp.chains))
		}
		if got := h.s.Tasks()[0].WaitingFor(); got != "wait_event(sc_send_wait)" {
			t.Fatalf("waiting for %q", got)
		}
		h.x.SQAvail = 4 // a completion returns one SQE: 4 > 3 wakes it
		for {
			if _, ok := h.s.Step(); !ok {
				break
			}
		}
		if h.x.SQAvail != 1 || len(h.pd.qp.chains) != 1 {
			t.Fatalf("after wake: avail %d posted %d", h.x.SQAvail, len(h.pd.qp.chains))
		}
	})
	t.Run("new2026 chunk posts at avail 3", func(t *testing.T) {
		h := newHarness(t, attr, cfg, NewBehaviour(ProfileNew2026))
		h.x.SQAvail = 3
		h.run(func(tk *sched.Task) { _ = h.x.postChunkCtxt(tk, chunk(tk, h, 3)) })
		if h.x.SQAvail != 0 || len(h.pd.qp.chains) != 1 {
			t.Fatalf("avail %d posted %d", h.x.SQAvail, len(h.pd.qp.chains))
		}
	})
	t.Run("seed Send chain posts at avail 3", func(t *testing.T) {
		h := newHarness(t, attr, cfg, NewBehaviour(ProfileSeed))
		h.x.SQAvail = 3
		var err error
		h.run(func(tk *sched.Task) {
			s := h.x.sendCtxtGet(tk)
			s.SQECount = 3
			err = h.x.postSend(tk, s, nil)
		})
		if err != nil || h.x.SQAvail != 0 {
			t.Fatalf("err %v avail %d", err, h.x.SQAvail)
		}
	})
	t.Run("seed chunk of exactly sc_sq_depth hangs", func(t *testing.T) {
		h := newHarness(t, attr, cfg, NewBehaviour(ProfileSeed))
		h.s.Go("nfsd0", false, func(tk *sched.Task) { _ = h.x.postChunkCtxt(tk, chunk(tk, h, 100)) })
		for {
			ev, ok := h.s.Step()
			if !ok {
				break
			}
			h.ev = append(h.ev, ev)
		}
		if !h.has(trace.Fault, "hung task") || h.x.Counters.Hung != 1 || len(h.pd.qp.chains) != 0 {
			t.Fatalf("want a hung-task fault and nothing posted; hung %d posted %d", h.x.Counters.Hung, len(h.pd.qp.chains))
		}
		// new2026's >= 0 threshold posts it.
		h2 := newHarness(t, attr, cfg, NewBehaviour(ProfileNew2026))
		h2.run(func(tk *sched.Task) { _ = h2.x.postChunkCtxt(tk, chunk(tk, h2, 100)) })
		if h2.x.SQAvail != 0 || len(h2.pd.qp.chains) != 1 {
			t.Fatalf("new2026: avail %d posted %d", h2.x.SQAvail, len(h2.pd.qp.chains))
		}
	})
	t.Run("chunk larger than the SQ", func(t *testing.T) {
		h := newHarness(t, attr, cfg, NewBehaviour(ProfileSeed))
		var err error
		h.run(func(tk *sched.Task) { err = h.x.postChunkCtxt(tk, chunk(tk, h, 101)) })
		if err != errInval || h.x.SQAvail != 100 {
			t.Fatalf("err %v avail %d", err, h.x.SQAvail)
		}
	})
}

// receive puts a transport header plus inline bytes into a posted Receive
// as the provider would, padding the buffer to total bytes with fill.
func (h *harness) receive(hdr rpcrdma.Header, inline []byte, total int) *RecvCtxt {
	h.t.Helper()
	rc := &RecvCtxt{ID: 999, Buf: h.x.allocPage()}
	b := hdr.AppendTo(nil)
	b = append(b, inline...)
	for len(b) < total {
		b = append(b, byte(len(b)))
	}
	copy(rc.Buf.Data, b)
	rc.ByteLen = len(b)
	h.x.recvQ = append(h.x.recvQ, rc)
	return rc
}

func gc13Header() rpcrdma.Header {
	return rpcrdma.Header{XID: 0xabc, Vers: 1, Credit: 32, Proc: rpcrdma.ProcMsg,
		ReadList: []rpcrdma.ReadSegment{
			{Position: 100, Segment: rpcrdma.Segment{Handle: 0x81, Length: 4000, Offset: 0x70000}},
			{Position: 4200, Segment: rpcrdma.Segment{Handle: 0x82, Length: 50, Offset: 0x71000}},
		}}
}

// GC-13: B1 alone shifts inline bytes by (rc_pageoff - rc_curpage).
func TestGC13BugReplayB1(t *testing.T) {
	attr, cfg := profileG()
	for _, b1 := range []bool{true, false} {
		t.Run(fmt.Sprintf("B1=%v", b1), func(t *testing.T) {
			h := newHarness(t, attr, cfg, NewBehaviour(ProfileFix2025).With(B1, b1))
			rc := h.receive(gc13Header(), nil, 200)
			B := append([]byte(nil), rc.Buf.Data[:200]...)
			rq := h.rq()
			for _, p := range rq.Pages[:2] {
				for i := range p.Data {
					p.Data[i] = 0xee // stale bytes
				}
			}
			p0, p1 := rq.Pages[0], rq.Pages[1]
			var n int
			h.run(func(tk *sched.Task) { n = h.x.Recvfrom(tk, rq) })
			if n != 0 || rc.ReadBytes != 4250 || rc.PageCount != 2 || rc.CC.SQECount != 2 {
				t.Fatalf("ret %d readbytes %d pagecount %d sqecount %d", n, rc.ReadBytes, rc.PageCount, rc.CC.SQECount)
			}
			k1, k2 := rc.CC.RWCtxts[1], rc.CC.RWCtxts[0]
			if got, want := sglString(k1.SGL[:k1.NEnts]), sgl(SGE{Page: p0, Off: 100, Len: 3996}, SGE{Page: p1, Off: 0, Len: 4}); got != want {
				t.Errorf("K1 SGL %s want %s", got, want)
			}
			if got, want := sglString(k2.SGL[:k2.NEnts]), sgl(SGE{Page: p1, Off: 104, Len: 50}); got != want {
				t.Errorf("K2 SGL %s want %s", got, want)
			}
			posted := h.lastPosted()
			if len(posted) != 2 || posted[0].RKey != 0x81 || posted[1].RKey != 0x82 || !posted[1].Signaled || posted[0].Signaled {
				t.Fatalf("chain: %d WRs", len(posted))
			}
			// The Reads land: K1's tail and K2, as the provider would write them.
			k1data := bytes.Repeat([]byte{0xa1}, 4000)
			k2data := bytes.Repeat([]byte{0xb2}, 50)
			copy(p0.Data[100:], k1data[:3996])
			copy(p1.Data[0:4], k1data[3996:])
			copy(p1.Data[104:154], k2data)
			if !bytes.Equal(p0.Data[0:100], B[0:100]) {
				t.Errorf("P0[0:100) is not B[0:100)")
			}
			if b1 {
				if !bytes.Equal(p1.Data[4:101], B[103:200]) {
					t.Errorf("B1: P1[4:101) should be B[103:200) (shifted by 3)")
				}
				if !bytes.Equal(p1.Data[101:104], []byte{0xee, 0xee, 0xee}) {
					t.Errorf("B1: P1[101:104) should be stale, got % x", p1.Data[101:104])
				}
			} else if !bytes.Equal(p1.Data[4:104], B[100:200]) {
				t.Errorf("fixed: P1[4:104) should be B[100:200)")
			}
		})
	}
}

// GC-14: B2: any call with two Read chunk positions fails in the seed.
func TestGC14BugReplayB2(t *testing.T) {
	attr, cfg := profileG()
	h := newHarness(t, attr, cfg, NewBehaviour(ProfileSeed))
	h.receive(gc13Header(), nil, 200)
	rq := h.rq()
	live := h.x.LivePages()
	h.run(func(tk *sched.Task) { h.x.Recvfrom(tk, rq) })
	if !h.x.Close {
		t.Error("XPT_CLOSE not set")
	}
	if got := h.x.LivePages(); got != live-1 {
		t.Errorf("live pages %d, want %d (P0 released with the recv ctxt)", got, live-1)
	}
	posted := h.lastPosted()
	if len(posted) != 1 || posted[0].Opcode != verbs.WRSend {
		t.Fatalf("want one RDMA_ERROR Send, got %d WRs", len(posted))
	}
	if h.x.SQAvail != 99 {
		t.Errorf("sq_avail %d want 99", h.x.SQAvail)
	}
	var s *SendCtxt
	for _, w := range h.x.inflight {
		s = sendOf(h.x, w)
	}
	if s == nil || s.HdrLen != 20 {
		t.Fatalf("RDMA_ERROR header: %+v", s)
	}
	var eh rpcrdma.Header
	if _, err := eh.Decode(s.Hdr.Data[:s.HdrLen], rpcrdma.DecodeOptions{}); err != nil || eh.Proc != rpcrdma.ProcError || eh.Err != rpcrdma.ErrCodeChunk || eh.XID != 0xabc || eh.Credit != 64 {
		t.Errorf("error reply %+v %v", eh, err)
	}
	if !h.has(trace.Return, "svc_rdma_copy_inline_range") {
		t.Error("no copy_inline_range return event")
	}
	if h.x.Counters.Reads != 0 {
		t.Errorf("no Read should be built, got %d", h.x.Counters.Reads)
	}
}

// sendOf finds the send ctxt whose Send WR is w.
func sendOf(x *Xprt, w *WR) *SendCtxt {
	for _, s := range x.allSends() {
		if &s.SendWR == w {
			return s
		}
	}
	return nil
}

// GC-15: B4: PZRC + Read chunk: the seed truncates the call body.
func TestGC15BugReplayB4(t *testing.T) {
	attr, cfg := profileG()
	hdr := rpcrdma.Header{XID: 0x15, Vers: 1, Credit: 8, Proc: rpcrdma.ProcNoMsg,
		ReadList: []rpcrdma.ReadSegment{
			{Position: 0, Segment: rpcrdma.Segment{Handle: 0x91, Length: 8192, Offset: 0x80000}},
			{Position: 1000, Segment: rpcrdma.Segment{Handle: 0x92, Length: 3000, Offset: 0x90000}},
		}}
	for _, tc := range []struct {
		p         Profile
		lastLen   int
		readBytes int
	}{{ProfileSeed, 2000, 10192}, {ProfileFix2025, 2000, 10192}, {ProfileNew2026, 3000, 11192}} {
		t.Run(string(tc.p), func(t *testing.T) {
			h := newHarness(t, attr, cfg, NewBehaviour(tc.p))
			rc := h.receive(hdr, nil, 0)
			rq := h.rq()
			p0, p1, p2 := rq.Pages[0], rq.Pages[1], rq.Pages[2]
			h.run(func(tk *sched.Task) { h.x.Recvfrom(tk, rq) })
			if rc.ReadBytes != tc.readBytes || rc.CC.SQECount != 3 {
				t.Fatalf("readbytes %d sqecount %d, want %d 3", rc.ReadBytes, rc.CC.SQECount, tc.readBytes)
			}
			cs := rc.CC.RWCtxts // front = last built
			if got, want := sglString(cs[2].SGL[:cs[2].NEnts]), sgl(SGE{Page: p0, Len: 1000}); got != want {
				t.Errorf("range 1: %s want %s", got, want)
			}
			if got, want := sglString(cs[1].SGL[:cs[1].NEnts]), sgl(SGE{Page: p0, Off: 1000, Len: 3000}); got != want {
				t.Errorf("R1: %s want %s", got, want)
			}
			want := sgl(SGE{Page: p0, Off: 4000, Len: 96}, SGE{Page: p1, Len: 4096}, SGE{Page: p2, Len: tc.lastLen})
			if got := sglString(cs[0].SGL[:cs[0].NEnts]); got != want {
				t.Errorf("range 2: %s want %s", got, want)
			}
			posted := h.lastPosted()
			if len(posted) != 3 || posted[0].RKey != 0x91 || posted[1].RKey != 0x92 || posted[2].RKey != 0x91 ||
				posted[2].RemoteAddr != 0x803e8 || !posted[2].Signaled {
				t.Errorf("chain order wrong: %d WRs", len(posted))
			}
		})
	}
}

// gc16Reply builds rq_res: head 100 B, n pages, tail 4 B.
func (h *harness) gc16Reply(rq *Rqst, pages int) {
	r0 := rq.Pages[0]
	rq.Res = XdrBuf{Head: Kvec{Page: r0, Len: 100}, Pages: rq.Pages[1 : 1+pages], PageLen: pages * 4096,
		Tail: Kvec{Page: r0, Off: 100, Len: 4}, Len: 104 + pages*4096}
	rq.RespagesIdx, rq.NextPageIdx = 0, 1+pages
}

// GC-16: B8: pull-up for SGE count overflows the header buffer.
func TestGC16BugReplayB8(t *testing.T) {
	attr, cfg := profileG()
	for _, tc := range []struct {
		p        Profile
		pages    int
		fault    bool
		errReply bool
		sges     int
	}{
		{ProfileSeed, 4, true, false, 0},
		{ProfileNew2026, 4, false, true, 0},
		{ProfileSeed, 2, true, false, 0},
		{ProfileSeed, 1, false, false, 4},
	} {
		t.Run(fmt.Sprintf("%s/%dpages", tc.p, tc.pages), func(t *testing.T) {
			h := newHarness(t, attr, cfg, NewBehaviour(tc.p))
			rq := h.rq()
			h.gc16Reply(rq, tc.pages)
			rq.Ctxt = &RecvCtxt{XID: 0x16, Vers: 1}
			h.run(func(tk *sched.Task) { _ = h.x.Sendto(tk, rq) })
			if got := h.has(trace.Fault, "heap overflow"); got != tc.fault {
				t.Errorf("fault %v want %v", got, tc.fault)
			}
			if tc.fault {
				want := map[int]string{4: "12420 bytes past", 2: "4228 bytes past"}[tc.pages]
				found := false
				for _, e := range h.ev {
					if e.Kind == trace.Fault && bytes.Contains([]byte(e.Text), []byte(want)) {
						found = true
					}
				}
				if !found {
					t.Errorf("fault text lacks %q", want)
				}
			}
			posted := h.lastPosted()
			if tc.errReply {
				if len(posted) != 1 || posted[0].SGList[0].Length != 20 || h.x.Close {
					t.Errorf("want a 20-byte RDMA_ERROR and the connection kept")
				}
			}
			if tc.sges > 0 && (len(posted) != 1 || len(posted[0].SGList) != tc.sges) {
				t.Errorf("want the reply mapped as %d SGEs", tc.sges)
			}
		})
	}
}

// GC-17: transport sizing as svc_rdma_accept does it.
func TestGC17TransportSizing(t *testing.T) {
	mlx := verbs.DeviceAttr{PageSize: 4096, MaxSGLRd: 16, MaxFastRegPageListLen: 256, MaxQPWR: 32768, MaxSendSGE: 30, MaxSGERd: 30}
	rxe := verbs.DeviceAttr{PageSize: 4096, MaxSGERd: 32, MaxQPWR: 16384, MaxSendSGE: 32, MaxFastRegPageListLen: 512}
	small := mlx
	small.MaxQPWR = 64
	for _, tc := range []struct {
		name                                string
		attr                                verbs.DeviceAttr
		requests                            int
		p                                   Profile
		sendSGEs, rq, ctxts, sqDepth, creds int
	}{
		{"a seed", mlx, 64, ProfileSeed, 5, 74, 192, 266, 64},
		{"a new2026", mlx, 64, ProfileNew2026, 5, 74, 192, 650, 64},
		{"b rxe", rxe, 64, ProfileSeed, 5, 74, 1536, 1610, 64},
		{"c seed", mlx, 128, ProfileSeed, 5, 138, 384, 522, 128},
		{"c new2026", mlx, 128, ProfileNew2026, 5, 138, 384, 1290, 128},
		{"d", small, 64, ProfileSeed, 5, 64, 186, 64, 62},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &Xprt{Cfg: Config{MaxRequests: tc.requests}.withDefaults(), Dev: tc.attr, PageSize: 4096, Beh: NewBehaviour(tc.p)}
			x.sizeQueues()
			got := [5]int{x.MaxSendSGEs, x.RQDepth, x.Ctxts, x.SQDepth, x.FCCredits}
			want := [5]int{tc.sendSGEs, tc.rq, tc.ctxts, tc.sqDepth, tc.creds}
			if got != want {
				t.Errorf("sges/rq/ctxts/sq/credits = %v want %v", got, want)
			}
			if x.SQAvail != x.SQDepth || x.MaxPages != 260 {
				t.Errorf("avail %d maxpages %d", x.SQAvail, x.MaxPages)
			}
		})
	}
}

// GC-21: header decode errors and what the server answers.
func TestGC21HeaderDecodeErrors(t *testing.T) {
	attr, cfg := profileG()
	base := rpcrdma.Header{XID: 0x21, Vers: 1, Credit: 8, Proc: rpcrdma.ProcMsg}
	for _, tc := range []struct {
		name   string
		p      Profile
		mutate func(b []byte) []byte
		reply  []uint32 // nil: nothing sent
	}{
		{"version 2", ProfileFix2025, func(b []byte) []byte { b[7] = 2; return b }, []uint32{0x21, 2, 64, 4, 1, 1, 1}},
		{"RDMA_DONE dropped", ProfileFix2025, func(b []byte) []byte { b[15] = 3; return b }, nil},
		{"RDMA_MSGP", ProfileFix2025, func(b []byte) []byte { b[15] = 2; return b }, []uint32{0x21, 1, 64, 4, 2}},
		{"proc 7", ProfileFix2025, func(b []byte) []byte { b[15] = 7; return b }, []uint32{0x21, 1, 64, 4, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, attr, cfg, NewBehaviour(tc.p))
			rc := h.receive(base, make([]byte, 40), 0)
			tc.mutate(rc.Buf.Data)
			h.run(func(tk *sched.Task) { h.x.Recvfrom(tk, h.rq()) })
			posted := h.lastPosted()
			if tc.reply == nil {
				if len(posted) != 0 {
					t.Fatalf("sent %d WRs, want nothing", len(posted))
				}
				return
			}
			if len(posted) != 1 || h.x.Close {
				t.Fatalf("want one Send and no disconnect; got %d, close %v", len(posted), h.x.Close)
			}
			var s *SendCtxt
			for _, c := range h.x.allSends() {
				if c.Kind == "RDMA_ERROR" {
					s = c
				}
			}
			var words []uint32
			for i := 0; i+4 <= s.HdrLen; i += 4 {
				words = append(words, be32(s.Hdr.Data[i:]))
			}
			if fmt.Sprint(words) != fmt.Sprint(tc.reply) {
				t.Errorf("reply %v want %v", words, tc.reply)
			}
		})
	}
	t.Run("read position 6", func(t *testing.T) {
		h := newHarness(t, attr, cfg, NewBehaviour(ProfileFix2025))
		hd := base
		hd.ReadList = []rpcrdma.ReadSegment{{Position: 6, Segment: rpcrdma.Segment{Handle: 1, Length: 8}}}
		h.receive(hd, make([]byte, 40), 0)
		h.run(func(tk *sched.Task) { h.x.Recvfrom(tk, h.rq()) })
		if p := h.lastPosted(); len(p) != 1 || p[0].SGList[0].Length != 20 {
			t.Fatalf("want ERR_CHUNK")
		}
	})
	for _, tc := range []struct {
		p       Profile
		errWant bool
	}{{ProfileFix2025, false}, {ProfileNew2026, true}} {
		t.Run("segcount 0 in "+string(tc.p), func(t *testing.T) {
			h := newHarness(t, attr, cfg, NewBehaviour(tc.p))
			hd := base
			hd.WriteList = []rpcrdma.WriteChunk{{}}
			h.receive(hd, make([]byte, 40), 0)
			var n int
			h.run(func(tk *sched.Task) { n = h.x.Recvfrom(tk, h.rq()) })
			if gotErr := len(h.lastPosted()) == 1; gotErr != tc.errWant || (n > 0) == tc.errWant {
				t.Fatalf("ERR_CHUNK sent %v, returned %d; want error %v", gotErr, n, tc.errWant)
			}
		})
	}
}

// completeLast delivers a successful completion for the signaled tail of
// the last posted chain.
func (h *harness) completeLast(status verbs.Status) {
	h.t.Helper()
	posted := h.lastPosted()
	tail := posted[len(posted)-1]
	h.run(func(tk *sched.Task) {
		h.x.HandleSendWC(tk, verbs.WC{WRID: tail.WRID, Status: status, Opcode: verbs.WCOpcodeFor(tail.Opcode)})
	})
}

// GC-08: one data-item Read chunk: three SGL entries, one WR, and the
// call rebuilt around the data when the Read completes.
func TestGC08DataItemReadChunk(t *testing.T) {
	attr, cfg := profileG()
	h := newHarness(t, attr, cfg, NewBehaviour(ProfileFix2025))
	hdr := rpcrdma.Header{XID: 0x8, Vers: 1, Credit: 8, Proc: rpcrdma.ProcMsg,
		ReadList: []rpcrdma.ReadSegment{{Position: 120, Segment: rpcrdma.Segment{Handle: 0x44, Length: 10000, Offset: 0x30000}}}}
	inline := make([]byte, 140)
	for i := range inline {
		inline[i] = byte(i)
	}
	rc := h.receive(hdr, inline, 0)
	rq := h.rq()
	p0, p1, p2 := rq.Pages[0], rq.Pages[1], rq.Pages[2]
	h.run(func(tk *sched.Task) { h.x.Recvfrom(tk, rq) })
	c := rc.CC.RWCtxts[0]
	if got, want := sglString(c.SGL[:c.NEnts]), sgl(SGE{Page: p0, Len: 4096}, SGE{Page: p1, Len: 4096}, SGE{Page: p2, Len: 1808}); got != want {
		t.Errorf("SGL %s want %s", got, want)
	}
	if rc.CC.SQECount != 1 || rc.CurPage != 2 || rc.PageOff != 1808 || rc.PageCount != 3 || rc.ReadBytes != 10000 {
		t.Errorf("head (%d,%d) pages %d readbytes %d sqecount %d", rc.CurPage, rc.PageOff, rc.PageCount, rc.ReadBytes, rc.CC.SQECount)
	}
	posted := h.lastPosted()
	if len(posted) != 1 || posted[0].Opcode != verbs.WRRDMARead || posted[0].RemoteAddr != 0x30000 || !posted[0].Signaled {
		t.Fatalf("chain of %d WRs", len(posted))
	}
	if h.x.SQAvail != 99 || rq.Pages[0] != nil || len(rc.Pages) != 3 || rc.Pages[0] != p0 {
		t.Errorf("sq_avail %d, rq_pages[0] %v, rc_pages %d", h.x.SQAvail, rq.Pages[0], len(rc.Pages))
	}
	h.completeLast(verbs.StatusSuccess)
	if h.x.SQAvail != 100 || len(h.x.ReadComplete) != 1 || !h.x.Data {
		t.Fatalf("after the Read: avail %d queued %d data %v", h.x.SQAvail, len(h.x.ReadComplete), h.x.Data)
	}
	var n int
	h.run(func(tk *sched.Task) { n = h.x.Recvfrom(tk, rq) })
	a := rq.Arg
	if n != 10140 || a.Head.Len != 120 || a.PageLen != 10000 || a.Tail.Len != 20 || a.Pages[0] != p0 {
		t.Fatalf("rq_arg: len %d head %d page_len %d tail %d", n, a.Head.Len, a.PageLen, a.Tail.Len)
	}
	if !bytes.Equal(a.Head.Bytes(), inline[:120]) || !bytes.Equal(a.Tail.Bytes(), inline[120:]) {
		t.Error("head and tail are not the inline bytes split at the position")
	}
}

// GC-23: a zero-length Read segment hits BUG_ON in the seed era and is
// -EIO (no RDMA_ERROR, a disconnect) in 2026.
func TestGC23ZeroLengthReadSegment(t *testing.T) {
	attr, cfg := profileG()
	hdr := rpcrdma.Header{XID: 0x23, Vers: 1, Credit: 8, Proc: rpcrdma.ProcMsg,
		ReadList: []rpcrdma.ReadSegment{{Position: 120, Segment: rpcrdma.Segment{Handle: 0x44, Length: 0, Offset: 0x30000}}}}
	for _, tc := range []struct {
		p     Profile
		fault bool
	}{{ProfileSeed, true}, {ProfileFix2025, true}, {ProfileNew2026, false}} {
		t.Run(string(tc.p), func(t *testing.T) {
			h := newHarness(t, attr, cfg, NewBehaviour(tc.p))
			h.receive(hdr, make([]byte, 140), 0)
			h.run(func(tk *sched.Task) { h.x.Recvfrom(tk, h.rq()) })
			if got := h.has(trace.Fault, "BUG_ON(!nents)"); got != tc.fault {
				t.Fatalf("BUG_ON fault %v, want %v", got, tc.fault)
			}
			if tc.fault {
				return
			}
			if len(h.lastPosted()) != 0 || !h.x.Close {
				t.Errorf("new2026: want no RDMA_ERROR and a close; posted %d close %v", len(h.lastPosted()), h.x.Close)
			}
			var eio bool
			for _, e := range h.ev {
				if e.Func == "svc_rdma_process_read_list" && e.Err == "EIO" {
					eio = true
				}
			}
			if !eio {
				t.Error("process_read_list did not return -EIO")
			}
		})
	}
}
