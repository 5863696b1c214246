//go:build ibv && cgo

package ibv

/*
#cgo LDFLAGS: -libverbs
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

// ibv_post_send, ibv_post_recv, ibv_poll_cq and ibv_query_gid_ex are
// static inline and ibv_reg_mr a macro: cgo calls these wrappers.
static int rl_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad) { return ibv_post_send(qp, wr, bad); }
static int rl_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad) { return ibv_post_recv(qp, wr, bad); }
static int rl_query_port(struct ibv_context *ctx, int port, struct ibv_port_attr *pa) { return ibv_query_port(ctx, port, pa); }
static int rl_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc) { return ibv_poll_cq(cq, n, wc); }
static struct ibv_mr *rl_reg_mr(struct ibv_pd *pd, void *addr, size_t n, int access) { return ibv_reg_mr(pd, addr, n, access); }
static int rl_gid(struct ibv_context *ctx, int port, int index, uint8_t *raw, int *type) {
	struct ibv_gid_entry e;
	int rc = ibv_query_gid_ex(ctx, port, index, &e, 0);
	if (rc) return rc;
	memcpy(raw, e.gid.raw, 16);
	*type = e.gid_type;
	return 0;
}
static void rl_fill_send(struct ibv_send_wr *w, uint64_t id, uint32_t opcode, int signaled,
		struct ibv_sge *sg, int nsge, uint64_t raddr, uint32_t rkey, uint32_t imm, uint32_t inv,
		struct ibv_send_wr *next) {
	memset(w, 0, sizeof *w);
	w->wr_id = id; w->next = next; w->sg_list = sg; w->num_sge = nsge;
	w->opcode = (enum ibv_wr_opcode)opcode;
	w->send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	if (opcode == IBV_WR_SEND_WITH_INV || opcode == IBV_WR_LOCAL_INV) w->invalidate_rkey = inv;
	else w->imm_data = htonl(imm);
	w->wr.rdma.remote_addr = raddr; w->wr.rdma.rkey = rkey;
}
static uint32_t rl_wc_imm(struct ibv_wc *wc) { return ntohl(wc->imm_data); }
static uint32_t rl_wc_inv(struct ibv_wc *wc) { return wc->invalidated_rkey; }
static int rl_to_init(struct ibv_qp *qp, int port) {
	struct ibv_qp_attr a; memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT; a.pkey_index = 0; a.port_num = port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}
static int rl_to_rtr(struct ibv_qp *qp, int port, uint32_t dqpn, uint32_t mtu, uint32_t rqpsn,
		int rd_atomic, uint8_t *dgid, int sgid_index) {
	struct ibv_qp_attr a; memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR; a.path_mtu = (enum ibv_mtu)mtu; a.dest_qp_num = dqpn;
	a.rq_psn = rqpsn; a.max_dest_rd_atomic = rd_atomic; a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1; memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
	a.ah_attr.grh.sgid_index = sgid_index; a.ah_attr.grh.hop_limit = 64; a.ah_attr.port_num = port;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}
static int rl_to_rts(struct ibv_qp *qp, uint32_t sqpsn, int retry, int rnr, int rd_atomic) {
	struct ibv_qp_attr a; memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS; a.sq_psn = sqpsn; a.timeout = 14; a.retry_cnt = retry;
	a.rnr_retry = rnr; a.max_rd_atomic = rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}
static int rl_to_err(struct ibv_qp *qp) {
	struct ibv_qp_attr a; memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_ERR;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}
*/
import "C"

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Built reports whether this binary has the ibv provider.
func Built() bool { return true }

// localDMALKey stands for the kernel's pd->local_dma_lkey, which user
// space lacks: SGEs carrying it are rewritten, at post time, to the lkey
// of the MR that DMAMap registered for their address. Its index part
// (above rxe's largest MR index) names no real MR.
const localDMALKey = 0xfffffe00

// Devices lists the RDMA devices libibverbs sees.
func Devices() ([]string, error) {
	var n C.int
	list, err := C.ibv_get_device_list(&n)
	if list == nil {
		if err == syscall.ENOSYS {
			return nil, nil // no RDMA subsystem in this kernel: no device
		}
		return nil, fmt.Errorf("ibv: ibv_get_device_list: %w", errnoOf(err))
	}
	defer C.ibv_free_device_list(list)
	var out []string
	for _, d := range unsafe.Slice(list, int(n)) {
		out = append(out, C.GoString(C.ibv_get_device_name(d)))
	}
	return out, nil
}

func errnoOf(err error) error {
	if e, ok := err.(syscall.Errno); ok && e != 0 {
		return verbs.Errno(e)
	}
	if err == nil {
		return verbs.EIO
	}
	return err
}

func rcErr(rc C.int) error {
	if rc < 0 {
		rc = -rc
	}
	return verbs.Errno(rc)
}

// devCtx is one opened device and the port/GID its connections use.
type devCtx struct {
	name  string
	ctx   *C.struct_ibv_context
	raw   RawAttr
	attr  verbs.DeviceAttr
	port  int
	gid   GID
	users int
}

