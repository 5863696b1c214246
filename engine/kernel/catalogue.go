package kernel

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// all is every Func of the package, in the order the files declare them.
// It is filled while the package's variables are initialised and only
// read after.
var all []*trace.Func

// declare is trace.Declare, and the Func joins the catalogue.
func declare(name, doc string, args ...string) *trace.Func {
	f := trace.Declare(name, doc, args...)
	all = append(all, f)
	return f
}

// mention is trace.Mention, and the Func joins the catalogue.
func mention(name, doc string) *trace.Func {
	f := trace.Mention(name, doc)
	all = append(all, f)
	return f
}

// All is every declared function and trace point, by name.
func All() []*trace.Func {
	out := slices.Clone(all)
	slices.SortFunc(out, func(a, b *trace.Func) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Traced is every function and trace point the model's tasks emit events
// for, by name: what `until` and a lesson's checks can stop at.
func Traced() []*trace.Func {
	return slices.DeleteFunc(All(), func(f *trace.Func) bool { return !f.Traced() })
}

// Lookup finds a declared function or trace point by its kernel name.
func Lookup(name string) (*trace.Func, bool) {
	for _, f := range all {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Names is the names of fs, in order.
func Names(fs []*trace.Func) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name()
	}
	return out
}

// Nearest is the traced name a misspelt name most likely meant, or "":
// one that name is a prefix of, else the closest within a few edits
// (insertions, deletions, substitutions, swaps of neighbours).
func Nearest(name string) string {
	tol := len(name) / 4
	best, bestD := "", tol+1
	for _, f := range Traced() {
		c := f.Name()
		if len(name) >= 2 && strings.HasPrefix(c, name) {
			return c
		}
		if n, m := utf8.RuneCountInString(name), utf8.RuneCountInString(c); n-m > tol || m-n > tol {
			continue
		}
		if d := distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
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
