package verbs

import (
	"errors"
	"fmt"
	"time"
)

// Provider is what the engine runs on: an opened pair of nodes, "server"
// and "client", whose devices (handed out by the provider's own
// constructor) the model drives through Device, PD, QP and CQ. A posted
// send work request becomes an Op; the provider holds what the device did
// with it until DeliverNext lets the model see its completions.
//
// engine/sim implements it (the Fabric's Provider, the default) and so
// does engine/ibv over libibverbs. What only one of them can do is an
// optional capability, found by interface assertion: FaultInjector,
// StatusChooser, Link.
type Provider interface {
	// Now is the provider's clock: virtual on a simulation, the time since
	// the device was opened on a real one.
	Now() time.Duration
	// Pending lists the posted work requests whose completions the model
	// has not been given, in the order they will be delivered.
	Pending() []Op
	// PendingCount is len(Pending()), cheaply: the engine asks before every
	// step.
	PendingCount() int
	// DeliverNext lets the model see the first pending operation: it runs
	// it (or waits until the device has) and releases its completions to
	// the CQs. It returns ErrIdle when nothing is pending.
	DeliverNext() (Op, error)
	// Disconnect moves both nodes' connected QPs to ERR (their work
	// flushes) and says, in one line for the trace, what it did; err
	// reports a part that failed.
	Disconnect() (done string, err error)
	// Close lets go of the devices.
	Close() error
}

// ErrIdle is DeliverNext's answer when nothing is pending.
var ErrIdle = errors.New("no operation is pending")

// FaultInjector is a provider that can make work fail on purpose.
type FaultInjector interface {
	// FailNth makes the nth operation from now (1 = the next) complete
	// with st, and says, in one line for the trace, what will happen.
	// A provider that can only provoke some statuses refuses the others.
	FailNth(n int, st Status) (what string, err error)
}

// StatusChooser is a provider that decides how work completes rather than
// watching a device do it (a simulation): it can complete the next
// operation with any status.
type StatusChooser interface {
	// DeliverNextAs is DeliverNext with the operation completing as st.
	DeliverNextAs(st Status) (Op, error)
}

// Link is a provider whose link the learner sets: a virtual one, with a
// rate and a one-way latency, for operations posted from now on.
type Link interface {
	SetLinkRate(bps int64)
	SetLatency(d time.Duration)
}

// PSNRange is a run of packet sequence numbers of one message. Count is the
// number of packets; Last wraps at 2^24 like the PSN does. A local operation
// (REG_MR, LOCAL_INV) or a flush uses none: Count is 0 and First = Last is
// the QP's next PSN.
type PSNRange struct {
	First uint32
	Last  uint32
	Count int
}

func (r PSNRange) String() string {
	if r.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%d..%d", r.First, r.Last)
}

// Op describes one posted send work request as an operation of the
// provider: pending (Pending) or just delivered (DeliverNext).
type Op struct {
	ID        uint64 // unique, increasing in posting order
	Node      string // the requester's node
	QPNum     uint32 // the requester's QP
	PeerNode  string // the responder's node; "" for local operations
	PeerQPNum uint32 // the responder's QP; 0 for local operations

	Opcode         WROpcode
	WRID           uint64
	Signaled       bool   // completes on success (IBV_SEND_SIGNALED or sq_sig_all)
	Bytes          int    // message length: the sum of the SGE lengths
	RemoteAddr     uint64 // RDMA WRITE/READ
	RKey           uint32 // RDMA WRITE/READ
	ImmData        uint32 // *_WITH_IMM
	InvalidateRKey uint32 // SEND_WITH_INV, LOCAL_INV, RDMA_READ_WITH_INV

	Due     time.Duration // provider time it executes (for an executed op: when it did)
	PSN     PSNRange      // PSNs the requester spends; a READ spends one per response packet
	PathMTU int

	// Flush: the QP was in ERR when this was posted, so executing it only
	// completes it with WR_FLUSH_ERR.
	Flush bool
	// Attempt counts the RNR NAKs this operation has received so far.
	Attempt int

	// Set on an executed operation: the requester's status, and Retry when
	// an RNR NAK sent it back to the pending list instead.
	Status Status
	Retry  bool
}

func (o Op) String() string {
	s := fmt.Sprintf("#%d %s qp %d", o.ID, o.Node, o.QPNum)
	if o.PeerNode != "" {
		s += fmt.Sprintf(" -> %s qp %d", o.PeerNode, o.PeerQPNum)
	}
	s += fmt.Sprintf(" %v wr_id %#x %dB psn %v due %v", o.Opcode, o.WRID, o.Bytes, o.PSN, o.Due)
	if o.Flush {
		s += " flush"
	}
	return s
}
