package sim

import (
	"bytes"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

const rw = verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead

func TestSendRecvMovesBytes(t *testing.T) {
	tests := []struct {
		name   string
		opcode verbs.WROpcode
		imm    uint32
		sends  [][2]int // offset, length in the source
		recvs  [][2]int // offset, length in the sink
	}{
		{"one sge", verbs.WRSend, 0, [][2]int{{0, 1000}}, [][2]int{{0, 4096}}},
		{"gather and scatter", verbs.WRSend, 0, [][2]int{{10, 2000}, {4000, 2500}}, [][2]int{{0, 3000}, {5000, 3000}}},
		{"with imm", verbs.WRSendWithImm, 0xabcd, [][2]int{{1, 100}}, [][2]int{{7, 100}}},
		{"zero bytes", verbs.WRSend, 0, nil, nil},
		{"zero-length sges", verbs.WRSend, 0, [][2]int{{0, 0}, {5, 10}}, [][2]int{{0, 0}, {100, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, Config{Seed: 1}, defaultOpts())
			src, smr := reg(t, p.a, 8192, 0, 1)
			dst, dmr := reg(t, p.b, 8192, verbs.AccessLocalWrite, 0)
			orig := bytes.Clone(dst)
			var rs, ss []verbs.SGE
			for _, r := range tc.recvs {
				rs = append(rs, sge(dmr, r[0], r[1]))
			}
			var want []byte
			for _, s := range tc.sends {
				ss = append(ss, sge(smr, s[0], s[1]))
				want = append(want, src[s[0]:s[0]+s[1]]...)
			}
			postRecv(t, p.b.qp, 100, rs...)
			postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: tc.opcode, Signaled: true, SGList: ss, ImmData: tc.imm})
			if n := p.f.DeliverAll(); n != 1 {
				t.Fatalf("DeliverAll = %d, want 1", n)
			}
			// The bytes land in the receive's SGEs in order.
			var got []byte
			for _, r := range tc.recvs {
				got = append(got, dst[r[0]:r[0]+r[1]]...)
			}
			if !bytes.Equal(got[:len(want)], want) {
				t.Errorf("received bytes differ from the sent ones")
			}
			if !bytes.Equal(got[len(want):], origSpan(orig, tc.recvs)[len(want):]) {
				t.Errorf("bytes past the message changed")
			}
			rc := pollAll(p.b.rcq)
			wantWCs(t, "recv", rc, wcWant{100, verbs.StatusSuccess})
			w := rc[0]
			if w.Opcode != verbs.WCRecv || w.ByteLen != uint32(len(want)) || w.QPNum != p.b.qp.Num() || w.SrcQP != p.a.qp.Num() {
				t.Errorf("recv wc = %+v", w)
			}
			if w.WithImm != (tc.opcode == verbs.WRSendWithImm) || w.ImmData != tc.imm {
				t.Errorf("recv wc imm = %v %#x", w.WithImm, w.ImmData)
			}
			sc := pollAll(p.a.scq)
			wantWCs(t, "send", sc, wcWant{1, verbs.StatusSuccess})
			if sc[0].Opcode != verbs.WCSend || sc[0].QPNum != p.a.qp.Num() {
				t.Errorf("send wc = %+v", sc[0])
			}
		})
	}
}

func origSpan(b []byte, spans [][2]int) []byte {
	var out []byte
	for _, s := range spans {
		out = append(out, b[s[0]:s[0]+s[1]]...)
	}
	return out
}

