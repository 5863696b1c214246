// Package verbs is the provider interface of the rdmalab engine, written in
// libibverbs' own vocabulary so that a learner can hold the verbs man pages
// beside it: a Device has attributes, a protection domain (PD) owns memory
// regions (MR) and queue pairs (QP), a QP posts chains of work requests
// (SendWR, RecvWR) whose completions (WC) are polled from a completion
// queue (CQ).
//
// engine/sim implements it: a deterministic pure-Go model of Soft-RoCE
// (rxe) that moves real bytes. engine/ibv implements it over libibverbs
// (cgo, build tag ibv) for a real device, rxe or an HCA; keeping to
// libibverbs' vocabulary is what lets the same model drive both. Each
// also implements Provider (provider.go), the pair of nodes the engine
// runs on, with the pending operation (Op) both hand back; what only one
// of them can do is an optional capability beside it.
//
// A few kernel-verbs operations that svcrdma uses and user space lacks are
// included with the kernel's names: the local DMA lkey of a PD, DMA mapping
// of buffers, and the REG_MR / LOCAL_INV / RDMA_READ_WITH_INV opcodes of the
// rdma_rw MR path.
package verbs

import "fmt"

// DeviceAttr is ibv_device_attr (and the kernel's ib_device_attr) reduced to
// what the engine uses. Field comments name the C field.
type DeviceAttr struct {
	Name                  string
	PageSize              int  // PAGE_SIZE of the host
	MaxQPWR               int  // max_qp_wr: Send/Receive Queue depth limit
	MaxSendSGE            int  // max_send_sge (max_sge in older libibverbs)
	MaxRecvSGE            int  // max_recv_sge
	MaxSGERd              int  // max_sge_rd: SGEs an RDMA READ may scatter into
	MaxSGLRd              int  // max_sgl_rd: 0 unless the device prefers MRs for long READs
	MaxCQE                int  // max_cqe
	MaxMR                 int  // max_mr
	MaxFastRegPageListLen int  // max_fast_reg_page_list_len
	MaxQPInitRdAtom       int  // max_qp_init_rd_atom: outstanding RDMA READs we may issue
	MaxQPRdAtom           int  // max_qp_rd_atom: outstanding RDMA READs we may serve
	IWARP                 bool // iWARP transport: READ sinks must be registered (MR path)
}

// Access is ibv_access_flags.
type Access uint32

// Access flags, as IBV_ACCESS_*.
const (
	AccessLocalWrite   Access = 1 << 0
	AccessRemoteWrite  Access = 1 << 1
	AccessRemoteRead   Access = 1 << 2
	AccessRemoteAtomic Access = 1 << 3
)

