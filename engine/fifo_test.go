package engine

import (
	"fmt"
	"testing"
)

// TestFifoKeepsOrderAndMemory: a fifo keeps its items in order through
// pushes, drops and the moves down that compact it, and one that stays
// about the same length stops growing its array.
func TestFifoKeepsOrderAndMemory(t *testing.T) {
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
	for i := 0; i < 100; i++ {
		q.push(next)
		next++
	}
	check()
	grown := 0
	for i := 0; i < 10_000; i++ {
		c := cap(q.buf)
		q.push(next)
		next++
		if cap(q.buf) != c {
			grown++
		}
		k := 1 + i%3
		if q.len() > 100 {
			q.drop(k)
			first += min(k, next-first)
		}
		if i%37 == 0 {
			check()
		}
	}
	check()
	if grown > 2 {
		t.Errorf("the array grew %d times for a queue of about 100 items", grown)
	}
	q.drop(q.len() + 5)
	first = next
	check()
	if s := fmt.Sprint(q.buf[:q.head]); len(q.buf) > 0 && s != fmt.Sprint(make([]int, q.head)) {
		t.Errorf("dropped items not cleared: %s", s)
	}
}
