package dfilter

import (
	"regexp"
	"strconv"
	"strings"
)

// item is a parsed side of a test: an untyped literal (a word, a string,
// a character), a plain field, or a typed operand.
type item struct {
	pos, end int
	lit      *token // a literal, typed by the other side
	// untyped is arithmetic on literals (2 * 3), typed by the other side
	untyped func(t Type, other string) (operand, error)
	f       *fieldRef // a plain field: no slice, layer or arithmetic
	op      operand   // otherwise
	bitAnd  bool      // the outermost operator is &
}

func (it item) text(p *parser) string { return p.expr[it.pos:it.end] }

// test := expr [ cmp expr | ["not" | "!"] "in" set | "contains" expr | "matches" string ]
func (p *parser) test() (node, error) {
	x, err := p.arith(true)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if x.isUntyped() && (t.kind == tCmp || t.kind == tIn || t.kind == tContains || t.kind == tMatches) {
		// as tshark 4.0: 62 == frame.len is refused
		return nil, p.errAt(x, "the left side of %s must be a field or a function, not %s", p.expr[t.pos:t.end], x.text(p))
	}
	switch t.kind {
	case tCmp:
		p.next()
		return p.comparison(x, t)
	case tIn:
		p.next()
		return p.set(x, t)
	case tNot:
		if p.toks[p.i+1].kind == tIn {
			p.next()
			in := p.next()
			s, err := p.set(x, in)
			if err != nil {
				return nil, err
			}
			return &notNode{s}, nil
		}
	case tContains:
		p.next()
		return p.contains(x, t)
	case tMatches:
		p.next()
		return p.matches(x, t)
	}
	switch {
	case x.untyped != nil:
		return nil, p.errAt(x, "%q is a value: a test needs a field", x.text(p))
	case x.lit != nil:
		if x.lit.kind == tWord && looksLikeField(x.lit.text) {
			return nil, p.unknownField(*x.lit)
		}
		return nil, p.errAt(x, "%q is a value: a test needs a field", x.text(p))
	case x.f != nil:
		return &existsNode{f: *x.f}, nil
	}
	return &truthNode{x: x.op, nonZero: x.bitAnd}, nil
}

func (p *parser) errAt(x item, format string, args ...any) *Error {
	return errAt(p.expr, x.pos, x.end, format, args...)
}

// arith := sum { "&" sum }; sum := product { ("+"|"-") product };
// product := unary { ("*"|"/"|"%") unary }, as Wireshark 4.0 binds them.
func (p *parser) arith(lhs bool) (item, error) {
	return p.binary(lhs, 0)
}

var arithLevels = []string{"&", "+-", "*/%"}

func (p *parser) binary(lhs bool, level int) (item, error) {
	if level == len(arithLevels) {
		return p.signed(lhs)
	}
	x, err := p.binary(lhs, level+1)
	if err != nil {
		return item{}, err
	}
	if t := p.peek(); lhs && x.isUntyped() && t.kind == tArith {
		return item{}, p.errAt(x, "arithmetic on the left side must start with a field, not a constant")
	}
	for {
		t := p.peek()
		if t.kind != tArith || !strings.ContainsRune(arithLevels[level], rune(t.arith)) {
			return x, nil
		}
		p.next()
		y, err := p.binary(false, level+1)
		if err != nil {
			return item{}, err
		}
		if x, err = p.combine(t, x, y); err != nil {
			return item{}, err
		}
	}
}

