package oncrpc

// Call header (RFC 5531 §9, rpc_msg with mtype CALL and call_body):
//
//	offset  0 +-------------------------------+
//	          | xid                           |
//	        4 | mtype = CALL (0)              |
//	        8 | rpcvers = 2                   |
//	       12 | prog                          |
//	       16 | vers                          |
//	       20 | proc                          |
//	       24 | cred: flavor, length, body    |  opaque_auth
//	          | verf: flavor, length, body    |  opaque_auth
//	          +-------------------------------+
//	          | procedure arguments ...       |  (the program's, e.g. NFS)

import "github.com/rdmalab/rdmalab/proto/xdr"

// CallHeader is the header of an RPC call, up to the procedure arguments.
type CallHeader struct {
	XID     uint32
	RPCVers uint32 // 2; decoded as sent, not checked
	Prog    uint32
	Vers    uint32
	Proc    uint32
	Cred    OpaqueAuth
	Verf    OpaqueAuth
}

// Len returns the encoded length of h: the offset of the arguments.
func (h *CallHeader) Len() int { return 24 + h.Cred.len() + h.Verf.len() }

// AppendTo appends the encoded call header to b.
func (h *CallHeader) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	h.EncodeXDR(&w)
	return w.Bytes()
}

// EncodeXDR appends the encoded call header to w.
func (h *CallHeader) EncodeXDR(w *xdr.Writer) {
	w.Uint32(h.XID)
	w.Uint32(uint32(Call))
	w.Uint32(h.RPCVers)
	w.Uint32(h.Prog)
	w.Uint32(h.Vers)
	w.Uint32(h.Proc)
	h.Cred.EncodeXDR(w)
	h.Verf.EncodeXDR(w)
}

// Decode decodes the call header at the start of b and returns its length:
// the procedure arguments start at b[n:]. The credential and verifier
// bodies alias b. Errors are *xdr.Error values with offsets in b.
func (h *CallHeader) Decode(b []byte) (n int, err error) {
	r := xdr.NewReader(b)
	if err := h.DecodeXDR(&r); err != nil {
		return 0, err
	}
	return r.Offset(), nil
}

// DecodeXDR decodes a call header from r, leaving r at the arguments.
// h is reset first.
func (h *CallHeader) DecodeXDR(r *xdr.Reader) error {
	*h = CallHeader{}
	w := r.Walk()
	h.XID = w.Uint32("xid")
	checkMsgType(&w, Call)
	h.RPCVers = w.Uint32("rpcvers")
	h.Prog = w.Uint32("prog")
	h.Vers = w.Uint32("vers")
	h.Proc = w.Uint32("proc")
	h.Cred.walk(&w, "cred")
	h.Verf.walk(&w, "verf")
	return xdr.WithLayer(w.Finish(r), layer)
}
