package svcrdma

import (
	"fmt"
	"time"

	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Config holds the transport settings a learner can see and change. Zero
// fields take the seed-era kernel's defaults, given beside each field.
type Config struct {
	MaxReqSize    int  // svcrdma_max_req_size: Receive buffer size = inline threshold (4096)
	MaxRequests   int  // svcrdma_max_requests: credits granted (64)
	MaxBCRequests int  // svcrdma_max_bc_requests (2)
	RecvBatch     int  // RPCRDMA_MAX_RECV_BATCH (7)
	MaxPayload    int  // sv_max_payload (1 MiB)
	SQDepth       int  // override sc_sq_depth (0: sized as svc_rdma_accept does)
	MaxSendSGEs   int  // override sc_max_send_sges (0: sized as svc_rdma_accept does)
	ForceMR       bool // rdma_rw's force_mr module parameter
	SndWInv       bool // the client asked for Remote Invalidation
	Positions     bool // the reply-position patch is applied
	NoPostLock    bool // teaching mode: the patch without sc_post_lock, so positions can be posted out of order
}

func (c Config) withDefaults() Config {
	if c.MaxReqSize == 0 {
		c.MaxReqSize = 4096
	}
	if c.MaxRequests == 0 {
		c.MaxRequests = 64
	}
	if c.MaxBCRequests == 0 {
		c.MaxBCRequests = 2
	}
	if c.RecvBatch == 0 {
		c.RecvBatch = 7
	}
	if c.MaxPayload == 0 {
		c.MaxPayload = 1 << 20
	}
	return c
}

// RWCtxt is struct svc_rdma_rw_ctxt: the state of one chain of RDMA Reads
// or Writes. A chain covers one contiguous buffer on the server, since
// every scatterlist entry after the first must start on a page boundary
// and an xdr_buf's kvecs need not; and it carries one R_key, so it moves at
// most one of the client's segments, each of which may have its own. The
// inline scatterlist makes a ctxt larger than a page, so ctxts are made
// when first needed and then kept in the transport's cache for reuse until
// the transport goes.
type RWCtxt struct {
	ID            int
	RW            RWCtx
	NEnts         int   // rw_nents
	FirstSGLNents int   // rw_first_sgl_nents = dev max_send_sge
	SGL           []SGE // the table asked for (len = sges)
	Chained       bool  // the table went past the inline array
	Where         string
	Reused        bool // its last get popped the cache (llist_del_first), not kmalloc_node
	// sglMem is the table's memory, kept across uses as the kernel keeps
	// the inline array and reuses its chunk pool.
	sglMem []SGE
}

// ChunkCtxt is struct svc_rdma_chunk_ctxt.
type ChunkCtxt struct {
	CID      int
	CQE      CQE
	RWCtxts  []*RWCtxt // cc_rwctxts, front = built last
	SQECount int
	PostTime time.Duration
	Owner    string
}

// WriteInfo is struct svc_rdma_write_info.
type WriteInfo struct {
	Chunk   *Chunk
	SegOff  int
	SegNo   int
	Xdr     *XdrBuf
	Base    Kvec // wi_base: the kvec cursor
	NextOff int
	CC      ChunkCtxt
}

// RecvCtxt is struct svc_rdma_recv_ctxt.
type RecvCtxt struct {
	ID        int
	Buf       *Page // rc_recv_buf
	ByteLen   int
	MsgType   uint32
	XID       uint32
	Vers      uint32
	InvRKey   uint32
	PageOff   int
	CurPage   int
	ReadBytes int
	PageCount int
	Pages     []*Page
	SavedArg  XdrBuf
	HdrLen    int
	CC        ChunkCtxt
	CallPCL   PCL
	ReadPCL   PCL
	WritePCL  PCL
	ReplyPCL  PCL
	CurResult int // rc_cur_result_payload: index in WritePCL
	wrID      uint64
}

// SendCtxt is struct svc_rdma_send_ctxt.
type SendCtxt struct {
	ID         int
	SendWR     WR
	WRChain    *WR
	SQECount   int
	Hdr        *Page // sc_xprt_buf, MaxReqSize bytes
	HdrLen     int
	ReplyInfo  WriteInfo
	WriteInfos []*WriteInfo // new2026: Write chunks chained to this Send
	Pages      []*Page
	Pos        uint64
	XID        uint32
	Kind       string // "reply", "RDMA_ERROR", "backchannel"
	cqe        CQE    // sc_cqe, set up once when the ctxt is made
}

// Rqst is the part of struct svc_rqst the transport uses: one per nfsd thread.
type Rqst struct {
	Name        string
	T           *sched.Task
	Pages       []*Page // rq_pages[rq_maxpages]
	Arg         XdrBuf
	Res         XdrBuf
	RespagesIdx int
	NextPageIdx int
	ReplyPos    uint64 // rq_reply_pos (the patch)
	// DropReason is why the service dropped the call it processed last
	// (model only: the kernel just returns SVC_DROP).
	DropReason string
	Ctxt       *RecvCtxt
	XID        uint32
	// Decoding is the recv ctxt of the call this thread took last (model
	// only: the kernel keeps it on the stack), for views.
	Decoding *RecvCtxt
}

// Counters are the svcrdma statistics (the kernel's svcrdma_stat_* and
// what the model adds). A snapshot carries them as snap.Counters, which
// has the same fields.
type Counters struct {
	Reads      int // svcrdma_stat_read: Read segments built
	Writes     int // svcrdma_stat_write: Write pieces built
	SQStarve   int // svcrdma_stat_sq_starve
	RecvErrors int // calls dropped or answered with RDMA_ERROR
	SendErrors int // failed ib_post_send of a Send
	Faults     int // places the kernel would have crashed
	Hung       int // threads that sleep forever
}

// Xprt is struct svcxprt_rdma with the svc_xprt bits the model uses.
type Xprt struct {
	// ibPostSend's scratch: the chain as the provider is given it.
	postModel []*WR
	postWRs   []verbs.SendWR
	postSGEs  []verbs.SGE

	Cfg      Config
	Beh      Behaviour
	Dev      verbs.DeviceAttr
	PageSize int

	pd     verbs.PD
	qp     verbs.QP
	SendCQ verbs.CQ
	RecvCQ verbs.CQ
	lkey   uint32

	SQDepth       int
	SQAvail       int
	MaxSendSGEs   int
	QPMaxWriteSGE int
	QPMaxReadSGE  int
	RQDepth       int
	Ctxts         int // max_rdma_ctxs
	FCCredits     int // sc_max_requests: the credits granted and the Receives kept posted
	MaxPages      int // rq_maxpages

	sendWait     int // tasks waiting on sc_send_wait (for drawing)
	recent       Recent
	RWCache      []*RWCtxt
	rwCreated    int
	rwAll        []*RWCtxt
	reads        []*RecvCtxt
	rwFreed      int
	SendCache    []*SendCtxt
	sendCreated  int
	sends        []*SendCtxt
	ReadComplete []*RecvCtxt
	recvQ        []*RecvCtxt
	recvFree     []*RecvCtxt
	recvPosted   int
	recvCreated  int
	mrPool       []*MRState
	mrCount      int

	Close, Data, Dead bool
	busy              bool
	XptID             uint64

	// The patch.
	PostLock sched.Mutex
	PostSeq  uint64
	AckedPos uint64

	Counters Counters
	// Drops are the latest calls svc_process dropped: no reply will come.
	Drops  []Drop
	Inject Inject

	nextPage  int
	freePages []*Page
	livePage  int
	nextCID   int
	nextWRID  uint64
	inflight  map[uint64]*WR
	recvByID  map[uint64]*RecvCtxt
	posted    []*Chain // chains on the SQ, in posting order
	now       func() time.Duration
}

// Chain is one ib_post_send's worth of WRs, kept for drawing and for the
// invariants.
type Chain struct {
	First    *WR
	SQECount int
	Owner    string
	Seq      uint64 // the Send's position, when it carries one
	Task     string
}

// NewXprt creates the transport on pd as svc_rdma_accept sizes it and
// creates its QP. Connect it with Connect.
func NewXprt(dev verbs.Device, pd verbs.PD, cfg Config, beh Behaviour, xptID uint64, now func() time.Duration) (*Xprt, error) {
	cfg = cfg.withDefaults()
	attr := dev.Attr()
	x := &Xprt{Cfg: cfg, Beh: beh, Dev: attr, PageSize: attr.PageSize, pd: pd, lkey: pd.LocalDMALKey(),
		XptID: xptID, inflight: map[uint64]*WR{}, recvByID: map[uint64]*RecvCtxt{}, now: now}
	x.PostLock.Name = "sc_post_lock"
	if x.PageSize == 0 {
		x.PageSize = 4096
	}
	x.sizeQueues()

	var err error
	if x.SendCQ, err = dev.CreateCQ(x.SQDepth); err != nil {
		return nil, fmt.Errorf("svcrdma: create send CQ: %w", err)
	}
	if x.RecvCQ, err = dev.CreateCQ(x.RQDepth); err != nil {
		return nil, fmt.Errorf("svcrdma: create receive CQ: %w", err)
	}
	return x, nil
}

// sizeQueues is the sizing part of svc_rdma_accept: the Receive Queue
// holds the credits, the backchannel, a batch and one for drain; each
// request may need one Read chunk and a Write or Reply chunk, each of
// rdma_rw_mr_factor rw ctxts, and the SQ has room for them all (the seed
// forgets the REG_MR and LOCAL_INV WQEs of an MR: B9).
func (x *Xprt) sizeQueues() {
	c := x.Cfg
	x.MaxSendSGEs = min(3+c.MaxReqSize/x.PageSize+1, x.Dev.MaxSendSGE)
	if c.MaxSendSGEs > 0 {
		x.MaxSendSGEs = c.MaxSendSGEs
	}
	maxRequests, bc, batch := c.MaxRequests, c.MaxBCRequests, c.RecvBatch
	x.RQDepth = maxRequests + bc + batch + 1
	if x.Dev.MaxQPWR > 0 && x.RQDepth > x.Dev.MaxQPWR {
		x.RQDepth = x.Dev.MaxQPWR
		maxRequests = x.RQDepth - 2
	}
	x.FCCredits = maxRequests
	pages := c.MaxPayload / x.PageSize
	m := x.Dev.MaxSGERd
	useMR := canUseMR(x.Dev, c.ForceMR)
	if useMR {
		m = pagesPerMR(x.Dev)
	}
	m = max(m, 1)
	factor := (pages + m - 1) / m
	x.Ctxts = maxRequests * 3 * factor
	mrFactor := 1
	if useMR {
		mrFactor = 3
	}
	if x.Beh.Has(B9) {
		x.SQDepth = x.RQDepth + x.Ctxts
	} else {
		x.SQDepth = x.RQDepth + mrFactor*x.Ctxts
	}
	if x.Dev.MaxQPWR > 0 && x.SQDepth > x.Dev.MaxQPWR {
		x.SQDepth = x.Dev.MaxQPWR
	}
	if c.SQDepth > 0 {
		x.SQDepth = c.SQDepth
	}
	x.SQAvail = x.SQDepth
	x.MaxPages = (c.MaxPayload+x.PageSize)/x.PageSize + 3
}

// CreateQP creates the RC QP and the MR pool, and posts the Receives.
func (x *Xprt) CreateQP() error {
	wantSend := x.SQDepth
	if canUseMR(x.Dev, x.Cfg.ForceMR) {
		wantSend = x.SQDepth + 2*x.Ctxts
	}
	if x.Dev.MaxQPWR > 0 {
		wantSend = min(wantSend, x.Dev.MaxQPWR)
	}
	qp, err := x.pd.CreateQP(verbs.QPInitAttr{
		SendCQ: x.SendCQ, RecvCQ: x.RecvCQ,
		Cap: verbs.QPCap{MaxSendWR: wantSend, MaxRecvWR: x.RQDepth, MaxSendSGE: x.MaxSendSGEs, MaxRecvSGE: 1},
	})
	if err != nil {
		return fmt.Errorf("svcrdma: create QP: %w", err)
	}
	x.qp = qp
	// The provider may grant more SGEs than asked: svcrdma and the rw core
	// both go by what it returned ("svcrdma: Update max_send_sges after QP
	// is created", 2024; verbs.c sets max_write_sge/max_read_sge from it).
	granted := qp.Cap().MaxSendSGE
	x.MaxSendSGEs = granted
	x.QPMaxWriteSGE = granted
	x.QPMaxReadSGE = min(granted, x.Dev.MaxSGERd)
	if canUseMR(x.Dev, x.Cfg.ForceMR) {
		n := min(x.Ctxts, 64) // the model keeps the pool small enough to draw
		for i := 0; i < n; i++ {
			mr, err := x.pd.AllocMR(pagesPerMR(x.Dev))
			if err != nil {
				return fmt.Errorf("svcrdma: allocate MR pool: %w", err)
			}
			x.mrPool = append(x.mrPool, &MRState{ID: i + 1, Key: mr.LKey(), mr: mr})
		}
		x.mrCount = n
	}
	return nil
}

// QP is the transport's queue pair.
func (x *Xprt) QP() verbs.QP { return x.qp }

// Connect moves the QP to RTS towards the client's QP.
func (x *Xprt) Connect(remoteNode string, remoteQPN uint32, mtu int) error {
	for _, a := range []verbs.QPAttr{
		{State: verbs.QPSInit},
		{State: verbs.QPSRTR, DestQPNum: remoteQPN, RemoteNode: remoteNode, PathMTU: mtu},
		{State: verbs.QPSRTS, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 16},
	} {
		if err := x.qp.Modify(a); err != nil {
			return fmt.Errorf("svcrdma: QP to %v: %w", a.State, err)
		}
	}
	// svc_rdma_post_recvs posts sc_max_requests, which sizeQueues lowers
	// when max_qp_wr cannot hold svcrdma_max_requests.
	for i := 0; i < x.FCCredits; i++ {
		if err := x.postRecv(); err != nil {
			return err
		}
	}
	return nil
}

// allocPage is alloc_page plus the DMA mapping the model keeps for its life.
// Freed pages are kept on a free list, as the page allocator does, so a
// long session does not churn memory; a reused page keeps its old bytes
// (stale data is part of what lessons show) but gets a new number.
func (x *Xprt) allocPage() *Page {
	x.nextPage++
	x.livePage++
	if n := len(x.freePages); n > 0 {
		p := x.freePages[n-1]
		x.freePages = x.freePages[:n-1]
		p.ID, p.Extents = x.nextPage, p.Extents[:0]
		return p
	}
	p := &Page{ID: x.nextPage, Data: make([]byte, x.PageSize)}
	addr, err := x.pd.DMAMap(p.Data)
	if err == nil {
		p.DMA = addr
	}
	return p
}

// putPage is put_page: the page goes back to the free list, still mapped.
func (x *Xprt) putPage(p *Page) {
	if p == nil || p.region != nil {
		return // a lent page stays the service's
	}
	x.livePage--
	if len(x.freePages) < 4*x.MaxPages {
		x.freePages = append(x.freePages, p)
		return
	}
	_ = x.pd.DMAUnmap(p.DMA)
}

// LivePages counts pages allocated and not yet released.
func (x *Xprt) LivePages() int { return x.livePage }

// newCID is svc_rdma_send_cid_init.
func (x *Xprt) newCID() int {
	x.nextCID++
	return x.nextCID
}

// postRecv is svc_rdma_post_recv for one Receive.
func (x *Xprt) postRecv() error {
	var rc *RecvCtxt
	if n := len(x.recvFree); n > 0 {
		rc = x.recvFree[n-1]
		x.recvFree = x.recvFree[:n-1]
	} else {
		x.recvCreated++
		rc = &RecvCtxt{ID: x.recvCreated}
		rc.Buf = &Page{ID: -x.recvCreated, Label: fmt.Sprintf("rcv%d", x.recvCreated), Data: make([]byte, x.Cfg.MaxReqSize)}
		addr, err := x.pd.DMAMap(rc.Buf.Data)
		if err != nil {
			return fmt.Errorf("svcrdma: map receive buffer: %w", err)
		}
		rc.Buf.DMA = addr
	}
	x.nextWRID++
	rc.wrID = x.nextWRID
	wr := &verbs.RecvWR{WRID: rc.wrID, SGList: []verbs.SGE{{Addr: rc.Buf.DMA, Length: uint32(len(rc.Buf.Data)), LKey: x.lkey}}}
	if _, err := x.qp.PostRecv(wr); err != nil {
		return fmt.Errorf("svcrdma: post receive: %w", err)
	}
	x.recvByID[rc.wrID] = rc
	x.recvPosted++
	return nil
}

// Drop is a call the service dropped, by its transport XID.
type Drop struct {
	XID    uint32
	Reason string
}

// keepDrops bounds the drops remembered: the latest are what a view asks.
const keepDrops = 64

// noteDrop records that the service dropped rq's call.
func (x *Xprt) noteDrop(rq *Rqst) {
	if len(x.Drops) == keepDrops {
		x.Drops = append(x.Drops[:0], x.Drops[1:]...)
	}
	x.Drops = append(x.Drops, Drop{XID: rq.XID, Reason: rq.DropReason})
}

// DropOf returns why the call with transport XID xid was dropped, if it was.
func (x *Xprt) DropOf(xid uint32) (string, bool) {
	for i := len(x.Drops) - 1; i >= 0; i-- {
		if x.Drops[i].XID == xid {
			return x.Drops[i].Reason, true
		}
	}
	return "", false
}
