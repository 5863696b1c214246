package appendtext

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The append helpers must print what the fmt verbs they replace print.

func TestAppendSecondsIsPercentF(t *testing.T) {
	ds := []time.Duration{0, 1, 499, 500, 501, 1499, 1500, 1501, 2500, 999_999_500, 999_999_499,
		time.Second - 1, time.Second, 59*time.Minute + 999_999_500, 1e6*time.Second - 500, 1e6 * time.Second, -1500,
		11*24*time.Hour + 500, 1<<62 + 12345}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		ds = append(ds, time.Duration(r.Int64N(int64(2e6*time.Second))))
		ds = append(ds, time.Duration(r.Int64N(2e6))*time.Microsecond+500) // ties
	}
	for _, d := range ds {
		for _, prec := range []int{6, 9} {
			want := fmt.Sprintf("%.*f", prec, d.Seconds())
			if got := string(Seconds(nil, d, prec)); got != want {
				t.Fatalf("Seconds(%d ns, %d) = %q, fmt says %q", int64(d), prec, got, want)
			}
		}
	}
}

func TestAppendHexIsPercentX(t *testing.T) {
	vs := []uint64{0, 1, 0xf, 0x10, 0xfff, 0x123456, 0xffffff, 1 << 32, 1<<64 - 1}
	for _, v := range vs {
		for _, w := range []int{0, 1, 2, 6, 8, 16, 20} {
			if got, want := string(Hex0x(nil, v, w)), fmt.Sprintf("0x%0*x", w, v); got != want {
				t.Errorf("Hex0x(%#x, %d) = %q, fmt says %q", v, w, got, want)
			}
		}
	}
}

func TestPadCountsRunes(t *testing.T) {
	for _, s := range []string{"", "abc", "192.0.2.1", "→", "a→b", "日本語"} {
		if got, want := string(PadLeft([]byte(s), 0, 8)), fmt.Sprintf("%8s", s); got != want {
			t.Errorf("PadLeft(%q) = %q, fmt says %q", s, got, want)
		}
		if got, want := string(PadRight([]byte(s), 0, 8)), fmt.Sprintf("%-8s", s); got != want {
			t.Errorf("PadRight(%q) = %q, fmt says %q", s, got, want)
		}
	}
}

func TestAppendUintIsPercentD(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := []uint64{0, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999, 100000, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	for p := uint64(1); p < 1e19; p *= 10 {
		vals = append(vals, p-1, p, p+1)
	}
	for range 10000 {
		vals = append(vals, r.Uint64()>>r.UintN(64))
	}
	for _, v := range vals {
		if got, want := string(Uint([]byte("x"), v)), fmt.Sprintf("x%d", v); got != want {
			t.Fatalf("Uint(%d) = %q, want %q", v, got, want)
		}
		if got, want := string(Int(nil, int(v))), fmt.Sprintf("%d", int(v)); got != want {
			t.Fatalf("Int(%d) = %q, want %q", int(v), got, want)
		}
		for _, width := range []int{0, 1, 9, 25} {
			if got, want := string(UintPad(nil, v, width)), fmt.Sprintf("%0*d", width, v); got != want {
				t.Fatalf("UintPad(%d, %d) = %q, want %q", v, width, got, want)
			}
		}
	}
}

// BenchmarkAppendUint is the numbers of a packet's JSON object: mostly
// small, some frame numbers, PSNs and epoch seconds.
func BenchmarkAppendUint(b *testing.B) {
	vals := []uint64{0, 1, 17, 64, 255, 4791, 1024, 65535, 2697745, 1796223602, 1000793, 3}
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = buf[:0]
		for _, v := range vals {
			buf = Uint(buf, v)
		}
	}
}

// HexFixed keeps the low width digits, as the JSON's fixed-width fields
// need them (a handle is eight digits, an address sixteen).
func TestHexFixedKeepsLowDigits(t *testing.T) {
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
			if got, want := string(HexFixed([]byte("x"), v, width)), fmt.Sprintf("x%0*x", width, low); got != want {
				t.Fatalf("HexFixed(%#x, %d) = %q, want %q", v, width, got, want)
			}
		}
	}
}
