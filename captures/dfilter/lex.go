package dfilter

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tLParen
	tRParen
	tLBrace
	tRBrace
	tComma
	tDotDot
	tNot      // ! not
	tAnd      // && and
	tOr       // || or
	tCmp      // a comparison; op says which
	tIn       // in
	tContains // contains
	tMatches  // matches ~
	tWord     // a field name or an unquoted value
	tString   // a quoted string, unescaped in text
	tChar     // a character constant 'c': its byte in text
	tArith    // + - * / % &: op says which (arith)
	tSlice    // [ranges]: text is what is between the brackets
	tLayer    // #N or #[ranges]: text is what follows the #
)

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	opEq    cmpOp = iota // == eq any_eq
	opNe                 // != ne all_ne
	opAllEq              // === all_eq
	opAnyNe              // !== ~= any_ne
	opLt
	opLe
	opGt
	opGe
)

var opNames = [...]string{"==", "!=", "===", "!==", "<", "<=", ">", ">="}

func (o cmpOp) String() string { return opNames[o] }

type token struct {
	kind  tokKind
	op    cmpOp
	arith byte   // tArith: the operator
	pos   int    // byte offset in the expression
	end   int    // byte offset after it
	text  string // tWord: as written; tString: unescaped
}

var keywords = map[string]token{
	"and": {kind: tAnd}, "or": {kind: tOr}, "not": {kind: tNot},
	"in": {kind: tIn}, "contains": {kind: tContains}, "matches": {kind: tMatches},
	"eq": {kind: tCmp, op: opEq}, "any_eq": {kind: tCmp, op: opEq},
	"ne": {kind: tCmp, op: opNe}, "all_ne": {kind: tCmp, op: opNe},
	"all_eq": {kind: tCmp, op: opAllEq}, "any_ne": {kind: tCmp, op: opAnyNe},
	"lt": {kind: tCmp, op: opLt}, "le": {kind: tCmp, op: opLe},
	"gt": {kind: tCmp, op: opGt}, "ge": {kind: tCmp, op: opGe},
}

// symbols are the operators made of punctuation, longest first.
var symbols = []struct {
	s string
	t token
}{
	{"===", token{kind: tCmp, op: opAllEq}},
	{"!==", token{kind: tCmp, op: opAnyNe}},
	{"==", token{kind: tCmp, op: opEq}},
	{"!=", token{kind: tCmp, op: opNe}},
	{"~=", token{kind: tCmp, op: opAnyNe}},
	{"<=", token{kind: tCmp, op: opLe}},
	{">=", token{kind: tCmp, op: opGe}},
	{"&&", token{kind: tAnd}},
	{"||", token{kind: tOr}},
	{"+", token{kind: tArith, arith: '+'}},
	{"*", token{kind: tArith, arith: '*'}},
	{"%", token{kind: tArith, arith: '%'}},
	{"&", token{kind: tArith, arith: '&'}},
	{"..", token{kind: tDotDot}},
	{"<", token{kind: tCmp, op: opLt}},
	{">", token{kind: tCmp, op: opGt}},
	{"!", token{kind: tNot}},
	{"~", token{kind: tMatches}},
	{"(", token{kind: tLParen}},
	{")", token{kind: tRParen}},
	{"{", token{kind: tLBrace}},
	{"}", token{kind: tRBrace}},
	{",", token{kind: tComma}},
}

// unsupported are characters that start something Wireshark has and
// this package does not read.
var unsupported = map[byte]string{
	'$': "field references ($) are not supported",
	'@': "raw fields (@) are not supported",
	'=': `"=" is not an operator: use "==" or "eq"`,
	'|': `use "||" or "or"`,
	'^': "xor is not supported",
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == ':' || c == '-' || c == '/'
}

