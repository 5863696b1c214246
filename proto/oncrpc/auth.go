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

// String returns the name Wireshark shows for f ("AUTH_UNIX").
func (f AuthFlavor) String() string {
	switch f {
	case AuthNone:
		return "AUTH_NULL"
	case AuthSys:
		return "AUTH_UNIX"
	case AuthShort:
		return "AUTH_SHORT"
	case AuthDH:
		return "AUTH_DES"
	case RPCSecGSS:
		return "RPCSEC_GSS"
	case AuthTLS:
		return "AUTH_TLS"
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
	f, err := r.Uint32(field)
	if err != nil {
		return xdr.WithLayer(err, layer)
	}
	a.Flavor = AuthFlavor(f)
	a.Body, err = r.OpaqueVar(MaxAuthLen, field)
	return xdr.WithLayer(err, layer)
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
	r := xdr.NewReader(body)
	var err error
	*p = AuthSysParams{}
	if p.Stamp, err = r.Uint32("stamp"); err != nil {
		return xdr.WithLayer(err, layer)
	}
	if p.MachineName, err = r.String(MaxMachineName, "machinename"); err != nil {
		return xdr.WithLayer(err, layer)
	}
	if p.UID, err = r.Uint32("uid"); err != nil {
		return xdr.WithLayer(err, layer)
	}
	if p.GID, err = r.Uint32("gid"); err != nil {
		return xdr.WithLayer(err, layer)
	}
	if p.GIDs, err = r.Uint32Array(nil, MaxGIDs, "gids"); err != nil {
		return xdr.WithLayer(err, layer)
	}
	if len(p.GIDs) == 0 {
		p.GIDs = nil
	}
	if r.Len() != 0 {
		return xdr.WithLayer(xdr.Errorf(r.Offset(), "credential body",
			"%d bytes left over after the AUTH_SYS parameters", r.Len()), layer)
	}
	return nil
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
