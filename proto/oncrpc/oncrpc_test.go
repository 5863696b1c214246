package oncrpc

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// writeCall is the RPC call header of frame 86 of nfs3-rdma.pcap (an NFSv3
// WRITE, AUTH_UNIX from machine "cli"), followed by the first word of the
// arguments.
//
//	00000000  4b db d6 65 00 00 00 00  00 00 00 02 00 01 86 a3  |K..e............|
//	00000010  00 00 00 03 00 00 00 07  00 00 00 01 00 00 00 18  |................|
//	00000020  00 00 00 00 00 00 00 03  63 6c 69 00 00 00 00 00  |........cli.....|
//	00000030  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
//	00000040  00 00 00 14                                       |....|
var writeCall = []byte{
	0x4b, 0xdb, 0xd6, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x86, 0xa3,
	0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x18,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x63, 0x6c, 0x69, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x14,
}

// readReply is the RPC reply header of frame 69 of nfs3-rdma.pcap, and the
// first word of the results (NFS3_OK).
//
//	00000000  47 db d6 65 00 00 00 01  00 00 00 00 00 00 00 00  |G..e............|
//	00000010  00 00 00 00 00 00 00 00  00 00 00 00              |............|
var readReply = []byte{
	0x47, 0xdb, 0xd6, 0x65, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
}

func TestDecodeRealCall(t *testing.T) {
	var h CallHeader
	n, err := h.Decode(writeCall)
	if err != nil {
		t.Fatal(err)
	}
	if n != 64 || n != h.Len() {
		t.Fatalf("n = %d, Len = %d, want 64", n, h.Len())
	}
	want := CallHeader{XID: 0x4bdbd665, RPCVers: 2, Prog: ProgNFS, Vers: 3, Proc: 7,
		Cred: OpaqueAuth{Flavor: AuthSys, Body: writeCall[32:56]},
		Verf: OpaqueAuth{Flavor: AuthNone}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("decoded %+v\nwant %+v", h, want)
	}
	var p AuthSysParams
	if err := p.Decode(h.Cred.Body); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, AuthSysParams{MachineName: "cli"}) {
		t.Fatalf("AUTH_SYS %+v", p)
	}
	if got := h.AppendTo(nil); !bytes.Equal(got, writeCall[:64]) {
		t.Fatalf("AppendTo\n%x\nwant\n%x", got, writeCall[:64])
	}
	if cred := p.Auth(); !reflect.DeepEqual(cred.Body, h.Cred.Body) || cred.Flavor != AuthSys {
		t.Fatalf("Auth() = %+v", cred)
	}
}

func TestDecodeRealReply(t *testing.T) {
	var h ReplyHeader
	n, err := h.Decode(readReply)
	if err != nil {
		t.Fatal(err)
	}
	want := ReplyHeader{XID: 0x47dbd665, Stat: MsgAccepted, Verf: OpaqueAuth{Flavor: AuthNone}, AcceptStat: Success}
	if n != 24 || n != h.Len() || !reflect.DeepEqual(h, want) {
		t.Fatalf("n %d Len %d decoded %+v", n, h.Len(), h)
	}
	if got := h.AppendTo(nil); !bytes.Equal(got, readReply[:24]) {
		t.Fatalf("AppendTo %x", got)
	}
}