// lex splits s into tokens.
func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			return append(toks, token{kind: tEOF, pos: i, end: i}), nil
		}
		c := s[i]
		switch {
		case c == '"' || (c == 'r' || c == 'R') && i+1 < len(s) && s[i+1] == '"':
			t, err := lexString(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = t.end
			continue
		case c == '\'':
			t, err := lexChar(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = t.end
			continue
		case c == '[' || c == '#':
			t, err := lexBracket(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = t.end
			continue
		case isWordByte(c) && !strings.HasPrefix(s[i:], ".."):
			j := i
			for j < len(s) && isWordByte(s[j]) && !strings.HasPrefix(s[j:], "..") {
				j++
			}
			w := s[i:j]
			t, ok := keywords[w]
			switch {
			case ok:
			case w == "-" || w == "/":
				// Alone, they are arithmetic; in a word, part of an
				// address, a subnet or a byte string.
				t = token{kind: tArith, arith: w[0]}
			default:
				t = token{kind: tWord, text: w}
			}
			t.pos, t.end = i, j
			toks = append(toks, t)
			i = j
			continue
		}
		matched := false
		for _, sym := range symbols {
			if strings.HasPrefix(s[i:], sym.s) {
				t := sym.t
				t.pos, t.end = i, i+len(sym.s)
				toks = append(toks, t)
				i = t.end
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if msg, ok := unsupported[c]; ok {
			return nil, errAt(s, i, i+1, "%s", msg)
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		return nil, errAt(s, i, i+n, "unexpected character %q", r)
	}
}

// lexChar reads a character constant at s[i]: 'c' or a C escape ('\n',
// '\x04', '\101'); its byte is the token's text.
func lexChar(s string, i int) (token, error) {
	var sb strings.Builder
	j := i + 1
	switch {
	case j < len(s) && s[j] == '\\':
		n, err := unescape(s, j, &sb)
		if err != nil {
			return token{}, err
		}
		j += n
	case j < len(s) && s[j] != '\'':
		sb.WriteByte(s[j])
		j++
	}
	if sb.Len() != 1 || j >= len(s) || s[j] != '\'' {
		return token{}, errAt(s, i, min(j+1, len(s)), "a character constant is one character in single quotes ('a', '\\x04')")
	}
	return token{kind: tChar, pos: i, end: j + 1, text: sb.String()}, nil
}

// lexBracket reads a slice [ranges] or a layer #N, #[ranges] at s[i].
func lexBracket(s string, i int) (token, error) {
	kind, j := tSlice, i
	if s[i] == '#' {
		kind, j = tLayer, i+1
		if j >= len(s) || s[j] != '[' {
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			if k == j {
				return token{}, errAt(s, i, i+1, "# wants a layer number (ip.src#2) or a range (#[1-2])")
			}
			return token{kind: tLayer, pos: i, end: k, text: s[j:k]}, nil
		}
	}
	end := strings.IndexByte(s[j:], ']')
	if end < 0 {
		return token{}, errAt(s, j, j+1, "this [ is not closed")
	}
	return token{kind: kind, pos: i, end: j + end + 1, text: s[j+1 : j+end]}, nil
}

// lexString reads a quoted string at s[i]: "…" with C escapes, or a raw
// r"…" where a backslash is itself.
func lexString(s string, i int) (token, error) {
	start := i
	raw := s[i] != '"'
	if raw {
		i++
	}
	i++ // the quote
	var sb strings.Builder
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return token{kind: tString, pos: start, end: i + 1, text: sb.String()}, nil
		case c == '\\' && raw:
			// A raw string keeps the backslash, and \" does not end it.
			sb.WriteByte(c)
			if i+1 < len(s) {
				sb.WriteByte(s[i+1])
			}
			i += 2
		case c == '\\':
			n, err := unescape(s, i, &sb)
			if err != nil {
				return token{}, err
			}
			i += n
		default:
			sb.WriteByte(c)
			i++
		}
	}
	return token{}, errAt(s, start, len(s), "the string is not closed (a \" is missing)")
}

// unescape writes the escape sequence at s[i] (a backslash) to sb and
// returns its length.
func unescape(s string, i int, sb *strings.Builder) (int, error) {
	if i+1 >= len(s) {
		return 0, errAt(s, i, i+1, "a backslash ends the string")
	}
	c := s[i+1]
	simple := map[byte]byte{'a': 7, 'b': 8, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11, '\\': '\\', '"': '"', '\'': '\''}
	if e, ok := simple[c]; ok {
		sb.WriteByte(e)
		return 2, nil
	}
	switch {
	case c == 'x':
		j := i + 2
		v := 0
		for j < len(s) && j < i+4 && hexVal(s[j]) >= 0 {
			v = v*16 + hexVal(s[j])
			j++
		}
		if j == i+2 {
			return 0, errAt(s, i, i+2, `\x wants hexadecimal digits`)
		}
		sb.WriteByte(byte(v))
		return j - i, nil
	case c >= '0' && c <= '7':
		j := i + 1
		v := 0
		for j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7' {
			v = v*8 + int(s[j]-'0')
			j++
		}
		if v > 255 {
			return 0, errAt(s, i, j, "octal escape beyond 255")
		}
		sb.WriteByte(byte(v))
		return j - i, nil
	}
	return 0, errAt(s, i, i+2, `unknown escape \%c`, c)
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// Error is a mistake in a filter expression, at a place in it.
type Error struct {
	Expr     string
	Pos, End int // byte offsets of the mistake in Expr
	Msg      string
}

// Column is the column of the mistake, counted in characters from 1.
func (e *Error) Column() int { return utf8.RuneCountInString(e.Expr[:e.Pos]) + 1 }

func (e *Error) Error() string { return fmt.Sprintf("column %d: %s", e.Column(), e.Msg) }

// Width is how many characters the mistake spans, at least 1.
func (e *Error) Width() int {
	return max(utf8.RuneCountInString(e.Expr[min(e.Pos, len(e.Expr)):min(max(e.End, e.Pos), len(e.Expr))]), 1)
}

// Caret returns the expression with a line under it marking the mistake,
// as tshark draws it:
//
//	infiniband.bth.psnn >= 1
//	^~~~~~~~~~~~~~~~~~~
func (e *Error) Caret() string {
	n := utf8.RuneCountInString(e.Expr[e.Pos:e.End])
	if n < 1 {
		n = 1
	}
	return e.Expr + "\n" + strings.Repeat(" ", e.Column()-1) + "^" + strings.Repeat("~", n-1)
}

func errAt(expr string, pos, end int, format string, args ...any) *Error {
	return &Error{Expr: expr, Pos: pos, End: end, Msg: fmt.Sprintf(format, args...)}
}
