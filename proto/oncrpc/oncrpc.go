// Package oncrpc encodes and decodes ONC RPC version 2 message headers
// (RFC 5531): the call header, the reply header, and the AUTH_NONE and
// AUTH_SYS credentials that NFS over RDMA uses.
//
// Every RPC message starts with the same two words (RFC 5531 §9):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                              xid                              |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 mtype (CALL = 0, REPLY = 1)                   |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  call_body (call.go) or reply_body (reply.go)                 |  8
//
// Decoders report errors as *xdr.Error with layer "oncrpc", naming the
// byte offset in the input and the field. Opaque bodies (credentials,
// verifiers) alias the input.
package oncrpc

import (
	"encoding/binary"
	"fmt"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// RPCVersion is the ONC RPC protocol version (rpcvers), always 2.
const RPCVersion = 2

// MsgType is the message direction, msg_type.
type MsgType uint32

// Message types.
const (
	Call  MsgType = 0 // CALL
	Reply MsgType = 1 // REPLY
)

var msgTypeNames = [...]string{Call: "Call", Reply: "Reply"}

// String returns the name Wireshark gives m ("Call"), or MsgType(N) for a
// value without one.
func (m MsgType) String() string {
	if int(m) < len(msgTypeNames) {
		return msgTypeNames[m]
	}
	return fmt.Sprintf("MsgType(%d)", uint32(m))
}

// PeekMsgType returns the XID and message type at the start of b without
// decoding the rest; ok is false when b is shorter than 8 bytes or the type
// is neither CALL nor REPLY.
func PeekMsgType(b []byte) (xid uint32, mtype MsgType, ok bool) {
	if len(b) < 8 {
		return 0, 0, false
	}
	xid = binary.BigEndian.Uint32(b)
	mtype = MsgType(binary.BigEndian.Uint32(b[4:]))
	return xid, mtype, mtype == Call || mtype == Reply
}

// Program numbers (RFC 5531 Appendix C and the IANA registry).
const (
	ProgPortmap = 100000 // portmapper / rpcbind
	ProgNFS     = 100003
	ProgMount   = 100005
	ProgNLM     = 100021 // network lock manager
	ProgNSM     = 100024 // status monitor
	ProgNFSACL  = 100227
	// ProgNFSCB is the NFSv4 callback program Linux clients announce (RFC
	// 8881 leaves the number to the client; Wireshark takes this one).
	ProgNFSCB = 0x40000000
)

var progNames = map[uint32]string{
	ProgPortmap: "Portmap",
	ProgNFS:     "NFS",
	ProgMount:   "MOUNT",
	ProgNLM:     "NLM",
	ProgNSM:     "STAT",
	ProgNFSACL:  "NFSACL",
	ProgNFSCB:   "NFS CB",
}

// ProgramName returns the name Wireshark gives prog ("NFS", "NFSACL"), or
// the number in decimal when it is not one of the programs above.
func ProgramName(prog uint32) string {
	if s, ok := progNames[prog]; ok {
		return s
	}
	return fmt.Sprint(prog)
}

// KnownProgram reports whether prog is one of the programs Wireshark names.
func KnownProgram(prog uint32) bool {
	_, ok := progNames[prog]
	return ok
}

// layer names this package in its errors.
const layer = "oncrpc"

// checkMsgType reads the msg_type, which must be want.
func checkMsgType(w *xdr.Walker, want MsgType) {
	off := w.Offset()
	if v := w.Uint32("msg_type"); w.Err() == nil && MsgType(v) != want {
		w.Failf(off, "msg_type", "msg_type is %d, not %s (%d)", v, want, uint32(want))
	}
}
