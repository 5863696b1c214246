package sim

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

func TestRNR(t *testing.T) {
	step := DefaultRNRTimer + DefaultLatency // RNR timer, then the retransmission's latency
	t.Run("retries run out", func(t *testing.T) {
		for _, retries := range []int{0, 1, 3, 6} {
			o := defaultOpts()
			o.rnrRetry = retries
			p := newPair(t, Config{Seed: 20}, o)
			var naks int
			p.f.SetTap(func(tr Transfer) {
				if tr.Response == RNRNAK {
					naks++
				}
			})
			postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend}, &verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Signaled: true})
			n := p.f.DeliverAll()
			if n != retries+1 || naks != retries+1 {
				t.Errorf("rnr_retry %d: %d executions, %d RNR NAKs; want %d", retries, n, naks, retries+1)
			}
			wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusRNRRetryExcErr}, wcWant{2, verbs.StatusWRFlushErr})
			if want := DefaultLatency + time.Duration(retries)*step; p.f.Now() != want {
				t.Errorf("rnr_retry %d: clock %v, want %v", retries, p.f.Now(), want)
			}
			if p.b.qp.State() != verbs.QPSRTS {
				t.Errorf("the receiver left RTS: %v", p.b.qp.State())
			}
		}
	})
	t.Run("a receive posted between retries", func(t *testing.T) {
		o := defaultOpts()
		o.rnrRetry = 3
		p := newPair(t, Config{Seed: 21}, o)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true})
		for i := range 2 {
			op, _ := p.f.DeliverNext()
			if !op.Retry || op.Attempt != i {
				t.Fatalf("attempt %d: %+v", i, op)
			}
		}
		postRecv(t, p.b.qp, 9)
		p.f.DeliverAll()
		wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess})
		wantWCs(t, "recv", pollAll(p.b.rcq), wcWant{9, verbs.StatusSuccess})
		if want := DefaultLatency + 2*step; p.f.Now() != want {
			t.Errorf("clock %v, want %v", p.f.Now(), want)
		}
	})
	t.Run("rnr_retry 7 waits forever, later WRs wait behind", func(t *testing.T) {
		o := defaultOpts()
		o.rnrRetry = 7
		p := newPair(t, Config{Seed: 22}, o)
		_, rmr := reg(t, p.b, 64, rw, 0)
		postSend(t, p.a.qp,
			&verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true},
			&verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, Signaled: true, RemoteAddr: rmr.Addr(), RKey: rmr.RKey()})
		if n := p.f.DeliverAll(); n != 1 {
			t.Fatalf("DeliverAll = %d, want 1 (then stalled)", n)
		}
		ops := p.f.Pending()
		if len(ops) != 2 || ops[0].WRID != 1 || ops[0].Attempt != 1 || ops[1].Due <= ops[0].Due {
			t.Fatalf("pending = %v", ops)
		}
		for range 20 {
			p.f.DeliverNext() // spins the clock, never fails
		}
		if wcs := pollAll(p.a.scq); len(wcs) != 0 {
			t.Fatalf("completions while waiting: %+v", wcs)
		}
		postRecv(t, p.b.qp, 9)
		p.f.DeliverAll()
		wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess}, wcWant{2, verbs.StatusSuccess})
	})
	t.Run("write with immediate needs a receive", func(t *testing.T) {
		p := newPair(t, Config{Seed: 23}, defaultOpts())
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWriteWithImm, Signaled: true})
		p.f.DeliverAll()
		wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusRNRRetryExcErr})
	})
}