// combine types x OP y.
func (p *parser) combine(op token, x, y item) (item, error) {
	num := func(t Type) bool { return t == TypeUint || t == typeInt || t == TypeFloat }
	build := func(xo, yo operand) (operand, error) {
		xt, yt := xo.typ(), yo.typ()
		t := typeInt
		switch {
		case xt == TypeFloat || yt == TypeFloat:
			if xt != yt {
				return nil, p.errTok(op, "%c mixes a decimal and an integer", op.arith)
			}
			if op.arith != '+' && op.arith != '-' {
				// as tshark 4.0, which keeps decimals for times
				return nil, p.errTok(op, "%c takes integers: a time takes + and - only", op.arith)
			}
			t = TypeFloat
		case op.arith == '&':
			t = TypeUint
		}
		return &arithOp{op: op.arith, t: t, x: xo, y: yo}, nil
	}
	it := item{pos: x.pos, end: y.end, bitAnd: op.arith == '&'}
	if x.isUntyped() && y.isUntyped() {
		it.untyped = func(t Type, other string) (operand, error) {
			xo, err := p.typed(x, t, other)
			if err != nil {
				return nil, err
			}
			yo, err := p.typed(y, t, other)
			if err != nil {
				return nil, err
			}
			return build(xo, yo)
		}
		return it, nil
	}
	var xo, yo operand
	var err error
	if !x.isUntyped() {
		if xo, err = p.operand(x); err != nil {
			return item{}, err
		}
		if !num(xo.typ()) {
			return item{}, p.errTok(op, "%c takes numbers: %s is %s", op.arith, x.text(p), xo.typ().an())
		}
	}
	if !y.isUntyped() {
		if yo, err = p.operand(y); err != nil {
			return item{}, err
		}
		if !num(yo.typ()) {
			return item{}, p.errTok(op, "%c takes numbers: %s is %s", op.arith, y.text(p), yo.typ().an())
		}
	}
	if xo == nil {
		if xo, err = p.typed(x, yo.typ(), y.text(p)); err != nil {
			return item{}, err
		}
	}
	if yo == nil {
		if yo, err = p.typed(y, xo.typ(), x.text(p)); err != nil {
			return item{}, err
		}
	}
	if it.op, err = build(xo, yo); err != nil {
		return item{}, err
	}
	return it, nil
}

func (it item) isUntyped() bool { return it.lit != nil || it.untyped != nil }

// typed types a literal or literal arithmetic as t.
func (p *parser) typed(it item, t Type, other string) (operand, error) {
	if t == TypeUint {
		t = typeInt // arithmetic is signed
	}
	if it.untyped != nil {
		return it.untyped(t, other)
	}
	return p.constant(*it.lit, t, other)
}

// signed := ("-" | "+") signed | primary
func (p *parser) signed(lhs bool) (item, error) {
	t := p.peek()
	if t.kind == tArith && (t.arith == '-' || t.arith == '+') {
		p.next()
		x, err := p.signed(false)
		if err != nil {
			return item{}, err
		}
		x.pos = t.pos
		if t.arith == '+' {
			return x, nil
		}
		return p.negate(t, x)
	}
	if t.kind == tWord && len(t.text) > 1 && t.text[0] == '-' {
		// -frame.len: the word holds the minus
		if f, ok := p.schema.Lookup(t.text[1:]); ok {
			p.next()
			ref := fieldRef{Field: f, name: t.text[1:], pos: t.pos + 1, end: t.end}
			return p.negate(t, item{pos: t.pos + 1, end: t.end, f: &ref})
		}
	}
	return p.primary(lhs)
}

func (p *parser) negate(minus token, x item) (item, error) {
	if x.untyped != nil {
		return item{}, p.errTok(minus, "- takes a field here")
	}
	if x.lit != nil {
		if x.lit.kind != tWord || strings.HasPrefix(x.lit.text, "-") {
			return item{}, p.errTok(minus, "- takes a number")
		}
		l := *x.lit
		l.text, l.pos = "-"+l.text, minus.pos
		return item{pos: minus.pos, end: x.end, lit: &l}, nil
	}
	o, err := p.operand(x)
	if err != nil {
		return item{}, err
	}
	t := o.typ()
	switch t {
	case TypeUint, typeInt:
		t = typeInt
	case TypeFloat:
	default:
		return item{}, p.errTok(minus, "- takes a number: %s is %s", x.text(p), t.an())
	}
	return item{pos: minus.pos, end: x.end, op: &negOp{x: o, t: t}}, nil
}

