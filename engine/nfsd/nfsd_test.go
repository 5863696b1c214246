package nfsd

import (
	"bytes"
	"fmt"
	"testing"
)

// dataPattern is the numbered lines fmt would print, cut at n.
func TestDataPatternLines(t *testing.T) {
	var want []byte
	for i := 0; len(want) < DataSize+200; i++ {
		want = fmt.Appendf(want, "%-63s\n", fmt.Sprintf("data %06d of the rdmalab export: abcdefghijklmnopqrstuvwxyz", i))
	}
	for _, n := range []int{0, 1, 63, 64, 65, 4097, DataSize, DataSize + 100} {
		if got := dataPattern(n); !bytes.Equal(got, want[:n]) {
			t.Errorf("dataPattern(%d) differs from the fmt lines", n)
		}
	}
}
