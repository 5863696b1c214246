package xprt

import (
	"math"
	"strings"
	"testing"
)

func TestCallBytes(t *testing.T) {
	seg := func(n ...int) []SegSpec {
		var s []SegSpec
		for _, l := range n {
			s = append(s, SegSpec{Len: l})
		}
		return s
	}
	for _, c := range []struct {
		name   string
		msgLen int
		spec   CallSpec
		want   int64
	}{
		{"message alone", 1000, CallSpec{}, 1000},
		{"chunks inside the message count once", 1000,
			CallSpec{ReadChunks: []ReadChunkSpec{{Pos: 100, Len: 400}, {Pos: 500, Len: 500}}}, 1000},
		{"overlapping chunks count again", 1000,
			CallSpec{ReadChunks: []ReadChunkSpec{{Pos: 100, Len: 400}, {Pos: 300, Len: 400}, {Pos: 100, Len: 100}}}, 1000 + 200 + 100},
		{"the position-zero chunk is the message", 1000,
			CallSpec{ReadChunks: []ReadChunkSpec{{Pos: 0, Len: 1000}}}, 1000},
		{"data apart counts", 100,
			CallSpec{ReadChunks: []ReadChunkSpec{{Pos: 100, Len: 5, Data: make([]byte, 5)}}}, 105},
		{"write and reply chunks", 100,
			CallSpec{WriteChunks: []WriteChunkSpec{{seg(10, 20)}, {seg(30)}}, ReplyChunk: &WriteChunkSpec{seg(40)}}, 200},
		{"lengths past int64 stop at its top", 0,
			CallSpec{WriteChunks: []WriteChunkSpec{{seg(math.MaxInt, math.MaxInt, -5)}}}, math.MaxInt64},
		{"positions near the top do not wrap", 0,
			CallSpec{ReadChunks: []ReadChunkSpec{{Pos: math.MaxInt - 1, Len: math.MaxInt}, {Pos: math.MaxInt - 1, Len: 10}}}, 1},
	} {
		if got := CallBytes(c.msgLen, c.spec); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	err := CheckSize(MaxCallBytes-99, CallSpec{ReplyChunk: &WriteChunkSpec{seg(100)}})
	if err == nil || !strings.Contains(err.Error(), "this one asks for 50331649 (a 50331549-byte message, 100 in the Reply chunk)") {
		t.Errorf("one byte over: %v", err)
	}
	if err := CheckSize(MaxCallBytes-100, CallSpec{ReplyChunk: &WriteChunkSpec{seg(100)}}); err != nil {
		t.Errorf("at the bound: %v", err)
	}
}
