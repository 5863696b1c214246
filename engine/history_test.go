package engine

import (
	"testing"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// TestHistoryKeepsNewest: the history keeps every event until it holds
// maxHistory, then the newest maxHistory, oldest first, across block
// boundaries and the ring's wrap.
func TestHistoryKeepsNewest(t *testing.T) {
	var h history
	check := func(pushed int) {
		t.Helper()
		if want := min(pushed, maxHistory); h.n != want {
			t.Fatalf("after %d events: %d kept, want %d", pushed, h.n, want)
		}
		first := uint64(pushed - h.n + 1)
		for _, i := range []int{0, 1, histBlock - 1, histBlock, h.n / 2, h.n - histBlock, h.n - 1} {
			if i < 0 || i >= h.n {
				continue
			}
			if got := h.at(i).Seq; got != first+uint64(i) {
				t.Fatalf("after %d events: event %d has seq %d, want %d", pushed, i, got, first+uint64(i))
			}
		}
	}
	pushed := 0
	for _, upto := range []int{1, histBlock, histBlock + 1, maxHistory, maxHistory + 1, maxHistory + histBlock + 7, 2*maxHistory + 3} {
		for pushed < upto {
			pushed++
			if got := h.push(&trace.Event{Seq: uint64(pushed)}); got.Seq != uint64(pushed) {
				t.Fatalf("push %d returned the copy of event %d", pushed, got.Seq)
			}
		}
		check(pushed)
	}
	if len(h.blocks) != maxHistory/histBlock {
		t.Errorf("%d blocks, want %d", len(h.blocks), maxHistory/histBlock)
	}
}
