package dfilter

import (
	"regexp"
	"strconv"
	"strings"
)

// The general path: a side of a test that is more than a field (a slice,
// a layer, a function, arithmetic, a protocol's bytes) is an operand that
// yields values of one type. Tests of a plain field against a value keep
// the nodes of eval.go, so a filter that uses none of this costs nothing
// more.

// typeInt is a signed integer (U holds its int64 bits): what arithmetic
// and unary minus on integers give, as in Wireshark 4.0.
const typeInt Type = 100

// RawRecord is a Record that also gives the packet bytes a protocol or
// header covers (frame, eth, ip, infiniband.bth, ...): the fields whose
// Field.Raw is set. Slices of them, contains, matches and comparisons
// with a byte string read these bytes.
type RawRecord interface {
	Record
	// Raw appends to dst the bytes of every occurrence of field id, as
	// Bytes values.
	Raw(id int, dst []Value) []Value
}

// Layered is a Record that knows which layer each occurrence of a field
// belongs to (1 for the outermost protocol of that name, 2 for one
// encapsulated in it), for field#N. Without it every occurrence is in
// layer 1.
type Layered interface {
	Record
	// Layers appends to dst the layer of each occurrence of field id, in
	// the order Values gives them.
	Layers(id int, dst []int) []int
}

// operand is a compiled side of a test.
type operand interface {
	typ() Type
	// values appends the operand's values in r to dst.
	values(r Record, dst []Value) []Value
}

// fieldOp is a field's values.
type fieldOp struct{ f fieldRef }

func (o *fieldOp) typ() Type { return o.f.Type }
func (o *fieldOp) values(r Record, dst []Value) []Value {
	return r.Values(o.f.ID, dst)
}

// rawOp is a protocol's bytes.
type rawOp struct{ f fieldRef }

func (o *rawOp) typ() Type { return TypeBytes }
func (o *rawOp) values(r Record, dst []Value) []Value {
	if rr, ok := r.(RawRecord); ok {
		return rr.Raw(o.f.ID, dst)
	}
	return dst
}

// layerOp keeps the occurrences of a field in layers lo..hi.
type layerOp struct {
	x      operand
	id     int
	lo, hi int
	vs     []Value
	ls     []int
}

func (o *layerOp) typ() Type { return o.x.typ() }
func (o *layerOp) values(r Record, dst []Value) []Value {
	o.vs = o.x.values(r, o.vs[:0])
	lr, ok := r.(Layered)
	if !ok {
		if o.lo <= 1 && 1 <= o.hi {
			return append(dst, o.vs...)
		}
		return dst
	}
	o.ls = lr.Layers(o.id, o.ls[:0])
	for i, v := range o.vs {
		if i < len(o.ls) && o.lo <= o.ls[i] && o.ls[i] <= o.hi {
			dst = append(dst, v)
		}
	}
	return dst
}

// byteRange is one range of a slice: from start, n bytes (n < 0: to the
// end); a negative start counts from the end.
type byteRange struct{ start, n int }

// bounds are the range's offsets in n bytes; false when it does not fit.
func (rg byteRange) bounds(n int) (int, int, bool) {
	s := rg.start
	if s < 0 {
		s += n
	}
	e := n
	if rg.n >= 0 {
		e = s + rg.n
	}
	return s, e, s >= 0 && e <= n && s <= e
}

// sliceOp is the bytes of an operand's values, sliced.
type sliceOp struct {
	x      operand
	ranges []byteRange
	vs     []Value
}

func (o *sliceOp) typ() Type { return TypeBytes }
func (o *sliceOp) values(r Record, dst []Value) []Value {
	o.vs = o.x.values(r, o.vs[:0])
	t := o.x.typ()
	for _, v := range o.vs {
		b := asBytes(t, v)
		if len(o.ranges) == 1 {
			// one range: a substring, no copy
			if s, e, ok := o.ranges[0].bounds(len(b)); ok {
				dst = append(dst, Value{S: b[s:e]})
			}
			continue
		}
		var out []byte
		ok := true
		for _, rg := range o.ranges {
			s, e, in := rg.bounds(len(b))
			if !in {
				ok = false
				break
			}
			out = append(out, b[s:e]...)
		}
		if ok {
			dst = append(dst, Value{S: string(out)})
		}
	}
	return dst
}

// asBytes is a value as the bytes Wireshark slices.
func asBytes(t Type, v Value) string {
	switch t {
	case TypeEther:
		var b [6]byte
		for i := range b {
			b[i] = byte(v.U >> (40 - 8*i))
		}
		return string(b[:])
	case TypeIPv4, TypeIPv6:
		return string(v.A.AsSlice())
	}
	return v.S
}