func TestRDMAWriteAndRead(t *testing.T) {
	p := newPair(t, Config{Seed: 2}, defaultOpts())
	local, lmr := reg(t, p.a, 16384, verbs.AccessLocalWrite, 1)
	remote, rmr := reg(t, p.b, 16384, rw, 100)

	// WRITE local[100:5100] to remote[3000:8000] from two SGEs.
	want := bytes.Clone(local[100:5100])
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true,
		SGList:     []verbs.SGE{sge(lmr, 100, 1000), sge(lmr, 1100, 4000)},
		RemoteAddr: rmr.Addr() + 3000, RKey: rmr.RKey()})
	p.f.DeliverAll()
	if !bytes.Equal(remote[3000:8000], want) {
		t.Fatal("RDMA WRITE: remote bytes differ")
	}
	sc := pollAll(p.a.scq)
	wantWCs(t, "write", sc, wcWant{1, verbs.StatusSuccess})
	if sc[0].Opcode != verbs.WCRDMAWrite {
		t.Errorf("write wc opcode %v", sc[0].Opcode)
	}
	if rc := pollAll(p.b.rcq); len(rc) != 0 {
		t.Errorf("a plain WRITE completed on the responder: %+v", rc)
	}

	// READ remote[10000:16000] into local[0:2000] and local[8000:12000].
	want = bytes.Clone(remote[10000:16000])
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMARead, Signaled: true,
		SGList:     []verbs.SGE{sge(lmr, 0, 2000), sge(lmr, 8000, 4000)},
		RemoteAddr: rmr.Addr() + 10000, RKey: rmr.RKey()})
	p.f.DeliverAll()
	got := append(bytes.Clone(local[0:2000]), local[8000:12000]...)
	if !bytes.Equal(got, want) {
		t.Fatal("RDMA READ: local bytes differ")
	}
	sc = pollAll(p.a.scq)
	wantWCs(t, "read", sc, wcWant{2, verbs.StatusSuccess})
	if sc[0].Opcode != verbs.WCRDMARead || sc[0].ByteLen != 6000 {
		t.Errorf("read wc = %+v", sc[0])
	}
}

func TestWriteWithImmConsumesReceive(t *testing.T) {
	p := newPair(t, Config{Seed: 3}, defaultOpts())
	_, lmr := reg(t, p.a, 4096, 0, 1)
	remote, rmr := reg(t, p.b, 4096, rw, 0)
	postRecv(t, p.b.qp, 55)
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWriteWithImm, Signaled: true, ImmData: 77,
		SGList: []verbs.SGE{sge(lmr, 0, 512)}, RemoteAddr: rmr.Addr(), RKey: rmr.RKey()})
	p.f.DeliverAll()
	rc := pollAll(p.b.rcq)
	wantWCs(t, "recv", rc, wcWant{55, verbs.StatusSuccess})
	if w := rc[0]; w.Opcode != verbs.WCRecvWithImm || !w.WithImm || w.ImmData != 77 || w.ByteLen != 512 {
		t.Errorf("recv wc = %+v", w)
	}
	if remote[0] != 1 {
		t.Errorf("write did not land")
	}
}

// fastReg maps buf for DMA and registers a fast-registration MR over it
// with a REG_MR work request on e's QP; it returns the MR and its new key.
func fastReg(t *testing.T, f *Fabric, e *end, buf []byte, acc verbs.Access) (verbs.MR, uint32) {
	t.Helper()
	addr, err := e.pd.DMAMap(buf)
	must(t, err)
	mr, err := e.pd.AllocMR((len(buf) + 4095) / 4096)
	must(t, err)
	old := mr.RKey()
	key := old&^0xff | (old+1)&0xff // ib_update_fast_reg_key
	postSend(t, e.qp, &verbs.SendWR{WRID: 900, Opcode: verbs.WRRegMR, Signaled: true, MR: mr, RegKey: key, Access: acc,
		SGList: []verbs.SGE{{Addr: addr, Length: uint32(len(buf))}}})
	f.DeliverAll()
	wantWCs(t, "reg mr", pollAll(e.scq), wcWant{900, verbs.StatusSuccess})
	if mr.RKey() != key || mr.LKey() != key || mr.Length() != len(buf) || mr.Access() != acc {
		t.Fatalf("after REG_MR: keys %#x/%#x length %d access %v", mr.LKey(), mr.RKey(), mr.Length(), mr.Access())
	}
	return mr, key
}