func TestFailNth(t *testing.T) {
	tests := []struct {
		st        verbs.Status
		resp      Response
		peerError bool
	}{
		{verbs.StatusRemAccessErr, NAKRemoteAccess, true},
		{verbs.StatusRemInvReqErr, NAKInvalidRequest, true},
		{verbs.StatusRemOpErr, NAKRemoteOp, true},
		{verbs.StatusRNRRetryExcErr, RNRNAK, false},
		{verbs.StatusRetryExcErr, NoResponse, false},
		{verbs.StatusLocProtErr, NoResponse, false},
		{verbs.StatusLocLenErr, NoResponse, false},
	}
	for _, tc := range tests {
		t.Run(tc.st.String(), func(t *testing.T) {
			p := newPair(t, Config{Seed: 24}, defaultOpts())
			_, lmr := reg(t, p.a, 64, 0, 1)
			remote, rmr := reg(t, p.b, 64, rw, 0)
			orig := bytes.Clone(remote)
			var trs []Transfer
			p.f.SetTap(func(tr Transfer) { trs = append(trs, tr) })
			p.f.FailNth(2, 0, tc.st)
			for i := range 3 {
				postSend(t, p.a.qp, &verbs.SendWR{WRID: uint64(i + 1), Opcode: verbs.WRRDMAWrite, Signaled: true,
					SGList: []verbs.SGE{sge(lmr, 8*i, 8)}, RemoteAddr: rmr.Addr() + uint64(8*i), RKey: rmr.RKey()})
			}
			p.f.DeliverAll()
			wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess}, wcWant{2, tc.st}, wcWant{3, verbs.StatusWRFlushErr})
			if !bytes.Equal(remote[8:], orig[8:]) {
				t.Errorf("the failed WR moved bytes")
			}
			if got := p.b.qp.State() == verbs.QPSErr; got != tc.peerError {
				t.Errorf("peer ERR = %v, want %v", got, tc.peerError)
			}
			if len(trs) != 2 || trs[1].Response != tc.resp || trs[1].Status != tc.st {
				t.Fatalf("transfers = %+v", trs)
			}
			if tc.resp != NoResponse && len(trs[1].Payload) != 8 {
				t.Errorf("NAKed request carried %d bytes, want 8", len(trs[1].Payload))
			}
		})
	}
	t.Run("per QP", func(t *testing.T) {
		p := newPair(t, Config{Seed: 25}, defaultOpts())
		p.f.FailNth(1, p.b.qp.Num(), verbs.StatusLocProtErr)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true})
		postSend(t, p.b.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, Signaled: true})
		p.f.DeliverAll()
		wantWCs(t, "a", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess})
		wantWCs(t, "b", pollAll(p.b.scq), wcWant{2, verbs.StatusLocProtErr})
	})
	t.Run("cleared", func(t *testing.T) {
		p := newPair(t, Config{Seed: 25}, defaultOpts())
		p.f.FailNth(1, 0, verbs.StatusLocProtErr)
		p.f.FailNth(0, 0, verbs.StatusLocProtErr) // ignored
		p.f.ClearFaults()
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true})
		p.f.DeliverAll()
		wantWCs(t, "a", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess})
	})
}

func TestDisconnect(t *testing.T) {
	p := newPair(t, Config{Seed: 26}, defaultOpts())
	postRecv(t, p.a.qp, 10)
	postRecv(t, p.b.qp, 20)
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite}, &verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, Signaled: true})
	postSend(t, p.b.qp, &verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite})
	p.f.Disconnect("server")
	p.f.Disconnect("nowhere") // ignored
	if a, b := p.a.qp.State(), p.b.qp.State(); a != verbs.QPSErr || b != verbs.QPSErr {
		t.Fatalf("states %v %v", a, b)
	}
	if n := len(p.f.Pending()); n != 0 {
		t.Errorf("%d pending after disconnect", n)
	}
	wantWCs(t, "a send", pollAll(p.a.scq), wcWant{1, verbs.StatusWRFlushErr}, wcWant{2, verbs.StatusWRFlushErr})
	wantWCs(t, "b send", pollAll(p.b.scq), wcWant{3, verbs.StatusWRFlushErr})
	wantWCs(t, "a recv", pollAll(p.a.rcq), wcWant{10, verbs.StatusWRFlushErr})
	wantWCs(t, "b recv", pollAll(p.b.rcq), wcWant{20, verbs.StatusWRFlushErr})
}