// primary := word [layer] [slice] | function "(" args ")" | string | char
func (p *parser) primary(lhs bool) (item, error) {
	t := p.next()
	switch t.kind {
	case tString, tChar:
		return item{pos: t.pos, end: t.end, lit: &t}, nil
	case tWord:
	default:
		return item{}, p.unexpected(t)
	}
	if p.peek().kind == tLParen {
		return p.call(t)
	}
	f, ok := p.schema.Lookup(t.text)
	if !ok {
		if c := t.text[0]; lhs && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return item{}, p.unknownField(t)
		}
		return item{pos: t.pos, end: t.end, lit: &t}, nil
	}
	ref := fieldRef{Field: f, name: t.text, pos: t.pos, end: t.end}
	x := item{pos: t.pos, end: t.end, f: &ref}
	if l := p.peek(); l.kind == tLayer {
		p.next()
		lo, hi, err := p.layerRange(l)
		if err != nil {
			return item{}, err
		}
		o, err := p.operand(x)
		if err != nil && f.Type != TypeNone {
			return item{}, err
		}
		if f.Type == TypeNone && !f.Raw {
			o = &fieldOp{ref} // presence only
		}
		x = item{pos: t.pos, end: l.end, op: &layerOp{x: o, id: f.ID, lo: lo, hi: hi}}
	}
	if s := p.peek(); s.kind == tSlice {
		p.next()
		o, err := p.operand(x)
		if err != nil {
			return item{}, err
		}
		switch o.typ() {
		case TypeBytes, TypeString, TypeEther, TypeIPv4, TypeIPv6:
		default:
			return item{}, p.errTok(s, "%s is %s: it cannot be sliced", x.text(p), o.typ().an())
		}
		rs, err := p.ranges(s)
		if err != nil {
			return item{}, err
		}
		x = item{pos: t.pos, end: s.end, op: &sliceOp{x: o, ranges: rs}}
	}
	return x, nil
}

// operand compiles a typed item. A protocol is its bytes.
func (p *parser) operand(x item) (operand, error) {
	if x.op != nil {
		return x.op, nil
	}
	if x.f == nil {
		return nil, p.errAt(x, "%q is a value, not a field", x.text(p))
	}
	if x.f.Type == TypeNone {
		if !x.f.Raw {
			return nil, p.errAt(x, "%s is a protocol whose bytes rdmalab does not keep: it can only be tested for presence", x.f.name)
		}
		return &rawOp{*x.f}, nil
	}
	return &fieldOp{*x.f}, nil
}

// constant types the literal t as t's type; other names the other side.
func (p *parser) constant(t token, typ Type, other string) (*constOp, error) {
	l, err := p.value(fieldRef{Field: Field{Type: typ}, name: other}, t)
	if err != nil {
		return nil, err
	}
	if l.prefix {
		return nil, p.errTok(t, "a subnet cannot be a value here")
	}
	if l.neg {
		typ = typeInt
	}
	return &constOp{t: typ, l: l}, nil
}

// layerRange reads #N, #[N], #[a-b], #[a:n].
func (p *parser) layerRange(t token) (int, int, error) {
	s := t.text
	bad := func() (int, int, error) {
		return 0, 0, p.errTok(t, "%q is not a layer: write #N, #[a-b] or #[a:n] (layers count from 1)", p.expr[t.pos:t.end])
	}
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && s != "" && s[0] != '+' && s[0] != '-'
	}
	s = strings.TrimSpace(s)
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, ok1 := num(strings.TrimSpace(a))
		hi, ok2 := num(strings.TrimSpace(b))
		if !ok1 || !ok2 || hi < lo {
			return bad()
		}
		return lo, hi, nil
	}
	if a, b, ok := strings.Cut(s, ":"); ok {
		lo, ok1 := num(strings.TrimSpace(a))
		n, ok2 := num(strings.TrimSpace(b))
		if !ok1 || !ok2 || n == 0 {
			return bad()
		}
		return lo, lo + n - 1, nil
	}
	n, ok := num(s)
	if !ok {
		return bad()
	}
	return n, n, nil
}