// reregister invalidates mr's key and registers mr again, under the next
// key, over 4096 new bytes, which it returns with that key; the two WRs
// are id and id+1.
func reregister(t *testing.T, p *pair, mr verbs.MR, key uint32, id uint64) (uint32, []byte) {
	t.Helper()
	buf := make([]byte, 4096)
	addr, _ := p.b.pd.DMAMap(buf)
	key2 := key&^0xff | (key+1)&0xff
	postSend(t, p.b.qp,
		&verbs.SendWR{WRID: id, Opcode: verbs.WRLocalInv, InvalidateRKey: key},
		&verbs.SendWR{WRID: id + 1, Opcode: verbs.WRRegMR, Signaled: true, MR: mr, RegKey: key2, Access: rw,
			SGList: []verbs.SGE{{Addr: addr, Length: 4096}}})
	p.f.DeliverAll()
	wantWCs(t, "inv+reg", pollAll(p.b.scq), wcWant{id + 1, verbs.StatusSuccess})
	return key2, buf
}

func TestSendWithInvalidate(t *testing.T) {
	p := newPair(t, Config{Seed: 4}, defaultOpts())
	sink := make([]byte, 8192)
	fmr, key := fastReg(t, p.f, p.b, sink, rw)

	// The client writes through the fast-registered MR...
	src, smr := reg(t, p.a, 8192, 0, 9)
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true,
		SGList: []verbs.SGE{sge(smr, 0, 8192)}, RemoteAddr: fmr.Addr(), RKey: key})
	// ...then tells the server it is done, invalidating the key.
	_, rmr := reg(t, p.b, 64, verbs.AccessLocalWrite, 0)
	msg, mmr := reg(t, p.a, 64, 0, 200)
	postRecv(t, p.b.qp, 7, sge(rmr, 0, 64))
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRSendWithInv, Signaled: true,
		SGList: []verbs.SGE{sge(mmr, 0, 64)}, InvalidateRKey: key})
	p.f.DeliverAll()
	if !bytes.Equal(sink, src) {
		t.Fatal("write through the fast-registered MR did not land in the DMA-mapped buffer")
	}
	wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess}, wcWant{2, verbs.StatusSuccess})
	rc := pollAll(p.b.rcq)
	wantWCs(t, "recv", rc, wcWant{7, verbs.StatusSuccess})
	if !rc[0].WithInv || rc[0].InvalidatedRKey != key || rc[0].ByteLen != 64 {
		t.Errorf("recv wc = %+v", rc[0])
	}
	_ = msg

	// The key is dead now: the same WRITE is refused.
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, Signaled: true,
		SGList: []verbs.SGE{sge(smr, 0, 16)}, RemoteAddr: fmr.Addr(), RKey: key})
	p.f.DeliverAll()
	wantWCs(t, "after invalidate", pollAll(p.a.scq), wcWant{3, verbs.StatusRemAccessErr})
}

