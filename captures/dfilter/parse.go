package dfilter

import (
	"regexp"
	"strings"
)

// Filter is a compiled display filter. It keeps scratch space between
// calls of Match: it is not safe for concurrent use.
type Filter struct {
	expr string
	root node
}

// String returns the expression as written.
func (f *Filter) String() string { return f.expr }

// Match reports whether the packet r passes the filter. A nil Filter
// passes every packet.
func (f *Filter) Match(r Record) bool {
	if f == nil || f.root == nil {
		return true
	}
	return f.root.eval(r)
}

// Compile parses expr with the fields of s. An empty expression (only
// spaces) passes every packet. Its errors are *Error.
func Compile(expr string, s Schema) (*Filter, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{expr: expr, toks: toks, schema: s}
	f := &Filter{expr: expr}
	if toks[0].kind == tEOF {
		return f, nil
	}
	if f.root, err = p.or(); err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.unexpected(t)
	}
	return f, nil
}

type parser struct {
	expr   string
	toks   []token
	i      int
	schema Schema
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errTok(t token, format string, args ...any) *Error {
	return errAt(p.expr, t.pos, t.end, format, args...)
}

func (p *parser) unexpected(t token) *Error {
	if t.kind == tEOF {
		return p.errTok(t, "the expression ends too early")
	}
	return p.errTok(t, "%q was unexpected here", p.expr[t.pos:t.end])
}

// or := and { ("||" | "or") and }
func (p *parser) or() (node, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tOr {
		p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &orNode{l, r}
	}
	return l, nil
}

// and := unary { ("&&" | "and") unary }
func (p *parser) and() (node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tAnd {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &andNode{l, r}
	}
	return l, nil
}

// unary := ("!" | "not") unary | "(" or ")" | test
func (p *parser) unary() (node, error) {
	t := p.peek()
	switch t.kind {
	case tNot:
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &notNode{x}, nil
	case tLParen:
		p.next()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			if c.kind == tEOF {
				return nil, p.errTok(t, "this ( is not closed")
			}
			return nil, p.unexpected(c)
		}
		return x, nil
	case tWord:
		return p.test()
	}
	return nil, p.unexpected(t)
}

// test := field [ cmp operand | ["not" | "!"] "in" set | "contains" value | "matches" string ]
func (p *parser) test() (node, error) {
	ft := p.next()
	if p.peek().kind == tLParen {
		return nil, p.errTok(ft, "functions (%s()) are not supported", ft.text)
	}
	f, err := p.field(ft)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch t.kind {
	case tCmp:
		p.next()
		return p.comparison(f, t)
	case tIn:
		p.next()
		return p.set(f, t)
	case tNot:
		if p.toks[p.i+1].kind == tIn {
			p.next()
			in := p.next()
			s, err := p.set(f, in)
			if err != nil {
				return nil, err
			}
			return &notNode{s}, nil
		}
	case tContains:
		p.next()
		return p.contains(f, t)
	case tMatches:
		p.next()
		return p.matches(f, t)
	}
	return &existsNode{f: f}, nil
}

// fieldRef is a field as an operand.
type fieldRef struct {
	Field
	name     string
	pos, end int
}

func (p *parser) field(t token) (fieldRef, error) {
	f, ok := p.schema.Lookup(t.text)
	if !ok {
		return fieldRef{}, p.unknownField(t)
	}
	return fieldRef{Field: f, name: t.text, pos: t.pos, end: t.end}, nil
}

func (p *parser) unknownField(t token) *Error {
	if s := suggest(t.text, p.schema.Names()); s != "" {
		return p.errTok(t, "unknown field %q (did you mean %s?)", t.text, s)
	}
	return p.errTok(t, "unknown field %q", t.text)
}

// looksLikeField says whether an unquoted word that is not a value of the
// type expected was meant as a field name.
func looksLikeField(w string) bool {
	if w == "" || !(w[0] >= 'a' && w[0] <= 'z' || w[0] >= 'A' && w[0] <= 'Z' || w[0] == '_') {
		return false
	}
	return strings.Contains(w, ".") || strings.Contains(w, "_")
}

