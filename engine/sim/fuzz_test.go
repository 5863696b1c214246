package sim

import (
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// fuzzBytes reads the fuzz input as a stream of choices (0 once exhausted).
type fuzzBytes struct {
	b []byte
	i int
}

func (r *fuzzBytes) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *fuzzBytes) more() bool { return r.i < len(r.b) }

// fuzzSide is one end of the fuzzed connection and the model the checks
// compare it with.
type fuzzSide struct {
	*end
	mr, ro, peerMR verbs.MR
	fast           verbs.MR
	dmaAddr        uint64
	posted         []fuzzWR // accepted send WRs, in posting order
	wcs            map[uint64]int
	lastWC         int // index in posted of the newest completed WR, -1 if none
	nextID         uint64
}

type fuzzWR struct {
	id       uint64
	signaled bool
}

var fuzzOpcodes = []verbs.WROpcode{
	verbs.WRSend, verbs.WRSendWithImm, verbs.WRSendWithInv, verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm,
	verbs.WRRDMARead, verbs.WRRDMAReadWithInv, verbs.WRLocalInv, verbs.WRRegMR, verbs.WROpcode(42),
}

var fuzzStatuses = []verbs.Status{
	verbs.StatusRemAccessErr, verbs.StatusLocProtErr, verbs.StatusRetryExcErr, verbs.StatusRNRRetryExcErr,
	verbs.StatusRemInvReqErr, verbs.StatusSuccess,
}

func (s *fuzzSide) sge(r *fuzzBytes) verbs.SGE {
	off, n := int(r.next())*16, int(r.next())*8
	switch r.next() % 5 {
	case 0:
		return verbs.SGE{Addr: s.mr.Addr() + uint64(off), Length: uint32(n), LKey: s.mr.LKey()}
	case 1:
		return verbs.SGE{Addr: s.ro.Addr() + uint64(off), Length: uint32(n), LKey: s.ro.LKey()}
	case 2:
		return verbs.SGE{}
	case 3:
		return verbs.SGE{Addr: s.mr.Addr(), Length: 1<<32 - 1, LKey: s.mr.LKey()}
	default:
		return verbs.SGE{Addr: s.dmaAddr + uint64(off), Length: uint32(n), LKey: s.pd.LocalDMALKey() ^ uint32(r.next()%2)}
	}
}

func (s *fuzzSide) wr(r *fuzzBytes) *verbs.SendWR {
	s.nextID++
	w := &verbs.SendWR{WRID: s.nextID, Opcode: fuzzOpcodes[int(r.next())%len(fuzzOpcodes)], Signaled: r.next()%2 == 0}
	for range int(r.next() % 5) {
		w.SGList = append(w.SGList, s.sge(r))
	}
	switch r.next() % 4 {
	case 0:
		w.RemoteAddr, w.RKey = s.peerMR.Addr()+uint64(r.next())*32, s.peerMR.RKey()
	case 1:
		w.RemoteAddr, w.RKey = s.peerMR.Addr(), s.peerMR.RKey()^uint32(r.next())
	case 2:
		w.RemoteAddr, w.RKey = ^uint64(0)-uint64(r.next()), s.peerMR.RKey()
	}
	w.InvalidateRKey = s.fast.RKey() + uint32(r.next()%2)
	if r.next()%4 != 0 {
		w.MR = s.fast
	}
	w.RegKey = s.fast.RKey()&^0xff | uint32(r.next())
	w.Access = verbs.Access(r.next() % 8)
	return w
}

// check compares the completions polled so far with the model.
func (s *fuzzSide) poll(t *testing.T) {
	wc := make([]verbs.WC, 64)
	for {
		n := s.scq.Poll(wc)
		for _, w := range wc[:n] {
			s.wcs[w.WRID]++
			i := s.lastWC + 1
			for i < len(s.posted) && s.posted[i].id != w.WRID {
				i++
			}
			if i == len(s.posted) {
				t.Fatalf("qp %d: completion %+v out of posting order or for a WR never accepted", s.qp.Num(), w)
			}
			for _, skipped := range s.posted[s.lastWC+1 : i] {
				if skipped.signaled {
					t.Fatalf("qp %d: signaled wr %d skipped by the completion of %d", s.qp.Num(), skipped.id, w.WRID)
				}
			}
			if w.Status == verbs.StatusSuccess && !s.posted[i].signaled {
				t.Fatalf("qp %d: unsignaled wr %d completed successfully", s.qp.Num(), w.WRID)
			}
			s.lastWC = i
		}
		if n < len(wc) {
			break
		}
	}
	for n := s.rcq.Poll(wc); n > 0; n = s.rcq.Poll(wc) {
	}
}

