package sim

import (
	"fmt"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

type mrKind uint8

const (
	mrUser mrKind = iota // RegMR: a buffer at a fixed address
	mrFast               // AllocMR: pages bound by REG_MR work requests
	mrDMA                // a PD's local DMA lkey: every DMA mapping of the PD
)

// mr is a memory region: verbs.MR.
type mr struct {
	dev    *device
	pd     *pd
	kind   mrKind
	lkey   uint32
	rkey   uint32
	access verbs.Access
	valid  bool // rxe's RXE_MR_STATE_VALID: keys work only while set
	dead   bool

	addr   uint64 // iova of the first byte
	length int
	buf    []byte // mrUser

	// mrFast: the iova range reserved at AllocMR, and the bound pages,
	// mapped back to back from addr.
	base     uint64
	maxPages int
	segs     [][]byte

	// log holds the spans RDMA Writes stored, as offsets from addr.
	log verbs.WriteLog
}

var _ verbs.LoggedMR = (*mr)(nil)

func (m *mr) locked(fn func()) {
	m.dev.f.mu.Lock()
	defer m.dev.f.mu.Unlock()
	fn()
}

func (m *mr) LKey() (k uint32)         { m.locked(func() { k = m.lkey }); return }
func (m *mr) RKey() (k uint32)         { m.locked(func() { k = m.rkey }); return }
func (m *mr) Addr() (a uint64)         { m.locked(func() { a = m.addr }); return }
func (m *mr) Length() (n int)          { m.locked(func() { n = m.length }); return }
func (m *mr) Access() (a verbs.Access) { m.locked(func() { a = m.access }); return }

// WriteLog is the region's log of RDMA Writes. It outlives Dereg: no write
// lands after it, so the log stays what the buffer holds.
func (m *mr) WriteLog() *verbs.WriteLog { return &m.log }

func (m *mr) Dereg() error {
	f := m.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if m.dead {
		return fmt.Errorf("sim: dereg mr %#x: already deregistered: %w", m.lkey, verbs.EINVAL)
	}
	m.dead, m.valid = true, false
	delete(m.dev.keys, m.lkey>>8)
	m.dev.nMR--
	m.pd.nMR--
	m.buf, m.segs = nil, nil
	return nil
}

// contains reports whether [addr, addr+n) lies inside [start, start+size).
func contains(start, size, addr, n uint64) bool {
	return addr >= start && addr-start <= size && n <= size-(addr-start)
}

// slice resolves [addr, addr+n) of the region to the bytes behind it, one
// slice per physically contiguous piece, appended to out.
func (m *mr) slice(out [][]byte, addr, n uint64) ([][]byte, bool) {
	switch m.kind {
	case mrUser:
		if !contains(m.addr, uint64(m.length), addr, n) {
			return nil, false
		}
		off := addr - m.addr
		return append(out, m.buf[off:off+n]), true
	case mrDMA:
		b, ok := m.pd.dmaSlice(addr, n)
		if !ok {
			return nil, false
		}
		return append(out, b), true
	case mrFast:
		if !contains(m.addr, uint64(m.length), addr, n) {
			return nil, false
		}
		off := addr - m.addr
		for _, s := range m.segs {
			if n == 0 {
				break
			}
			if off >= uint64(len(s)) {
				off -= uint64(len(s))
				continue
			}
			take := min(n, uint64(len(s))-off)
			out = append(out, s[off:off+take])
			n -= take
			off = 0
		}
		return out, true
	}
	return nil, false
}

// lookup finds the live region a key names: the index picks the MR, then
// the whole key must match, as in rxe's lookup_mr.
func (d *device) lookup(key uint32, remote bool) *mr {
	m := d.keys[key>>8]
	if m == nil || m.dead || !m.valid {
		return nil
	}
	if remote && (m.kind == mrDMA || m.rkey != key) {
		return nil
	}
	if !remote && m.lkey != key {
		return nil
	}
	return m
}

// resolveLocal turns a local scatter/gather list into the bytes it names.
// Every non-empty SGE must lie inside one region of the QP's PD registered
// under its lkey, with the access need asks (LOCAL_WRITE for a sink);
// otherwise the work request fails with LOC_PROT_ERR. The pieces go in
// *scratch, a slice the fabric reuses from one operation to the next.
func resolveLocal(scratch *[][]byte, p *pd, sgl []verbs.SGE, need verbs.Access) ([][]byte, bool) {
	out := (*scratch)[:0]
	var (
		m    *mr // the region of the last key looked up: SGEs mostly share one
		mkey uint32
	)
	for _, s := range sgl {
		if s.Length == 0 {
			continue // nothing is read or written, so no key is checked
		}
		if m == nil || s.LKey != mkey {
			m, mkey = p.dev.lookup(s.LKey, false), s.LKey
		}
		if m == nil || m.pd != p || m.access&need != need {
			return nil, false
		}
		next, ok := m.slice(out, s.Addr, uint64(s.Length))
		if !ok {
			return nil, false
		}
		out = next
	}
	*scratch = out[:0] // grown: the next operation reuses it
	return out, true
}

// resolveRemote checks an rkey for [addr, addr+n) on the responder QP's PD
// with the access need asks, and returns the region too (nil for n 0). A
// zero-length request names no memory and is not checked (IBTA C9-88).
func resolveRemote(scratch *[][]byte, p *pd, rkey uint32, addr, n uint64, need verbs.Access) ([][]byte, *mr, bool) {
	out := (*scratch)[:0]
	if n == 0 {
		return out, nil, true
	}
	m := p.dev.lookup(rkey, true)
	if m == nil || m.pd != p || m.access&need != need {
		return nil, nil, false
	}
	out, ok := m.slice(out, addr, n)
	if ok {
		*scratch = out[:0]
	}
	return out, m, ok
}

// noteWrite logs n bytes an RDMA Write stored at addr of m.
func (m *mr) noteWrite(addr uint64, n int) {
	if m != nil && n > 0 {
		m.log.Written(int(addr-m.addr), n)
	}
}

// invalidate is rxe_invalidate_mr: only a fast-registration MR of the QP's
// PD whose rkey is exactly key can be invalidated.
func invalidate(p *pd, key uint32) bool {
	m := p.dev.keys[key>>8]
	if m == nil || m.dead || m.kind != mrFast || m.pd != p || m.rkey != key {
		return false
	}
	m.valid = false
	return true
}

// regFast is rxe_reg_fast_mr plus the page rules of ib_map_mr_sg: the MR
// must be a free fast-registration MR of the QP's PD, the new key may only
// change the low 8 bits, and the SGList must name DMA-mapped memory of the
// PD where every element but the first starts on a page boundary and every
// element but the last ends on one, spanning at most maxPages pages.
func regFast(p *pd, wr *verbs.SendWR) bool {
	m, ok := wr.MR.(*mr)
	if !ok || m == nil || m.dead || m.kind != mrFast || m.pd != p || m.valid {
		return false
	}
	if wr.RegKey&^0xff != m.lkey&^0xff || len(wr.SGList) == 0 {
		return false
	}
	ps := uint64(p.dev.attr.PageSize)
	last := len(wr.SGList) - 1
	var (
		segs  [][]byte
		pages uint64
		total uint64
	)
	for i, s := range wr.SGList {
		n := uint64(s.Length)
		if n == 0 || (i > 0 && s.Addr%ps != 0) || (i < last && (s.Addr+n)%ps != 0) {
			return false
		}
		b, ok := p.dmaSlice(s.Addr, n)
		if !ok {
			return false
		}
		pages += (s.Addr+n-1)/ps - s.Addr/ps + 1
		total += n
		segs = append(segs, b)
	}
	if pages > uint64(m.maxPages) {
		return false
	}
	m.segs = segs
	m.addr = m.base + wr.SGList[0].Addr%ps
	m.length = int(total)
	m.access = wr.Access
	m.lkey, m.rkey = wr.RegKey, wr.RegKey
	m.valid = true
	m.log.Reset() // new pages: nothing written to them through m yet
	return true
}

// copySegs copies from src to dst piece by piece, as far as both reach.
func copySegs(dst, src [][]byte) int {
	n := 0
	var d, s []byte
	for {
		for len(d) == 0 && len(dst) > 0 {
			d, dst = dst[0], dst[1:]
		}
		for len(s) == 0 && len(src) > 0 {
			s, src = src[0], src[1:]
		}
		if len(d) == 0 || len(s) == 0 {
			return n
		}
		c := copy(d, s)
		d, s = d[c:], s[c:]
		n += c
	}
}

func segsLen(segs [][]byte) uint64 {
	var n uint64
	for _, s := range segs {
		n += uint64(len(s))
	}
	return n
}

// gather copies segs into one payload, in a buffer from payloadAlloc when
// one is set.
func (f *Fabric) gather(segs [][]byte) []byte {
	n := segsLen(segs)
	var out []byte
	if f.payloadAlloc != nil && n > 0 {
		out = f.payloadAlloc(int(n))[:0]
	} else {
		out = make([]byte, 0, n)
	}
	for _, s := range segs {
		out = append(out, s...)
	}
	return out
}