func TestRoundTrips(t *testing.T) {
	sys := AuthSysParams{Stamp: 0x5f00, MachineName: "client-17", UID: 1000, GID: 100,
		GIDs: []uint32{4, 24, 27, 30, 46, 100, 1000}}
	calls := []CallHeader{
		{XID: 1, RPCVers: 2, Prog: ProgNFS, Vers: 3, Proc: 0},
		{XID: 2, RPCVers: 2, Prog: ProgNFSACL, Vers: 3, Proc: 1, Cred: sys.Auth(),
			Verf: OpaqueAuth{Flavor: AuthNone}},
		{XID: 3, RPCVers: 3, Prog: 0x40000000, Vers: 1, Proc: 9,
			Cred: OpaqueAuth{Flavor: RPCSecGSS, Body: bytes.Repeat([]byte{7}, 400)},
			Verf: OpaqueAuth{Flavor: RPCSecGSS, Body: []byte{1, 2, 3}}},
	}
	for _, want := range calls {
		b := want.AppendTo([]byte{0xee}) // appends
		var got CallHeader
		n, err := got.Decode(b[1:])
		if err != nil || n != len(b)-1 || n != want.Len() || !reflect.DeepEqual(got, want) {
			t.Errorf("call %+v\n → %+v, %d, %v", want, got, n, err)
		}
	}
	replies := []ReplyHeader{
		{XID: 1, Stat: MsgAccepted, AcceptStat: Success},
		{XID: 2, Stat: MsgAccepted, Verf: OpaqueAuth{Flavor: AuthShort, Body: []byte("shorthand")}, AcceptStat: ProgMismatch,
			MismatchLow: 2, MismatchHigh: 4},
		{XID: 3, Stat: MsgAccepted, AcceptStat: ProcUnavail},
		{XID: 4, Stat: MsgAccepted, AcceptStat: GarbageArgs},
		{XID: 5, Stat: MsgAccepted, AcceptStat: SystemErr},
		{XID: 6, Stat: MsgAccepted, AcceptStat: 9}, // unknown: void body
		{XID: 7, Stat: MsgDenied, RejectStat: RPCMismatch, MismatchLow: 2, MismatchHigh: 2},
		{XID: 8, Stat: MsgDenied, RejectStat: AuthError, AuthStat: AuthTooWeak},
	}
	for _, want := range replies {
		b := want.AppendTo(nil)
		var got ReplyHeader
		n, err := got.Decode(b)
		if err != nil || n != len(b) || n != want.Len() || !reflect.DeepEqual(got, want) {
			t.Errorf("reply %+v\n → %+v, %d, %v", want, got, n, err)
		}
	}
	var p AuthSysParams
	if err := p.Decode(sys.AppendTo(nil)); err != nil || !reflect.DeepEqual(p, sys) {
		t.Errorf("AUTH_SYS round trip: %+v, %v", p, err)
	}
}

