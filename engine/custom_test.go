package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/xprt"
)

// CustomWrite refuses, in words and before building the message, any
// shape a front end passes that is outside what one call carries; within
// it, the call goes and the server answers it.
func TestCustomWriteBounds(t *testing.T) {
	l := newLab(t, nil)
	big := []xprt.SegSpec{{Len: 16 << 20}, {Len: 16 << 20}}
	for _, c := range []struct {
		name string
		c    Custom
		want string
	}{
		{"data", Custom{Data: math.MaxInt}, "the WRITE's 9223372036854775807 bytes of data are over the 50331648 bytes (48 MiB) a whole call carries"},
		{"position", Custom{Data: -1, Reads: []CustomRead{{Pos: math.MaxInt - 3, Segments: big}}}, "read chunk 0: position 9223372036854775804 is outside any call"},
		{"negative position", Custom{Data: -1, Reads: []CustomRead{{Pos: -1, Segments: big}}}, "read chunk 0: position -1 is outside any call"},
		{"segment", Custom{Data: -1, Reads: []CustomRead{{AtData: true, Segments: []xprt.SegSpec{{Len: math.MaxInt}}}}}, "read chunk 0 segment 0: a length of 9223372036854775807 is outside"},
		{"chunks together", Custom{Data: -1, Reads: []CustomRead{{AtData: true, Segments: big}, {Pos: 0, Segments: big}}}, "a call carries at most 50331648 bytes (48 MiB) in all"},
		{"write chunks", Custom{Data: 0, Writes: [][]xprt.SegSpec{big, {{Len: math.MaxInt}}}}, "this one asks for 9223372036854775807"},
	} {
		if k, err := l.CustomWrite(c.c); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v; want %q", c.name, k, err, c.want)
		}
	}
	small := []xprt.SegSpec{{Len: 64 << 10}}
	k, err := l.CustomWrite(Custom{Data: -1, Reads: []CustomRead{{AtData: true, Segments: small}}, Writes: [][]xprt.SegSpec{small}})
	if err != nil {
		t.Fatal(err)
	}
	settle(t, l)
	if !k.Done || k.Err != "" || len(k.Spec.Msg) != 124+64<<10 {
		t.Errorf("call done %v, err %q, message %d bytes", k.Done, k.Err, len(k.Spec.Msg))
	}
}