func (p *parser) comparison(f fieldRef, op token) (node, error) {
	if err := p.comparable(f, op); err != nil {
		return nil, err
	}
	t := p.next()
	switch t.kind {
	case tWord:
		if g, ok := p.schema.Lookup(t.text); ok {
			r := fieldRef{Field: g, name: t.text, pos: t.pos, end: t.end}
			if g.Type != f.Type {
				return nil, p.errTok(t, "%s is %s, %s is %s: they cannot be compared", f.name, f.Type.an(), r.name, g.Type.an())
			}
			return &cmpFieldsNode{op: op.op, l: f, r: r}, nil
		}
	case tString:
	default:
		return nil, p.unexpected(t)
	}
	v, err := p.value(f, t)
	if err != nil {
		return nil, err
	}
	return &cmpNode{op: op.op, f: f, v: v}, nil
}

// comparable says whether f takes the comparison op.
func (p *parser) comparable(f fieldRef, op token) error {
	switch {
	case f.Type == TypeNone:
		return p.errTok(op, "%s is a protocol: it can only be tested for presence", f.name)
	case f.Type == TypeBool && op.op >= opLt:
		return p.errTok(op, "%s is a boolean: it takes == and != only", f.name)
	}
	return nil
}

// set := "{" element { [","] element } "}"; element := value [".." value]
func (p *parser) set(f fieldRef, in token) (node, error) {
	if f.Type == TypeNone {
		return nil, p.errTok(in, "%s is a protocol: it can only be tested for presence", f.name)
	}
	open := p.next()
	if open.kind != tLBrace {
		return nil, p.errTok(open, "a set in { } must follow in")
	}
	n := &inNode{f: f}
	for {
		t := p.next()
		switch t.kind {
		case tRBrace:
			if len(n.elems) == 0 {
				return nil, p.errTok(t, "the set is empty")
			}
			return n, nil
		case tComma:
			if len(n.elems) == 0 || p.toks[p.i-2].kind == tComma {
				return nil, p.unexpected(t)
			}
			continue
		case tWord, tString:
		case tEOF:
			return nil, p.errTok(open, "this { is not closed")
		default:
			return nil, p.unexpected(t)
		}
		lo, err := p.value(f, t)
		if err != nil {
			return nil, err
		}
		e := setElem{lo: lo, hi: lo}
		if p.peek().kind == tDotDot {
			dd := p.next()
			if f.Type == TypeBool || f.Type == TypeString || f.Type == TypeBytes {
				return nil, p.errTok(dd, "a range needs numbers or addresses, not a %s", f.Type)
			}
			t := p.next()
			if t.kind != tWord {
				return nil, p.unexpected(t)
			}
			if e.hi, err = p.value(f, t); err != nil {
				return nil, err
			}
			if e.hi.prefix || e.lo.prefix {
				return nil, p.errTok(t, "a range takes addresses, not subnets")
			}
		}
		n.elems = append(n.elems, e)
	}
}

func (p *parser) contains(f fieldRef, op token) (node, error) {
	if f.Type != TypeString && f.Type != TypeBytes {
		return nil, p.errTok(op, "contains takes a string or byte-string field; %s is %s", f.name, f.Type.an())
	}
	t := p.next()
	if t.kind != tWord && t.kind != tString {
		return nil, p.unexpected(t)
	}
	v, err := p.value(f, t)
	if err != nil {
		return nil, err
	}
	return &containsNode{f: f, sub: v.v.S}, nil
}

func (p *parser) matches(f fieldRef, op token) (node, error) {
	if f.Type != TypeString && f.Type != TypeBytes {
		return nil, p.errTok(op, "matches takes a string field; %s is %s", f.name, f.Type.an())
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
	return &matchesNode{f: f, re: re}, nil
}
