package sim

import (
	"fmt"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// psnMask keeps PSNs to the 24 bits of the BTH.
const psnMask = 1<<24 - 1

func psnRange(first uint32, n int) verbs.PSNRange {
	first &= psnMask
	if n <= 0 {
		return verbs.PSNRange{First: first, Last: first}
	}
	return verbs.PSNRange{First: first, Last: (first + uint32(n) - 1) & psnMask, Count: n}
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

// Transfer is what the Tap sees of one executed operation: the operation,
// what crossed the link, and how the responder answered.
type Transfer struct {
	verbs.Op
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
	RespPSN verbs.PSNRange
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
