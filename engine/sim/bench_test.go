package sim

import (
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// BenchmarkRDMARead1MiB measures one signaled 1 MiB RDMA READ: post,
// execute (key checks and the copy), poll.
func BenchmarkRDMARead1MiB(b *testing.B) {
	const size = 1 << 20
	p := newPair(b, Config{Seed: 1}, defaultOpts())
	_, sink := reg(b, p.a, size, verbs.AccessLocalWrite, 0)
	_, src := reg(b, p.b, size, rw, 1)
	wr := &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMARead, Signaled: true,
		SGList: []verbs.SGE{sge(sink, 0, size)}, RemoteAddr: src.Addr(), RKey: src.RKey()}
	wc := make([]verbs.WC, 1)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.a.qp.PostSend(wr); err != nil {
			b.Fatal(err)
		}
		p.f.DeliverNext()
		if p.a.scq.Poll(wc) != 1 || wc[0].Status != verbs.StatusSuccess {
			b.Fatalf("completion %+v", wc[0])
		}
	}
}