func TestVirtualClockOrdering(t *testing.T) {
	f := NewFabric(Config{Seed: 27})
	o := defaultOpts()
	c1, s1 := newEnd(t, f, "c1", o), newEnd(t, f, "s1", o)
	c2, s2 := newEnd(t, f, "c2", o), newEnd(t, f, "s2", o)
	connect(t, c1, "c1", s1, "s1", o)
	connect(t, c2, "c2", s2, "s2", o)
	_, big := reg(t, c1, 1<<20, 0, 1)
	_, bigDst := reg(t, s1, 1<<20, rw, 0)
	_, small := reg(t, c2, 1024, 0, 1)
	_, smallDst := reg(t, s2, 1024, rw, 0)

	// QP 1: a 1 MiB WRITE then a 1 KiB one; QP 2, posted later: 1 KiB.
	postSend(t, c1.qp,
		&verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{sge(big, 0, 1<<20)}, RemoteAddr: bigDst.Addr(), RKey: bigDst.RKey()},
		&verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{sge(big, 0, 1024)}, RemoteAddr: bigDst.Addr(), RKey: bigDst.RKey()})
	postSend(t, c2.qp,
		&verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{sge(small, 0, 1024)}, RemoteAddr: smallDst.Addr(), RKey: smallDst.RKey()})

	wire := func(n int) time.Duration {
		return time.Duration((int64(n)*8*1e9 + DefaultLinkRate - 1) / DefaultLinkRate)
	}
	dBig := wire(1<<20) + DefaultLatency
	dSmall := wire(1024) + DefaultLatency
	ops := f.Pending()
	var got []string
	for _, op := range ops {
		got = append(got, fmt.Sprintf("%d@%v", op.WRID, op.Due))
	}
	want := []string{fmt.Sprintf("3@%v", dSmall), fmt.Sprintf("1@%v", dBig), fmt.Sprintf("2@%v", dBig+dSmall)}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pending = %v, want %v", got, want)
	}
	op, _ := f.DeliverNext()
	if op.WRID != 3 || f.Now() != dSmall {
		t.Errorf("first delivered wr %d at %v", op.WRID, f.Now())
	}
	wantWCs(t, "qp 2", pollAll(c2.scq), wcWant{3, verbs.StatusSuccess})
	if wcs := pollAll(c1.scq); len(wcs) != 0 {
		t.Errorf("qp 1 completed early: %+v", wcs)
	}
	f.DeliverAll()
	wantWCs(t, "qp 1 in posting order", pollAll(c1.scq), wcWant{1, verbs.StatusSuccess}, wcWant{2, verbs.StatusSuccess})
	if f.Now() != dBig+dSmall {
		t.Errorf("clock %v, want %v", f.Now(), dBig+dSmall)
	}

	// A READ pays the latency both ways; a slower link stretches the wire time.
	f.SetLinkRate(1_000_000_000)
	f.SetLatency(5 * time.Microsecond)
	start := f.Now()
	_, sink := reg(t, c2, 1024, verbs.AccessLocalWrite, 0)
	postSend(t, c2.qp, &verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMARead, Signaled: true,
		SGList: []verbs.SGE{sge(sink, 0, 1000)}, RemoteAddr: smallDst.Addr(), RKey: smallDst.RKey()})
	if ops := f.Pending(); ops[0].Due != start+8*time.Microsecond+10*time.Microsecond {
		t.Errorf("read due %v, want %v", ops[0].Due-start, 18*time.Microsecond)
	}
	if c := f.Config(); c.LinkRate != 1_000_000_000 || c.Latency != 5*time.Microsecond {
		t.Errorf("config %+v", c)
	}
}

func TestAuto(t *testing.T) {
	p := newPair(t, Config{Seed: 28, Auto: true}, defaultOpts())
	_, lmr := reg(t, p.a, 64, 0, 1)
	dst, dmr := reg(t, p.b, 64, verbs.AccessLocalWrite, 0)
	postRecv(t, p.b.qp, 1, sge(dmr, 0, 64))
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{sge(lmr, 0, 64)}})
	wantWCs(t, "send", pollAll(p.a.scq), wcWant{2, verbs.StatusSuccess})
	wantWCs(t, "recv", pollAll(p.b.rcq), wcWant{1, verbs.StatusSuccess})
	if dst[0] != 1 || len(p.f.Pending()) != 0 || p.f.Now() == 0 {
		t.Errorf("auto delivery: byte %d, %d pending, clock %v", dst[0], len(p.f.Pending()), p.f.Now())
	}
	p.f.SetAuto(false)
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, Signaled: true})
	if len(p.f.Pending()) != 1 {
		t.Fatalf("manual mode delivered by itself")
	}
	p.f.SetAuto(true)
	wantWCs(t, "after SetAuto", pollAll(p.a.scq), wcWant{3, verbs.StatusSuccess})

	// In Auto mode an RNR-blocked SEND completes when the receive arrives.
	o := defaultOpts()
	o.rnrRetry = 7
	p = newPair(t, Config{Seed: 29, Auto: true}, o)
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 4, Opcode: verbs.WRSend, Signaled: true})
	if len(p.f.Pending()) != 1 {
		t.Fatalf("RNR-blocked send not pending")
	}
	postRecv(t, p.b.qp, 5)
	wantWCs(t, "send after recv", pollAll(p.a.scq), wcWant{4, verbs.StatusSuccess})
}

