package decode

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

func TestJSONSecondsIsFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ds := []time.Duration{0, 1, 999_999_999, time.Second, 1e6*time.Second - 1, 1e6 * time.Second, -1, 1 << 62}
	for range 200_000 {
		ds = append(ds, time.Duration(r.Int64N(int64(2e6*time.Second))))
	}
	for _, d := range ds {
		var st secText
		got := st.appendDuration(nil, d)
		want := strconv.AppendFloat(nil, d.Seconds(), 'f', 9, 64)
		if string(got) != string(want) {
			t.Fatalf("seconds(%d ns) = %s, the float gives %s", int64(d), got, want)
		}
	}
}

// appendHex keeps the low width digits, as the JSON's fixed-width fields
// need them (a handle is eight digits, an address sixteen).
func TestAppendHexKeepsLowDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vals := []uint64{0, 0xf, 0x10, 0xdeadbeef, 1<<32 - 1, 1 << 32, 1<<64 - 1}
	for range 1000 {
		vals = append(vals, r.Uint64()>>r.UintN(64))
	}
	for _, v := range vals {
		for _, width := range []int{1, 2, 8, 16} {
			low := v
			if width < 16 {
				low &= 1<<(4*width) - 1
			}
			if got, want := string(appendHex([]byte("x"), v, width)), fmt.Sprintf("x%0*x", width, low); got != want {
				t.Fatalf("appendHex(%#x, %d) = %q, want %q", v, width, got, want)
			}
		}
	}
}
