package engine

import (
	"fmt"
	"testing"
)

// TestFifoKeepsOrderAndMemory: a fifo keeps its items in order through
// pushes, drops and the moves down that compact it, and one that stays
// about the same length stops growing its array.
func TestFifoKeepsOrderAndMemory(t *testing.T) {
	const steady = 3000 // past where append grows an array by a quarter
	var q fifo[int]
	next, first := 0, 0
	check := func() {
		t.Helper()
		items := q.items()
		if len(items) != next-first || q.len() != len(items) {
			t.Fatalf("%d items, want %d", len(items), next-first)
		}
		for i, v := range items {
			if v != first+i {
				t.Fatalf("item %d is %d, want %d", i, v, first+i)
			}
		}
	}
	for i := 0; i < steady; i++ {
		q.push(next)
		next++
	}
	check()
	grown := 0
	for i := 0; i < 30*steady; i++ {
		c := cap(q.buf)
		q.push(next)
		next++
		if cap(q.buf) != c {
			grown++
		}
		// As many leave as arrive, three at a time: about steady items stay.
		if q.len() > steady && i%3 == 2 {
			q.drop(3)
			first += 3
		}
		if i%37 == 0 {
			check()
		}
		if cap(q.buf) > 4*max(q.len(), steady) {
			t.Fatalf("after %d pushes the array holds %d for %d items", i+1, cap(q.buf), q.len())
		}
	}
	check()
	if grown > 4 {
		t.Errorf("the array grew %d times for a queue of about %d items", grown, steady)
	}
	q.drop(q.len() + 5)
	first = next
	check()
	if s := fmt.Sprint(q.buf[:q.head]); len(q.buf) > 0 && s != fmt.Sprint(make([]int, q.head)) {
		t.Errorf("dropped items not cleared: %s", s)
	}
}
