package sim

import (
	"fmt"
	"sort"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// DefaultAttr is an rxe device's attributes, from rxe_param.h (the
// rxe_device_param enum) and rxe_init_device_param in rxe.c:
//
//	max_qp_wr                  RXE_MAX_QP_WR = 0x4000 (16384; kernels since
//	                           v5.11 report DEFAULT_MAX_VALUE = 1<<20, the
//	                           older value keeps send queues teachable)
//	max_send_sge, max_recv_sge RXE_MAX_SGE = 32
//	max_sge_rd                 RXE_MAX_SGE_RD = 32
//	max_cqe                    (1 << RXE_MAX_LOG_CQE) - 1 = 32767
//	max_mr                     RXE_MAX_MR = 256 * 1024
//	max_fast_reg_page_list_len RXE_MAX_FMR_PAGE_LIST_LEN = 512
//	max_qp_init_rd_atom        RXE_MAX_QP_INIT_RD_ATOM = 128
//	max_qp_rd_atom             RXE_MAX_QP_RD_ATOM = 128
//
// max_sgl_rd is 0 (rxe has no preference for MRs on long READs) and rxe is
// RoCE, not iWARP. PageSize is the host's 4 KiB page.
func DefaultAttr() verbs.DeviceAttr {
	return verbs.DeviceAttr{
		Name:                  "rxe0",
		PageSize:              4096,
		MaxQPWR:               16384,
		MaxSendSGE:            32,
		MaxRecvSGE:            32,
		MaxSGERd:              32,
		MaxSGLRd:              0,
		MaxCQE:                32767,
		MaxMR:                 256 * 1024,
		MaxFastRegPageListLen: 512,
		MaxQPInitRdAtom:       128,
		MaxQPRdAtom:           128,
		IWARP:                 false,
	}
}

// maxInlineData is rxe's max_inline_data (RXE_MAX_SGE * sizeof(struct
// ib_sge)); inline sends are not modelled, the cap is only checked.
const maxInlineData = 32 * 16

func attrWithDefaults(a verbs.DeviceAttr) verbs.DeviceAttr {
	d := DefaultAttr()
	if a.Name == "" {
		a.Name = d.Name
	}
	fill := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&a.PageSize, d.PageSize)
	fill(&a.MaxQPWR, d.MaxQPWR)
	fill(&a.MaxSendSGE, d.MaxSendSGE)
	fill(&a.MaxRecvSGE, d.MaxRecvSGE)
	fill(&a.MaxSGERd, d.MaxSGERd)
	fill(&a.MaxCQE, d.MaxCQE)
	fill(&a.MaxMR, d.MaxMR)
	fill(&a.MaxFastRegPageListLen, d.MaxFastRegPageListLen)
	fill(&a.MaxQPInitRdAtom, d.MaxQPInitRdAtom)
	fill(&a.MaxQPRdAtom, d.MaxQPRdAtom)
	if a.MaxSGLRd < 0 {
		a.MaxSGLRd = 0
	}
	return a
}

// DeviceOption shapes how a device's provider answers, beyond its
// attributes.
type DeviceOption func(*device)

// GrantSendSGE makes the provider grant every QP at least n send SGEs,
// returning the grant in the QP's cap.max_send_sge, as providers that round
// the send WQE size up do; the QP then takes WRs of up to the granted count.
// rxe grants what is asked (it rounds up only for max_inline_data).
func GrantSendSGE(n int) DeviceOption { return func(d *device) { d.grantSendSGE = n } }

// device is one node's RDMA device: verbs.Device.
type device struct {
	f      *Fabric
	node   string
	attr   verbs.DeviceAttr
	closed bool

	grantSendSGE int // the least max_send_sge a QP is granted (GrantSendSGE)

	next uint64         // next free device address
	keys map[uint32]*mr // by MR index (key >> 8); lookup only
	nMR  int            // live user and fast-registration MRs

	pds []*pd
	qps []*qp // creation order
	cqs []*cq
}

var _ verbs.Device = (*device)(nil)

func (d *device) Attr() verbs.DeviceAttr { return d.attr }

func (d *device) errClosed(what string) error {
	return fmt.Errorf("sim: %s on closed device %q: %w", what, d.node, verbs.EINVAL)
}

func (d *device) AllocPD() (verbs.PD, error) {
	d.f.mu.Lock()
	defer d.f.mu.Unlock()
	if d.closed {
		return nil, d.errClosed("alloc pd")
	}
	p := &pd{dev: d}
	// The kernel gives each PD an internal all-access MR whose lkey is
	// pd->local_dma_lkey; here it covers the PD's DMA mappings.
	key, err := d.newKey()
	if err != nil {
		return nil, fmt.Errorf("sim: alloc pd: %w", err)
	}
	p.dma = &mr{dev: d, pd: p, kind: mrDMA, lkey: key, access: verbs.AccessLocalWrite, valid: true}
	d.keys[key>>8] = p.dma
	d.pds = append(d.pds, p)
	return p, nil
}

