package oncrpc

// Reply header (RFC 5531 §9, rpc_msg with mtype REPLY and reply_body):
//
//	offset 0 +------------------------------+
//	         | xid                          |
//	       4 | mtype = REPLY (1)            |
//	       8 | stat: MSG_ACCEPTED (0)       |----+  MSG_DENIED (1)
//	         +------------------------------+    |  +------------------------------+
//	         | verf: flavor, length, body   |    +->| reject_stat                  |
//	         | accept_stat                  |       |  RPC_MISMATCH: low, high     |
//	         |   PROG_MISMATCH: low, high   |       |  AUTH_ERROR:   auth_stat     |
//	         |   SUCCESS: results follow    |       +------------------------------+
//	         +------------------------------+

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// ReplyStat says whether a call was accepted, reply_stat.
type ReplyStat uint32

// Reply states.
const (
	MsgAccepted ReplyStat = 0 // MSG_ACCEPTED
	MsgDenied   ReplyStat = 1 // MSG_DENIED
)

var replyStatNames = [...]string{MsgAccepted: "MSG_ACCEPTED", MsgDenied: "MSG_DENIED"}

// String returns the protocol name of s ("MSG_ACCEPTED"), or ReplyStat(N)
// for a value without one.
func (s ReplyStat) String() string {
	if int(s) < len(replyStatNames) {
		return replyStatNames[s]
	}
	return fmt.Sprintf("ReplyStat(%d)", uint32(s))
}

// AcceptStat is the outcome of an accepted call, accept_stat.
type AcceptStat uint32

// Accept states.
const (
	Success      AcceptStat = 0 // SUCCESS: results follow
	ProgUnavail  AcceptStat = 1 // PROG_UNAVAIL
	ProgMismatch AcceptStat = 2 // PROG_MISMATCH: low and high versions follow
	ProcUnavail  AcceptStat = 3 // PROC_UNAVAIL
	GarbageArgs  AcceptStat = 4 // GARBAGE_ARGS
	SystemErr    AcceptStat = 5 // SYSTEM_ERR
)

var acceptStatNames = [...]string{"SUCCESS", "PROG_UNAVAIL", "PROG_MISMATCH", "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR"}

// String returns the protocol name of s ("PROG_MISMATCH"), or
// AcceptStat(N) for a value without one.
func (s AcceptStat) String() string {
	if int(s) < len(acceptStatNames) {
		return acceptStatNames[s]
	}
	return fmt.Sprintf("AcceptStat(%d)", uint32(s))
}

// RejectStat is the reason a call was denied, reject_stat.
type RejectStat uint32

// Reject states.
const (
	RPCMismatch RejectStat = 0 // RPC_MISMATCH: low and high RPC versions follow
	AuthError   RejectStat = 1 // AUTH_ERROR: an auth_stat follows
)

var rejectStatNames = [...]string{RPCMismatch: "RPC_MISMATCH", AuthError: "AUTH_ERROR"}

// String returns the protocol name of s ("AUTH_ERROR"), or RejectStat(N)
// for a value without one.
func (s RejectStat) String() string {
	if int(s) < len(rejectStatNames) {
		return rejectStatNames[s]
	}
	return fmt.Sprintf("RejectStat(%d)", uint32(s))
}

// AuthStat is why authentication failed, auth_stat.
type AuthStat uint32

// Authentication failures (RFC 5531 §9; 13 and 14 from RFC 2203).
const (
	AuthOK           AuthStat = 0
	AuthBadCred      AuthStat = 1
	AuthRejectedCred AuthStat = 2
	AuthBadVerf      AuthStat = 3
	AuthRejectedVerf AuthStat = 4
	AuthTooWeak      AuthStat = 5
	AuthInvalidResp  AuthStat = 6
	AuthFailed       AuthStat = 7
	AuthKerbGeneric  AuthStat = 8
	AuthTimeExpire   AuthStat = 9
	AuthTktFile      AuthStat = 10
	AuthDecode       AuthStat = 11
	AuthNetAddr      AuthStat = 12
	GSSCredProblem   AuthStat = 13
	GSSCtxProblem    AuthStat = 14
)

var authStatNames = [...]string{
	"AUTH_OK", "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF", "AUTH_REJECTEDVERF",
	"AUTH_TOOWEAK", "AUTH_INVALIDRESP", "AUTH_FAILED", "AUTH_KERB_GENERIC", "AUTH_TIMEEXPIRE",
	"AUTH_TKT_FILE", "AUTH_DECODE", "AUTH_NET_ADDR", "RPCSEC_GSS_CREDPROBLEM", "RPCSEC_GSS_CTXPROBLEM",
}