// ranges reads a slice's ranges: i, i:n, i-j, :n, i:, comma-separated;
// offsets may be negative (from the end).
func (p *parser) ranges(t token) ([]byteRange, error) {
	var rs []byteRange
	bad := func(what string) ([]byteRange, error) {
		return nil, p.errTok(t, "%q is not a slice: %s (write [i], [i:n], [i-j], [:n] or [i:])", p.expr[t.pos:t.end], what)
	}
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		return n, err == nil && strings.TrimSpace(s) != "" && !strings.HasPrefix(strings.TrimSpace(s), "+")
	}
	for _, part := range strings.Split(t.text, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			return bad("a range is empty")
		case strings.Contains(part, ":"):
			a, b, _ := strings.Cut(part, ":")
			start, n := 0, -1
			if strings.TrimSpace(a) != "" {
				v, ok := num(a)
				if !ok {
					return bad("bad offset")
				}
				start = v
			}
			if strings.TrimSpace(b) != "" {
				v, ok := num(b)
				if !ok || v < 0 {
					return bad("bad length")
				}
				n = v
			}
			rs = append(rs, byteRange{start, n})
		case strings.Contains(part[1:], "-"):
			k := strings.Index(part[1:], "-") + 1
			i, ok1 := num(part[:k])
			j, ok2 := num(part[k+1:])
			if !ok1 || !ok2 || i < 0 || j < i {
				return bad("bad range")
			}
			rs = append(rs, byteRange{i, j - i + 1})
		default:
			i, ok := num(part)
			if !ok {
				return bad("bad offset")
			}
			rs = append(rs, byteRange{i, 1})
		}
	}
	return rs, nil
}

// call := name "(" arg { "," arg } ")"
func (p *parser) call(name token) (item, error) {
	p.next() // (
	var args []item
	for {
		x, err := p.arith(false)
		if err != nil {
			return item{}, err
		}
		args = append(args, x)
		t := p.next()
		if t.kind == tRParen {
			it, err := p.function(name, args)
			it.pos, it.end = name.pos, t.end
			return it, err
		}
		if t.kind != tComma {
			return item{}, p.unexpected(t)
		}
	}
}

var functions = map[string]int{"len": 1, "count": 1, "upper": 1, "lower": 1, "string": 1, "abs": 1, "max": -1, "min": -1}

func (p *parser) function(name token, args []item) (item, error) {
	n, ok := functions[name.text]
	if !ok {
		return item{}, p.errTok(name, "%q is not a function (Wireshark 4.0 has len, count, upper, lower, string, max, min, abs)", name.text)
	}
	if n > 0 && len(args) != n {
		return item{}, p.errTok(name, "%s() takes one argument", name.text)
	}
	a := args[0]
	if n < 0 {
		for _, x := range args {
			if x.f == nil && x.op == nil {
				return item{}, p.errAt(x, "%s() takes fields", name.text)
			}
		}
	} else if a.f == nil && (a.op == nil || name.text == "count" || name.text == "len" || name.text == "upper" || name.text == "lower") {
		// as tshark 4.0: these take a field, not an expression
		return item{}, p.errAt(a, "only a field can be the argument of %s()", name.text)
	}
	fo := &funcOp{name: name.text}
	if name.text == "count" {
		fo.args = []operand{&fieldOp{*a.f}}
		fo.t = TypeUint
		return item{op: fo}, nil
	}
	var ops []operand
	for _, x := range args {
		o, err := p.operand(x)
		if err != nil {
			return item{}, err
		}
		ops = append(ops, o)
	}
	fo.args, fo.argT = ops, ops[0].typ()
	if a.f != nil {
		fo.bits = a.f.Bits
	}
	switch name.text {
	case "len":
		fo.t = TypeUint
	case "upper", "lower":
		if fo.argT != TypeString {
			return item{}, p.errAt(a, "%s() takes a string field; %s is %s", name.text, a.text(p), fo.argT.an())
		}
		fo.t = TypeString
	case "string":
		switch fo.argT {
		case TypeUint, typeInt, TypeIPv4, TypeIPv6, TypeEther, TypeString:
		default:
			return item{}, p.errAt(a, "string() of %s is not supported (numbers, addresses and strings are)", fo.argT.an())
		}
		fo.t = TypeString
	case "abs", "max", "min":
		for i, o := range ops {
			if t := o.typ(); t != TypeUint && t != typeInt && t != TypeFloat {
				return item{}, p.errAt(args[i], "%s() takes numbers; %s is %s", name.text, args[i].text(p), t.an())
			}
			if o.typ() != fo.argT || args[i].f != nil && a.f != nil && args[i].f.Bits != a.f.Bits {
				return item{}, p.errAt(args[i], "the arguments of %s() must have the same type", name.text)
			}
		}
		fo.t = fo.argT
	}
	return item{op: fo}, nil
}