func (d *device) CreateCQ(cqe int) (verbs.CQ, error) {
	d.f.mu.Lock()
	defer d.f.mu.Unlock()
	if d.closed {
		return nil, d.errClosed("create cq")
	}
	if cqe <= 0 || cqe > d.attr.MaxCQE {
		return nil, fmt.Errorf("sim: create cq: cqe %d not in [1, max_cqe %d]: %w", cqe, d.attr.MaxCQE, verbs.EINVAL)
	}
	c := &cq{dev: d, size: cqe}
	d.cqs = append(d.cqs, c)
	return c, nil
}

// Close closes the device: its connections break as with Disconnect and
// its node name is free again. Objects made from it stay usable only to
// poll and destroy.
func (d *device) Close() error {
	d.f.mu.Lock()
	defer d.f.unlock()
	if d.closed {
		return fmt.Errorf("sim: close device %q: already closed: %w", d.node, verbs.EINVAL)
	}
	d.f.disconnect(d)
	for _, q := range d.qps {
		if !q.dead {
			d.f.toError(q)
		}
	}
	d.closed = true
	if d.f.nodes[d.node] == d {
		delete(d.f.nodes, d.node)
	}
	return nil
}

// alloc reserves n bytes of device address space, page aligned, followed
// by an unused guard page so that distinct buffers never touch.
func (d *device) alloc(n uint64) uint64 {
	ps := uint64(d.attr.PageSize)
	a := d.next
	d.next += (n+ps-1)&^(ps-1) + ps
	return a
}

// newKey returns an unused key: a random MR index (rxe's indices start at
// 1) above a random key byte.
func (d *device) newKey() (uint32, error) {
	if len(d.keys) >= 1<<24-2 {
		return 0, fmt.Errorf("no free memory key: %w", verbs.ENOMEM)
	}
	for {
		idx := uint32(d.f.rng.IntN(1<<24-1)) + 1
		if _, used := d.keys[idx]; !used {
			return idx<<8 | uint32(d.f.rng.IntN(256)), nil
		}
	}
}

// pd is a protection domain: verbs.PD.
type pd struct {
	dev  *device
	dma  *mr       // the local DMA lkey's MR
	maps []mapping // DMA mappings, ascending addresses
	// lastMap is the index findMap found last (f.mu held): a hint, checked
	// before use.
	lastMap int
	nMR     int
	nQP     int
	dead    bool
}

type mapping struct {
	addr uint64
	buf  []byte
}

var _ verbs.PD = (*pd)(nil)

func (p *pd) check(what string) error {
	if p.dead {
		return fmt.Errorf("sim: %s: protection domain deallocated: %w", what, verbs.EINVAL)
	}
	if p.dev.closed {
		return p.dev.errClosed(what)
	}
	return nil
}

func (p *pd) RegMR(buf []byte, access verbs.Access) (verbs.MR, error) {
	f := p.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := p.check("reg mr"); err != nil {
		return nil, err
	}
	if len(buf) == 0 {
		return nil, fmt.Errorf("sim: reg mr: empty buffer: %w", verbs.EINVAL)
	}
	if err := checkAccess(access); err != nil {
		return nil, fmt.Errorf("sim: reg mr: %w", err)
	}
	if p.dev.nMR >= p.dev.attr.MaxMR {
		return nil, fmt.Errorf("sim: reg mr: max_mr %d reached: %w", p.dev.attr.MaxMR, verbs.ENOMEM)
	}
	key, err := p.dev.newKey()
	if err != nil {
		return nil, fmt.Errorf("sim: reg mr: %w", err)
	}
	m := &mr{
		dev: p.dev, pd: p, kind: mrUser, lkey: key, rkey: key,
		addr: p.dev.alloc(uint64(len(buf))), length: len(buf), buf: buf,
		access: access, valid: true,
	}
	p.dev.keys[key>>8] = m
	p.dev.nMR++
	p.nMR++
	return m, nil
}

