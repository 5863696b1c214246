package svcrdma

import (
	"fmt"
	"strconv"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// This file models the core R/W API (drivers/infiniband/core/rw.c, the
// scatterlist era of the seed) that svcrdma builds its chains with: how
// many WQEs a transfer takes and what the WRs look like.

// Dir is enum dma_data_direction as rdma_rw uses it.
type Dir uint8

// DMA directions.
const (
	ToDevice   Dir = iota // RDMA Write: the device reads our memory
	FromDevice            // RDMA Read: the device writes our memory
)

var dirNames = [...]string{ToDevice: "DMA_TO_DEVICE", FromDevice: "DMA_FROM_DEVICE"}

// String returns the kernel's name of d ("DMA_FROM_DEVICE"), or Dir(N) for
// a value without one.
func (d Dir) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return fmt.Sprintf("Dir(%d)", uint8(d))
}

// RWType is the kind of rdma_rw_ctx that rdma_rw_ctx_init chose.
type RWType uint8

// rdma_rw_ctx types.
const (
	RWSingleWR RWType = iota + 1
	RWMultiWR
	RWMR
)

var rwTypeNames = [...]string{0: "NONE", RWSingleWR: "SINGLE_WR", RWMultiWR: "MULTI_WR", RWMR: "MR"}

// String returns the kernel's name of t without its RDMA_RW_ prefix
// ("MULTI_WR"; "NONE" before rdma_rw_ctx_init chose), or RWType(N) for a
// value without one.
func (t RWType) String() string {
	if int(t) < len(rwTypeNames) {
		return rwTypeNames[t]
	}
	return fmt.Sprintf("RWType(%d)", uint8(t))
}

// MRState is one fast-registration MR of the QP's pool (ib_mr).
type MRState struct {
	ID        int
	Key       uint32 // lkey == rkey; the low 8 bits bump at each use
	NeedInval bool
	mr        verbs.MR
}

// IOVA is where the MR's registered range starts on the device: what the
// SGE of an RDMA op through it names.
func (m *MRState) IOVA() uint64 {
	if m.mr == nil {
		return 0
	}
	return m.mr.Addr()
}

// rwReg is struct rdma_rw_reg_ctx: one MR-based operation.
type rwReg struct {
	mr  *MRState
	inv *WR // LOCAL_INV, when the MR needed invalidation
	reg *WR
	op  *WR
}

// RWCtx is struct rdma_rw_ctx.
type RWCtx struct {
	Type  RWType
	NrOps int
	WRs   []*WR // every WR of the context in chain order
	regs  []rwReg
}

// ioNeedsMR is rdma_rw_io_needs_mr.
func (x *Xprt) ioNeedsMR(dir Dir, n int) bool {
	if dir == FromDevice {
		if x.Dev.IWARP {
			return true
		}
		if x.Dev.MaxSGLRd != 0 && n > x.Dev.MaxSGLRd {
			return true
		}
	}
	return x.Cfg.ForceMR
}

// canUseMR is rdma_rw_can_use_mr.
func canUseMR(dev verbs.DeviceAttr, forceMR bool) bool {
	return dev.IWARP || dev.MaxSGLRd != 0 || forceMR
}

// pagesPerMR is rdma_rw_fr_page_list_len.
func pagesPerMR(dev verbs.DeviceAttr) int { return min(dev.MaxFastRegPageListLen, 256) }

// rdmaRWCtxInit is rdma_rw_ctx_init: map the SGL and build the WRs of one
// transfer; it returns the number of WQEs they need.
func (x *Xprt) rdmaRWCtxInit(t *sched.Task, ctx *RWCtx, sgl []SGE, remote uint64, rkey uint32, dir Dir) (wqes int, err error) {
	ret := t.CallV(kernel.RdmaRwCtxInit, "sg_cnt", len(sgl), "remote_addr", hex(remote), "rkey", hex32(rkey), "dir", dir)
	defer func() {
		if err != nil {
			ret(err)
		} else {
			ret(wqes)
		}
	}()
	*ctx = RWCtx{}
	// The sg_offset walk skips entries it thinks are consumed; with offset 0
	// that is every leading zero-length entry (0 < 0 is false), so a list
	// of zero-length entries leaves nothing to map.
	i := 0
	for i < len(sgl) && sgl[i].Len == 0 {
		i++
	}
	if i == len(sgl) {
		t.Pointf(kernel.WarnOnOnce, "no SGL entry left after the sg_offset walk (a zero-length entry)")
		return 0, errIO
	}
	sgl = sgl[i:]
	n := len(sgl)
	if x.ioNeedsMR(dir, n) {
		wqes, err = x.rdmaRWInitMRWRs(t, ctx, sgl, remote, rkey, dir)
		if err == nil || err != errAgain || x.Beh.Has(B10) || x.Dev.IWARP || x.Cfg.ForceMR {
			return wqes, err
		}
		t.Pointf(kernel.RdmaRwCtxInit, "MR pool empty: falling back to direct SGEs (the B10 fix)")
		*ctx = RWCtx{}
	}
	if n > 1 {
		return x.rdmaRWInitMapWRs(t, ctx, sgl, remote, rkey, dir), nil
	}
	return x.rdmaRWInitSingleWR(t, ctx, sgl[0], remote, rkey, dir), nil
}