// fingerprint runs a fixed scenario and prints every number the seed
// decides.
func fingerprint(t *testing.T, seed int64) string {
	p := newPair(t, Config{Seed: seed}, defaultOpts())
	var b strings.Builder
	_, m1 := reg(t, p.a, 100, rw, 0)
	_, m2 := reg(t, p.b, 5000, rw, 0)
	fmr, _ := p.b.pd.AllocMR(4)
	addr, _ := p.a.pd.DMAMap(make([]byte, 10))
	fmt.Fprintf(&b, "qps %d %d\n", p.a.qp.Num(), p.b.qp.Num())
	fmt.Fprintf(&b, "mrs %#x/%#x@%#x %#x/%#x@%#x fast %#x@%#x dma %#x@%#x\n",
		m1.LKey(), m1.RKey(), m1.Addr(), m2.LKey(), m2.RKey(), m2.Addr(), fmr.RKey(), fmr.Addr(), p.a.pd.LocalDMALKey(), addr)
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{sge(m1, 0, 100)}, RemoteAddr: m2.Addr(), RKey: m2.RKey()})
	postSend(t, p.b.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMARead, SGList: []verbs.SGE{sge(m2, 0, 5000)}, RemoteAddr: m1.Addr(), RKey: m1.RKey()})
	for _, op := range p.f.Pending() {
		fmt.Fprintf(&b, "%v\n", op)
	}
	return b.String()
}

func TestDeterminism(t *testing.T) {
	a, b, c := fingerprint(t, 42), fingerprint(t, 42), fingerprint(t, 43)
	if a != b {
		t.Errorf("same seed, different numbers:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("different seeds, same numbers:\n%s", a)
	}
	// Every line but the op order should differ with the seed.
	for i, l := range strings.Split(a, "\n")[:2] {
		if l == strings.Split(c, "\n")[i] {
			t.Errorf("line %d does not depend on the seed: %s", i, l)
		}
	}
}

func TestPSNAccounting(t *testing.T) {
	tests := []struct {
		mtu     int
		opcode  verbs.WROpcode
		n       int
		packets int
	}{
		{1024, verbs.WRSend, 0, 1},
		{1024, verbs.WRSend, 1, 1},
		{1024, verbs.WRSend, 1024, 1},
		{1024, verbs.WRSend, 1025, 2},
		{1024, verbs.WRRDMAWrite, 4096, 4},
		{1024, verbs.WRRDMARead, 4096, 4},
		{1024, verbs.WRRDMARead, 1, 1},
		{256, verbs.WRRDMAWrite, 1000, 4},
		{4096, verbs.WRRDMARead, 10000, 3},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v %d at mtu %d", tc.opcode, tc.n, tc.mtu), func(t *testing.T) {
			o := defaultOpts()
			o.mtu = tc.mtu
			o.sqPSN = 0xfffffe // wraps within the first message
			p := newPair(t, Config{Seed: 30}, o)
			_, l := reg(t, p.a, 16384, rw, 0)
			_, r := reg(t, p.b, 16384, rw, 0)
			wr := func(id uint64) *verbs.SendWR {
				return &verbs.SendWR{WRID: id, Opcode: tc.opcode, SGList: []verbs.SGE{sge(l, 0, tc.n)}, RemoteAddr: r.Addr(), RKey: r.RKey()}
			}
			postSend(t, p.a.qp, wr(1), &verbs.SendWR{WRID: 2, Opcode: verbs.WRLocalInv}, wr(3))
			ops := p.f.Pending()
			first := ops[0].PSN
			if first.First != 0xfffffe || first.Count != tc.packets || first.Last != (0xfffffe+uint32(tc.packets)-1)&psnMask {
				t.Errorf("first psn %+v, want %d packets from 0xfffffe", first, tc.packets)
			}
			if ops[1].PSN.Count != 0 {
				t.Errorf("LOCAL_INV spent PSNs: %+v", ops[1].PSN)
			}
			if ops[2].PSN.First != (first.Last+1)&psnMask {
				t.Errorf("next message starts at %d, want %d", ops[2].PSN.First, (first.Last+1)&psnMask)
			}
			if info, _ := p.f.QPInfo(p.a.qp.Num()); info.SQPSN != (ops[2].PSN.Last+1)&psnMask || info.PathMTU != tc.mtu {
				t.Errorf("qp info %+v", info)
			}
		})
	}
}