type provider struct {
	mu     sync.Mutex
	cfg    Config
	start  time.Time
	devs   []*devCtx
	nodes  map[string]*devCtx
	t      *tracker
	cqs    []*cq         // index = model CQ number
	qps    map[qpKey]*qp // QP numbers are per device
	pds    []*pd
	closed bool
	fault  fault
}

type qpKey struct {
	dev string
	num uint32
}

// fault is an armed FailNth.
type fault struct {
	left int
	st   verbs.Status
}

// spoil applies an armed fault to a work request about to be posted: it
// returns the remote address and SGEs to post with.
func (f *fault) spoil(w *verbs.SendWR, raddr uint64, sges []verbs.SGE) (uint64, []verbs.SGE) {
	if f.left == 0 {
		return raddr, sges
	}
	rdma := w.Opcode == verbs.WRRDMAWrite || w.Opcode == verbs.WRRDMAWriteWithImm || w.Opcode == verbs.WRRDMARead
	switch {
	case f.st == verbs.StatusRemAccessErr && rdma:
	case f.st == verbs.StatusLocProtErr && len(sges) > 0:
	default:
		return raddr, sges
	}
	if f.left--; f.left > 0 {
		return raddr, sges
	}
	if f.st == verbs.StatusRemAccessErr {
		// 1 GiB past where the segment starts: outside the client's MR, so
		// its responder refuses the range; the rkey stays the chunk's, so
		// a capture still ties the WRITE to its segment (past its end).
		return raddr + 1<<30, sges
	}
	bad := append([]verbs.SGE(nil), sges...)
	bad[0].LKey ^= 0x80
	return raddr, bad
}

// Open opens the devices of cfg and reads their attributes.
func Open(cfg Config) (Provider, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Settle <= 0 {
		cfg.Settle = 100 * time.Millisecond
	}
	if cfg.Client == "" {
		cfg.Client = cfg.Server
	}
	p := &provider{cfg: cfg, start: time.Now(), nodes: map[string]*devCtx{}, qps: map[qpKey]*qp{}}
	p.t = newTracker(p.Now)
	names, err := Devices()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("ibv: no RDMA device is present: libibverbs lists none (for Soft-RoCE: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0)")
	}
	for _, node := range []struct{ node, dev string }{{"server", cfg.Server}, {"client", cfg.Client}} {
		if d := p.find(node.dev); d != nil {
			p.nodes[node.node] = d
			continue
		}
		d, err := openDev(node.dev, names)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.devs = append(p.devs, d)
		p.nodes[node.node] = d
	}
	return p, nil
}

func (p *provider) find(name string) *devCtx {
	for _, d := range p.devs {
		if d.name == name {
			return d
		}
	}
	return nil
}

func openDev(name string, present []string) (*devCtx, error) {
	var n C.int
	list, err := C.ibv_get_device_list(&n)
	if list == nil {
		return nil, fmt.Errorf("ibv: ibv_get_device_list: %w", errnoOf(err))
	}
	defer C.ibv_free_device_list(list)
	var dev *C.struct_ibv_device
	for _, d := range unsafe.Slice(list, int(n)) {
		if C.GoString(C.ibv_get_device_name(d)) == name {
			dev = d
		}
	}
	if dev == nil {
		return nil, fmt.Errorf("ibv: no RDMA device %q (present: %s)", name, strings.Join(present, ", "))
	}
	ctx, err := C.ibv_open_device(dev)
	if ctx == nil {
		return nil, fmt.Errorf("ibv: open %s: %w", name, errnoOf(err))
	}
	d := &devCtx{name: name, ctx: ctx, port: 1}
	var da C.struct_ibv_device_attr
	if rc := C.ibv_query_device(ctx, &da); rc != 0 {
		C.ibv_close_device(ctx)
		return nil, fmt.Errorf("ibv: query %s: %w", name, rcErr(rc))
	}
	var pa C.struct_ibv_port_attr
	if rc := C.rl_query_port(ctx, C.int(d.port), &pa); rc != 0 {
		C.ibv_close_device(ctx)
		return nil, fmt.Errorf("ibv: query %s port %d: %w", name, d.port, rcErr(rc))
	}
	if err := checkLinkLayer(name, d.port, uint8(pa.link_layer)); err != nil {
		C.ibv_close_device(ctx)
		return nil, err
	}
	if pa.state != C.IBV_PORT_ACTIVE {
		C.ibv_close_device(ctx)
		return nil, fmt.Errorf("ibv: %s port %d is not ACTIVE (state %d): is its netdev up?", name, d.port, int(pa.state))
	}
	d.raw = RawAttr{MaxQPWR: int(da.max_qp_wr), MaxSGE: int(da.max_sge), MaxSGERd: int(da.max_sge_rd),
		MaxCQE: int(da.max_cqe), MaxMR: int(da.max_mr), MaxQPRdAtom: int(da.max_qp_rd_atom),
		MaxQPInitRdAtom: int(da.max_qp_init_rd_atom), IWARP: dev.transport_type == C.IBV_TRANSPORT_IWARP,
		ActiveMTU: uint32(pa.active_mtu)}
	d.attr = AttrOf(name, d.raw, os.Getpagesize())
	var gids []GID
	for i := 0; i < int(pa.gid_tbl_len); i++ {
		var g GID
		var typ C.int
		if C.rl_gid(ctx, C.int(d.port), C.int(i), (*C.uint8_t)(unsafe.Pointer(&g.Raw[0])), &typ) != 0 {
			continue
		}
		g.Index, g.RoCEv2 = i, typ == C.IBV_GID_TYPE_ROCE_V2
		gids = append(gids, g)
	}
	if d.gid, err = PickGID(gids); err != nil {
		C.ibv_close_device(ctx)
		return nil, fmt.Errorf("ibv: %s: %w", name, err)
	}
	return d, nil
}

