package dfilter

import (
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
	case tWord, tString, tChar, tArith:
		return p.test()
	}
	return nil, p.unexpected(t)
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
