package xdr

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// fixture holds one of each item:
//
//	00000000  00 00 00 07 ff ff ff fe  00 00 00 01 00 00 00 00  |................|
//	00000010  00 00 01 02 00 00 00 03  61 62 63 00 00 00 00 02  |........abc.....|
//	00000020  68 69 00 00 de ad 00 00  00 00 00 02 00 00 00 0a  |hi..............|
//	00000030  00 00 00 0b                                       |....|
var fixture = []byte{
	0x00, 0x00, 0x00, 0x07, // uint32 7
	0xff, 0xff, 0xff, 0xfe, // int32 -2
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // uint64 1<<32
	0x00, 0x00, 0x01, 0x02, // uint32 258 (the length word below is separate)
	0x00, 0x00, 0x00, 0x03, 'a', 'b', 'c', 0x00, // opaque<> "abc" + 1 pad byte
	0x00, 0x00, 0x00, 0x02, 'h', 'i', 0x00, 0x00, // string<> "hi" + 2 pad bytes
	0xde, 0xad, 0x00, 0x00, // opaque[2] + 2 pad bytes
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x0b, // uint32<> {10, 11}
}

func TestReaderFixture(t *testing.T) {
	r := NewReader(fixture)
	if v, err := r.Uint32("a"); err != nil || v != 7 {
		t.Fatalf("Uint32 = %d, %v", v, err)
	}
	if v, err := r.Int32("b"); err != nil || v != -2 {
		t.Fatalf("Int32 = %d, %v", v, err)
	}
	if v, err := r.Uint64("c"); err != nil || v != 1<<32 {
		t.Fatalf("Uint64 = %d, %v", v, err)
	}
	if v, err := r.Uint32("d"); err != nil || v != 258 {
		t.Fatalf("Uint32 = %d, %v", v, err)
	}
	b, err := r.OpaqueVar(3, "e")
	if err != nil || string(b) != "abc" {
		t.Fatalf("OpaqueVar = %q, %v", b, err)
	}
	if r.Offset() != 28 {
		t.Fatalf("Offset after opaque = %d, want 28", r.Offset())
	}
	if s, err := r.String(NoLimit, "f"); err != nil || s != "hi" {
		t.Fatalf("String = %q, %v", s, err)
	}
	if b, err := r.OpaqueFixed(2, "g"); err != nil || !bytes.Equal(b, []byte{0xde, 0xad}) {
		t.Fatalf("OpaqueFixed = %x, %v", b, err)
	}
	a, err := r.Uint32Array(nil, 2, "h")
	if err != nil || !reflect.DeepEqual(a, []uint32{10, 11}) {
		t.Fatalf("Uint32Array = %v, %v", a, err)
	}
	if r.Len() != 0 || r.Offset() != len(fixture) {
		t.Fatalf("Len = %d Offset = %d at the end", r.Len(), r.Offset())
	}
}

func TestOpaqueAliasesInput(t *testing.T) {
	in := []byte{0, 0, 0, 2, 'x', 'y', 0, 0}
	r := NewReader(in)
	b, err := r.OpaqueVar(NoLimit, "data")
	if err != nil {
		t.Fatal(err)
	}
	in[4] = 'z'
	if string(b) != "zy" {
		t.Fatalf("opaque does not alias the input: %q", b)
	}
	if cap(b) != 2 {
		t.Fatalf("cap = %d: appending to the result would overwrite the input", cap(b))
	}
}

func TestZeroLengthOpaqueIsNil(t *testing.T) {
	r := NewReader([]byte{0, 0, 0, 0})
	b, err := r.OpaqueVar(NoLimit, "data")
	if err != nil || b != nil {
		t.Fatalf("OpaqueVar = %#v, %v; want nil, nil", b, err)
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		skip    int // bytes consumed first
		read    func(r *Reader) error
		wantMsg string
		wantOff int
	}{
		{"uint32 short", []byte{1, 2}, 0,
			func(r *Reader) error { _, err := r.Uint32("read segment position"); return err },
			"xdr: offset 0: need 4 bytes for read segment position, have 2", 0},
		{"uint32 short at 20", make([]byte, 22), 20,
			func(r *Reader) error { _, err := r.Uint32("read segment position"); return err },
			"xdr: offset 20: need 4 bytes for read segment position, have 2", 20},
		{"uint64 short", make([]byte, 7), 0,
			func(r *Reader) error { _, err := r.Uint64("offset"); return err },
			"xdr: offset 0: need 8 bytes for offset, have 7", 0},
		{"bool 2", []byte{0, 0, 0, 4, 0, 0, 0, 2}, 4,
			func(r *Reader) error { _, err := r.Bool("eof"); return err },
			"xdr: offset 4: eof is 2, not a boolean (0 or 1)", 4},
		{"opaque over limit", []byte{0, 0, 1, 0}, 0,
			func(r *Reader) error { _, err := r.OpaqueVar(255, "machine name"); return err },
			"xdr: offset 0: machine name length 256 exceeds maximum 255", 0},
		{"opaque data short", []byte{0, 0, 0, 5, 'a', 'b'}, 0,
			func(r *Reader) error { _, err := r.OpaqueVar(NoLimit, "data"); return err },
			"xdr: offset 4: need 8 bytes for data, have 2", 4},
		{"opaque huge length", []byte{0xff, 0xff, 0xff, 0xff}, 0,
			func(r *Reader) error { _, err := r.OpaqueVar(NoLimit, "data"); return err },
			"xdr: offset 4: need 4294967296 bytes for data, have 0", 4},
		{"opaque length short", []byte{0, 0}, 0,
			func(r *Reader) error { _, err := r.OpaqueVar(NoLimit, "name"); return err },
			"xdr: offset 0: need 4 bytes for name length, have 2", 0},
		{"fixed pad missing", []byte{1, 2, 3}, 0,
			func(r *Reader) error { _, err := r.OpaqueFixed(3, "verifier"); return err },
			"xdr: offset 0: need 4 bytes for verifier, have 3", 0},
		{"array over limit", []byte{0, 0, 0, 17}, 0,
			func(r *Reader) error { _, err := r.Uint32Array(nil, 16, "gids"); return err },
			"xdr: offset 0: gids count 17 exceeds maximum 16", 0},
		{"array short", []byte{0, 0, 0, 2, 0, 0, 0, 1}, 0,
			func(r *Reader) error { _, err := r.Uint32Array(nil, NoLimit, "gids"); return err },
			"xdr: offset 4: need 8 bytes for gids, have 4", 4},
		{"skip short", []byte{1}, 0,
			func(r *Reader) error { return r.Skip(2, "stateid") },
			"xdr: offset 0: need 2 bytes for stateid, have 1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.in)
			if err := r.Skip(tt.skip, "prefix"); err != nil {
				t.Fatal(err)
			}
			err := tt.read(&r)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.wantMsg {
				t.Errorf("error = %q\n want   %q", err, tt.wantMsg)
			}
			var xe *Error
			if !errors.As(err, &xe) || xe.Offset != tt.wantOff {
				t.Errorf("error offset = %+v, want %d", xe, tt.wantOff)
			}
			if r.Offset() != tt.skip {
				t.Errorf("a failed read consumed bytes: offset %d, want %d", r.Offset(), tt.skip)
			}
		})
	}
}