func (p *provider) Attr(node string) verbs.DeviceAttr {
	if d := p.nodes[node]; d != nil {
		return d.attr
	}
	return verbs.DeviceAttr{}
}

func (p *provider) Now() time.Duration { return time.Since(p.start) }

func (p *provider) Describe() string {
	var b strings.Builder
	for _, node := range []string{"server", "client"} {
		d := p.nodes[node]
		fmt.Fprintf(&b, "%s on %s port %d, GID[%d] %s, active_mtu %d\n", node, d.name, d.port, d.gid.Index, d.gid, mtuBytes(d.raw.ActiveMTU))
	}
	return b.String()
}

func (p *provider) NewDevice(node string, attr verbs.DeviceAttr, grantSendSGE int) (verbs.Device, error) {
	d := p.nodes[node]
	if d == nil {
		return nil, fmt.Errorf("ibv: no node %q (server or client)", node)
	}
	if grantSendSGE > d.raw.MaxSGE {
		return nil, fmt.Errorf("ibv: %s grants at most max_sge %d send SGEs, not %d: %w", d.name, d.raw.MaxSGE, grantSendSGE, verbs.EINVAL)
	}
	return &device{p: p, node: node, dc: d, attr: attr, grantSendSGE: grantSendSGE}, nil
}

func (p *provider) Port(node string) Port {
	if d := p.nodes[node]; d != nil {
		return Port{Device: d.name, Port: d.port, GIDIndex: d.gid.Index}
	}
	return Port{}
}

func (p *provider) ActiveMTU(node string) int {
	if d := p.nodes[node]; d != nil {
		return mtuBytes(d.raw.ActiveMTU)
	}
	return 0
}

func (p *provider) Pending() []verbs.Op {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pump()
	return p.t.pending()
}

func (p *provider) PendingCount() int { return len(p.Pending()) }

// pump moves every completion the devices wrote into the tracker.
func (p *provider) pump() {
	var wcs [16]C.struct_ibv_wc
	for id, c := range p.cqs {
		if c == nil || c.cq == nil {
			continue
		}
		for {
			n := int(C.rl_poll_cq(c.cq, C.int(len(wcs)), &wcs[0]))
			if n <= 0 {
				break
			}
			for i := range wcs[:n] {
				p.t.arrive(id, wcOf(&wcs[i]))
			}
		}
	}
}

func wcOf(w *C.struct_ibv_wc) verbs.WC {
	st, _ := StatusFromC(uint32(w.status))
	wc := verbs.WC{WRID: uint64(w.wr_id), Status: st, Opcode: wcOpcodeFromC(uint32(w.opcode)),
		VendorErr: uint32(w.vendor_err), ByteLen: uint32(w.byte_len), QPNum: uint32(w.qp_num), SrcQP: uint32(w.src_qp)}
	if st != verbs.StatusSuccess {
		wc.Opcode = verbs.WCUnknownOpcode // not valid on error, says ibv_poll_cq(3)
		if _, known := StatusFromC(uint32(w.status)); !known {
			wc.VendorErr = uint32(w.status)<<16 | wc.VendorErr&0xffff
		}
	}
	if w.wc_flags&C.IBV_WC_WITH_IMM != 0 {
		wc.WithImm, wc.ImmData = true, uint32(C.rl_wc_imm(w))
	}
	if w.wc_flags&C.IBV_WC_WITH_INV != 0 {
		wc.WithInv, wc.InvalidatedRKey = true, uint32(C.rl_wc_inv(w))
	}
	return wc
}

func (p *provider) DeliverNext() (verbs.Op, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	deadline := time.Now().Add(p.cfg.Timeout)
	quietSince := time.Now()
	for {
		before := p.arrivals()
		p.pump()
		if p.arrivals() != before {
			quietSince = time.Now()
		}
		o, done := p.t.head(time.Since(quietSince) >= p.cfg.Settle)
		if o == nil {
			return verbs.Op{}, fmt.Errorf("ibv: no work request is pending: %w", verbs.ErrIdle)
		}
		if done {
			op, _ := p.t.deliver()
			return op, nil
		}
		if time.Now().After(deadline) {
			return o.Op, fmt.Errorf("ibv: %s qp %d %v wr_id %#x: %w after %v", o.Node, o.QPNum, o.Opcode, o.WRID, ErrTimeout, p.cfg.Timeout)
		}
		p.mu.Unlock()
		time.Sleep(200 * time.Microsecond)
		p.mu.Lock()
	}
}

