// Package xdr holds the small XDR (RFC 4506) primitives the rdmalab codecs
// share: a Reader over a byte slice that tracks its offset and names the
// offset and the field in every error, a Walker that reads the same way
// but keeps the first error (so a decoder checks once, not after every
// field), and a Writer that appends.
//
// The data types used by RPC-over-RDMA, ONC RPC and NFS, as RFC 4506 lays
// them out (every item is a multiple of four bytes, big-endian):
//
//	unsigned int / int / enum / bool (§4.1-4.4)
//	+--------+--------+--------+--------+
//	| byte 0 | byte 1 | byte 2 | byte 3 |   MSB first; bool is 0 or 1
//	+--------+--------+--------+--------+
//
//	unsigned hyper / hyper (§4.5)
//	+--------+--------+--------+--------+--------+--------+--------+--------+
//	| byte 0 | byte 1 | byte 2 | byte 3 | byte 4 | byte 5 | byte 6 | byte 7 |
//	+--------+--------+--------+--------+--------+--------+--------+--------+
//
//	fixed-length opaque[n] (§4.9)
//	+--------+--------+...+--------+--------+...+--------+
//	| byte 0 | byte 1 |...|byte n-1|    0   |...|    0   |  r zero bytes,
//	+--------+--------+...+--------+--------+...+--------+  (n+r) mod 4 = 0
//
//	variable-length opaque<m> and string<m> (§4.10, §4.11)
//	+--------+--------+--------+--------+--------+...+--------+--------+...+--------+
//	|        length n (0 <= n <= m)     | byte 0 |...|byte n-1|    0   |...|    0   |
//	+--------+--------+--------+--------+--------+...+--------+--------+...+--------+
//
// Reading never copies: opaque data comes back as a sub-slice of the input,
// so a caller that keeps it past the life of the input must copy it.
package xdr

import "fmt"

// Unit is the XDR basic block size: every item occupies a multiple of it.
const Unit = 4

// PadLen returns the number of zero bytes XDR adds after n bytes of opaque
// data (0 to 3).
func PadLen(n int) int { return (Unit - n%Unit) % Unit }

// RoundUp returns n rounded up to a multiple of 4, the space n bytes of
// opaque data take in an XDR stream (the kernel's xdr_align_size).
func RoundUp(n int) int { return n + PadLen(n) }

// Error reports a decoding failure: where it happened (the byte offset in
// the input the decoder was given) and what was being read.
//
// Its text is "LAYER: offset N: MSG", for instance
// "xdr: offset 20: need 4 bytes for read segment position, have 2".
type Error struct {
	Layer  string // protocol layer that reports the error; "xdr" when empty
	Offset int    // byte offset of the item that could not be decoded
	Field  string // the item being read ("read segment position")
	Msg    string // what is wrong, naming Field
}

func (e *Error) Error() string {
	layer := e.Layer
	if layer == "" {
		layer = "xdr"
	}
	return fmt.Sprintf("%s: offset %d: %s", layer, e.Offset, e.Msg)
}

// Errorf returns an *Error at offset for field, its message formatted from
// format and args. Decoders built on a Reader use it for semantic checks
// (a bad enum value, a count over a limit) so that their errors read like
// the Reader's own.
func Errorf(offset int, field, format string, args ...any) *Error {
	return &Error{Offset: offset, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// WithLayer sets the Layer of err when err is an *Error that has none yet,
// and returns err. A protocol package calls it where its decoder returns, so
// the innermost layer that saw the failure names it.
func WithLayer(err error, layer string) error {
	if e, ok := err.(*Error); ok && e.Layer == "" {
		e.Layer = layer
	}
	return err
}
