package svcrdma

import (
	"fmt"
	"slices"
	"time"

	"testing"

	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// A provider that records what the model posts: enough to check the
// model's arithmetic without the simulator (the Lab tests use the sim).

type fakeDev struct{ attr verbs.DeviceAttr }

func (d *fakeDev) Attr() verbs.DeviceAttr                      { return d.attr }
func (d *fakeDev) AllocPD() (verbs.PD, error)                  { return &fakePD{next: 0x10000}, nil }
func (d *fakeDev) CreateCQ(n int) (verbs.CQ, error)            { return &fakeCQ{}, nil }
func (d *fakeDev) Close() error                                { return nil }
func (c *fakeCQ) Poll(wc []verbs.WC) int                       { return 0 }
func (c *fakeCQ) Destroy() error                               { return nil }
func (p *fakePD) LocalDMALKey() uint32                         { return 0x1 }
func (p *fakePD) DMAUnmap(uint64) error                        { return nil }
func (p *fakePD) Dealloc() error                               { return nil }
func (p *fakePD) RegMR([]byte, verbs.Access) (verbs.MR, error) { return p.AllocMR(1) }

type fakeCQ struct{}

type fakePD struct {
	next uint64
	qp   *fakeQP
	mrs  int
}

func (p *fakePD) DMAMap(b []byte) (uint64, error) {
	a := p.next
	p.next += uint64(len(b)+4095) &^ 4095
	return a, nil
}

func (p *fakePD) AllocMR(int) (verbs.MR, error) {
	p.mrs++
	return &fakeMR{key: uint32(p.mrs) << 8, addr: 0x9000000 + uint64(p.mrs)<<20}, nil
}

func (p *fakePD) CreateQP(a verbs.QPInitAttr) (verbs.QP, error) {
	p.qp = &fakeQP{cap: a.Cap}
	return p.qp, nil
}

type fakeMR struct {
	key  uint32
	addr uint64
}

func (m *fakeMR) LKey() uint32         { return m.key }
func (m *fakeMR) RKey() uint32         { return m.key }
func (m *fakeMR) Addr() uint64         { return m.addr }
func (m *fakeMR) Length() int          { return 0 }
func (m *fakeMR) Access() verbs.Access { return 0 }
func (m *fakeMR) Dereg() error         { return nil }

type fakeQP struct {
	cap    verbs.QPCap
	state  verbs.QPState
	chains []*verbs.SendWR
	failAt int // fail the post at this WR index of the next chain (1-based); 0: never
	recvs  int
}

func (q *fakeQP) Num() uint32                 { return 17 }
func (q *fakeQP) State() verbs.QPState        { return q.state }
func (q *fakeQP) Cap() verbs.QPCap            { return q.cap }
func (q *fakeQP) Destroy() error              { return nil }
func (q *fakeQP) Modify(a verbs.QPAttr) error { q.state = a.State; return nil }
func (q *fakeQP) PostRecv(wr *verbs.RecvWR) (*verbs.RecvWR, error) {
	q.recvs++
	return nil, nil
}
func (q *fakeQP) PostSend(wr *verbs.SendWR) (*verbs.SendWR, error) {
	if q.failAt > 0 {
		i := 1
		for w := wr; w != nil; w = w.Next {
			if i == q.failAt {
				q.failAt = 0
				return w, verbs.ENOMEM
			}
			i++
		}
	}
	// A provider copies the chain (ibv_post_send keeps no pointer): the
	// caller reuses its WRs.
	var first, prev *verbs.SendWR
	for w := wr; w != nil; w = w.Next {
		c := *w
		c.SGList, c.Next = slices.Clone(w.SGList), nil
		if prev == nil {
			first = &c
		} else {
			prev.Next = &c
		}
		prev = &c
	}
	q.chains = append(q.chains, first)
	return nil, nil
}

// profileG is the device and transport the golden cases assume (an
// InfiniBand HCA, an SQ of 100, 5 send SGEs), fix2025 unless a test says
// otherwise.
func profileG() (verbs.DeviceAttr, Config) {
	attr := verbs.DeviceAttr{Name: "fake", PageSize: 4096, MaxQPWR: 16384, MaxSendSGE: 30, MaxRecvSGE: 30,
		MaxSGERd: 30, MaxFastRegPageListLen: 256, MaxQPInitRdAtom: 16}
	cfg := Config{SQDepth: 100, MaxSendSGEs: 5, Positions: true}
	return attr, cfg
}

type harness struct {
	t  *testing.T
	x  *Xprt
	pd *fakePD
	s  *sched.Scheduler
	ev []trace.Event
}

func newHarness(t *testing.T, attr verbs.DeviceAttr, cfg Config, beh Behaviour) *harness {
	t.Helper()
	dev := &fakeDev{attr: attr}
	pd, _ := dev.AllocPD()
	x, err := NewXprt(dev, pd, cfg, beh, 7, func() time.Duration { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	if err := x.CreateQP(); err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, x: x, pd: pd.(*fakePD), s: sched.New()}
}

// run executes body as one task to its end and keeps its events.
func (h *harness) run(body func(tk *sched.Task)) {
	h.t.Helper()
	h.s.Go("nfsd0", false, func(tk *sched.Task) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(faultStop); !ok {
					panic(r)
				}
			}
		}()
		body(tk)
	})
	for i := 0; ; i++ {
		ev, ok := h.s.Step()
		if !ok {
			break
		}
		if i > 1_000_000 {
			h.t.Fatal("runaway task")
		}
		h.ev = append(h.ev, ev)
	}
}

// has reports whether an event of func fn (and kind k) was seen.
func (h *harness) has(k trace.Kind, fn string) bool {
	for _, e := range h.ev {
		if e.Kind == k && e.Func == fn {
			return true
		}
	}
	return false
}

func (h *harness) lastPosted() []*verbs.SendWR {
	q := h.pd.qp
	if len(q.chains) == 0 {
		return nil
	}
	var out []*verbs.SendWR
	for w := q.chains[len(q.chains)-1]; w != nil; w = w.Next {
		out = append(out, w)
	}
	return out
}

// TestListHeadInPlace: pushFront and popFront keep a list's order, head
// first, and reuse its memory.
func TestListHeadInPlace(t *testing.T) {
	var l []int
	for i := 1; i <= 4; i++ {
		l = pushFront(l, i)
	}
	if fmt.Sprint(l) != "[4 3 2 1]" {
		t.Fatalf("after four pushes: %v", l)
	}
	base := &l[:cap(l)][0]
	v, l := popFront(l)
	if v != 4 || fmt.Sprint(l) != "[3 2 1]" {
		t.Fatalf("pop: %d, left %v", v, l)
	}
	if l = pushFront(l, 5); fmt.Sprint(l) != "[5 3 2 1]" || &l[0] != base {
		t.Fatalf("push after pop: %v, moved %v", l, &l[0] != base)
	}
}