// arrivals counts what the tracker has heard, to tell a quiet device.
func (p *provider) arrivals() int {
	n := len(p.t.recvs)
	for _, o := range p.t.ops {
		if o.send != nil {
			n += 1 << 20
		}
		if o.recv != nil {
			n += 1 << 10
		}
	}
	for _, q := range p.t.queues {
		n += len(q) << 30
	}
	return n
}

func (p *provider) FailNth(n int, st verbs.Status) (string, error) {
	if err := canProvoke(st); err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = fault{left: n, st: st}
	return provoked(n, st), nil
}

func (p *provider) Disconnect() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, q := range p.sortedQPs() {
		if rc := C.rl_to_err(q.qp); rc != 0 && first == nil {
			first = fmt.Errorf("ibv: qp %d to ERR: %w", q.num, rcErr(rc))
		}
		q.state = verbs.QPSErr
	}
	// The device flushes at once; give it the moment it needs.
	time.Sleep(20 * time.Millisecond)
	p.pump()
	return disconnected, first
}

func (p *provider) sortedQPs() []*qp {
	out := make([]*qp, 0, len(p.qps))
	for _, q := range p.qps {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.pd.d.dc.name < b.pd.d.dc.name || a.pd.d.dc.name == b.pd.d.dc.name && a.num < b.num
	})
	return out
}

func (p *provider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	for _, q := range p.sortedQPs() {
		C.ibv_destroy_qp(q.qp)
	}
	p.qps = map[qpKey]*qp{}
	for _, pd := range p.pds {
		for _, m := range pd.mrs {
			C.ibv_dereg_mr(m.mr)
		}
		pd.mrs = nil
	}
	for _, c := range p.cqs {
		if c != nil && c.cq != nil {
			C.ibv_destroy_cq(c.cq)
			c.cq = nil
		}
	}
	for _, pd := range p.pds {
		C.ibv_dealloc_pd(pd.pd)
	}
	p.pds = nil
	for _, d := range p.devs {
		C.ibv_close_device(d.ctx)
	}
	p.devs = nil
	return nil
}

// device is one node's view of its device.
type device struct {
	p            *provider
	node         string
	dc           *devCtx
	attr         verbs.DeviceAttr
	grantSendSGE int // the least max_send_sge create_qp asks for
}

func (d *device) Attr() verbs.DeviceAttr { return d.attr }

func (d *device) AllocPD() (verbs.PD, error) {
	d.p.mu.Lock()
	defer d.p.mu.Unlock()
	h, err := C.ibv_alloc_pd(d.dc.ctx)
	if h == nil {
		return nil, fmt.Errorf("ibv: alloc pd on %s: %w", d.dc.name, errnoOf(err))
	}
	pd := &pd{d: d, pd: h, mrs: map[*C.struct_ibv_mr]*mr{}}
	d.p.pds = append(d.p.pds, pd)
	return pd, nil
}

func (d *device) CreateCQ(cqe int) (verbs.CQ, error) {
	d.p.mu.Lock()
	defer d.p.mu.Unlock()
	h, err := C.ibv_create_cq(d.dc.ctx, C.int(cqe), nil, nil, 0)
	if h == nil {
		return nil, fmt.Errorf("ibv: create cq of %d on %s: %w", cqe, d.dc.name, errnoOf(err))
	}
	c := &cq{p: d.p, cq: h, id: len(d.p.cqs)}
	d.p.cqs = append(d.p.cqs, c)
	return c, nil
}

func (d *device) Close() error { return nil } // the provider closes the device

type dmaMap struct {
	addr uint64
	n    uint64
	m    *mr
}

type pd struct {
	d    *device
	pd   *C.struct_ibv_pd
	mrs  map[*C.struct_ibv_mr]*mr
	maps []dmaMap // sorted by addr
}

type mr struct {
	pd     *pd
	mr     *C.struct_ibv_mr
	buf    []byte // keeps the registered Go memory alive
	access verbs.Access
}

func (m *mr) LKey() uint32         { return uint32(m.mr.lkey) }
func (m *mr) RKey() uint32         { return uint32(m.mr.rkey) }
func (m *mr) Addr() uint64         { return uint64(uintptr(m.mr.addr)) }
func (m *mr) Length() int          { return int(m.mr.length) }
func (m *mr) Access() verbs.Access { return m.access }
func (m *mr) Dereg() error {
	p := m.pd.d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	return m.pd.dereg(m)
}

func (pd *pd) dereg(m *mr) error {
	if _, ok := pd.mrs[m.mr]; !ok {
		return fmt.Errorf("ibv: dereg mr: not registered: %w", verbs.EINVAL)
	}
	if rc := C.ibv_dereg_mr(m.mr); rc != 0 {
		return fmt.Errorf("ibv: dereg mr: %w", rcErr(rc))
	}
	delete(pd.mrs, m.mr)
	return nil
}