func TestTapSeesEveryOperation(t *testing.T) {
	p := newPair(t, Config{Seed: 31}, defaultOpts())
	var trs []Transfer
	p.f.SetTap(func(tr Transfer) {
		p.f.Pending() // a tap may call back into the fabric
		trs = append(trs, tr)
	})
	src, smr := reg(t, p.a, 4096, verbs.AccessLocalWrite, 3)
	remote, rmr := reg(t, p.b, 4096, rw, 100)
	_, rb := reg(t, p.b, 4096, verbs.AccessLocalWrite, 0)
	postRecv(t, p.b.qp, 1, sge(rb, 0, 4096))
	postSend(t, p.a.qp,
		&verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, SGList: []verbs.SGE{sge(smr, 0, 3000)}},
		&verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{sge(smr, 100, 2000)}, RemoteAddr: rmr.Addr() + 5, RKey: rmr.RKey()},
		&verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMARead, Signaled: true, SGList: []verbs.SGE{sge(smr, 0, 2500)}, RemoteAddr: rmr.Addr() + 1000, RKey: rmr.RKey()},
		&verbs.SendWR{WRID: 4, Opcode: verbs.WRSend}, // RNR: no receive left
	)
	wantSend := bytes.Clone(src[0:3000])
	wantWrite := bytes.Clone(src[100:2100])
	p.f.DeliverAll()
	wantRead := remote[1000:3500] // after the WRITE before it landed
	if len(trs) != 4 {
		t.Fatalf("%d transfers, want 4", len(trs))
	}
	checks := []struct {
		payload []byte
		resp    Response
		msn     uint32
		packets int
	}{
		{wantSend, ACK, 1, 3}, {wantWrite, ACK, 2, 2}, {wantRead, ACK, 3, 3}, {nil, RNRNAK, 3, 1},
	}
	for i, c := range checks {
		tr := trs[i]
		if tr.WRID != uint64(i+1) || !tr.OnWire || tr.Response != c.resp || tr.MSN != c.msn || tr.PSN.Count != c.packets {
			t.Errorf("transfer %d = wr %d wire %v %v msn %d psn %v", i, tr.WRID, tr.OnWire, tr.Response, tr.MSN, tr.PSN)
		}
		if len(c.payload) > 0 && !bytes.Equal(tr.Payload, c.payload) {
			t.Errorf("transfer %d carried the wrong bytes", i)
		}
		if tr.Node != "client" || tr.QPNum != p.a.qp.Num() || tr.PeerNode != "server" || tr.PeerQPNum != p.b.qp.Num() || tr.PathMTU != 1024 {
			t.Errorf("transfer %d addressing %+v", i, tr.Op)
		}
	}
	if trs[2].RespPSN != trs[2].PSN || trs[2].RemoteAddr != rmr.Addr()+1000 || trs[2].RKey != rmr.RKey() {
		t.Errorf("read transfer %+v", trs[2])
	}
	if !trs[0].PeerCompleted || trs[0].PeerStatus != verbs.StatusSuccess {
		t.Errorf("send transfer does not report the receive completion")
	}
	// The tap's payload is its own copy.
	trs[0].Payload[0] ^= 0xff
	if src[0] == trs[0].Payload[0] {
		t.Errorf("payload aliases the registered buffer")
	}
	// Local operations are not on the wire (the client QP is in ERR after
	// the RNR failure; the server's is fine).
	trs = nil
	postSend(t, p.b.qp, &verbs.SendWR{WRID: 9, Opcode: verbs.WRLocalInv, InvalidateRKey: 1})
	p.f.DeliverAll()
	if len(trs) != 1 || trs[0].OnWire || trs[0].Response != NoResponse || trs[0].Status != verbs.StatusLocQPOpErr {
		t.Errorf("local op transfer %+v", trs)
	}
}

