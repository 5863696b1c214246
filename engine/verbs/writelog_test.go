package verbs

import (
	"slices"
	"testing"
)

// TestWriteLogWritten: spans merge when they overlap or touch, in any
// order, and stay sorted and apart otherwise.
func TestWriteLogWritten(t *testing.T) {
	tests := []struct {
		name   string
		writes [][2]int // off, n
		want   []Span
	}{
		{"none", nil, nil},
		{"empty write", [][2]int{{5, 0}}, nil},
		{"in order, touching", [][2]int{{0, 4096}, {4096, 4096}, {8192, 100}}, []Span{{0, 8292}}},
		{"in order, apart", [][2]int{{0, 10}, {20, 10}}, []Span{{0, 10}, {20, 10}}},
		{"inside the last", [][2]int{{0, 100}, {10, 5}}, []Span{{0, 100}}},
		{"before, apart", [][2]int{{100, 10}, {0, 10}}, []Span{{0, 10}, {100, 10}}},
		{"before, touching", [][2]int{{100, 10}, {90, 10}}, []Span{{90, 20}}},
		{"between, apart", [][2]int{{0, 10}, {100, 10}, {50, 10}}, []Span{{0, 10}, {50, 10}, {100, 10}}},
		{"bridges two", [][2]int{{0, 10}, {20, 10}, {10, 10}}, []Span{{0, 30}}},
		{"covers several", [][2]int{{10, 5}, {20, 5}, {30, 5}, {40, 5}, {12, 25}}, []Span{{10, 27}, {40, 5}}},
		{"covers all", [][2]int{{10, 5}, {20, 5}, {30, 5}, {0, 100}}, []Span{{0, 100}}},
		{"overlaps the first's start", [][2]int{{10, 10}, {40, 10}, {5, 7}}, []Span{{5, 15}, {40, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l WriteLog
			for _, w := range tc.writes {
				l.Written(w[0], w[1])
			}
			if got := l.Spans(); !slices.Equal(got, tc.want) {
				t.Errorf("spans = %v, want %v", got, tc.want)
			}
			l.Reset()
			if len(l.Spans()) != 0 {
				t.Errorf("after Reset: %v", l.Spans())
			}
		})
	}
}

// TestWriteLogMatchesBytes: after random writes the spans are exactly the
// bytes written, sorted, disjoint and not adjacent.
func TestWriteLogMatchesBytes(t *testing.T) {
	const size = 200
	seed := uint32(1)
	rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
	for round := 0; round < 500; round++ {
		var l WriteLog
		var mark [size]bool
		for w := rnd(8); w >= 0; w-- {
			off, n := rnd(size), rnd(30)
			n = min(n, size-off)
			l.Written(off, n)
			for i := off; i < off+n; i++ {
				mark[i] = true
			}
		}
		var got [size]bool
		prevEnd := -1
		for _, s := range l.Spans() {
			if s.Len <= 0 || s.Off <= prevEnd {
				t.Fatalf("round %d: spans %v are not sorted, apart and non-empty", round, l.Spans())
			}
			prevEnd = s.Off + s.Len
			for i := s.Off; i < prevEnd; i++ {
				got[i] = true
			}
		}
		if got != mark {
			t.Fatalf("round %d: spans %v differ from the bytes written", round, l.Spans())
		}
	}
}