// constOp is a literal of a type.
type constOp struct {
	t Type
	l literal
}

func (o *constOp) typ() Type { return o.t }
func (o *constOp) values(r Record, dst []Value) []Value {
	return append(dst, o.l.v)
}

// arithOp is x OP y for every pair of values.
type arithOp struct {
	op     byte
	t      Type
	x, y   operand
	xs, ys []Value
}

func (o *arithOp) typ() Type { return o.t }
func (o *arithOp) values(r Record, dst []Value) []Value {
	o.xs = o.x.values(r, o.xs[:0])
	if len(o.xs) == 0 {
		return dst
	}
	o.ys = o.y.values(r, o.ys[:0])
	for _, a := range o.xs {
		for _, b := range o.ys {
			if v, ok := arith(o.op, o.t, a, b); ok {
				dst = append(dst, v)
			}
		}
	}
	return dst
}

func arith(op byte, t Type, a, b Value) (Value, bool) {
	if t == TypeFloat {
		switch op {
		case '+':
			return Float(a.F + b.F), true
		case '-':
			return Float(a.F - b.F), true
		case '*':
			return Float(a.F * b.F), true
		case '/':
			return Float(a.F / b.F), b.F != 0
		}
		return Value{}, false
	}
	if op == '&' {
		return Uint(a.U & b.U), true
	}
	x, y := int64(a.U), int64(b.U)
	switch op {
	case '+':
		return Uint(uint64(x + y)), true
	case '-':
		return Uint(uint64(x - y)), true
	case '*':
		return Uint(uint64(x * y)), true
	case '/':
		if y == 0 {
			return Value{}, false
		}
		return Uint(uint64(x / y)), true
	case '%':
		if y == 0 {
			return Value{}, false
		}
		return Uint(uint64(x % y)), true
	}
	return Value{}, false
}

// negOp is -x.
type negOp struct {
	x  operand
	t  Type
	vs []Value
}

func (o *negOp) typ() Type { return o.t }
func (o *negOp) values(r Record, dst []Value) []Value {
	o.vs = o.x.values(r, o.vs[:0])
	for _, v := range o.vs {
		if o.t == TypeFloat {
			dst = append(dst, Float(-v.F))
		} else {
			dst = append(dst, Uint(uint64(-int64(v.U))))
		}
	}
	return dst
}

// funcOp is a function of its arguments' values.
type funcOp struct {
	name string
	t    Type
	argT Type // the first argument's type
	bits int  // and its width
	args []operand
	vs   []Value
}

func (o *funcOp) typ() Type { return o.t }
func (o *funcOp) values(r Record, dst []Value) []Value {
	switch o.name {
	case "count":
		o.vs = o.args[0].values(r, o.vs[:0])
		if len(o.vs) == 0 {
			return dst
		}
		return append(dst, Uint(uint64(len(o.vs))))
	case "max", "min":
		var best Value
		found := false
		for _, a := range o.args {
			o.vs = a.values(r, o.vs[:0])
			for _, v := range o.vs {
				c := compareNum(o.argT, v, o.argT, best)
				if !found || o.name == "max" && c > 0 || o.name == "min" && c < 0 {
					best, found = v, true
				}
			}
		}
		if found {
			dst = append(dst, best)
		}
		return dst
	}
	o.vs = o.args[0].values(r, o.vs[:0])
	for _, v := range o.vs {
		switch o.name {
		case "len":
			dst = append(dst, Uint(uint64(valueLen(o.argT, o.bits, v))))
		case "upper":
			dst = append(dst, String(strings.ToUpper(v.S)))
		case "lower":
			dst = append(dst, String(strings.ToLower(v.S)))
		case "string":
			dst = append(dst, String(valueString(o.argT, v)))
		case "abs":
			switch o.argT {
			case TypeFloat:
				if v.F < 0 {
					v.F = -v.F
				}
			case typeInt:
				if int64(v.U) < 0 {
					v.U = uint64(-int64(v.U))
				}
			}
			dst = append(dst, v)
		}
	}
	return dst
}

// valueLen is len(): the bytes a value takes, as Wireshark counts them
// (0 for booleans and times).
func valueLen(t Type, bits int, v Value) int {
	switch t {
	case TypeUint:
		return (bits + 7) / 8
	case TypeEther:
		return 6
	case TypeIPv4:
		return 4
	case TypeIPv6:
		return 16
	case TypeString, TypeBytes:
		return len(v.S)
	}
	return 0
}

