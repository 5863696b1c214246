package dfilter

import (
	"regexp"
	"strings"
)

// node is a compiled part of an expression.
type node interface {
	eval(r Record) bool
}

type orNode struct{ l, r node }
type andNode struct{ l, r node }
type notNode struct{ x node }

func (n *orNode) eval(r Record) bool  { return n.l.eval(r) || n.r.eval(r) }
func (n *andNode) eval(r Record) bool { return n.l.eval(r) && n.r.eval(r) }
func (n *notNode) eval(r Record) bool { return !n.x.eval(r) }

// existsNode: the field is present.
type existsNode struct {
	f   fieldRef
	buf []Value
}

func (n *existsNode) eval(r Record) bool {
	n.buf = r.Values(n.f.ID, n.buf[:0])
	return len(n.buf) > 0
}

// cmpNode compares every occurrence of a field with a value.
type cmpNode struct {
	op  cmpOp
	f   fieldRef
	v   literal
	buf []Value
}

func (n *cmpNode) eval(r Record) bool {
	n.buf = r.Values(n.f.ID, n.buf[:0])
	if n.v.neg {
		// tshark 4.0: an unsigned value and a negative number are
		// unordered; they only differ
		return len(n.buf) > 0 && (n.op == opNe || n.op == opAnyNe)
	}
	return quantify(n.op, len(n.buf), func(i int) int {
		return n.v.cmp(n.f.Type, n.buf[i])
	})
}

// cmp orders x against the literal: for a subnet, 0 when x is in it.
func (l literal) cmp(t Type, x Value) int {
	if l.prefix {
		if x.A.IsValid() && x.A.BitLen() == l.v.A.BitLen() {
			if p, err := x.A.Prefix(l.bits); err == nil && p.Addr() == l.v.A {
				return 0
			}
		}
		return x.A.Compare(l.v.A)
	}
	return compare(t, x, l.v)
}

// quantify applies op to the n occurrences of a field, where c(i) orders
// occurrence i against the other side, with Wireshark 4.0's rules for
// fields that occur several times or not at all.
func quantify(op cmpOp, n int, c func(i int) int) bool {
	switch op {
	case opNe: // present, and no occurrence equals
		for i := 0; i < n; i++ {
			if c(i) == 0 {
				return false
			}
		}
		return n > 0
	case opAllEq:
		for i := 0; i < n; i++ {
			if c(i) != 0 {
				return false
			}
		}
		return n > 0
	}
	for i := 0; i < n; i++ {
		d := c(i)
		var ok bool
		switch op {
		case opEq:
			ok = d == 0
		case opAnyNe:
			ok = d != 0
		case opLt:
			ok = d < 0
		case opLe:
			ok = d <= 0
		case opGt:
			ok = d > 0
		case opGe:
			ok = d >= 0
		}
		if ok {
			return true
		}
	}
	return false
}

// cmpFieldsNode compares two fields: any pair of occurrences.
type cmpFieldsNode struct {
	op     cmpOp
	l, r   fieldRef
	lb, rb []Value
}

func (n *cmpFieldsNode) eval(r Record) bool {
	n.lb = r.Values(n.l.ID, n.lb[:0])
	n.rb = r.Values(n.r.ID, n.rb[:0])
	m := len(n.rb)
	return quantify(n.op, len(n.lb)*m, func(i int) int {
		return compare(n.l.Type, n.lb[i/m], n.rb[i%m])
	})
}

type setElem struct{ lo, hi literal }

// inNode: some occurrence is in the set.
type inNode struct {
	f     fieldRef
	elems []setElem
	buf   []Value
}

func (n *inNode) eval(r Record) bool {
	n.buf = r.Values(n.f.ID, n.buf[:0])
	for _, x := range n.buf {
		for _, e := range n.elems {
			if e.lo.neg || e.hi.neg {
				continue // unordered with an unsigned value (cmpNode)
			}
			if e.lo.cmp(n.f.Type, x) >= 0 && e.hi.cmp(n.f.Type, x) <= 0 {
				return true
			}
		}
	}
	return false
}

type containsNode struct {
	f   fieldRef
	sub string
	buf []Value
}

func (n *containsNode) eval(r Record) bool {
	n.buf = r.Values(n.f.ID, n.buf[:0])
	for _, x := range n.buf {
		if strings.Contains(x.S, n.sub) {
			return true
		}
	}
	return false
}

type matchesNode struct {
	f   fieldRef
	re  *regexp.Regexp
	buf []Value
}

func (n *matchesNode) eval(r Record) bool {
	n.buf = r.Values(n.f.ID, n.buf[:0])
	for _, x := range n.buf {
		if n.re.MatchString(x.S) {
			return true
		}
	}
	return false
}

// suggest returns the name in names nearest to w, when it is near enough
// to be what was meant.
func suggest(w string, names []string) string {
	best, bestD := "", len(w)/3+2
	for _, n := range names {
		if d := distance(w, n, bestD); d < bestD || d == bestD && best != "" && len(n) < len(best) {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the edit distance of a and b, or anything above max when it
// is above max.
func distance(a, b string, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low > max {
			return max + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