// reg is ibv_reg_mr over Go memory: the heap does not move, and mr.buf
// keeps it alive until Dereg.
func (pd *pd) reg(buf []byte, access verbs.Access) (*mr, error) {
	if len(buf) == 0 {
		return nil, fmt.Errorf("ibv: reg mr: empty buffer: %w", verbs.EINVAL)
	}
	h, err := C.rl_reg_mr(pd.pd, unsafe.Pointer(&buf[0]), C.size_t(len(buf)), C.int(accessToC(access)))
	if h == nil {
		e := errnoOf(err)
		return nil, fmt.Errorf("ibv: reg mr of %d bytes on %s: %w%s", len(buf), pd.d.dc.name, e, memlockHint(e))
	}
	m := &mr{pd: pd, mr: h, buf: buf, access: access}
	pd.mrs[h] = m
	return m, nil
}

func (pd *pd) RegMR(buf []byte, access verbs.Access) (verbs.MR, error) {
	pd.d.p.mu.Lock()
	defer pd.d.p.mu.Unlock()
	return pd.reg(buf, access)
}

func (pd *pd) LocalDMALKey() uint32 { return localDMALKey }

// DMAMap registers buf for local access: user space has no DMA mapping
// and no local DMA lkey, so each mapping is an MR and PostSend/PostRecv
// put its lkey where an SGE names localDMALKey.
func (pd *pd) DMAMap(buf []byte) (uint64, error) {
	pd.d.p.mu.Lock()
	defer pd.d.p.mu.Unlock()
	m, err := pd.reg(buf, verbs.AccessLocalWrite)
	if err != nil {
		return 0, fmt.Errorf("ibv: dma map: %w", err)
	}
	dm := dmaMap{addr: m.Addr(), n: uint64(len(buf)), m: m}
	i := sort.Search(len(pd.maps), func(i int) bool { return pd.maps[i].addr > dm.addr })
	pd.maps = append(pd.maps, dmaMap{})
	copy(pd.maps[i+1:], pd.maps[i:])
	pd.maps[i] = dm
	return dm.addr, nil
}

func (pd *pd) DMAUnmap(addr uint64) error {
	pd.d.p.mu.Lock()
	defer pd.d.p.mu.Unlock()
	for i, dm := range pd.maps {
		if dm.addr == addr {
			pd.maps = append(pd.maps[:i], pd.maps[i+1:]...)
			return pd.dereg(dm.m)
		}
	}
	return fmt.Errorf("ibv: dma unmap %#x: not a mapped address: %w", addr, verbs.EINVAL)
}

// lkeyFor is the lkey an SGE goes to the device with.
func (pd *pd) lkeyFor(s verbs.SGE) uint32 {
	if s.LKey != localDMALKey {
		return s.LKey
	}
	i := sort.Search(len(pd.maps), func(i int) bool { return pd.maps[i].addr > s.Addr }) - 1
	if i >= 0 && s.Addr-pd.maps[i].addr+uint64(s.Length) <= pd.maps[i].n {
		return pd.maps[i].m.LKey()
	}
	return s.LKey // not mapped: the device answers LOC_PROT_ERR, as it would
}

func (pd *pd) AllocMR(int) (verbs.MR, error) {
	return nil, fmt.Errorf("ibv: alloc mr: fast-registration MRs (ib_alloc_mr, REG_MR) are kernel verbs that libibverbs lacks, so rdma_rw's MR path (iwarp, force_mr) runs on the sim only: %w", verbs.EOPNOTSUPP)
}

func (pd *pd) CreateQP(attr verbs.QPInitAttr) (verbs.QP, error) {
	p := pd.d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	scq, ok1 := attr.SendCQ.(*cq)
	rcq, ok2 := attr.RecvCQ.(*cq)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("ibv: create qp: CQs of another provider: %w", verbs.EINVAL)
	}
	// Asking for the grant is what a provider that grants more than
	// asked (mlx5 rounds its WQE size up) does of itself; rxe grants
	// what is asked, so the lab asks.
	sendSGE := max(attr.Cap.MaxSendSGE, pd.d.grantSendSGE)
	ia := C.struct_ibv_qp_init_attr{send_cq: scq.cq, recv_cq: rcq.cq, qp_type: C.IBV_QPT_RC,
		cap: C.struct_ibv_qp_cap{max_send_wr: C.uint32_t(attr.Cap.MaxSendWR), max_recv_wr: C.uint32_t(attr.Cap.MaxRecvWR),
			max_send_sge: C.uint32_t(sendSGE), max_recv_sge: C.uint32_t(attr.Cap.MaxRecvSGE),
			max_inline_data: C.uint32_t(attr.Cap.MaxInlineData)}}
	if attr.SigAll {
		ia.sq_sig_all = 1
	}
	h, err := C.ibv_create_qp(pd.pd, &ia)
	if h == nil {
		return nil, fmt.Errorf("ibv: create qp (send %d×%d SGEs, recv %d×%d) on %s: %w", attr.Cap.MaxSendWR, sendSGE,
			attr.Cap.MaxRecvWR, attr.Cap.MaxRecvSGE, pd.d.dc.name, errnoOf(err))
	}
	q := &qp{pd: pd, qp: h, num: uint32(h.qp_num), scq: scq, rcq: rcq, sigAll: attr.SigAll,
		cap: verbs.QPCap{MaxSendWR: int(ia.cap.max_send_wr), MaxRecvWR: int(ia.cap.max_recv_wr),
			MaxSendSGE: int(ia.cap.max_send_sge), MaxRecvSGE: int(ia.cap.max_recv_sge), MaxInlineData: int(ia.cap.max_inline_data)}}
	p.qps[qpKey{pd.d.dc.name, q.num}] = q
	return q, nil
}

