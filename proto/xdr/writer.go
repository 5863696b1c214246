package xdr

// Writer encoding, RFC 4506 §4: each call appends one item and its padding.
//
//	+--------+--------+--------+--------+--------+--------+...+--------+
//	| uint32 |     uint64      | len n  | n bytes | 0..3 zero bytes    |
//	+--------+--------+--------+--------+--------+--------+...+--------+
//	                                    ^ Len() before OpaqueVar's data

import "encoding/binary"

// Writer appends XDR items to a byte slice. The zero Writer starts with an
// empty slice; NewWriter appends to an existing one (whose length then
// counts in Len, so positions stay relative to the start of that slice).
type Writer struct {
	buf []byte
}

// NewWriter returns a Writer that appends to b.
func NewWriter(b []byte) Writer { return Writer{buf: b} }

// Bytes returns the slice built so far.
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns the length of the slice built so far: the offset the next item
// will start at.
func (w *Writer) Len() int { return len(w.buf) }

// Uint32 appends an unsigned int.
func (w *Writer) Uint32(v uint32) { w.buf = binary.BigEndian.AppendUint32(w.buf, v) }

// Int32 appends a signed int.
func (w *Writer) Int32(v int32) { w.Uint32(uint32(v)) }

// Uint64 appends an unsigned hyper.
func (w *Writer) Uint64(v uint64) { w.buf = binary.BigEndian.AppendUint64(w.buf, v) }

// Int64 appends a signed hyper.
func (w *Writer) Int64(v int64) { w.Uint64(uint64(v)) }

// Bool appends a bool as 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.Uint32(1)
	} else {
		w.Uint32(0)
	}
}

// Pad appends the zero bytes that follow n bytes of opaque data.
func (w *Writer) Pad(n int) {
	for i := PadLen(n); i > 0; i-- {
		w.buf = append(w.buf, 0)
	}
}

// OpaqueFixed appends b as fixed-length opaque data, with its padding.
func (w *Writer) OpaqueFixed(b []byte) {
	w.buf = append(w.buf, b...)
	w.Pad(len(b))
}

// OpaqueVar appends b as variable-length opaque data: its length, its bytes
// and their padding.
func (w *Writer) OpaqueVar(b []byte) {
	w.Uint32(uint32(len(b)))
	w.OpaqueFixed(b)
}

// String appends s as an XDR string (encoded like OpaqueVar).
func (w *Writer) String(s string) {
	w.Uint32(uint32(len(s)))
	w.buf = append(w.buf, s...)
	w.Pad(len(s))
}

// Uint32Array appends a counted array of unsigned ints.
func (w *Writer) Uint32Array(v []uint32) {
	w.Uint32(uint32(len(v)))
	for _, x := range v {
		w.Uint32(x)
	}
}
