package decode

import (
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