// comparison compiles x OP y. A plain field against a value or a field of
// its type keeps the nodes of eval.go.
func (p *parser) comparison(x item, op token) (node, error) {
	y, err := p.arith(false)
	if err != nil {
		return nil, err
	}
	if x.f != nil && x.f.Type != TypeNone {
		switch {
		case y.lit != nil:
			v, err := p.value(*x.f, *y.lit)
			if err != nil {
				return nil, err
			}
			return &cmpNode{op: op.op, f: *x.f, v: v}, nil
		case y.f != nil && y.f.Type == x.f.Type:
			return &cmpFieldsNode{op: op.op, l: *x.f, r: *y.f}, nil
		}
	}
	if x.isUntyped() && y.isUntyped() {
		return nil, p.errAt(x, "a comparison needs a field on one side")
	}
	lo, err := p.operand(x)
	if err != nil {
		return nil, err
	}
	if lo.typ() == TypeNone {
		return nil, p.errAt(x, "%s is a protocol whose bytes rdmalab does not keep: it can only be tested for presence", x.text(p))
	}
	n := &cmpExprNode{op: op.op, l: lo}
	if y.lit != nil {
		l, err := p.value(fieldRef{Field: Field{Type: lo.typ(), Bits: bitsOf(x)}, name: x.text(p)}, *y.lit)
		if err != nil {
			return nil, err
		}
		n.lit = &l
		return n, nil
	}
	if y.untyped != nil {
		if n.r, err = p.typed(y, lo.typ(), x.text(p)); err != nil {
			return nil, err
		}
		return n, nil
	}
	if n.r, err = p.operand(y); err != nil {
		return nil, err
	}
	if !sameKind(lo.typ(), n.r.typ()) {
		return nil, p.errAt(y, "%s is %s, %s is %s: they cannot be compared", x.text(p), lo.typ().an(), y.text(p), n.r.typ().an())
	}
	return n, nil
}

func bitsOf(x item) int {
	if x.f != nil {
		return x.f.Bits
	}
	return 0
}

// sameKind says whether values of types a and b compare.
func sameKind(a, b Type) bool {
	num := func(t Type) bool { return t == TypeUint || t == typeInt }
	return a == b || num(a) && num(b) || (a == TypeBytes || a == TypeString) && (b == TypeBytes || b == TypeString)
}