func rwOpcode(dir Dir) verbs.WROpcode {
	if dir == ToDevice {
		return verbs.WRRDMAWrite
	}
	return verbs.WRRDMARead
}

// rdmaRWInitSingleWR is rdma_rw_init_single_wr.
func (x *Xprt) rdmaRWInitSingleWR(t *sched.Task, ctx *RWCtx, sge SGE, remote uint64, rkey uint32, dir Dir) int {
	w := &WR{Op: rwOpcode(dir), SGL: []SGE{sge}, RemoteAddr: remote, RKey: rkey}
	ctx.Type, ctx.NrOps, ctx.WRs = RWSingleWR, 1, []*WR{w}
	t.Point(kernel.RdmaRwInitSingleWr, "wr", w)
	return 1
}

// rdmaRWInitMapWRs is rdma_rw_init_map_wrs: ceil(n / max_sge) WRs.
func (x *Xprt) rdmaRWInitMapWRs(t *sched.Task, ctx *RWCtx, sgl []SGE, remote uint64, rkey uint32, dir Dir) int {
	maxSGE := x.QPMaxWriteSGE
	if dir == FromDevice {
		maxSGE = x.QPMaxReadSGE
	}
	maxSGE = max(maxSGE, 1)
	ctx.Type = RWMultiWR
	ctx.NrOps = (len(sgl) + maxSGE - 1) / maxSGE
	// One array of WRs, as the kernel's kcalloc(nr_ops) of ctx->map.wrs.
	wrs := make([]WR, ctx.NrOps)
	ctx.WRs = make([]*WR, 0, ctx.NrOps)
	for i := 0; i < len(sgl); i += maxSGE {
		part := sgl[i:min(i+maxSGE, len(sgl))]
		w := &wrs[len(ctx.WRs)]
		*w = WR{Op: rwOpcode(dir), SGL: part, RemoteAddr: remote, RKey: rkey}
		for _, s := range part {
			remote += uint64(s.Len)
		}
		if len(ctx.WRs) > 0 {
			ctx.WRs[len(ctx.WRs)-1].Next = w
		}
		ctx.WRs = append(ctx.WRs, w)
	}
	t.Point(kernel.RdmaRwInitMapWrs, "nr_ops", ctx.NrOps, "max_sge", maxSGE)
	return ctx.NrOps
}