var accessNames = [...]string{"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}

// String returns the names of the flags set in a, joined by "|"
// ("LOCAL_WRITE|REMOTE_READ"), or "0" for none.
func (a Access) String() string {
	if a == 0 {
		return "0"
	}
	s := ""
	for i, n := range accessNames {
		if a&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	return s
}

// WROpcode is ibv_wr_opcode, plus the kernel-only opcodes of rdma_rw.
type WROpcode uint8

// Work request opcodes. The numeric values of the user-space ones are
// libibverbs' IBV_WR_* values.
const (
	WRRDMAWrite        WROpcode = 0
	WRRDMAWriteWithImm WROpcode = 1
	WRSend             WROpcode = 2
	WRSendWithImm      WROpcode = 3
	WRRDMARead         WROpcode = 4
	WRLocalInv         WROpcode = 7
	WRSendWithInv      WROpcode = 9
	// Kernel-only (ib_wr_opcode): used by the rdma_rw MR path.
	WRRegMR           WROpcode = 0x20
	WRRDMAReadWithInv WROpcode = 0x21
)

var wrOpcodeNames = map[WROpcode]string{
	WRRDMAWrite: "RDMA_WRITE", WRRDMAWriteWithImm: "RDMA_WRITE_WITH_IMM",
	WRSend: "SEND", WRSendWithImm: "SEND_WITH_IMM", WRRDMARead: "RDMA_READ",
	WRLocalInv: "LOCAL_INV", WRSendWithInv: "SEND_WITH_INV",
	WRRegMR: "REG_MR", WRRDMAReadWithInv: "RDMA_READ_WITH_INV",
}

// String returns the libibverbs name of o without its IBV_WR_ prefix
// ("RDMA_READ"), or WR_OPCODE(N) for a value without one.
func (o WROpcode) String() string {
	if n, ok := wrOpcodeNames[o]; ok {
		return n
	}
	return fmt.Sprintf("WR_OPCODE(%d)", uint8(o))
}

// WCOpcode is ibv_wc_opcode.
type WCOpcode uint8

// Completion opcodes, with libibverbs' IBV_WC_* values.
const (
	WCSend          WCOpcode = 0
	WCRDMAWrite     WCOpcode = 1
	WCRDMARead      WCOpcode = 2
	WCLocalInv      WCOpcode = 6
	WCRegMR         WCOpcode = 7
	WCRecv          WCOpcode = 128
	WCRecvWithImm   WCOpcode = 129
	WCUnknownOpcode WCOpcode = 255
)

var wcOpcodeNames = map[WCOpcode]string{
	WCSend: "SEND", WCRDMAWrite: "RDMA_WRITE", WCRDMARead: "RDMA_READ",
	WCLocalInv: "LOCAL_INV", WCRegMR: "REG_MR", WCRecv: "RECV",
	WCRecvWithImm: "RECV_RDMA_WITH_IMM",
}

// String returns the libibverbs name of o without its IBV_WC_ prefix
// ("RECV"), or WC_OPCODE(N) for a value without one.
func (o WCOpcode) String() string {
	if n, ok := wcOpcodeNames[o]; ok {
		return n
	}
	return fmt.Sprintf("WC_OPCODE(%d)", uint8(o))
}

// WCOpcodeFor is the completion opcode a work request of opcode o reports.
func WCOpcodeFor(o WROpcode) WCOpcode {
	switch o {
	case WRSend, WRSendWithImm, WRSendWithInv:
		return WCSend
	case WRRDMAWrite, WRRDMAWriteWithImm:
		return WCRDMAWrite
	case WRRDMARead, WRRDMAReadWithInv:
		return WCRDMARead
	case WRLocalInv:
		return WCLocalInv
	case WRRegMR:
		return WCRegMR
	}
	return WCUnknownOpcode
}

// Status is ibv_wc_status; the values are libibverbs' IBV_WC_*.
type Status uint8

// Completion statuses.
const (
	StatusSuccess        Status = 0
	StatusLocLenErr      Status = 1
	StatusLocQPOpErr     Status = 2
	StatusLocProtErr     Status = 4
	StatusWRFlushErr     Status = 5
	StatusBadRespErr     Status = 7
	StatusLocAccessErr   Status = 8
	StatusRemInvReqErr   Status = 9
	StatusRemAccessErr   Status = 10
	StatusRemOpErr       Status = 11
	StatusRetryExcErr    Status = 12
	StatusRNRRetryExcErr Status = 13
	StatusRemAbortErr    Status = 16
	StatusFatalErr       Status = 19
	StatusRespTimeoutErr Status = 20
	StatusGeneralErr     Status = 21
)

type statusInfo struct{ name, meaning string }

var statusInfos = map[Status]statusInfo{
	StatusSuccess:        {"SUCCESS", "the work request completed"},
	StatusLocLenErr:      {"LOC_LEN_ERR", "a local length check failed: the message does not fit the posted receive or exceeds the port's limit"},
	StatusLocQPOpErr:     {"LOC_QP_OP_ERR", "the work request was malformed for this QP"},
	StatusLocProtErr:     {"LOC_PROT_ERR", "a local SGE names an lkey that does not cover its address range or lacks the access it needs"},
	StatusWRFlushErr:     {"WR_FLUSH_ERR", "the QP was in the error state: the work request was flushed without being executed"},
	StatusBadRespErr:     {"BAD_RESP_ERR", "the responder sent an unexpected transport-layer opcode"},
	StatusLocAccessErr:   {"LOC_ACCESS_ERR", "a protection error on a local buffer named in an incoming RDMA WRITE with immediate"},
	StatusRemInvReqErr:   {"REM_INV_REQ_ERR", "the responder found the request invalid (for example a message longer than its receive buffer)"},
	StatusRemAccessErr:   {"REM_ACCESS_ERR", "the responder rejected the rkey, the address range or the access rights of an RDMA operation"},
	StatusRemOpErr:       {"REM_OP_ERR", "the responder could not complete the operation"},
	StatusRetryExcErr:    {"RETRY_EXC_ERR", "the transport retry counter was exceeded: the peer did not acknowledge"},
	StatusRNRRetryExcErr: {"RNR_RETRY_EXC_ERR", "the peer had no receive posted (Receiver Not Ready) until the RNR retry count ran out"},
	StatusRemAbortErr:    {"REM_ABORT_ERR", "the responder aborted the operation"},
	StatusFatalErr:       {"FATAL_ERR", "a fatal device error"},
	StatusRespTimeoutErr: {"RESP_TIMEOUT_ERR", "the response timed out"},
	StatusGeneralErr:     {"GENERAL_ERR", "a general error"},
}

// String returns the libibverbs name of s without its IBV_WC_ prefix
// ("REM_ACCESS_ERR"), or WC_STATUS(N) for a value without one.
func (s Status) String() string {
	if i, ok := statusInfos[s]; ok {
		return i.name
	}
	return fmt.Sprintf("WC_STATUS(%d)", uint8(s))
}

// Meaning explains the status in one sentence, for learners.
func (s Status) Meaning() string {
	if i, ok := statusInfos[s]; ok {
		return i.meaning
	}
	return "unknown status"
}

// Statuses lists every named status in numeric order (for completion menus).
func Statuses() []Status {
	var out []Status
	for s := 0; s < 256; s++ {
		if _, ok := statusInfos[Status(s)]; ok {
			out = append(out, Status(s))
		}
	}
	return out
}

// ParseStatus accepts a status name, with or without an IBV_WC_ / IB_WC_ prefix,
// in any case.
func ParseStatus(name string) (Status, error) {
	n := upper(name)
	for _, p := range []string{"IBV_WC_", "IB_WC_"} {
		if len(n) > len(p) && n[:len(p)] == p {
			n = n[len(p):]
		}
	}
	for s, i := range statusInfos {
		if i.name == n {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown completion status %q", name)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// QPState is ibv_qp_state.
type QPState uint8

// QP states.
const (
	QPSReset QPState = iota
	QPSInit
	QPSRTR
	QPSRTS
	QPSSQD
	QPSSQE
	QPSErr
)

var qpStateNames = [...]string{QPSReset: "RESET", QPSInit: "INIT", QPSRTR: "RTR", QPSRTS: "RTS",
	QPSSQD: "SQD", QPSSQE: "SQE", QPSErr: "ERR"}

// String returns the libibverbs name of s without its IBV_QPS_ prefix
// ("RTS"), or QPS(N) for a value without one.
func (s QPState) String() string {
	if int(s) < len(qpStateNames) {
		return qpStateNames[s]
	}
	return fmt.Sprintf("QPS(%d)", uint8(s))
}

// SGE is ibv_sge: a local buffer named by address, length and lkey.
type SGE struct {
	Addr   uint64
	Length uint32
	LKey   uint32
}

// SendWR is ibv_send_wr. Next links a chain handed to one PostSend.
type SendWR struct {
	WRID     uint64
	Next     *SendWR
	SGList   []SGE
	Opcode   WROpcode
	Signaled bool // IBV_SEND_SIGNALED: with a QP created SigAll=false, only these complete

	// RDMA_WRITE / RDMA_READ: the remote buffer (wr.rdma).
	RemoteAddr uint64
	RKey       uint32

	ImmData        uint32 // *_WITH_IMM
	InvalidateRKey uint32 // SEND_WITH_INV, LOCAL_INV, RDMA_READ_WITH_INV

	// REG_MR (kernel ib_reg_wr): the MR to register over the pages in
	// SGList (mapped contiguously from MR.Addr()), the key it takes
	// (ib_update_fast_reg_key bumps the low 8 bits before each use; the
	// lkey and rkey become RegKey) and the access it grants.
	MR     MR
	RegKey uint32
	Access Access
}

// RecvWR is ibv_recv_wr.
type RecvWR struct {
	WRID   uint64
	Next   *RecvWR
	SGList []SGE
}

// WC is ibv_wc.
type WC struct {
	WRID      uint64
	Status    Status
	Opcode    WCOpcode
	VendorErr uint32
	ByteLen   uint32
	QPNum     uint32
	SrcQP     uint32
	// WithInv is IBV_WC_WITH_INV: the incoming SEND invalidated InvalidatedRKey.
	WithInv         bool
	InvalidatedRKey uint32
	WithImm         bool
	ImmData         uint32
}

// QPCap is ibv_qp_cap.
type QPCap struct {
	MaxSendWR     int
	MaxRecvWR     int
	MaxSendSGE    int
	MaxRecvSGE    int
	MaxInlineData int
}

// QPInitAttr is ibv_qp_init_attr for an RC QP.
type QPInitAttr struct {
	SendCQ CQ
	RecvCQ CQ
	Cap    QPCap
	SigAll bool // sq_sig_all: every WR completes, signaled or not
}

// QPAttr is the part of ibv_qp_attr that RC connection setup needs.
type QPAttr struct {
	State       QPState
	DestQPNum   uint32 // dest_qp_num (RTR)
	RemoteNode  string // the peer's address (ah_attr.grh.dgid in real life)
	PathMTU     int    // path_mtu in bytes: 256, 512, 1024, 2048 or 4096 (RTR)
	RQPSN       uint32 // rq_psn (RTR)
	SQPSN       uint32 // sq_psn (RTS)
	RetryCnt    int    // retry_cnt (RTS)
	RNRRetry    int    // rnr_retry (RTS); 7 means retry forever
	MaxRdAtomic int    // max_rd_atomic (RTS)
}

// Device is an opened RDMA device (ibv_context).
type Device interface {
	Attr() DeviceAttr
	AllocPD() (PD, error)
	CreateCQ(cqe int) (CQ, error)
	Close() error
}

// PD is a protection domain (ibv_pd).
type PD interface {
	// RegMR registers buf (ibv_reg_mr); the buffer is the memory the MR names,
	// so writes by the device land in it.
	RegMR(buf []byte, access Access) (MR, error)
	// LocalDMALKey is the kernel's pd->local_dma_lkey: an lkey that covers
	// every DMA-mapped address of this PD.
	LocalDMALKey() uint32
	// DMAMap is ib_dma_map_single/_page: it returns the device address of buf,
	// usable in SGEs with LocalDMALKey until DMAUnmap.
	DMAMap(buf []byte) (uint64, error)
	DMAUnmap(addr uint64) error
	// AllocMR is ib_alloc_mr (IB_MR_TYPE_MEM_REG): an MR without memory,
	// bound to pages later by a REG_MR work request.
	AllocMR(maxPages int) (MR, error)
	CreateQP(attr QPInitAttr) (QP, error)
	Dealloc() error
}

// MR is a memory region (ibv_mr).
type MR interface {
	LKey() uint32
	RKey() uint32
	Addr() uint64
	Length() int
	Access() Access
	Dereg() error
}

// CQ is a completion queue (ibv_cq).
type CQ interface {
	// Poll is ibv_poll_cq: it fills wc with up to len(wc) completions and
	// returns how many.
	Poll(wc []WC) int
	Destroy() error
}

// QP is a reliable-connected queue pair (ibv_qp).
type QP interface {
	Num() uint32
	State() QPState
	Cap() QPCap
	// Modify is ibv_modify_qp: RESET→INIT→RTR→RTS, or any state →ERR.
	Modify(attr QPAttr) error
	// PostSend is ibv_post_send. On error it returns the first work request
	// that was not accepted (bad_wr); the ones before it were posted.
	PostSend(wr *SendWR) (bad *SendWR, err error)
	// PostRecv is ibv_post_recv, with the same bad_wr rule.
	PostRecv(wr *RecvWR) (bad *RecvWR, err error)
	Destroy() error
}

// Errno is a negative errno as the verbs calls and the kernel return them;
// its Error() is the errno name so callers can print it as the kernel would.
type Errno int

// The errnos rdmalab's engine returns.
const (
	EPERM           Errno = 1
	EIO             Errno = 5
	E2BIG           Errno = 7
	EAGAIN          Errno = 11
	ENOMEM          Errno = 12
	EFAULT          Errno = 14
	EBUSY           Errno = 16
	EINVAL          Errno = 22
	ENOSPC          Errno = 28
	EMSGSIZE        Errno = 90
	EPROTONOSUPPORT Errno = 93
	EOPNOTSUPP      Errno = 95
	ENOTCONN        Errno = 107
)

// errnoInfos holds each errno's name, what it means when a svcrdma
// function returns it, and the C library's strerror text.
var errnoInfos = map[Errno][3]string{
	EPERM:           {"EPERM", "operation not permitted", "operation not permitted"},
	EIO:             {"EIO", "I/O error: rdma_rw could not set up or map the transfer", "input/output error"},
	E2BIG:           {"E2BIG", "the client's chunk is too small for the data", "argument list too long"},
	EAGAIN:          {"EAGAIN", "resource temporarily unavailable (MR pool empty)", "resource temporarily unavailable"},
	ENOMEM:          {"ENOMEM", "out of memory, or the queue is full", "cannot allocate memory"},
	EFAULT:          {"EFAULT", "bad address", "bad address"},
	EBUSY:           {"EBUSY", "resource busy", "device or resource busy"},
	EINVAL:          {"EINVAL", "invalid argument: a malformed chunk list, position or length", "invalid argument"},
	ENOSPC:          {"ENOSPC", "no space left", "no space left on device"},
	EMSGSIZE:        {"EMSGSIZE", "a region lies outside the reply message", "message too long"},
	EPROTONOSUPPORT: {"EPROTONOSUPPORT", "RPC-over-RDMA version not supported", "protocol not supported"},
	EOPNOTSUPP:      {"EOPNOTSUPP", "operation not supported", "operation not supported"},
	ENOTCONN:        {"ENOTCONN", "the transport is not connected (closing, or the post failed)", "transport endpoint is not connected"},
}

func (e Errno) Error() string {
	if i, ok := errnoInfos[e]; ok {
		return i[0]
	}
	return fmt.Sprintf("errno %d", int(e))
}

// Errnos lists the errnos the engine returns, in numeric order.
func Errnos() []Errno {
	var out []Errno
	for e := Errno(1); e < 256; e++ {
		if _, ok := errnoInfos[e]; ok {
			out = append(out, e)
		}
	}
	return out
}

// ParseErrno accepts an errno name ("EINVAL", "-EINVAL", "einval").
func ParseErrno(name string) (Errno, error) {
	n := upper(name)
	if len(n) > 0 && n[0] == '-' {
		n = n[1:]
	}
	for e, i := range errnoInfos {
		if i[0] == n {
			return e, nil
		}
	}
	return 0, fmt.Errorf("unknown errno %q", name)
}

// Meaning explains the errno in one sentence, as a svcrdma function
// returning it means it: EINVAL is a malformed chunk list there.
func (e Errno) Meaning() string {
	if i, ok := errnoInfos[e]; ok {
		return i[1]
	}
	return "unknown error"
}

// Strerror is the errno's generic text, for an errno from the verbs
// provider or the client, where Meaning's svcrdma reading would mislead.
func (e Errno) Strerror() string {
	if i, ok := errnoInfos[e]; ok {
		return i[2]
	}
	return "unknown error"
}
