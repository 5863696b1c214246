// Package nearest finds the word a mistyped one most likely meant: the
// did-you-mean of every place that takes a name (commands, flags,
// settings, kernel functions in `until` and in lesson checks).
package nearest

import (
	"strings"
	"unicode/utf8"
)

// Distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours cost 1.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Tolerance is how many edits a word of this length may be off and still
// get a suggestion.
func Tolerance(w string) int {
	switch n := len(w); {
	case n <= 2:
		return 0
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// Word is the candidate closest to w within a tolerance that grows with
// w's length, or "", ignoring case. A candidate that w is a prefix of
// wins over an edit.
//
// The distance is at least the difference in length, so a candidate that
// differs by more than the tolerance is not measured: a mistyped word of
// 64 KiB cost a pass over it per candidate, and a command a second.
func Word(w string, cands []string) string {
	w = strings.ToLower(w)
	tol, n := Tolerance(w), utf8.RuneCountInString(w)
	best, bestD := "", 1<<30
	for _, c := range cands {
		c0 := c
		c = strings.ToLower(c)
		var d int
		switch m := utf8.RuneCountInString(c); {
		case len(w) >= 2 && strings.HasPrefix(c, w):
			d = 0
		case n-m > tol || m-n > tol:
			continue
		default:
			d = Distance(w, c)
		}
		if d < bestD {
			best, bestD = c0, d
		}
	}
	if bestD <= tol {
		return best
	}
	return ""
}
