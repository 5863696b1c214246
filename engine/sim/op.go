package sim

import (
	"fmt"
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// psnMask keeps PSNs to the 24 bits of the BTH.
const psnMask = 1<<24 - 1

// PSNRange is a run of packet sequence numbers of one message. Count is the
// number of packets; Last wraps at 2^24 like the PSN does. A local operation
// (REG_MR, LOCAL_INV) or a flush uses none: Count is 0 and First = Last is
// the QP's next PSN.
type PSNRange struct {
	First uint32
	Last  uint32
	Count int
}

func psnRange(first uint32, n int) PSNRange {
	first &= psnMask
	if n <= 0 {
		return PSNRange{First: first, Last: first}
	}
	return PSNRange{First: first, Last: (first + uint32(n) - 1) & psnMask, Count: n}
}

func (r PSNRange) String() string {
	if r.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%d..%d", r.First, r.Last)
}

// Response is how the responder answered a request, as the AETH syndrome
// (or its absence) says it on the wire.
type Response uint8

// Responses.
const (
	// NoResponse: nothing came back (local operation, flush, failure before
	// transmission, or a request the peer dropped).
	NoResponse Response = iota
	// ACK: a positive acknowledge (for a READ, the read response packets).
	ACK
	// RNRNAK: Receiver Not Ready, the peer had no receive posted.
	RNRNAK
	// NAKInvalidRequest is NAK code 1 (REM_INV_REQ_ERR at the requester).
	NAKInvalidRequest
	// NAKRemoteAccess is NAK code 2 (REM_ACCESS_ERR).
	NAKRemoteAccess
	// NAKRemoteOp is NAK code 3 (REM_OP_ERR).
	NAKRemoteOp
)

func (r Response) String() string {
	switch r {
	case NoResponse:
		return "none"
	case ACK:
		return "ACK"
	case RNRNAK:
		return "RNR NAK"
	case NAKInvalidRequest:
		return "NAK invalid request"
	case NAKRemoteAccess:
		return "NAK remote access error"
	case NAKRemoteOp:
		return "NAK remote operational error"
	}
	return fmt.Sprintf("Response(%d)", uint8(r))
}

// Op describes one posted work request as an operation of the fabric:
// pending (Pending) or just executed (DeliverNext).
type Op struct {
	ID        uint64 // unique, increasing in posting order
	Node      string // the requester's node
	QPNum     uint32 // the requester's QP
	PeerNode  string // the responder's node; "" for local operations
	PeerQPNum uint32 // the responder's QP; 0 for local operations

	Opcode         verbs.WROpcode
	WRID           uint64
	Signaled       bool   // completes on success (IBV_SEND_SIGNALED or sq_sig_all)
	Bytes          int    // message length: the sum of the SGE lengths
	RemoteAddr     uint64 // RDMA WRITE/READ
	RKey           uint32 // RDMA WRITE/READ
	ImmData        uint32 // *_WITH_IMM
	InvalidateRKey uint32 // SEND_WITH_INV, LOCAL_INV, RDMA_READ_WITH_INV

	Due     time.Duration // virtual time it executes (for an executed op: when it did)
	PSN     PSNRange      // PSNs the requester spends; a READ spends one per response packet
	PathMTU int

	// Flush: the QP was in ERR when this was posted, so executing it only
	// completes it with WR_FLUSH_ERR.
	Flush bool
	// Attempt counts the RNR NAKs this operation has received so far.
	Attempt int

	// Set on an executed operation: the requester's status, and Retry when
	// an RNR NAK sent it back to the pending list instead.
	Status verbs.Status
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

// Transfer is what the Tap sees of one executed operation: the operation,
// what crossed the link, and how the responder answered.
type Transfer struct {
	Op
	// OnWire reports that request packets were sent: false for local
	// operations, flushes and failures found before transmission.
	OnWire bool
	// Payload is the data carried: the request payload of a SEND or WRITE,
	// the response payload of a READ. It is a fresh copy the tap may keep.
	// An injected failure carries the request payload it would have sent.
	Payload []byte
	// Response is the responder's answer.
	Response Response
	// RespPSN are the PSNs of the read response packets (a READ request is
	// one packet carrying PSN.First; its responses reuse the whole range);
	// for other requests the ACK or NAK names PSN.Last.
	RespPSN PSNRange
	// MSN is the responder's message sequence number after this request,
	// as an ACK's AETH carries it.
	MSN uint32
	// PeerStatus is the status of the completion written on the responder
	// (a RECV), if one was written.
	PeerStatus    verbs.Status
	PeerCompleted bool
}

// Tap receives every executed operation. It is called after the fabric's
// lock is released, in execution order, so it may call back into the
// fabric; it must not assume it runs on any particular goroutine.
type Tap func(Transfer)