func FuzzPostSend(f *testing.F) {
	f.Add([]byte{0, 0, 3, 1, 0, 0, 0, 1, 5, 0, 6})
	f.Add([]byte{7, 1, 4, 2, 0, 1, 1, 0, 0, 6, 0, 3, 2, 3, 0, 1, 2, 0, 2, 6, 6})
	f.Add([]byte{3, 2, 0, 3, 5, 1, 2, 0, 7, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 6, 5, 5, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		hdr := r.next()
		o := defaultOpts()
		o.cap = verbs.QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 3, MaxRecvSGE: 2}
		o.rnrRetry = int(hdr % 8)
		o.sigAll = hdr&8 != 0
		o.mtu = []int{256, 1024, 4096}[int(hdr>>4)%3]
		o.cqe = 32767
		p := newPair(t, Config{Seed: int64(hdr)}, o)
		sides := [2]*fuzzSide{{end: p.a}, {end: p.b}}
		for _, s := range sides {
			s.wcs = make(map[uint64]int)
			s.lastWC = -1
			s.mr = regOn(s.end, 4096, rw)
			s.ro = regOn(s.end, 4096, verbs.AccessRemoteRead)
			fast, err := s.pd.AllocMR(2)
			must(t, err)
			s.fast = fast
			s.dmaAddr, err = s.pd.DMAMap(make([]byte, 8192))
			must(t, err)
		}
		sides[0].peerMR, sides[1].peerMR = sides[1].mr, sides[0].mr
		sides[1].nextID = 1 << 32

		for r.more() {
			s := sides[r.next()%2]
			switch r.next() % 10 {
			case 0, 1, 2, 3:
				var head, tail *verbs.SendWR
				for range 1 + int(r.next()%4) {
					w := s.wr(r)
					if head == nil {
						head = w
					} else {
						tail.Next = w
					}
					tail = w
				}
				bad, err := s.qp.PostSend(head)
				if (bad == nil) != (err == nil) {
					t.Fatalf("post send: bad %v with err %v", bad, err)
				}
				for w := head; w != nil && w != bad; w = w.Next {
					s.posted = append(s.posted, fuzzWR{w.WRID, w.Signaled || o.sigAll})
				}
			case 4, 5:
				w := &verbs.RecvWR{WRID: uint64(r.next())}
				for range int(r.next() % 3) {
					w.SGList = append(w.SGList, s.sge(r))
				}
				s.qp.PostRecv(w)
			case 6:
				p.f.DeliverNext()
			case 7:
				p.f.DeliverAll()
				for _, s := range sides {
					s.poll(t)
					checkIdle(t, p.f, s)
				}
			case 8:
				p.f.FailNth(1+int(r.next()%3), []uint32{0, s.qp.Num()}[r.next()%2], fuzzStatuses[int(r.next())%len(fuzzStatuses)])
			case 9:
				if r.next() == 0xff {
					p.f.Disconnect("server")
				}
			}
		}
		// Flush everything: every accepted WR is now retired.
		for _, s := range sides {
			must(t, s.qp.Modify(verbs.QPAttr{State: verbs.QPSErr}))
		}
		p.f.DeliverAll()
		if n := len(p.f.Pending()); n != 0 {
			t.Fatalf("%d operations pending after flushing", n)
		}
		for _, s := range sides {
			s.poll(t)
			for _, w := range s.posted {
				if c := s.wcs[w.id]; c > 1 || (w.signaled && c != 1) {
					t.Fatalf("qp %d: wr %d (signaled %v) completed %d times", s.qp.Num(), w.id, w.signaled, c)
				}
			}
			info, _ := p.f.QPInfo(s.qp.Num())
			if info.SQOutstanding != 0 || info.RQPosted != 0 {
				t.Fatalf("qp %d: %d send and %d receive WRs outstanding after the flush", s.qp.Num(), info.SQOutstanding, info.RQPosted)
			}
			for _, c := range []verbs.CQ{s.scq, s.rcq} {
				if n, _ := p.f.CQOverruns(c); n != 0 {
					t.Fatalf("cq overrun")
				}
			}
		}
	})
}

// checkIdle: once a QP has nothing pending, its send queue holds exactly
// the WRs after its newest completion, and they are unsignaled.
func checkIdle(t *testing.T, f *Fabric, s *fuzzSide) {
	for _, op := range f.Pending() {
		if op.QPNum == s.qp.Num() {
			return
		}
	}
	info, _ := f.QPInfo(s.qp.Num())
	want := len(s.posted) - (s.lastWC + 1)
	if info.State == verbs.QPSErr {
		want = 0
		if s.lastWC != len(s.posted)-1 {
			t.Fatalf("qp %d in ERR: wr %d never completed", s.qp.Num(), s.posted[s.lastWC+1].id)
		}
	}
	if info.SQOutstanding != want {
		t.Fatalf("qp %d idle in %v: %d WRs outstanding, want %d", s.qp.Num(), info.State, info.SQOutstanding, want)
	}
	for _, w := range s.posted[s.lastWC+1:] {
		if w.signaled && info.State != verbs.QPSErr {
			t.Fatalf("qp %d idle with signaled wr %d not completed", s.qp.Num(), w.id)
		}
	}
}