func TestFastRegistration(t *testing.T) {
	t.Run("re-register needs invalidate", func(t *testing.T) {
		p := newPair(t, Config{Seed: 5}, defaultOpts())
		buf := make([]byte, 4096)
		mr, key := fastReg(t, p.f, p.b, buf, rw)
		// A second REG_MR on a valid MR fails (rxe: the MR must be free).
		addr, _ := p.b.pd.DMAMap(make([]byte, 4096))
		postSend(t, p.b.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRegMR, Signaled: true, MR: mr,
			RegKey: key + 1, Access: rw, SGList: []verbs.SGE{{Addr: addr, Length: 4096}}})
		p.f.DeliverAll()
		wantWCs(t, "second reg", pollAll(p.b.scq), wcWant{1, verbs.StatusLocQPOpErr})
	})
	t.Run("local invalidate then re-register", func(t *testing.T) {
		p := newPair(t, Config{Seed: 5}, defaultOpts())
		buf := make([]byte, 4096)
		mr, key := fastReg(t, p.f, p.b, buf, rw)
		key2, buf2 := reregister(t, p, mr, key, 1)
		// The old key is refused, the new one reaches the new pages.
		_, smr := reg(t, p.a, 16, 0, 3)
		postSend(t, p.a.qp,
			&verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{sge(smr, 0, 16)}, RemoteAddr: mr.Addr(), RKey: key2})
		p.f.DeliverAll()
		wantWCs(t, "new key", pollAll(p.a.scq), wcWant{3, verbs.StatusSuccess})
		if buf2[0] != 3 || buf[0] != 0 {
			t.Errorf("write went to the wrong pages")
		}
		postSend(t, p.a.qp,
			&verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{sge(smr, 0, 16)}, RemoteAddr: mr.Addr(), RKey: key})
		p.f.DeliverAll()
		wantWCs(t, "old key", pollAll(p.a.scq), wcWant{4, verbs.StatusRemAccessErr})
	})
	t.Run("key index may not change", func(t *testing.T) {
		p := newPair(t, Config{Seed: 5}, defaultOpts())
		addr, _ := p.b.pd.DMAMap(make([]byte, 4096))
		mr, _ := p.b.pd.AllocMR(1)
		postSend(t, p.b.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRegMR, Signaled: true, MR: mr,
			RegKey: mr.RKey() + 0x100, Access: rw, SGList: []verbs.SGE{{Addr: addr, Length: 4096}}})
		p.f.DeliverAll()
		wantWCs(t, "reg", pollAll(p.b.scq), wcWant{1, verbs.StatusLocQPOpErr})
	})
	t.Run("never registered key is refused", func(t *testing.T) {
		p := newPair(t, Config{Seed: 5}, defaultOpts())
		mr, _ := p.b.pd.AllocMR(1)
		_, smr := reg(t, p.a, 16, 0, 3)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAWrite, Signaled: true,
			SGList: []verbs.SGE{sge(smr, 0, 16)}, RemoteAddr: mr.Addr(), RKey: mr.RKey()})
		p.f.DeliverAll()
		wantWCs(t, "write", pollAll(p.a.scq), wcWant{1, verbs.StatusRemAccessErr})
	})
	t.Run("pages: first offset kept, middle pages aligned, too many pages", func(t *testing.T) {
		p := newPair(t, Config{Seed: 5}, defaultOpts())
		buf := make([]byte, 3*4096)
		addr, _ := p.b.pd.DMAMap(buf)
		mr, _ := p.b.pd.AllocMR(2)
		key := mr.RKey()
		postSend(t, p.b.qp,
			// Three pages for a two-page MR.
			&verbs.SendWR{WRID: 1, Opcode: verbs.WRRegMR, Signaled: true, MR: mr, RegKey: key, Access: rw,
				SGList: []verbs.SGE{{Addr: addr, Length: 3 * 4096}}})
		p.f.DeliverAll()
		wantWCs(t, "too many pages", pollAll(p.b.scq), wcWant{1, verbs.StatusLocQPOpErr})

		p = newPair(t, Config{Seed: 6}, defaultOpts())
		addr, _ = p.b.pd.DMAMap(buf)
		mr, _ = p.b.pd.AllocMR(2)
		key = mr.RKey()
		postSend(t, p.b.qp,
			// A gap: the second element does not start a page.
			&verbs.SendWR{WRID: 2, Opcode: verbs.WRRegMR, Signaled: true, MR: mr, RegKey: key, Access: rw,
				SGList: []verbs.SGE{{Addr: addr + 100, Length: 3996}, {Addr: addr + 4096 + 8, Length: 100}}})
		p.f.DeliverAll()
		wantWCs(t, "gap", pollAll(p.b.scq), wcWant{2, verbs.StatusLocQPOpErr})

		p = newPair(t, Config{Seed: 7}, defaultOpts())
		addr, _ = p.b.pd.DMAMap(buf)
		mr, _ = p.b.pd.AllocMR(2)
		key = mr.RKey()
		postSend(t, p.b.qp,
			&verbs.SendWR{WRID: 3, Opcode: verbs.WRRegMR, Signaled: true, MR: mr, RegKey: key, Access: rw,
				SGList: []verbs.SGE{{Addr: addr + 100, Length: 3996}, {Addr: addr + 8192, Length: 100}}})
		p.f.DeliverAll()
		wantWCs(t, "ok", pollAll(p.b.scq), wcWant{3, verbs.StatusSuccess})
		if mr.Addr()%4096 != 100 || mr.Length() != 4096 {
			t.Errorf("mr addr %#x length %d", mr.Addr(), mr.Length())
		}
		// A READ across the page boundary gathers from both DMA pieces.
		for i := range buf {
			buf[i] = byte(i % 251)
		}
		dst, dmr := reg(t, p.a, 4096, verbs.AccessLocalWrite, 0)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMARead, Signaled: true,
			SGList: []verbs.SGE{sge(dmr, 0, 4096)}, RemoteAddr: mr.Addr(), RKey: key})
		p.f.DeliverAll()
		wantWCs(t, "read", pollAll(p.a.scq), wcWant{4, verbs.StatusSuccess})
		want := append(bytes.Clone(buf[100:4096]), buf[8192:8292]...)
		if !bytes.Equal(dst, want) {
			t.Errorf("read through the page list gathered the wrong bytes")
		}
	})
	t.Run("local invalidate of a user MR fails", func(t *testing.T) {
		p := newPair(t, Config{Seed: 8}, defaultOpts())
		_, mr := reg(t, p.a, 64, rw, 0)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRLocalInv, InvalidateRKey: mr.RKey()})
		p.f.DeliverAll()
		wantWCs(t, "inv", pollAll(p.a.scq), wcWant{1, verbs.StatusLocQPOpErr})
	})
	t.Run("read with invalidate", func(t *testing.T) {
		p := newPair(t, Config{Seed: 9}, defaultOpts())
		sink := make([]byte, 4096)
		mr, key := fastReg(t, p.f, p.a, sink, verbs.AccessLocalWrite)
		src, smr := reg(t, p.b, 4096, rw, 5)
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRRDMAReadWithInv, Signaled: true,
			SGList:     []verbs.SGE{{Addr: mr.Addr(), Length: 4096, LKey: key}},
			RemoteAddr: smr.Addr(), RKey: smr.RKey(), InvalidateRKey: key})
		p.f.DeliverAll()
		wantWCs(t, "read inv", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess})
		if !bytes.Equal(sink, src) {
			t.Errorf("READ_WITH_INV did not land")
		}
		// The sink key is invalid now.
		postSend(t, p.a.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRRDMARead, Signaled: true,
			SGList:     []verbs.SGE{{Addr: mr.Addr(), Length: 16, LKey: key}},
			RemoteAddr: smr.Addr(), RKey: smr.RKey()})
		p.f.DeliverAll()
		wantWCs(t, "read after inv", pollAll(p.a.scq), wcWant{2, verbs.StatusLocProtErr})
	})
}