func TestWithLayer(t *testing.T) {
	r := NewReader(nil)
	_, err := r.Uint32("xid")
	err = WithLayer(err, "oncrpc")
	err = WithLayer(err, "nfs") // the innermost layer keeps its name
	if got, want := err.Error(), "oncrpc: offset 0: need 4 bytes for xid, have 0"; got != want {
		t.Fatalf("error = %q, want %q", got, want)
	}
	if WithLayer(nil, "x") != nil {
		t.Fatal("WithLayer(nil) is not nil")
	}
}

func TestWriterMatchesFixture(t *testing.T) {
	var w Writer
	w.Uint32(7)
	w.Int32(-2)
	w.Uint64(1 << 32)
	w.Uint32(258)
	w.OpaqueVar([]byte("abc"))
	w.String("hi")
	w.OpaqueFixed([]byte{0xde, 0xad})
	w.Uint32Array([]uint32{10, 11})
	if !bytes.Equal(w.Bytes(), fixture) {
		t.Fatalf("Writer output\n%x\nwant\n%x", w.Bytes(), fixture)
	}
}

func TestWriterAppendsAndRoundTrips(t *testing.T) {
	w := NewWriter([]byte{0xaa})
	w.Bool(true)
	w.Bool(false)
	w.Int64(-5)
	if w.Len() != 1+4+4+8 {
		t.Fatalf("Len = %d", w.Len())
	}
	r := NewReader(w.Bytes()[1:])
	if v, _ := r.Bool("t"); !v {
		t.Error("true did not round-trip")
	}
	if v, _ := r.Bool("f"); v {
		t.Error("false did not round-trip")
	}
	if v, _ := r.Int64("h"); v != -5 {
		t.Errorf("Int64 = %d", v)
	}
}

func TestPad(t *testing.T) {
	for n, want := range []int{0, 3, 2, 1, 0, 3} {
		if PadLen(n) != want || RoundUp(n) != n+want {
			t.Errorf("PadLen(%d) = %d, RoundUp = %d", n, PadLen(n), RoundUp(n))
		}
	}
}

func TestReaderDoesNotAllocate(t *testing.T) {
	in := fixture
	dst := make([]uint32, 0, 4)
	allocs := testing.AllocsPerRun(100, func() {
		r := NewReader(in)
		r.Uint32("a")
		r.Int32("b")
		r.Uint64("c")
		r.Uint32("d")
		r.OpaqueVar(NoLimit, "e")
		r.OpaqueVar(NoLimit, "f")
		r.OpaqueFixed(2, "g")
		r.Uint32Array(dst, NoLimit, "h")
	})
	if allocs != 0 {
		t.Fatalf("read path allocates %v times per run", allocs)
	}
}

func TestReaderAccessors(t *testing.T) {
	in := []byte{0, 0, 0, 1, 0xaa, 0xbb}
	r := NewReader(in)
	if _, err := r.Uint32("x"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Rest(), []byte{0xaa, 0xbb}) || &r.Input()[0] != &in[0] || r.Len() != 2 {
		t.Fatalf("Rest %x Len %d", r.Rest(), r.Len())
	}
	if err := r.Need(2, "y"); err != nil {
		t.Fatal(err)
	}
	if err := r.Need(3, "y"); err == nil || err.Error() != "xdr: offset 4: need 3 bytes for y, have 2" {
		t.Fatalf("Need(3) = %v", err)
	}
	r.Reset(in[4:])
	if r.Offset() != 0 || r.Len() != 2 {
		t.Fatalf("after Reset: offset %d len %d", r.Offset(), r.Len())
	}
	var zero Reader
	if _, err := zero.Uint32("z"); err == nil {
		t.Fatal("the zero Reader read a word")
	}
}