// rdmaRWInitMRWRs is rdma_rw_init_mr_wrs: one REG_MR (plus a LOCAL_INV when
// the MR was used before) and one RDMA op per pages_per_mr entries.
func (x *Xprt) rdmaRWInitMRWRs(t *sched.Task, ctx *RWCtx, sgl []SGE, remote uint64, rkey uint32, dir Dir) (int, error) {
	ppm := max(pagesPerMR(x.Dev), 1)
	nrOps := (len(sgl) + ppm - 1) / ppm
	count := 0
	var prev *WR
	for i := 0; i < len(sgl); i += ppm {
		group := sgl[i:min(i+ppm, len(sgl))]
		if len(x.mrPool) == 0 {
			x.putRegsBack(ctx)
			t.Pointf(kernel.IbMrPoolGet, "MR pool empty")
			return 0, errAgain
		}
		var mr *MRState
		mr, x.mrPool = popFront(x.mrPool)
		// ib_map_mr_sg: entries after the first must start page aligned and
		// entries before the last must end on a page boundary.
		for j, s := range group {
			if (j > 0 && s.Off != 0) || (j < len(group)-1 && s.Off+s.Len != x.PageSize) {
				x.mrPut(mr)
				x.putRegsBack(ctx)
				t.Pointf(kernel.IbMapMrSg, "entry %d of %d is not page aligned: mapped fewer than asked", j, len(group))
				return 0, errInval
			}
		}
		r := rwReg{mr: mr}
		if mr.NeedInval {
			r.inv = &WR{Op: verbs.WRLocalInv, InvRKey: mr.Key, MR: mr}
			count++
		}
		access := verbs.AccessLocalWrite
		if x.Dev.IWARP {
			access |= verbs.AccessRemoteWrite
		}
		r.reg = &WR{Op: verbs.WRRegMR, MR: mr, SGL: group, Access: access}
		bytes := 0
		for _, s := range group {
			bytes += s.Len
		}
		op := rwOpcode(dir)
		if dir == FromDevice && x.Dev.IWARP {
			op = verbs.WRRDMAReadWithInv
		}
		r.op = &WR{Op: op, SGL: []SGE{{Page: nil, Off: 0, Len: bytes}}, RemoteAddr: remote, RKey: rkey, MR: mr}
		remote += uint64(bytes)
		count += 2
		if prev != nil {
			if r.inv != nil {
				prev.Next = r.inv
			} else {
				prev.Next = r.reg
			}
		}
		if r.inv != nil {
			r.inv.Next = r.reg
			ctx.WRs = append(ctx.WRs, r.inv)
		}
		r.reg.Next = r.op
		ctx.WRs = append(ctx.WRs, r.reg, r.op)
		prev = r.op
		ctx.regs = append(ctx.regs, r)
		t.Point(kernel.RdmaRwInitOneMr, "mr", mr.ID, "entries", len(group), "bytes", bytes, "local_inv", r.inv != nil)
	}
	ctx.Type, ctx.NrOps = RWMR, nrOps
	return count, nil
}

// rdmaRWCtxWrs is rdma_rw_ctx_wrs: link the context's WRs in front of
// chain; with no chain its last WR carries the cqe and is signaled.
func (x *Xprt) rdmaRWCtxWrs(ctx *RWCtx, cqe *CQE, chain *WR) *WR {
	if len(ctx.WRs) == 0 {
		return chain
	}
	for i := range ctx.regs {
		r := &ctx.regs[i]
		// rdma_rw_update_lkey: the key bumps and the MR now needs an
		// invalidation unless the READ_WITH_INV does it remotely.
		r.mr.NeedInval = r.op.Op != verbs.WRRDMAReadWithInv
		r.mr.Key = (r.mr.Key &^ 0xff) | ((r.mr.Key + 1) & 0xff)
		r.reg.RegKey = r.mr.Key
	}
	last := ctx.WRs[len(ctx.WRs)-1]
	if chain != nil {
		last.Next = chain
		last.Signaled, last.CQE = false, nil
	} else {
		last.Next = nil
		last.Signaled, last.CQE = true, cqe
	}
	return ctx.WRs[0]
}

// rdmaRWCtxDestroy is rdma_rw_ctx_destroy: each op's MR goes back to the
// pool head, in op order.
func (x *Xprt) rdmaRWCtxDestroy(ctx *RWCtx) {
	for _, r := range ctx.regs {
		x.mrPut(r.mr)
	}
	*ctx = RWCtx{}
}

// putRegsBack undoes a partly built MR context, last op first, as
// rdma_rw_init_mr_wrs's error path does.
func (x *Xprt) putRegsBack(ctx *RWCtx) {
	for i := len(ctx.regs) - 1; i >= 0; i-- {
		x.mrPut(ctx.regs[i].mr)
	}
	*ctx = RWCtx{}
}

// mrPut is ib_mr_pool_put: push on the head (LIFO).
func (x *Xprt) mrPut(mr *MRState) {
	x.mrPool = pushFront(x.mrPool, mr)
}

// hexArg is a key or an address as an event argument, shown as the
// kernel's tracepoints print it ("0x1f000"); it is formatted only when
// the event's arguments are (not with the scheduler's Quiet).
type hexArg uint64

func (h hexArg) String() string {
	var b [18]byte
	return string(h.AppendArg(b[:0]))
}

// AppendArg appends String() to b (trace.Appender).
func (h hexArg) AppendArg(b []byte) []byte {
	return strconv.AppendUint(append(b, "0x"...), uint64(h), 16)
}

func hex(v uint64) hexArg { return hexArg(v) }

func hex32(v uint32) hexArg { return hexArg(v) }