func (pd *pd) Dealloc() error {
	p := pd.d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(pd.mrs) > 0 {
		return fmt.Errorf("ibv: dealloc pd: %d MRs still use it: %w", len(pd.mrs), verbs.EBUSY)
	}
	if rc := C.ibv_dealloc_pd(pd.pd); rc != 0 {
		return fmt.Errorf("ibv: dealloc pd: %w", rcErr(rc))
	}
	for i, x := range p.pds {
		if x == pd {
			p.pds = append(p.pds[:i], p.pds[i+1:]...)
			break
		}
	}
	return nil
}

type cq struct {
	p  *provider
	cq *C.struct_ibv_cq
	id int
}

// Poll returns the completions the learner has let through (DeliverNext),
// never straight from the device.
func (c *cq) Poll(wc []verbs.WC) int {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.pump()
	return c.p.t.take(c.id, wc)
}

func (c *cq) Destroy() error {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if c.cq == nil {
		return nil
	}
	if rc := C.ibv_destroy_cq(c.cq); rc != 0 {
		return fmt.Errorf("ibv: destroy cq: %w", rcErr(rc))
	}
	c.cq = nil
	return nil
}

type qp struct {
	pd       *pd
	qp       *C.struct_ibv_qp
	num      uint32
	scq, rcq *cq
	cap      verbs.QPCap
	sigAll   bool
	state    verbs.QPState
	peer     *qp
	peerNode string
}

func (q *qp) Num() uint32          { return q.num }
func (q *qp) State() verbs.QPState { return q.state }
func (q *qp) Cap() verbs.QPCap     { return q.cap }

func (q *qp) Modify(a verbs.QPAttr) error {
	p := q.pd.d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	dc := q.pd.d.dc
	var rc C.int
	switch a.State {
	case verbs.QPSInit:
		rc = C.rl_to_init(q.qp, C.int(dc.port))
	case verbs.QPSRTR:
		peer := p.nodes[a.RemoteNode]
		if peer == nil {
			return fmt.Errorf("ibv: qp %d to RTR: no node %q: %w", q.num, a.RemoteNode, verbs.EINVAL)
		}
		mtu, active := a.PathMTU, mtuBytes(dc.raw.ActiveMTU)
		if mtu > active {
			return fmt.Errorf("ibv: qp %d to RTR: path MTU %d is over %s's active_mtu %d (its netdev's MTU carries no bigger RoCE packet): %w", q.num, mtu, dc.name, active, verbs.EINVAL)
		}
		if mtu == 0 {
			mtu = active
		}
		e, err := mtuEnum(mtu)
		if err != nil {
			return err
		}
		rq := a.RQPSN
		if rq == 0 {
			rq = psnFor(a.DestQPNum)
		}
		rd := min(16, max(1, dc.raw.MaxQPRdAtom))
		rc = C.rl_to_rtr(q.qp, C.int(dc.port), C.uint32_t(a.DestQPNum), C.uint32_t(e), C.uint32_t(rq), C.int(rd),
			(*C.uint8_t)(unsafe.Pointer(&peer.gid.Raw[0])), C.int(dc.gid.Index))
		if rc == 0 {
			q.peerNode = a.RemoteNode
			q.peer = p.qps[qpKey{peer.name, a.DestQPNum}]
		}
	case verbs.QPSRTS:
		sq := a.SQPSN
		if sq == 0 {
			sq = psnFor(q.num)
		}
		rd := min(max(1, a.MaxRdAtomic), max(1, dc.raw.MaxQPInitRdAtom))
		rc = C.rl_to_rts(q.qp, C.uint32_t(sq), C.int(a.RetryCnt), C.int(a.RNRRetry), C.int(rd))
	case verbs.QPSErr:
		rc = C.rl_to_err(q.qp)
	default:
		return fmt.Errorf("ibv: qp %d to %v: not a transition rdmalab makes: %w", q.num, a.State, verbs.EINVAL)
	}
	if rc != 0 {
		return fmt.Errorf("ibv: qp %d to %v on %s: %w", q.num, a.State, dc.name, rcErr(rc))
	}
	q.state = a.State
	return nil
}