func TestLocalDMALKey(t *testing.T) {
	p := newPair(t, Config{Seed: 10}, defaultOpts())
	buf := []byte("hello, local dma lkey")
	addr, err := p.a.pd.DMAMap(buf)
	must(t, err)
	dst, dmr := reg(t, p.b, 64, verbs.AccessLocalWrite, 0)
	postRecv(t, p.b.qp, 1, sge(dmr, 0, 64))
	lkey := p.a.pd.LocalDMALKey()
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true,
		SGList: []verbs.SGE{{Addr: addr, Length: uint32(len(buf)), LKey: lkey}}})
	p.f.DeliverAll()
	wantWCs(t, "send", pollAll(p.a.scq), wcWant{1, verbs.StatusSuccess})
	if !bytes.Equal(dst[:len(buf)], buf) {
		t.Fatalf("got %q", dst[:len(buf)])
	}
	// After unmapping, the same SGE is a protection error.
	must(t, p.a.pd.DMAUnmap(addr))
	postRecv(t, p.b.qp, 2, sge(dmr, 0, 64))
	postSend(t, p.a.qp, &verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, Signaled: true,
		SGList: []verbs.SGE{{Addr: addr, Length: 4, LKey: lkey}}})
	p.f.DeliverAll()
	wantWCs(t, "after unmap", pollAll(p.a.scq), wcWant{2, verbs.StatusLocProtErr})
	if err := p.a.pd.DMAUnmap(addr); !errIs(err, verbs.EINVAL) {
		t.Errorf("double unmap: %v", err)
	}
}

