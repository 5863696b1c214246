package oncrpc

// Authentication (RFC 5531 §8.2 opaque_auth, §14 AUTH_SYS):
//
//	opaque_auth                         AUTH_SYS body (authsys_parms)
//	+---------------------------+       +-------------------------------+
//	| flavor                    |       | stamp                         |
//	+---------------------------+       +-------------------------------+
//	| body length (<= 400)      |       | machinename length (<= 255)   |
//	+---------------------------+       | machinename bytes + pad       |
//	| body bytes + pad          |       +-------------------------------+
//	+---------------------------+       | uid                           |
//	                                    | gid                           |
//	                                    | gids count (<= 16)            |
//	                                    | gids...                       |
//	                                    +-------------------------------+

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// AuthFlavor is an authentication flavor, auth_flavor.
type AuthFlavor uint32

// Authentication flavors (RFC 5531 §8.2; RPCSEC_GSS: RFC 2203; AUTH_TLS:
// RFC 9289).
const (
	AuthNone  AuthFlavor = 0 // AUTH_NONE (Wireshark: AUTH_NULL)
	AuthSys   AuthFlavor = 1 // AUTH_SYS (Wireshark: AUTH_UNIX)
	AuthShort AuthFlavor = 2 // AUTH_SHORT
	AuthDH    AuthFlavor = 3 // AUTH_DH
	RPCSecGSS AuthFlavor = 6 // RPCSEC_GSS
	AuthTLS   AuthFlavor = 7 // AUTH_TLS
)

// MaxAuthLen is the largest opaque_auth body (RFC 5531 §8.2).
const MaxAuthLen = 400

var authFlavorNames = [...]string{AuthNone: "AUTH_NULL", AuthSys: "AUTH_UNIX", AuthShort: "AUTH_SHORT",
	AuthDH: "AUTH_DES", RPCSecGSS: "RPCSEC_GSS", AuthTLS: "AUTH_TLS"}

// String returns the name Wireshark shows for f ("AUTH_UNIX"), or
// AuthFlavor(N) for a value without one.
func (f AuthFlavor) String() string {
	if int(f) < len(authFlavorNames) && authFlavorNames[f] != "" {
		return authFlavorNames[f]
	}
	return fmt.Sprintf("AuthFlavor(%d)", uint32(f))
}

// OpaqueAuth is a credential or verifier: a flavor and an opaque body of at
// most 400 bytes. A decoded Body aliases the input; an empty one is nil.
type OpaqueAuth struct {
	Flavor AuthFlavor
	Body   []byte
}

// DecodeXDR reads an opaque_auth; field names it in errors ("cred").
func (a *OpaqueAuth) DecodeXDR(r *xdr.Reader, field string) error {
	w := r.Walk()
	a.walk(&w, field)
	return xdr.WithLayer(w.Finish(r), layer)
}

func (a *OpaqueAuth) walk(w *xdr.Walker, field string) {
	a.Flavor = AuthFlavor(w.Uint32(field))
	a.Body = w.OpaqueVar(MaxAuthLen, field)
}

// EncodeXDR appends a.
func (a *OpaqueAuth) EncodeXDR(w *xdr.Writer) {
	w.Uint32(uint32(a.Flavor))
	w.OpaqueVar(a.Body)
}

// len returns the encoded length of a.
func (a *OpaqueAuth) len() int { return 8 + xdr.RoundUp(len(a.Body)) }

// AuthSysParams is the body of an AUTH_SYS credential (authsys_parms).
type AuthSysParams struct {
	Stamp       uint32
	MachineName string // at most 255 bytes
	UID, GID    uint32
	GIDs        []uint32 // at most 16; nil when none
}

// Limits of authsys_parms.
const (
	MaxMachineName = 255
	MaxGIDs        = 16
)

// Decode decodes an AUTH_SYS body (an OpaqueAuth's Body). Error offsets are
// relative to body.
func (p *AuthSysParams) Decode(body []byte) error {
	w := xdr.NewWalker(body)
	*p = AuthSysParams{}
	p.Stamp = w.Uint32("stamp")
	p.MachineName = w.String(MaxMachineName, "machinename")
	p.UID = w.Uint32("uid")
	p.GID = w.Uint32("gid")
	if p.GIDs = w.Uint32Array(nil, MaxGIDs, "gids"); len(p.GIDs) == 0 {
		p.GIDs = nil
	}
	if w.Len() != 0 {
		w.Failf(w.Offset(), "credential body", "%d bytes left over after the AUTH_SYS parameters", w.Len())
	}
	return xdr.WithLayer(w.Err(), layer)
}

// AppendTo appends the encoded AUTH_SYS body to b.
func (p *AuthSysParams) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.Uint32(p.Stamp)
	w.String(p.MachineName)
	w.Uint32(p.UID)
	w.Uint32(p.GID)
	w.Uint32Array(p.GIDs)
	return w.Bytes()
}

// Auth returns an AUTH_SYS credential carrying p.
func (p *AuthSysParams) Auth() OpaqueAuth {
	return OpaqueAuth{Flavor: AuthSys, Body: p.AppendTo(nil)}
}