// valueString is string(): a value as text.
func valueString(t Type, v Value) string {
	switch t {
	case TypeUint:
		return strconv.FormatUint(v.U, 10)
	case typeInt:
		return strconv.FormatInt(int64(v.U), 10)
	case TypeIPv4, TypeIPv6:
		return v.A.String()
	case TypeEther:
		b := asBytes(t, v)
		var sb strings.Builder
		for i := 0; i < len(b); i++ {
			if i > 0 {
				sb.WriteByte(':')
			}
			sb.WriteString(strconv.FormatUint(uint64(b[i])>>4, 16) + strconv.FormatUint(uint64(b[i])&15, 16))
		}
		return sb.String()
	}
	return v.S
}

// compareNum orders a (of type at) and b (of type bt): integers of either
// sign compare by value; other types as compare does.
func compareNum(at Type, a Value, bt Type, b Value) int {
	if at == typeInt || bt == typeInt {
		an := at == typeInt && int64(a.U) < 0
		bn := bt == typeInt && int64(b.U) < 0
		switch {
		case an && !bn:
			return -1
		case bn && !an:
			return 1
		case an && bn:
			x, y := int64(a.U), int64(b.U)
			if x < y {
				return -1
			} else if x > y {
				return 1
			}
			return 0
		}
		return compare(TypeUint, a, b)
	}
	return compare(at, a, b)
}

// order orders x (of type t) against the literal, of either sign.
func (l literal) order(t Type, x Value) int {
	switch {
	case l.prefix:
		return l.cmp(t, x)
	case l.neg:
		return compareNum(t, x, typeInt, l.v)
	}
	return compareNum(t, x, t, l.v)
}

// cmpExprNode compares two operands, or an operand with a literal.
type cmpExprNode struct {
	op     cmpOp
	l, r   operand
	lit    *literal // the right side, when it is a literal (a subnet too)
	lb, rb []Value
}

func (n *cmpExprNode) eval(r Record) bool {
	n.lb = n.l.values(r, n.lb[:0])
	lt := n.l.typ()
	if n.lit != nil && n.lit.neg && lt == TypeUint {
		return len(n.lb) > 0 && (n.op == opNe || n.op == opAnyNe) // as cmpNode
	}
	if n.lit != nil {
		return quantify(n.op, len(n.lb), func(i int) int {
			return n.lit.order(lt, n.lb[i])
		})
	}
	n.rb = n.r.values(r, n.rb[:0])
	m, rt := len(n.rb), n.r.typ()
	return quantify(n.op, len(n.lb)*m, func(i int) int {
		return compareNum(lt, n.lb[i/m], rt, n.rb[i%m])
	})
}

// truthNode is a bare operand: present, or for & some value non-zero.
type truthNode struct {
	x       operand
	nonZero bool
	buf     []Value
}

func (n *truthNode) eval(r Record) bool {
	n.buf = n.x.values(r, n.buf[:0])
	if !n.nonZero {
		return len(n.buf) > 0
	}
	for _, v := range n.buf {
		if v.U != 0 {
			return true
		}
	}
	return false
}

// inExprNode: some value of x is in the set, whose members may be
// operands.
type inExprNode struct {
	x     operand
	elems []setElem
	ops   []operand
	buf   []Value
	mb    []Value
}

func (n *inExprNode) eval(r Record) bool {
	n.buf = n.x.values(r, n.buf[:0])
	t := n.x.typ()
	for _, x := range n.buf {
		for _, e := range n.elems {
			if t == TypeUint && (e.lo.neg || e.hi.neg) {
				continue
			}
			if e.lo.order(t, x) >= 0 && e.hi.order(t, x) <= 0 {
				return true
			}
		}
		for _, o := range n.ops {
			n.mb = o.values(r, n.mb[:0])
			for _, m := range n.mb {
				if compareNum(t, x, o.typ(), m) == 0 {
					return true
				}
			}
		}
	}
	return false
}

// containsExprNode and matchesExprNode are contains and matches on an
// operand.
type containsExprNode struct {
	x   operand
	sub string
	buf []Value
}

func (n *containsExprNode) eval(r Record) bool {
	n.buf = n.x.values(r, n.buf[:0])
	for _, v := range n.buf {
		if strings.Contains(v.S, n.sub) {
			return true
		}
	}
	return false
}

type matchesExprNode struct {
	x   operand
	re  *regexp.Regexp
	buf []Value
}

func (n *matchesExprNode) eval(r Record) bool {
	n.buf = n.x.values(r, n.buf[:0])
	for _, v := range n.buf {
		if n.re.MatchString(v.S) {
			return true
		}
	}
	return false
}