// set := "{" element { "," element } "}"; element := value [".." value] | field
func (p *parser) set(x item, in token) (node, error) {
	if x.isUntyped() {
		return nil, p.errAt(x, "%q is a value: in needs a field", x.text(p))
	}
	xo, err := p.operand(x)
	if err != nil {
		return nil, err
	}
	t := xo.typ()
	name := x.text(p)
	if t == TypeNone {
		return nil, p.errAt(x, "%s is a protocol whose bytes rdmalab does not keep: it can only be tested for presence", name)
	}
	ft := fieldRef{Field: Field{Type: t, Bits: bitsOf(x)}, name: name}
	open := p.next()
	if open.kind != tLBrace {
		return nil, p.errTok(open, "a set in { } must follow in")
	}
	var elems []setElem
	var ops []operand
	for {
		tk := p.next()
		switch tk.kind {
		case tRBrace:
			if len(elems)+len(ops) == 0 {
				return nil, p.errTok(tk, "the set is empty")
			}
			if x.f != nil && len(ops) == 0 {
				return &inNode{f: *x.f, elems: elems}, nil
			}
			return &inExprNode{x: xo, elems: elems, ops: ops}, nil
		case tEOF:
			return nil, p.errTok(open, "this { is not closed")
		}
		p.i--
		if len(elems)+len(ops) > 0 {
			// elements are separated by commas, and none ends the set
			if tk.kind != tComma {
				return nil, p.unexpected(tk)
			}
			p.next()
			if k := p.peek().kind; k == tRBrace || k == tComma {
				return nil, p.unexpected(p.peek())
			}
		}
		e, err := p.arith(false)
		if err != nil {
			return nil, err
		}
		if e.untyped != nil {
			o, err := p.typed(e, t, name)
			if err != nil {
				return nil, err
			}
			ops = append(ops, o)
			continue
		}
		if e.lit == nil {
			o, err := p.operand(e)
			if err != nil {
				return nil, err
			}
			if !sameKind(t, o.typ()) {
				return nil, p.errAt(e, "%s is %s, %s is %s: they cannot be compared", name, t.an(), e.text(p), o.typ().an())
			}
			ops = append(ops, o)
			continue
		}
		lo, err := p.value(ft, *e.lit)
		if err != nil {
			return nil, err
		}
		el := setElem{lo: lo, hi: lo}
		if p.peek().kind == tDotDot {
			dd := p.next()
			if t == TypeBool || t == TypeString || t == TypeBytes {
				return nil, p.errTok(dd, "a range needs numbers or addresses, not a %s", t)
			}
			h, err := p.arith(false)
			if err != nil {
				return nil, err
			}
			if h.lit == nil || h.lit.kind != tWord {
				return nil, p.errAt(h, "a range's end is a value")
			}
			if el.hi, err = p.value(ft, *h.lit); err != nil {
				return nil, err
			}
			if el.hi.prefix || el.lo.prefix {
				return nil, p.errTok(*h.lit, "a range takes addresses, not subnets")
			}
		}
		elems = append(elems, el)
	}
}

func (p *parser) contains(x item, op token) (node, error) {
	t := p.next()
	if t.kind != tWord && t.kind != tString && t.kind != tChar {
		return nil, p.unexpected(t)
	}
	if x.f != nil && (x.f.Type == TypeString || x.f.Type == TypeBytes) {
		v, err := p.value(*x.f, t)
		if err != nil {
			return nil, err
		}
		return &containsNode{f: *x.f, sub: v.v.S}, nil
	}
	o, err := p.operand(x)
	if err != nil {
		return nil, err
	}
	if o.typ() != TypeString && o.typ() != TypeBytes {
		return nil, p.errTok(op, "contains takes a string, bytes or a protocol; %s is %s", x.text(p), o.typ().an())
	}
	v, err := p.value(fieldRef{Field: Field{Type: o.typ()}, name: x.text(p)}, t)
	if err != nil {
		return nil, err
	}
	return &containsExprNode{x: o, sub: v.v.S}, nil
}

func (p *parser) matches(x item, op token) (node, error) {
	var o operand
	if x.f == nil || x.f.Type != TypeString && x.f.Type != TypeBytes {
		var err error
		if o, err = p.operand(x); err != nil {
			return nil, err
		}
		if o.typ() != TypeString && o.typ() != TypeBytes {
			return nil, p.errTok(op, "matches takes a string field; %s is %s", x.text(p), o.typ().an())
		}
	}
	t := p.next()
	if t.kind != tString {
		if t.kind == tEOF {
			return nil, p.unexpected(t)
		}
		return nil, p.errTok(t, "matches wants a \"quoted\" regular expression")
	}
	re, err := regexp.Compile("(?i)" + t.text)
	if err != nil {
		return nil, p.errTok(t, "bad regular expression: %v", err)
	}
	if o != nil {
		return &matchesExprNode{x: o, re: re}, nil
	}
	return &matchesNode{f: *x.f, re: re}, nil
}
