package sim

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Defaults for the zero fields of Config.
const (
	DefaultLinkRate int64 = 10_000_000_000 // 10 Gb/s
	DefaultLatency        = 2 * time.Microsecond
	// DefaultRNRTimer is IB's RNR timer encoding 12, 0.64 ms, a common
	// min_rnr_timer.
	DefaultRNRTimer = 640 * time.Microsecond
)

// Config sets up a Fabric. Zero fields take the defaults above.
type Config struct {
	// Seed drives QP numbers, lkeys/rkeys, initial PSNs and base addresses:
	// the same seed and the same calls give the same numbers.
	Seed     int64
	LinkRate int64         // bits per second of the virtual link
	Latency  time.Duration // one-way virtual latency
	// Auto executes operations as soon as they are posted (the fabric runs
	// until idle after every post), so completions are ready on return.
	Auto bool
	// RNRTimer is the virtual delay between RNR retries.
	RNRTimer time.Duration
}

func (c Config) withDefaults() Config {
	if c.LinkRate <= 0 {
		c.LinkRate = DefaultLinkRate
	}
	if c.Latency <= 0 {
		c.Latency = DefaultLatency
	}
	if c.RNRTimer <= 0 {
		c.RNRTimer = DefaultRNRTimer
	}
	return c
}

// Fabric is a simulated RoCE network joining the devices opened on it.
type Fabric struct {
	mu  sync.Mutex
	cfg Config
	rng *rand.Rand
	now time.Duration

	devices []*device          // creation order
	nodes   map[string]*device // lookup only
	qpns    map[uint32]*qp     // every QP number ever handed out

	pending []*op // ordered by (due, id)
	// npending is len(pending), kept at each change for PendingCount.
	npending atomic.Int64
	nextID   uint64
	faults   []fault
	force    verbs.Status // DeliverNextAs: the status the next execution takes
	forcing  bool

	tap    Tap
	outbox []Transfer // executed under the lock, handed to tap by unlock

	// srcSegs and dstSegs are the scratch an execution resolves its
	// source and sink into (resolveLocal, resolveRemote).
	srcSegs, dstSegs [][]byte
	// payloadAlloc, when set, gives the buffer a Transfer's payload is
	// copied into (SetPayloadAlloc).
	payloadAlloc func(n int) []byte
}

type fault struct {
	left int
	qpn  uint32
	st   verbs.Status
}

// NewFabric returns an empty fabric at virtual time 0.
func NewFabric(cfg Config) *Fabric {
	// The second PCG word is fixed: the seed alone decides the stream.
	return &Fabric{
		cfg:   cfg.withDefaults(),
		rng:   rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)),
		nodes: make(map[string]*device),
		qpns:  make(map[uint32]*qp),
	}
}

// unlock releases f.mu and then hands the transfers executed under it to
// the tap, so a tap may call back into the fabric.
func (f *Fabric) unlock() {
	tap, out := f.tap, f.outbox
	f.outbox = nil
	f.mu.Unlock()
	if tap == nil {
		return
	}
	for _, t := range out {
		tap(t)
	}
}

// Config returns the fabric's current settings.
func (f *Fabric) Config() Config {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg
}

// Now is the virtual clock.
func (f *Fabric) Now() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// SetAuto switches automatic delivery; switching it on runs the fabric
// until idle.
func (f *Fabric) SetAuto(on bool) {
	f.mu.Lock()
	defer f.unlock()
	f.cfg.Auto = on
	f.autoRun()
}

// SetLinkRate sets the link rate in bits per second (<= 0: the default)
// for operations posted from now on.
func (f *Fabric) SetLinkRate(bps int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if bps <= 0 {
		bps = DefaultLinkRate
	}
	f.cfg.LinkRate = bps
}

// SetLatency sets the one-way latency (negative: 0) for operations posted
// from now on.
func (f *Fabric) SetLatency(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.Latency = max(d, 0)
}

// SetPayloadAlloc makes alloc give the n-byte buffers the payloads handed
// to the tap are copied into (nil: a new slice each), so a tap that keeps
// them can reuse its memory. It is called with the fabric locked.
func (f *Fabric) SetPayloadAlloc(alloc func(n int) []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.payloadAlloc = alloc
}

// SetTap installs the wire seam (nil removes it).
func (f *Fabric) SetTap(t Tap) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tap = t
}

// Pending lists the posted, not yet executed operations in the order they
// will execute: virtual time, then posting order.
func (f *Fabric) Pending() []verbs.Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]verbs.Op, len(f.pending))
	for i, o := range f.pending {
		out[i] = o.snapshot()
	}
	return out
}

// PendingCount is len(Pending()) without the copy, or the lock: the Lab
// asks before every step.
func (f *Fabric) PendingCount() int { return int(f.npending.Load()) }

// DeliverNext executes the next pending operation: it advances the clock
// to its due time, moves the bytes and writes the completions on both
// sides. It reports false when nothing is pending.
func (f *Fabric) DeliverNext() (verbs.Op, bool) {
	f.mu.Lock()
	defer f.unlock()
	return f.deliverNext()
}

// DeliverNextAs executes the next pending operation like DeliverNext, but
// makes it fail with st as FailNth(1, 0, st) would, without leaving a
// fault armed if the operation is a flush (a flush only flushes). With
// StatusSuccess no failure is injected, even by armed faults (which still
// count the execution), though a real error such as a bad rkey still
// fails it. This is how a learner decides how a work request completes.
func (f *Fabric) DeliverNextAs(st verbs.Status) (verbs.Op, bool) {
	f.mu.Lock()
	defer f.unlock()
	f.force, f.forcing = st, true
	defer func() { f.forcing = false }()
	return f.deliverNext()
}