// PostSend copies the chain into C memory (libibverbs keeps no pointer to
// it after the call) and posts it as one ibv_post_send.
func (q *qp) PostSend(first *verbs.SendWR) (*verbs.SendWR, error) {
	p := q.pd.d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	var wrs []*verbs.SendWR
	nsge := 0
	for w := first; w != nil; w = w.Next {
		if _, err := wrOpcodeToC(w.Opcode); err != nil {
			return w, err
		}
		wrs = append(wrs, w)
		nsge += len(w.SGList)
	}
	if len(wrs) == 0 {
		return nil, nil
	}
	cw := (*C.struct_ibv_send_wr)(C.calloc(C.size_t(len(wrs)), C.size_t(unsafe.Sizeof(C.struct_ibv_send_wr{}))))
	cs := (*C.struct_ibv_sge)(C.calloc(C.size_t(max(nsge, 1)), C.size_t(unsafe.Sizeof(C.struct_ibv_sge{}))))
	defer C.free(unsafe.Pointer(cw))
	defer C.free(unsafe.Pointer(cs))
	ws := unsafe.Slice(cw, len(wrs))
	ss := unsafe.Slice(cs, max(nsge, 1))
	peerQPN, peerRecvCQ := uint32(0), -1
	if q.peer != nil {
		peerQPN, peerRecvCQ = q.peer.num, q.peer.rcq.id
	}
	ids := make([]uint64, len(wrs))
	k := 0
	for i, w := range wrs {
		bytes := 0
		sg := &ss[k]
		raddr, sges := p.fault.spoil(w, w.RemoteAddr, w.SGList)
		for _, s := range sges {
			ss[k] = C.struct_ibv_sge{addr: C.uint64_t(s.Addr), length: C.uint32_t(s.Length), lkey: C.uint32_t(q.pd.lkeyFor(s))}
			bytes += int(s.Length)
			k++
		}
		opc, _ := wrOpcodeToC(w.Opcode)
		signaled := w.Signaled || q.sigAll
		o := verbs.Op{Node: q.pd.d.node, QPNum: q.num, PeerNode: q.peerNode, PeerQPNum: peerQPN, Opcode: w.Opcode,
			WRID: w.WRID, Signaled: signaled, Bytes: bytes, RemoteAddr: w.RemoteAddr, RKey: w.RKey,
			ImmData: w.ImmData, InvalidateRKey: w.InvalidateRKey, PathMTU: 0}
		if w.Opcode == verbs.WRLocalInv {
			o.PeerNode, o.PeerQPNum = "", 0
		}
		ids[i] = p.t.post(o, q.scq.id, peerRecvCQ)
		var next *C.struct_ibv_send_wr
		if i+1 < len(wrs) {
			next = &ws[i+1]
		}
		var sgp *C.struct_ibv_sge
		if len(w.SGList) > 0 {
			sgp = sg
		}
		sig := C.int(0)
		if w.Signaled {
			sig = 1
		}
		C.rl_fill_send(&ws[i], C.uint64_t(ids[i]), C.uint32_t(opc), sig, sgp, C.int(len(w.SGList)),
			C.uint64_t(raddr), C.uint32_t(w.RKey), C.uint32_t(w.ImmData), C.uint32_t(w.InvalidateRKey), next)
	}
	var bad *C.struct_ibv_send_wr
	if rc := C.rl_post_send(q.qp, &ws[0], &bad); rc != 0 {
		i := 0
		if bad != nil {
			i = int((uintptr(unsafe.Pointer(bad)) - uintptr(unsafe.Pointer(cw))) / unsafe.Sizeof(ws[0]))
		}
		if i < 0 || i >= len(wrs) {
			i = 0
		}
		p.t.unpost(ids[i])
		return wrs[i], fmt.Errorf("ibv: post send on qp %d: %w", q.num, rcErr(rc))
	}
	return nil, nil
}

func (q *qp) PostRecv(first *verbs.RecvWR) (*verbs.RecvWR, error) {
	p := q.pd.d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	var wrs []*verbs.RecvWR
	nsge := 0
	for w := first; w != nil; w = w.Next {
		wrs = append(wrs, w)
		nsge += len(w.SGList)
	}
	if len(wrs) == 0 {
		return nil, nil
	}
	cw := (*C.struct_ibv_recv_wr)(C.calloc(C.size_t(len(wrs)), C.size_t(unsafe.Sizeof(C.struct_ibv_recv_wr{}))))
	cs := (*C.struct_ibv_sge)(C.calloc(C.size_t(max(nsge, 1)), C.size_t(unsafe.Sizeof(C.struct_ibv_sge{}))))
	defer C.free(unsafe.Pointer(cw))
	defer C.free(unsafe.Pointer(cs))
	ws := unsafe.Slice(cw, len(wrs))
	ss := unsafe.Slice(cs, max(nsge, 1))
	ids := make([]uint64, len(wrs))
	k := 0
	for i, w := range wrs {
		ids[i] = p.t.postRecv(q.pd.d.node, q.num, w.WRID, q.rcq.id)
		ws[i].wr_id = C.uint64_t(ids[i])
		ws[i].num_sge = C.int(len(w.SGList))
		if len(w.SGList) > 0 {
			ws[i].sg_list = &ss[k]
		}
		for _, s := range w.SGList {
			ss[k] = C.struct_ibv_sge{addr: C.uint64_t(s.Addr), length: C.uint32_t(s.Length), lkey: C.uint32_t(q.pd.lkeyFor(s))}
			k++
		}
		if i+1 < len(wrs) {
			ws[i].next = &ws[i+1]
		}
	}
	var bad *C.struct_ibv_recv_wr
	if rc := C.rl_post_recv(q.qp, &ws[0], &bad); rc != 0 {
		i := 0
		if bad != nil {
			i = int((uintptr(unsafe.Pointer(bad)) - uintptr(unsafe.Pointer(cw))) / unsafe.Sizeof(ws[0]))
		}
		if i < 0 || i >= len(wrs) {
			i = 0
		}
		for _, id := range ids[i:] {
			p.t.unpostRecv(id)
		}
		return wrs[i], fmt.Errorf("ibv: post recv on qp %d: %w", q.num, rcErr(rc))
	}
	return nil, nil
}

