package xdr

// Reader decoding, RFC 4506 §4: each call consumes one item and its padding.
//
//	offset:  0        4        8                 16       20
//	         +--------+--------+--------+--------+--------+--------+...
//	         | uint32 |  bool  |     uint64      | len n  | n bytes + pad
//	         +--------+--------+--------+--------+--------+--------+...
//	                                                      ^ Offset() after the length word

import (
	"encoding/binary"
	"fmt"
)

// NoLimit, given as the limit of a variable-length item, accepts any length
// the input can hold.
const NoLimit = -1

// Reader decodes XDR items from a byte slice, front to back. The zero Reader
// reads from an empty input; NewReader or Reset give it one.
//
// Every method takes the name of the field it reads; on failure it returns
// an *Error naming that field and its byte offset, and consumes nothing.
// Nothing on the read path allocates except String and the errors.
type Reader struct {
	buf []byte
	off int
}

// NewReader returns a Reader positioned at the start of b.
func NewReader(b []byte) Reader { return Reader{buf: b} }

// Reset makes r read b from its start.
func (r *Reader) Reset(b []byte) { r.buf, r.off = b, 0 }

// Offset returns the number of bytes consumed so far: the offset, in the
// input, of the next item.
func (r *Reader) Offset() int { return r.off }

// Len returns the number of bytes not yet consumed.
func (r *Reader) Len() int { return len(r.buf) - r.off }

// Input returns the whole input slice given to NewReader or Reset.
func (r *Reader) Input() []byte { return r.buf }

// Rest returns the bytes not yet consumed (a sub-slice of the input).
func (r *Reader) Rest() []byte { return r.buf[r.off:] }

// short returns the error for an item of n bytes that does not fit.
func (r *Reader) short(n uint64, field string) *Error {
	return &Error{Offset: r.off, Field: field,
		Msg: fmt.Sprintf("need %d bytes for %s, have %d", n, field, r.Len())}
}

// Need reports, without consuming anything, whether n more bytes are
// present; if not it returns the error a read of n bytes would return.
func (r *Reader) Need(n int, field string) error {
	if n < 0 || n > r.Len() {
		return r.short(uint64(max(n, 0)), field)
	}
	return nil
}

// Uint32 reads an unsigned int (also enum values and discriminators).
func (r *Reader) Uint32(field string) (uint32, error) {
	if r.Len() < 4 {
		return 0, r.short(4, field)
	}
	v := binary.BigEndian.Uint32(r.buf[r.off:])
	r.off += 4
	return v, nil
}

// Int32 reads a signed int.
func (r *Reader) Int32(field string) (int32, error) {
	v, err := r.Uint32(field)
	return int32(v), err
}

// Uint64 reads an unsigned hyper.
func (r *Reader) Uint64(field string) (uint64, error) {
	if r.Len() < 8 {
		return 0, r.short(8, field)
	}
	v := binary.BigEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return v, nil
}

// Int64 reads a signed hyper.
func (r *Reader) Int64(field string) (int64, error) {
	v, err := r.Uint64(field)
	return int64(v), err
}

// Bool reads a bool. RFC 4506 §4.4 defines only 0 and 1; any other value is
// an error (and the Reader does not advance).
func (r *Reader) Bool(field string) (bool, error) {
	off := r.off
	v, err := r.Uint32(field)
	if err != nil {
		return false, err
	}
	if v > 1 {
		r.off = off
		return false, Errorf(off, field, "%s is %d, not a boolean (0 or 1)", field, v)
	}
	return v == 1, nil
}

// OpaqueFixed reads n bytes of fixed-length opaque data and their padding.
// The result aliases the input.
func (r *Reader) OpaqueFixed(n int, field string) ([]byte, error) {
	total := RoundUp(n)
	if n < 0 || total > r.Len() {
		return nil, r.short(uint64(max(total, 0)), field)
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += total
	return b, nil
}

// OpaqueVar reads variable-length opaque data: a length word, then that
// many bytes and their padding. A length over limit (unless limit is
// NoLimit) is an error at the length word. The result aliases the input; a
// zero length gives nil.
func (r *Reader) OpaqueVar(limit int, field string) ([]byte, error) {
	off := r.off
	if r.Len() < 4 {
		return nil, r.short(4, field+" length")
	}
	n, _ := r.Uint32(field)
	if limit >= 0 && uint64(n) > uint64(limit) {
		r.off = off
		return nil, Errorf(off, field, "%s length %d exceeds maximum %d", field, n, limit)
	}
	need := uint64(n) + uint64(PadLen(int(n%4)))
	if need > uint64(r.Len()) {
		e := r.short(need, field)
		r.off = off
		return nil, e
	}
	if n == 0 {
		return nil, nil
	}
	return r.OpaqueFixed(int(n), field)
}

// String reads a string<limit> (variable-length, like OpaqueVar) and copies
// it into a Go string.
func (r *Reader) String(limit int, field string) (string, error) {
	b, err := r.OpaqueVar(limit, field)
	return string(b), err
}

// Skip consumes n bytes (no padding is added: n is the exact byte count).
func (r *Reader) Skip(n int, field string) error {
	if err := r.Need(n, field); err != nil {
		return err
	}
	r.off += n
	return nil
}

// Uint32Array reads a counted array of unsigned ints (count word, then the
// values) into dst[:0] and returns it, reusing dst's storage when it is big
// enough. A count over limit (unless limit is NoLimit) is an error at the
// count word.
func (r *Reader) Uint32Array(dst []uint32, limit int, field string) ([]uint32, error) {
	off := r.off
	if r.Len() < 4 {
		return dst[:0], r.short(4, field+" count")
	}
	n, _ := r.Uint32(field)
	if limit >= 0 && uint64(n) > uint64(limit) {
		r.off = off
		return dst[:0], Errorf(off, field, "%s count %d exceeds maximum %d", field, n, limit)
	}
	if uint64(n)*4 > uint64(r.Len()) {
		e := r.short(uint64(n)*4, field)
		r.off = off
		return dst[:0], e
	}
	dst = dst[:0]
	for i := uint32(0); i < n; i++ {
		dst = append(dst, binary.BigEndian.Uint32(r.buf[r.off:]))
		r.off += 4
	}
	return dst, nil
}