// DeliverAll executes operations until the fabric is idle and returns how
// many it executed. Idle means nothing is pending but operations waiting
// forever (rnr_retry 7) for a receive that nobody has posted; those stay
// pending for DeliverNext or a later PostRecv.
func (f *Fabric) DeliverAll() int {
	f.mu.Lock()
	defer f.unlock()
	return f.runUntilIdle()
}

// FailNth makes the nth operation executed from now on (1 = the next) fail
// with status st; qpn limits the count to that requester QP (0 = any QP).
// Every execution counts, an RNR retry too, except flushes, which can only
// flush. A REM_* status is a NAK from the responder, whose QP goes to ERR
// as well; any other status is a requester-side failure. Several faults
// may be armed at once; StatusSuccess arms a fault that changes nothing.
func (f *Fabric) FailNth(n int, qpn uint32, st verbs.Status) {
	if n < 1 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, fault{left: n, qpn: qpn, st: st})
}

// ClearFaults disarms every FailNth fault.
func (f *Fabric) ClearFaults() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = nil
}

// Disconnect breaks every connection of node: its connected QPs and their
// peers go to ERR and flush. An unknown node is ignored.
func (f *Fabric) Disconnect(node string) {
	f.mu.Lock()
	defer f.unlock()
	if d := f.nodes[node]; d != nil {
		f.disconnect(d)
	}
}

func (f *Fabric) disconnect(d *device) {
	for _, q := range d.qps {
		if q.dead || (q.state != verbs.QPSRTR && q.state != verbs.QPSRTS) {
			continue
		}
		p := f.connectedPeer(q)
		f.toError(q)
		if p != nil {
			f.toError(p)
		}
	}
}

// QPInfo is a snapshot of a QP's state, for display.
type QPInfo struct {
	Node      string
	Num       uint32
	State     verbs.QPState
	PeerNode  string
	PeerQPNum uint32
	Cap       verbs.QPCap
	SigAll    bool
	PathMTU   int
	SQPSN     uint32 // the PSN the next request will carry
	RQPSN     uint32 // rq_psn given at RTR
	MSN       uint32 // the responder's message sequence number
	RNRRetry  int
	RetryCnt  int
	// SQOutstanding counts send WRs posted and not yet retired (the slots
	// in use); RQPosted the receives waiting.
	SQOutstanding int
	RQPosted      int
}

// QPInfo describes the QP numbered qpn (QP numbers are unique fabric-wide).
func (f *Fabric) QPInfo(qpn uint32) (QPInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.qpns[qpn]
	if q == nil || q.dead {
		return QPInfo{}, false
	}
	return QPInfo{
		Node: q.dev.node, Num: q.num, State: q.state,
		PeerNode: q.peerNode, PeerQPNum: q.peerQPN,
		Cap: q.cap, SigAll: q.sigAll, PathMTU: q.mtu,
		SQPSN: q.sqPSN, RQPSN: q.rqPSN, MSN: q.msn,
		RNRRetry: q.rnrRetry, RetryCnt: q.retryCnt,
		SQOutstanding: len(q.sq), RQPosted: len(q.rq),
	}, true
}

// CQOverruns reports how many completions c dropped because it was full.
func (f *Fabric) CQOverruns(c verbs.CQ) (int, error) {
	cc, ok := c.(*cq)
	if !ok || cc == nil || cc.dev.f != f {
		return 0, fmt.Errorf("sim: cq overruns: not a CQ of this fabric: %w", verbs.EINVAL)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return cc.overruns, nil
}

// NewDevice opens a device on node, the address peers name in
// QPAttr.RemoteNode. Zero fields of attr take DefaultAttr's values; opts
// change how its provider sizes QPs.
func (f *Fabric) NewDevice(node string, attr verbs.DeviceAttr, opts ...DeviceOption) (verbs.Device, error) {
	if node == "" {
		return nil, fmt.Errorf("sim: new device: empty node name: %w", verbs.EINVAL)
	}
	attr = attrWithDefaults(attr)
	if attr.PageSize&(attr.PageSize-1) != 0 || attr.PageSize < 256 || attr.PageSize > 1<<16 {
		return nil, fmt.Errorf("sim: new device %q: page size %d is not a power of two in [256, 65536]: %w", node, attr.PageSize, verbs.EINVAL)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.nodes[node]; dup {
		return nil, fmt.Errorf("sim: new device: node %q already has a device: %w", node, verbs.EBUSY)
	}
	ps := uint64(attr.PageSize)
	// A seeded base in the low half of a 47-bit address space, page aligned.
	base := (uint64(0x1000_0000_0000) + f.rng.Uint64N(1<<30)*ps) &^ (ps - 1)
	d := &device{f: f, node: node, attr: attr, next: base, keys: make(map[uint32]*mr)}
	for _, o := range opts {
		o(d)
	}
	if d.grantSendSGE > attr.MaxSendSGE {
		return nil, fmt.Errorf("sim: new device %q: a grant of %d send SGEs is over max_send_sge %d: %w", node, d.grantSendSGE, attr.MaxSendSGE, verbs.EINVAL)
	}
	f.devices = append(f.devices, d)
	f.nodes[node] = d
	return d, nil
}

// newQPN picks an unused QP number above the reserved QP0/QP1 range, as
// rxe's QP indices start at 16.
func (f *Fabric) newQPN() uint32 {
	for {
		n := uint32(f.rng.IntN(psnMask-16)) + 16
		if _, used := f.qpns[n]; !used {
			return n
		}
	}
}

// autoRun delivers everything when Auto is on. f.mu held.
func (f *Fabric) autoRun() {
	if f.cfg.Auto {
		f.runUntilIdle()
	}
}