func TestDecodeReuse(t *testing.T) {
	var r ReplyHeader
	if _, err := r.Decode((&ReplyHeader{XID: 1, Stat: MsgAccepted, Verf: OpaqueAuth{Flavor: 2, Body: []byte{1}},
		AcceptStat: ProgMismatch, MismatchLow: 2, MismatchHigh: 3}).AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Decode((&ReplyHeader{XID: 2, Stat: MsgDenied, RejectStat: AuthError, AuthStat: AuthBadCred}).AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	if want := (ReplyHeader{XID: 2, Stat: MsgDenied, RejectStat: AuthError, AuthStat: AuthBadCred}); !reflect.DeepEqual(r, want) {
		t.Fatalf("leftover fields: %+v", r)
	}
	var c CallHeader
	if _, err := c.Decode(writeCall); err != nil {
		t.Fatal(err)
	}
	null := CallHeader{XID: 9, RPCVers: 2, Prog: ProgNFS, Vers: 4}
	if _, err := c.Decode(null.AppendTo(nil)); err != nil || !reflect.DeepEqual(c, null) {
		t.Fatalf("leftover fields: %+v, %v", c, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	call := (&CallHeader{XID: 1, RPCVers: 2, Prog: ProgNFS, Vers: 3, Proc: 1,
		Cred: OpaqueAuth{Flavor: AuthSys, Body: make([]byte, 20)}}).AppendTo(nil)
	tooBig := append(append([]byte(nil), call[:24]...), 0, 0, 0, 1, 0, 0, 1, 0x91) // body length 401
	tests := []struct {
		name   string
		in     []byte
		decode func([]byte) error
		msg    string
		off    int
	}{
		{"call empty", nil, decodeCall, "oncrpc: offset 0: need 4 bytes for xid, have 0", 0},
		{"call no type", call[:6], decodeCall, "oncrpc: offset 4: need 4 bytes for msg_type, have 2", 4},
		{"reply as call", readReply, decodeCall, "oncrpc: offset 4: msg_type is 1, not Call (0)", 4},
		{"call no proc", call[:22], decodeCall, "oncrpc: offset 20: need 4 bytes for proc, have 2", 20},
		{"cred cut", call[:30], decodeCall, "oncrpc: offset 28: need 4 bytes for cred length, have 2", 28},
		{"cred body cut", call[:40], decodeCall, "oncrpc: offset 32: need 20 bytes for cred, have 8", 32},
		{"cred too big", tooBig, decodeCall, "oncrpc: offset 28: cred length 401 exceeds maximum 400", 28},
		{"verf missing", call[:52], decodeCall, "oncrpc: offset 52: need 4 bytes for verf, have 0", 52},
		{"call as reply", call, decodeReply, "oncrpc: offset 4: msg_type is 0, not Reply (1)", 4},
		{"reply stat 2", words(1, 1, 2), decodeReply,
			"oncrpc: offset 8: reply_stat is 2, neither MSG_ACCEPTED (0) nor MSG_DENIED (1)", 8},
		{"reply no verf", words(1, 1, 0), decodeReply, "oncrpc: offset 12: need 4 bytes for verf, have 0", 12},
		{"reply no accept_stat", words(1, 1, 0, 0, 0), decodeReply,
			"oncrpc: offset 20: need 4 bytes for accept_stat, have 0", 20},
		{"mismatch cut", words(1, 1, 0, 0, 0, 2, 2), decodeReply,
			"oncrpc: offset 28: need 4 bytes for mismatch_info high, have 0", 28},
		{"reject stat 5", words(1, 1, 1, 5), decodeReply,
			"oncrpc: offset 12: reject_stat is 5, neither RPC_MISMATCH (0) nor AUTH_ERROR (1)", 12},
		{"auth_stat missing", words(1, 1, 1, 1), decodeReply,
			"oncrpc: offset 16: need 4 bytes for auth_stat, have 0", 16},
		{"authsys machinename too long", words(0, 256), decodeAuthSys,
			"oncrpc: offset 4: machinename length 256 exceeds maximum 255", 4},
		{"authsys 17 gids", words(0, 0, 0, 0, 17), decodeAuthSys,
			"oncrpc: offset 16: gids count 17 exceeds maximum 16", 16},
		{"authsys trailing", words(0, 0, 0, 0, 0, 9), decodeAuthSys,
			"oncrpc: offset 20: 4 bytes left over after the AUTH_SYS parameters", 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode(tt.in)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.msg {
				t.Errorf("error %q\n  want %q", err, tt.msg)
			}
			var xe *xdr.Error
			if !errors.As(err, &xe) || xe.Offset != tt.off || xe.Offset > len(tt.in) {
				t.Errorf("error %+v, want offset %d", xe, tt.off)
			}
		})
	}
}

func decodeCall(b []byte) error {
	var h CallHeader
	_, err := h.Decode(b)
	return err
}

func decodeReply(b []byte) error {
	var h ReplyHeader
	_, err := h.Decode(b)
	return err
}

func decodeAuthSys(b []byte) error {
	var p AuthSysParams
	return p.Decode(b)
}

func words(w ...uint32) []byte {
	var x xdr.Writer
	for _, v := range w {
		x.Uint32(v)
	}
	return x.Bytes()
}

func TestPeekMsgType(t *testing.T) {
	if xid, m, ok := PeekMsgType(writeCall); !ok || xid != 0x4bdbd665 || m != Call {
		t.Errorf("call: %#x %v %v", xid, m, ok)
	}
	if xid, m, ok := PeekMsgType(readReply); !ok || xid != 0x47dbd665 || m != Reply {
		t.Errorf("reply: %#x %v %v", xid, m, ok)
	}
	if _, _, ok := PeekMsgType(words(1, 2)); ok {
		t.Error("msg_type 2 accepted")
	}
	if _, _, ok := PeekMsgType(writeCall[:7]); ok {
		t.Error("7 bytes accepted")
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{ProgramName(ProgNFS), "NFS"},
		{ProgramName(ProgMount), "MOUNT"},
		{ProgramName(ProgNLM), "NLM"},
		{ProgramName(ProgNFSACL), "NFSACL"},
		{ProgramName(42), "42"},
		{AuthNone.String(), "AUTH_NULL"},
		{AuthSys.String(), "AUTH_UNIX"},
		{AuthFlavor(99).String(), "AuthFlavor(99)"},
		{Call.String(), "Call"},
		{MsgAccepted.String(), "MSG_ACCEPTED"},
		{ProgMismatch.String(), "PROG_MISMATCH"},
		{AcceptStat(9).String(), "AcceptStat(9)"},
		{AuthError.String(), "AUTH_ERROR"},
		{GSSCtxProblem.String(), "RPCSEC_GSS_CTXPROBLEM"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
