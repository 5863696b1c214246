package xdr

import (
	"errors"
	"testing"
)

// FuzzReader drives a Reader with a script taken from the first input byte
// (one operation per 2 bits) over the rest: no operation may panic, a
// failed one must not move the Reader, and every error must name an offset
// inside the input.
func FuzzReader(f *testing.F) {
	f.Add(append([]byte{0x1b}, fixture...))
	f.Add([]byte{0xff, 0, 0, 0, 3, 'a'})
	f.Add([]byte{0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		script, in := data[0], data[1:]
		r := NewReader(in)
		for i := 0; i < 16; i++ {
			before := r.Offset()
			var err error
			switch (script >> (2 * (i % 4))) & 3 {
			case 0:
				_, err = r.Uint32("u32")
			case 1:
				_, err = r.Uint64("u64")
			case 2:
				var b []byte
				b, err = r.OpaqueVar(64, "opaque")
				if err == nil && r.Offset() != before+4+RoundUp(len(b)) {
					t.Fatalf("opaque of %d bytes moved the reader %d bytes", len(b), r.Offset()-before)
				}
			case 3:
				_, err = r.Bool("bool")
			}
			if err != nil {
				var xe *Error
				if !errors.As(err, &xe) {
					t.Fatalf("error %v is not an *Error", err)
				}
				if xe.Offset < 0 || xe.Offset > len(in) {
					t.Fatalf("error offset %d outside the input (%d bytes)", xe.Offset, len(in))
				}
				if r.Offset() != before {
					t.Fatalf("failed read moved the reader from %d to %d", before, r.Offset())
				}
			}
			if r.Offset() > len(in) {
				t.Fatalf("offset %d past the input (%d bytes)", r.Offset(), len(in))
			}
		}
	})
}
