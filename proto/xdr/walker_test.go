package xdr

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func TestWalkerFixture(t *testing.T) {
	w := NewWalker(fixture)
	a, b, c, d := w.Uint32("a"), w.Uint32("b"), w.Uint64("c"), w.Uint32("d")
	e := w.OpaqueVar(3, "e")
	f := w.String(NoLimit, "f")
	g := w.OpaqueFixed(2, "g")
	h := w.Uint32Array(nil, 2, "h")
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	if a != 7 || int32(b) != -2 || c != 1<<32 || d != 258 || string(e) != "abc" || f != "hi" ||
		!bytes.Equal(g, []byte{0xde, 0xad}) || !reflect.DeepEqual(h, []uint32{10, 11}) {
		t.Fatalf("walked %d %d %d %d %q %q %x %v", a, int32(b), c, d, e, f, g, h)
	}
	if w.Len() != 0 || w.Offset() != len(fixture) {
		t.Fatalf("Len = %d Offset = %d at the end", w.Len(), w.Offset())
	}
}

// A failed read is the Reader's, word for word; every read after it
// returns zero and consumes nothing, and the first failure stays.
func TestWalkerSticky(t *testing.T) {
	in := []byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0}
	w := NewWalker(in)
	w.Uint32("xid")
	w.Bool("flag")
	if err := w.Err(); err == nil || err.Error() != "xdr: offset 4: flag is 2, not a boolean (0 or 1)" {
		t.Fatalf("Err = %v", err)
	}
	first := w.Err()
	if v := w.Uint32("next"); v != 0 || w.Offset() != 4 || w.Err() != first {
		t.Fatalf("after the failure: %d at %d, %v", v, w.Offset(), w.Err())
	}
	if w.Uint64("u64") != 0 || w.Bool("b") || w.OpaqueVar(NoLimit, "o") != nil || w.OpaqueFixed(0, "f") != nil ||
		w.String(NoLimit, "s") != "" || len(w.Uint32Array([]uint32{9}, NoLimit, "a")) != 0 || w.Need(0, "n") {
		t.Fatal("a read after the failure returned something")
	}
	w.Skip(0, "skip")
	w.Fail(errors.New("later"))
	w.Failf(0, "later", "later")
	if w.Err() != first || w.Offset() != 4 {
		t.Fatalf("the first failure was replaced: %v at %d", w.Err(), w.Offset())
	}

	r := NewReader(in)
	r.Uint32("xid")
	_, want := r.Bool("flag")
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("walker error %#v, reader error %#v", first, want)
	}
}

func TestWalkerFailf(t *testing.T) {
	w := NewWalker([]byte{0, 0, 0, 9})
	off := w.Offset()
	if v := w.Uint32("stat"); v > 1 {
		w.Failf(off, "stat", "stat %d is not a known value", v)
	}
	var xe *Error
	if err := w.Err(); !errors.As(err, &xe) || xe.Offset != 0 || xe.Field != "stat" ||
		err.Error() != "xdr: offset 0: stat 9 is not a known value" {
		t.Fatalf("Err = %#v", err)
	}
}

// Walk and Finish walk on from a Reader the caller keeps: Finish leaves it
// at the item that failed.
func TestWalkFinish(t *testing.T) {
	r := NewReader([]byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0})
	r.Uint32("first")
	w := r.Walk()
	if v := w.Uint32("second"); v != 2 || w.Offset() != 8 {
		t.Fatalf("Walk read %d, offset %d", v, w.Offset())
	}
	w.Uint32("third")
	err := w.Finish(&r)
	if err == nil || err.Error() != "xdr: offset 8: need 4 bytes for third, have 2" || r.Offset() != 8 {
		t.Fatalf("Finish = %v, reader at %d", err, r.Offset())
	}
}

func TestWalkerDoesNotAllocate(t *testing.T) {
	dst := make([]uint32, 0, 4)
	allocs := testing.AllocsPerRun(100, func() {
		w := NewWalker(fixture)
		w.Uint32("a")
		w.Uint32("b")
		w.Uint64("c")
		w.Uint32("d")
		w.OpaqueVar(NoLimit, "e")
		w.OpaqueVar(NoLimit, "f")
		w.OpaqueFixed(2, "g")
		w.Uint32Array(dst, NoLimit, "h")
		if w.Err() != nil {
			t.Fatal(w.Err())
		}
	})
	if allocs != 0 {
		t.Fatalf("a walk allocates %v times per run", allocs)
	}
}