func (q *qp) Destroy() error {
	p := q.pd.d.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if rc := C.ibv_destroy_qp(q.qp); rc != 0 {
		return fmt.Errorf("ibv: destroy qp %d: %w", q.num, rcErr(rc))
	}
	delete(p.qps, qpKey{q.pd.d.dc.name, q.num})
	return nil
}

// cConstants are the header's values the pure-Go tables copy, for the
// test that holds them equal.
func cConstants() map[string]uint32 {
	return map[string]uint32{
		"SUCCESS": C.IBV_WC_SUCCESS, "LOC_LEN_ERR": C.IBV_WC_LOC_LEN_ERR, "LOC_QP_OP_ERR": C.IBV_WC_LOC_QP_OP_ERR,
		"LOC_EEC_OP_ERR": C.IBV_WC_LOC_EEC_OP_ERR, "LOC_PROT_ERR": C.IBV_WC_LOC_PROT_ERR, "WR_FLUSH_ERR": C.IBV_WC_WR_FLUSH_ERR,
		"MW_BIND_ERR": C.IBV_WC_MW_BIND_ERR, "BAD_RESP_ERR": C.IBV_WC_BAD_RESP_ERR, "LOC_ACCESS_ERR": C.IBV_WC_LOC_ACCESS_ERR,
		"REM_INV_REQ_ERR": C.IBV_WC_REM_INV_REQ_ERR, "REM_ACCESS_ERR": C.IBV_WC_REM_ACCESS_ERR, "REM_OP_ERR": C.IBV_WC_REM_OP_ERR,
		"RETRY_EXC_ERR": C.IBV_WC_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR": C.IBV_WC_RNR_RETRY_EXC_ERR,
		"LOC_RDD_VIOL_ERR": C.IBV_WC_LOC_RDD_VIOL_ERR, "REM_INV_RD_REQ_ERR": C.IBV_WC_REM_INV_RD_REQ_ERR,
		"REM_ABORT_ERR": C.IBV_WC_REM_ABORT_ERR, "INV_EECN_ERR": C.IBV_WC_INV_EECN_ERR, "INV_EEC_STATE_ERR": C.IBV_WC_INV_EEC_STATE_ERR,
		"FATAL_ERR": C.IBV_WC_FATAL_ERR, "RESP_TIMEOUT_ERR": C.IBV_WC_RESP_TIMEOUT_ERR, "GENERAL_ERR": C.IBV_WC_GENERAL_ERR,
		"TM_ERR": C.IBV_WC_TM_ERR, "TM_RNDV_INCOMPLETE": C.IBV_WC_TM_RNDV_INCOMPLETE,
		"WR_RDMA_WRITE": C.IBV_WR_RDMA_WRITE, "WR_RDMA_WRITE_WITH_IMM": C.IBV_WR_RDMA_WRITE_WITH_IMM, "WR_SEND": C.IBV_WR_SEND,
		"WR_SEND_WITH_IMM": C.IBV_WR_SEND_WITH_IMM, "WR_RDMA_READ": C.IBV_WR_RDMA_READ, "WR_LOCAL_INV": C.IBV_WR_LOCAL_INV,
		"WR_SEND_WITH_INV": C.IBV_WR_SEND_WITH_INV,
		"WC_SEND":          C.IBV_WC_SEND, "WC_RDMA_WRITE": C.IBV_WC_RDMA_WRITE, "WC_RDMA_READ": C.IBV_WC_RDMA_READ,
		"WC_LOCAL_INV": C.IBV_WC_LOCAL_INV, "WC_RECV": C.IBV_WC_RECV, "WC_RECV_RDMA_WITH_IMM": C.IBV_WC_RECV_RDMA_WITH_IMM,
		"ACCESS_LOCAL_WRITE": C.IBV_ACCESS_LOCAL_WRITE, "ACCESS_REMOTE_WRITE": C.IBV_ACCESS_REMOTE_WRITE,
		"ACCESS_REMOTE_READ": C.IBV_ACCESS_REMOTE_READ, "ACCESS_REMOTE_ATOMIC": C.IBV_ACCESS_REMOTE_ATOMIC,
		"MTU_256": C.IBV_MTU_256, "MTU_4096": C.IBV_MTU_4096,
		"LINK_LAYER_UNSPECIFIED": C.IBV_LINK_LAYER_UNSPECIFIED, "LINK_LAYER_INFINIBAND": C.IBV_LINK_LAYER_INFINIBAND,
		"LINK_LAYER_ETHERNET": C.IBV_LINK_LAYER_ETHERNET,
	}
}
