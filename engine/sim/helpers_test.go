package sim

import (
	"errors"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// end is one side of a test connection.
type end struct {
	dev verbs.Device
	pd  verbs.PD
	scq verbs.CQ
	rcq verbs.CQ
	qp  verbs.QP
}

type opts struct {
	cap      verbs.QPCap
	sigAll   bool
	mtu      int
	rnrRetry int
	cqe      int
	sqPSN    uint32
}

func defaultOpts() opts {
	return opts{cap: verbs.QPCap{MaxSendWR: 64, MaxRecvWR: 64, MaxSendSGE: 4, MaxRecvSGE: 4}, cqe: 256}
}

type pair struct {
	f    *Fabric
	a, b *end
}

func newEnd(t testing.TB, f *Fabric, node string, o opts) *end {
	t.Helper()
	d, err := f.NewDevice(node, DefaultAttr())
	must(t, err)
	pd, err := d.AllocPD()
	must(t, err)
	scq, err := d.CreateCQ(o.cqe)
	must(t, err)
	rcq, err := d.CreateCQ(o.cqe)
	must(t, err)
	qp, err := pd.CreateQP(verbs.QPInitAttr{SendCQ: scq, RecvCQ: rcq, Cap: o.cap, SigAll: o.sigAll})
	must(t, err)
	return &end{dev: d, pd: pd, scq: scq, rcq: rcq, qp: qp}
}

func connect(t testing.TB, a *end, anode string, b *end, bnode string, o opts) {
	t.Helper()
	for _, s := range []struct {
		q     verbs.QP
		peer  string
		peerQ uint32
	}{{a.qp, bnode, b.qp.Num()}, {b.qp, anode, a.qp.Num()}} {
		must(t, s.q.Modify(verbs.QPAttr{State: verbs.QPSInit}))
		must(t, s.q.Modify(verbs.QPAttr{State: verbs.QPSRTR, RemoteNode: s.peer, DestQPNum: s.peerQ, PathMTU: o.mtu}))
		must(t, s.q.Modify(verbs.QPAttr{State: verbs.QPSRTS, RNRRetry: o.rnrRetry, RetryCnt: 7, SQPSN: o.sqPSN}))
	}
}

func newPair(t testing.TB, cfg Config, o opts) *pair {
	t.Helper()
	f := NewFabric(cfg)
	a := newEnd(t, f, "client", o)
	b := newEnd(t, f, "server", o)
	connect(t, a, "client", b, "server", o)
	return &pair{f: f, a: a, b: b}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// reg registers a buffer of n bytes filled with a pattern seeded by seed.
func reg(t testing.TB, e *end, n int, acc verbs.Access, seed byte) ([]byte, verbs.MR) {
	t.Helper()
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = seed + byte(i*7)
	}
	mr, err := e.pd.RegMR(buf, acc)
	must(t, err)
	return buf, mr
}

func sge(mr verbs.MR, off, n int) verbs.SGE {
	return verbs.SGE{Addr: mr.Addr() + uint64(off), Length: uint32(n), LKey: mr.LKey()}
}

func pollAll(c verbs.CQ) []verbs.WC {
	var out []verbs.WC
	buf := make([]verbs.WC, 4)
	for {
		n := c.Poll(buf)
		out = append(out, buf[:n]...)
		if n < len(buf) {
			return out
		}
	}
}

func postSend(t testing.TB, q verbs.QP, wrs ...*verbs.SendWR) {
	t.Helper()
	for i := 0; i+1 < len(wrs); i++ {
		wrs[i].Next = wrs[i+1]
	}
	if bad, err := q.PostSend(wrs[0]); err != nil {
		t.Fatalf("post send: bad wr %v: %v", bad, err)
	}
}

func postRecv(t testing.TB, q verbs.QP, wrid uint64, sges ...verbs.SGE) {
	t.Helper()
	if _, err := q.PostRecv(&verbs.RecvWR{WRID: wrid, SGList: sges}); err != nil {
		t.Fatalf("post recv: %v", err)
	}
}

// wantWCs checks WR ids and statuses of completions, in order.
func wantWCs(t testing.TB, what string, got []verbs.WC, want ...wcWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d completions %+v, want %d %+v", what, len(got), got, len(want), want)
	}
	for i, w := range want {
		if got[i].WRID != w.id || got[i].Status != w.st {
			t.Errorf("%s: completion %d = wr_id %d %v, want wr_id %d %v", what, i, got[i].WRID, got[i].Status, w.id, w.st)
		}
	}
}

type wcWant struct {
	id uint64
	st verbs.Status
}

func errIs(err error, target verbs.Errno) bool { return errors.Is(err, target) }
