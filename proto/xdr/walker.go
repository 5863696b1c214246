package xdr

// Walker is a Reader with a sticky error: it keeps the first failure, and
// every read after it returns the zero value and consumes nothing. A
// decoder reads a whole structure in a straight line and asks Err once,
// instead of after every field; the error still names the field and the
// offset where the input first went wrong, exactly as the Reader's own
// would, and the walk stops at that item.
//
//	w := xdr.NewWalker(b)
//	h.XID = w.Uint32("xid")
//	h.Prog = w.Uint32("prog")
//	if err := w.Err(); err != nil { ... }
//
// A Walker holds its Reader by value, not by pointer: a decoder returning
// w.Err() then never makes a Reader on its stack escape to the heap, and a
// walk allocates nothing but its errors. Reader.Walk and Finish walk on
// from, and back into, a Reader the caller keeps.
type Walker struct {
	r   Reader
	err error
}

// NewWalker returns a Walker that reads b from its start.
func NewWalker(b []byte) Walker { return Walker{r: NewReader(b)} }

// Walk returns a Walker that reads on from where r stands.
func (r *Reader) Walk() Walker { return Walker{r: *r} }

// Finish moves r to where the walk stopped (the item that failed, if one
// did) and returns the walk's failure.
func (w *Walker) Finish(r *Reader) error {
	*r = w.r
	return w.err
}

// Err returns the first failure, or nil.
func (w *Walker) Err() error { return w.err }

// Fail keeps err as the walk's failure unless one is already kept (the
// first failure is the one that names where the input went wrong): how a
// decoder records a failure of its own, a bad enum value or a count over
// a limit.
func (w *Walker) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Failf is Fail with an *Error at offset for field, as Errorf builds it.
func (w *Walker) Failf(offset int, field, format string, args ...any) {
	if w.err == nil {
		w.err = Errorf(offset, field, format, args...)
	}
}

// Offset returns the offset of the next item in the input.
func (w *Walker) Offset() int { return w.r.off }

// Len returns the number of bytes not yet consumed.
func (w *Walker) Len() int { return w.r.Len() }

// Need reports whether n more bytes are present, consuming nothing; if they
// are not, the failure is that of a read of n bytes named field. After a
// failure it reports false.
func (w *Walker) Need(n int, field string) bool {
	if w.err == nil {
		w.err = w.r.Need(n, field)
	}
	return w.err == nil
}

// Skip consumes n bytes (see Reader.Skip).
func (w *Walker) Skip(n int, field string) {
	if w.err == nil {
		w.err = w.r.Skip(n, field)
	}
}

// Uint32 reads an unsigned int (see Reader.Uint32).
func (w *Walker) Uint32(field string) uint32 {
	if w.err != nil {
		return 0
	}
	v, err := w.r.Uint32(field)
	w.err = err
	return v
}

// Uint64 reads an unsigned hyper (see Reader.Uint64).
func (w *Walker) Uint64(field string) uint64 {
	if w.err != nil {
		return 0
	}
	v, err := w.r.Uint64(field)
	w.err = err
	return v
}

// Bool reads a bool (see Reader.Bool).
func (w *Walker) Bool(field string) bool {
	if w.err != nil {
		return false
	}
	v, err := w.r.Bool(field)
	w.err = err
	return v
}

// OpaqueFixed reads n bytes of fixed-length opaque data (see
// Reader.OpaqueFixed).
func (w *Walker) OpaqueFixed(n int, field string) []byte {
	if w.err != nil {
		return nil
	}
	v, err := w.r.OpaqueFixed(n, field)
	w.err = err
	return v
}

// OpaqueVar reads variable-length opaque data (see Reader.OpaqueVar).
func (w *Walker) OpaqueVar(limit int, field string) []byte {
	if w.err != nil {
		return nil
	}
	v, err := w.r.OpaqueVar(limit, field)
	w.err = err
	return v
}

// String reads a string<limit> (see Reader.String).
func (w *Walker) String(limit int, field string) string {
	if w.err != nil {
		return ""
	}
	v, err := w.r.String(limit, field)
	w.err = err
	return v
}

// Uint32Array reads a counted array of unsigned ints into dst[:0] (see
// Reader.Uint32Array).
func (w *Walker) Uint32Array(dst []uint32, limit int, field string) []uint32 {
	if w.err != nil {
		return dst[:0]
	}
	v, err := w.r.Uint32Array(dst, limit, field)
	w.err = err
	return v
}