// String returns the protocol name of s ("AUTH_TOOWEAK"), or AuthStat(N)
// for a value without one.
func (s AuthStat) String() string {
	if int(s) < len(authStatNames) {
		return authStatNames[s]
	}
	return fmt.Sprintf("AuthStat(%d)", uint32(s))
}

// ReplyHeader is the header of an RPC reply, up to the results. Which
// fields mean something depends on Stat (and AcceptStat or RejectStat).
type ReplyHeader struct {
	XID  uint32
	Stat ReplyStat

	// MSG_ACCEPTED
	Verf       OpaqueAuth
	AcceptStat AcceptStat

	// PROG_MISMATCH (accepted) or RPC_MISMATCH (denied): supported versions.
	MismatchLow, MismatchHigh uint32

	// MSG_DENIED
	RejectStat RejectStat
	AuthStat   AuthStat // AUTH_ERROR only
}

// Len returns the encoded length of h: the offset of the results.
func (h *ReplyHeader) Len() int {
	n := 12
	switch h.Stat {
	case MsgAccepted:
		n += h.Verf.len() + 4
		if h.AcceptStat == ProgMismatch {
			n += 8
		}
	case MsgDenied:
		n += 4
		switch h.RejectStat {
		case RPCMismatch:
			n += 8
		case AuthError:
			n += 4
		}
	}
	return n
}

// AppendTo appends the encoded reply header to b.
func (h *ReplyHeader) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	h.EncodeXDR(&w)
	return w.Bytes()
}

// EncodeXDR appends the encoded reply header to w.
func (h *ReplyHeader) EncodeXDR(w *xdr.Writer) {
	w.Uint32(h.XID)
	w.Uint32(uint32(Reply))
	w.Uint32(uint32(h.Stat))
	switch h.Stat {
	case MsgAccepted:
		h.Verf.EncodeXDR(w)
		w.Uint32(uint32(h.AcceptStat))
		if h.AcceptStat == ProgMismatch {
			w.Uint32(h.MismatchLow)
			w.Uint32(h.MismatchHigh)
		}
	case MsgDenied:
		w.Uint32(uint32(h.RejectStat))
		switch h.RejectStat {
		case RPCMismatch:
			w.Uint32(h.MismatchLow)
			w.Uint32(h.MismatchHigh)
		case AuthError:
			w.Uint32(uint32(h.AuthStat))
		}
	}
}

// Decode decodes the reply header at the start of b and returns its length:
// the results (accepted with SUCCESS) start at b[n:]. The verifier body
// aliases b. Errors are *xdr.Error values with offsets in b.
func (h *ReplyHeader) Decode(b []byte) (n int, err error) {
	r := xdr.NewReader(b)
	if err := h.DecodeXDR(&r); err != nil {
		return 0, err
	}
	return r.Offset(), nil
}

// DecodeXDR decodes a reply header from r, leaving r at the results. h is
// reset first. Accept states above SYSTEM_ERR decode (their body is void, as
// RFC 5531's default arm says); unknown reply and reject states are errors.
func (h *ReplyHeader) DecodeXDR(r *xdr.Reader) error {
	*h = ReplyHeader{}
	w := r.Walk()
	h.XID = w.Uint32("xid")
	checkMsgType(&w, Reply)
	off := w.Offset()
	h.Stat = ReplyStat(w.Uint32("reply_stat"))
	switch h.Stat { // after a failure every read is 0: MSG_ACCEPTED, SUCCESS
	case MsgAccepted:
		h.Verf.walk(&w, "verf")
		if h.AcceptStat = AcceptStat(w.Uint32("accept_stat")); h.AcceptStat == ProgMismatch {
			h.walkMismatch(&w)
		}
	case MsgDenied:
		off := w.Offset()
		switch h.RejectStat = RejectStat(w.Uint32("reject_stat")); h.RejectStat {
		case RPCMismatch:
			h.walkMismatch(&w)
		case AuthError:
			h.AuthStat = AuthStat(w.Uint32("auth_stat"))
		default:
			w.Failf(off, "reject_stat", "reject_stat is %d, neither RPC_MISMATCH (0) nor AUTH_ERROR (1)", uint32(h.RejectStat))
		}
	default:
		w.Failf(off, "reply_stat", "reply_stat is %d, neither MSG_ACCEPTED (0) nor MSG_DENIED (1)", uint32(h.Stat))
	}
	return xdr.WithLayer(w.Finish(r), layer)
}

func (h *ReplyHeader) walkMismatch(w *xdr.Walker) {
	h.MismatchLow = w.Uint32("mismatch_info low")
	h.MismatchHigh = w.Uint32("mismatch_info high")
}
