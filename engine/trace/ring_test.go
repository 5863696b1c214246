package trace

import "testing"

func seqs(evs []Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

// A full ring drops its oldest events; Tail, At and Last see the newest,
// oldest first.
func TestRingKeepsTheNewest(t *testing.T) {
	r := NewRing(3)
	if _, ok := r.Last(); ok || r.Len() != 0 || len(r.Tail(5)) != 0 {
		t.Fatal("a new ring is not empty")
	}
	for seq := uint64(1); seq <= 5; seq++ {
		r.Push(Event{Seq: seq})
	}
	if got := seqs(r.Tail(10)); len(got) != 3 || got[0] != 3 || got[2] != 5 {
		t.Errorf("Tail(10) = %v, want [3 4 5]", got)
	}
	if got := seqs(r.Tail(2)); len(got) != 2 || got[0] != 4 || got[1] != 5 {
		t.Errorf("Tail(2) = %v, want [4 5]", got)
	}
	if r.At(0).Seq != 3 || r.Len() != 3 || r.Cap() != 3 {
		t.Errorf("At(0) %d, Len %d, Cap %d", r.At(0).Seq, r.Len(), r.Cap())
	}
	if e, ok := r.Last(); !ok || e.Seq != 5 {
		t.Errorf("Last = %v, %v", e, ok)
	}
	if got := r.Tail(-1); len(got) != 0 {
		t.Errorf("Tail(-1) = %v", got)
	}
	r.Reset()
	if r.Len() != 0 || len(r.Tail(3)) != 0 {
		t.Error("Reset kept events")
	}
	r.Push(Event{Seq: 9})
	if got := seqs(r.Tail(3)); len(got) != 1 || got[0] != 9 {
		t.Errorf("after Reset: %v", got)
	}
}

// A capacity below one still keeps the newest event.
func TestRingCapacityAtLeastOne(t *testing.T) {
	r := NewRing(0)
	r.Push(Event{Seq: 1})
	r.Push(Event{Seq: 2})
	if got := seqs(r.Tail(2)); len(got) != 1 || got[0] != 2 {
		t.Errorf("NewRing(0) kept %v", got)
	}
}