// TestFindMapHint: the mapping findMap found last is a hint only. After
// an unmap shifts the mappings, every address still resolves to its own
// buffer and an unmapped one to none.
func TestFindMapHint(t *testing.T) {
	p := newPair(t, Config{Seed: 5}, defaultOpts())
	d := p.b.pd.(*pd)
	var bufs [][]byte
	var addrs []uint64
	for i := range 4 {
		b := make([]byte, 4096)
		b[0] = byte(i + 1)
		a, err := d.DMAMap(b)
		must(t, err)
		bufs, addrs = append(bufs, b), append(addrs, a)
	}
	check := func(when string, gone int) {
		t.Helper()
		for _, i := range []int{0, 1, 2, 3, 3, 2, 0, 1} {
			got, ok := d.dmaSlice(addrs[i]+1, 8)
			if i == gone {
				if ok {
					t.Errorf("%s: unmapped buffer %d still resolves", when, i)
				}
				continue
			}
			if !ok || &got[0] != &bufs[i][1] {
				t.Errorf("%s: address of buffer %d resolves elsewhere (ok %v)", when, i, ok)
			}
		}
	}
	check("all mapped", -1)
	d.dmaSlice(addrs[2], 1) // the hint now points past the mapping removed
	must(t, d.DMAUnmap(addrs[1]))
	check("after unmapping buffer 1", 1)
}

// TestSendSlotsReused: the slots of retired WRs carry the next chain; a
// chain posted into reused slots moves its own bytes to its own places,
// keeps none of the old WRs' SGEs, and posting it allocates nothing.
func TestSendSlotsReused(t *testing.T) {
	p := newPair(t, Config{Seed: 1}, defaultOpts())
	src, smr := reg(t, p.a, 8192, 0, 1)
	dst, dmr := reg(t, p.b, 8192, rw, 0)
	// chain posts n RDMA Writes of k SGEs of 100 bytes each, from base on,
	// the last one signaled, and runs them.
	chain := func(n, k, base int) {
		t.Helper()
		var wrs []*verbs.SendWR
		off := base
		for i := 0; i < n; i++ {
			w := &verbs.SendWR{WRID: uint64(i + 1), Opcode: verbs.WRRDMAWrite, Signaled: i == n-1,
				RemoteAddr: dmr.Addr() + uint64(off), RKey: dmr.RKey()}
			for j := 0; j < k; j++ {
				w.SGList = append(w.SGList, sge(smr, off, 100))
				off += 100
			}
			wrs = append(wrs, w)
		}
		postSend(t, p.a.qp, wrs...)
		p.f.DeliverAll()
		wantWCs(t, "chain", pollAll(p.a.scq), wcWant{uint64(n), verbs.StatusSuccess})
		if !bytes.Equal(dst[base:off], src[base:off]) {
			t.Errorf("chain of %d WRs of %d SGEs from %d: the bytes differ", n, k, base)
		}
	}
	chain(4, 3, 0)    // the slots are made
	chain(2, 1, 4000) // and reused, with fewer SGEs
	if q := p.a.qp.(*qp); len(q.free) != 4 || len(q.sq) != 0 {
		t.Errorf("%d slots free and %d WRs outstanding, want 4 and 0", len(q.free), len(q.sq))
	}
	wr := &verbs.SendWR{WRID: 9, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{sge(smr, 0, 8)},
		RemoteAddr: dmr.Addr(), RKey: dmr.RKey(), Signaled: true}
	wcs := make([]verbs.WC, 1)
	if n := testing.AllocsPerRun(10, func() {
		if _, err := p.a.qp.PostSend(wr); err != nil {
			t.Fatal(err)
		}
		p.f.DeliverAll()
		p.a.scq.Poll(wcs)
	}); n != 0 {
		t.Errorf("a post, its delivery and poll allocate %v times, want 0", n)
	}
}