// checkAccess applies ib_check_mr_access: remote write or atomic access
// needs local write, and no unknown bits.
func checkAccess(a verbs.Access) error {
	all := verbs.AccessLocalWrite | verbs.AccessRemoteWrite | verbs.AccessRemoteRead | verbs.AccessRemoteAtomic
	if a&^all != 0 {
		return fmt.Errorf("unknown access bits %#x: %w", uint32(a&^all), verbs.EINVAL)
	}
	if a&(verbs.AccessRemoteWrite|verbs.AccessRemoteAtomic) != 0 && a&verbs.AccessLocalWrite == 0 {
		return fmt.Errorf("access %v without LOCAL_WRITE: %w", a, verbs.EINVAL)
	}
	return nil
}

func (p *pd) LocalDMALKey() uint32 {
	f := p.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	return p.dma.lkey
}

func (p *pd) DMAMap(buf []byte) (uint64, error) {
	f := p.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := p.check("dma map"); err != nil {
		return 0, err
	}
	if len(buf) == 0 {
		return 0, fmt.Errorf("sim: dma map: empty buffer: %w", verbs.EINVAL)
	}
	a := p.dev.alloc(uint64(len(buf)))
	p.maps = append(p.maps, mapping{addr: a, buf: buf}) // alloc only grows: stays sorted
	return a, nil
}

func (p *pd) DMAUnmap(addr uint64) error {
	f := p.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := p.check("dma unmap"); err != nil {
		return err
	}
	i, ok := p.findMap(addr)
	if !ok || p.maps[i].addr != addr {
		return fmt.Errorf("sim: dma unmap %#x: not a mapped address: %w", addr, verbs.EINVAL)
	}
	p.maps = append(p.maps[:i], p.maps[i+1:]...)
	return nil
}

// findMap returns the index of the mapping containing addr. The SGEs of a
// work request mostly name one page after another: the mapping after the
// last one found is tried before searching.
func (p *pd) findMap(addr uint64) (int, bool) {
	for _, i := range [2]int{p.lastMap, p.lastMap + 1} {
		if i < len(p.maps) && addr >= p.maps[i].addr && addr-p.maps[i].addr < uint64(len(p.maps[i].buf)) {
			p.lastMap = i
			return i, true
		}
	}
	i := sort.Search(len(p.maps), func(i int) bool { return p.maps[i].addr > addr }) - 1
	if i < 0 || addr-p.maps[i].addr >= uint64(len(p.maps[i].buf)) {
		return 0, false
	}
	p.lastMap = i
	return i, true
}

// dmaSlice resolves [addr, addr+n) inside one DMA mapping of the PD.
func (p *pd) dmaSlice(addr, n uint64) ([]byte, bool) {
	i, ok := p.findMap(addr)
	if !ok {
		return nil, false
	}
	off := addr - p.maps[i].addr
	if n > uint64(len(p.maps[i].buf))-off {
		return nil, false
	}
	return p.maps[i].buf[off : off+n], true
}

func (p *pd) AllocMR(maxPages int) (verbs.MR, error) {
	f := p.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := p.check("alloc mr"); err != nil {
		return nil, err
	}
	if maxPages <= 0 || maxPages > p.dev.attr.MaxFastRegPageListLen {
		return nil, fmt.Errorf("sim: alloc mr: %d pages not in [1, max_fast_reg_page_list_len %d]: %w",
			maxPages, p.dev.attr.MaxFastRegPageListLen, verbs.EINVAL)
	}
	if p.dev.nMR >= p.dev.attr.MaxMR {
		return nil, fmt.Errorf("sim: alloc mr: max_mr %d reached: %w", p.dev.attr.MaxMR, verbs.ENOMEM)
	}
	key, err := p.dev.newKey()
	if err != nil {
		return nil, fmt.Errorf("sim: alloc mr: %w", err)
	}
	ps := uint64(p.dev.attr.PageSize)
	base := p.dev.alloc(uint64(maxPages) * ps)
	// Born free (rxe's RXE_MR_STATE_FREE): its key is refused until a
	// REG_MR work request binds pages to it.
	m := &mr{dev: p.dev, pd: p, kind: mrFast, lkey: key, rkey: key, base: base, addr: base, maxPages: maxPages}
	p.dev.keys[key>>8] = m
	p.dev.nMR++
	p.nMR++
	return m, nil
}

func (p *pd) Dealloc() error {
	f := p.dev.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.dead {
		return fmt.Errorf("sim: dealloc pd: already deallocated: %w", verbs.EINVAL)
	}
	if p.nMR > 0 || p.nQP > 0 || len(p.maps) > 0 {
		return fmt.Errorf("sim: dealloc pd: %d MRs, %d QPs, %d DMA mappings still use it: %w",
			p.nMR, p.nQP, len(p.maps), verbs.EBUSY)
	}
	p.dead = true
	delete(p.dev.keys, p.dma.lkey>>8)
	p.dma.dead = true
	return nil
}