func TestConcurrentUse(t *testing.T) {
	o := defaultOpts()
	o.rnrRetry = 7
	p := newPair(t, Config{Seed: 32}, o)
	const n = 200
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		for i := range n {
			for {
				_, err := p.a.qp.PostSend(&verbs.SendWR{WRID: uint64(i), Opcode: verbs.WRSend, Signaled: true})
				if err == nil {
					break
				}
				time.Sleep(time.Microsecond)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range n {
			for {
				_, err := p.b.qp.PostRecv(&verbs.RecvWR{WRID: uint64(i)})
				if err == nil {
					break
				}
				time.Sleep(time.Microsecond)
			}
		}
	}()
	var sent, recvd int
	go func() {
		defer wg.Done()
		wc := make([]verbs.WC, 16)
		for sent < n || recvd < n {
			p.f.DeliverAll()
			for _, w := range wc[:p.a.scq.Poll(wc)] {
				if w.Status != verbs.StatusSuccess {
					t.Errorf("send wc %+v", w)
				}
				sent++
			}
			recvd += p.b.rcq.Poll(wc)
			_ = p.f.Now()
			_, _ = p.f.QPInfo(p.a.qp.Num())
		}
	}()
	wg.Wait()
}

func TestDeliverNextAs(t *testing.T) {
	o := defaultOpts()
	o.rnrRetry = 7
	p := newPair(t, Config{Seed: 33}, o)
	p.f.FailNth(2, 0, verbs.StatusLocProtErr)
	postSend(t, p.a.qp,
		&verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true},
		&verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Signaled: true},
		&verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, Signaled: true})
	// Success forced: the first op runs normally and counts for the fault.
	if op, _ := p.f.DeliverNextAs(verbs.StatusSuccess); op.WRID != 1 || op.Status != verbs.StatusSuccess {
		t.Fatalf("first = %v", op)
	}
	// The SEND meets no receive: RNR, retried.
	if op, _ := p.f.DeliverNextAs(verbs.StatusSuccess); op.WRID != 2 || !op.Retry {
		t.Fatalf("second = %v", op)
	}
	// The armed fault fired on that execution but was overridden, so the
	// retry fails only because the learner says so.
	op, _ := p.f.DeliverNextAs(verbs.StatusRemAccessErr)
	if op.WRID != 2 || op.Status != verbs.StatusRemAccessErr {
		t.Fatalf("third = %v", op)
	}
	wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess}, wcWant{2, verbs.StatusRemAccessErr}, wcWant{3, verbs.StatusWRFlushErr})
	// A flush only flushes.
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMAWrite})
	if op, _ := p.f.DeliverNextAs(verbs.StatusRemOpErr); op.Status != verbs.StatusWRFlushErr {
		t.Errorf("flush delivered as %v", op.Status)
	}
	if _, ok := p.f.DeliverNextAs(verbs.StatusRemOpErr); ok {
		t.Errorf("delivered from an empty fabric")
	}
	if p.b.qp.State() != verbs.QPSErr {
		t.Errorf("a forced REM_ACCESS_ERR left the responder in %v", p.b.qp.State())
	}
}

// TestPendingCountFollowsPending: PendingCount, read without the lock, is
// len(Pending()) after posts, executions, RNR retries and a disconnect.
func TestPendingCountFollowsPending(t *testing.T) {
	o := defaultOpts()
	o.rnrRetry = 3
	p := newPair(t, Config{Seed: 27}, o)
	check := func(when string, want int) {
		t.Helper()
		if n, m := p.f.PendingCount(), len(p.f.Pending()); n != m || n != want {
			t.Fatalf("%s: PendingCount %d, Pending %d, want %d", when, n, m, want)
		}
	}
	check("at first", 0)
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend}, &verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Signaled: true})
	postSend(t, p.b.qp, &verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite})
	check("after three posts", 3)
	if op, _ := p.f.DeliverNext(); !op.Retry {
		t.Fatalf("the first Send was not NAKed for want of a receive: %+v", op)
	}
	check("after an RNR retry is queued", 3)
	postRecv(t, p.b.qp, 9)
	p.f.DeliverNext()
	check("after a Send lands", 2)
	p.f.Disconnect("server")
	check("after a disconnect", 0)
}
