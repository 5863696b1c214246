package lessons

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

// CheckKind says what a check looks at.
type CheckKind int

// The checks an `expect` line can make.
const (
	ExpectState  CheckKind = iota // expect PATH OP VALUE, expect len(PATH) OP N, expect PATH
	ExpectEvent                   // expect event FUNC, expect no event FUNC
	ExpectErrno                   // expect errno EINVAL [from FUNC]
	ExpectFault                   // expect fault [TEXT]
	ExpectError                   // expect error [TEXT]: the command fails
	ExpectOutput                  // expect output TEXT
	ExpectByte                    // expect byte PAGE[OFF] OP VALUE
	ExpectSource                  // expect source PAGE[OFF] == TEXT
)

// Check is one `expect` line.
type Check struct {
	Pos  Pos
	Text string // the line after "expect", as written
	Kind CheckKind

	Path  Path   // ExpectState
	Len   bool   // ExpectState: len(PATH)
	Op    string // "==", "!=", "<", "<=", ">", ">=", "contains", or "" (PATH alone: present and not empty)
	Value Value

	Not  bool   // ExpectEvent, ExpectErrno: expect no event, expect no errno
	Func string // ExpectEvent, ExpectErrno (optional)
	Word string // ExpectErrno: the errno name; ExpectFault, ExpectError, ExpectOutput: the text (may be empty)

	Page string // ExpectByte, ExpectSource
	Off  int
}

// Value is the right-hand side of a comparison.
type Value struct {
	Num   *big.Int // a number, when the text is one
	Str   string   // the text (a quoted string without its quotes)
	Bool  *bool
	Null  bool
	Quote bool // written in quotes: compare as a string only
	// Ref, when set, is another path of the state to compare with (a
	// bare word with a '.' or '[' that reads as a path): a check that
	// holds on any engine, whose keys and addresses are its own.
	Ref Path
}

func (v Value) String() string {
	switch {
	case v.Null:
		return "null"
	case v.Bool != nil:
		return strconv.FormatBool(*v.Bool)
	case v.Num != nil && !v.Quote:
		return v.Num.String()
	}
	return strconv.Quote(v.Str)
}

// PathElem is one step of a path: a field name, an index (negative
// counts from the end) or a selector [key=value].
type PathElem struct {
	Name     string
	Index    *int
	SelKey   string
	SelValue Value
}

// Path names a value in the lab's state (the snapshot JSON).
type Path []PathElem

func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.Index != nil:
			fmt.Fprintf(&b, "[%d]", *e.Index)
		case e.SelKey != "":
			fmt.Fprintf(&b, "[%s=%s]", e.SelKey, e.SelValue.Str)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.Name)
		}
	}
	return b.String()
}

var ops = []string{"==", "!=", "<=", ">=", "<", ">", "contains"}

// parseCheck reads the text after "expect"; pos is where that text starts.
func parseCheck(s string, pos Pos) (Check, error) {
	c := Check{Pos: pos, Text: s}
	bad := func(off int, format string, a ...any) error {
		return &Error{Pos{pos.File, pos.Line, pos.Col + off}, fmt.Sprintf(format, a...)}
	}
	if s == "" {
		return c, bad(0, "expect what? (a state path, event, errno, fault, error, output, byte or source)")
	}
	// at is the offset in s of what remains in sub, blanks skipped.
	at := func(sub string) int { return len(s) - len(strings.TrimLeft(sub, " \t")) }
	word, rest := cutWord(s)
	restOff := at(rest)
	switch word {
	case "event":
		c.Kind = ExpectEvent
		w, more := cutWord(rest)
		if w == "" {
			return c, bad(restOff, "expect event FUNC")
		}
		c.Func = w
		if strings.TrimSpace(more) != "" {
			return c, bad(at(more), "expect event takes one function name")
		}
		return c, knownFunc(w, func(msg string) error { return bad(restOff, "%s", msg) })
	case "no":
		w, more := cutWord(rest)
		switch w {
		case "event":
			f, more2 := cutWord(more)
			if f == "" || strings.TrimSpace(more2) != "" {
				return c, bad(at(more), "expect no event takes one function name")
			}
			c.Kind, c.Not, c.Func = ExpectEvent, true, f
			return c, knownFunc(f, func(msg string) error { return bad(at(more), "%s", msg) })
		case "errno":
			c, err := parseCheck(strings.TrimSpace(rest), Pos{pos.File, pos.Line, pos.Col + restOff})
			c.Not, c.Text = true, s
			return c, err
		}
		return c, bad(restOff, "expect no event FUNC, or expect no errno NAME [from FUNC]")
	case "errno":
		c.Kind = ExpectErrno
		w, more := cutWord(rest)
		w = strings.TrimPrefix(w, "-")
		if !strings.HasPrefix(w, "E") || len(w) < 2 {
			return c, bad(restOff, "expect errno NAME (EINVAL, ENOMEM, E2BIG, EIO, ENOTCONN, EMSGSIZE...)")
		}
		c.Word = w
		if strings.TrimSpace(more) != "" {
			from, fn := cutWord(more)
			f, tail := cutWord(fn)
			if from != "from" || f == "" || strings.TrimSpace(tail) != "" {
				return c, bad(at(more), "expect errno NAME [from FUNC]")
			}
			c.Func = f
			return c, knownFunc(f, func(msg string) error { return bad(at(fn), "%s", msg) })
		}
		return c, nil
	case "fault", "error", "output":
		c.Kind = map[string]CheckKind{"fault": ExpectFault, "error": ExpectError, "output": ExpectOutput}[word]
		t := strings.TrimSpace(rest)
		if u, err := strconv.Unquote(t); err == nil {
			t = u
		} else if strings.HasPrefix(t, `"`) {
			return c, bad(restOff, "an unterminated or malformed string")
		}
		if word == "output" && t == "" {
			return c, bad(restOff, "expect output TEXT")
		}
		c.Word = t
		return c, nil
	case "byte", "source":
		c.Kind = ExpectByte
		if word == "source" {
			c.Kind = ExpectSource
		}
		ref, more := cutWord(rest)
		page, off, ok := parsePageRef(ref)
		if !ok {
			return c, bad(restOff, "want PAGE[OFFSET], e.g. pg1[4]")
		}
		c.Page, c.Off = page, off
		op, val := cutWord(more)
		if op != "==" && op != "!=" {
			return c, bad(at(more), "want == or != after %s", ref)
		}
		c.Op = op
		v, err := parseValue(strings.TrimSpace(val))
		if err != nil {
			return c, bad(at(val), "%v", err)
		}
		if c.Kind == ExpectByte {
			if len(v.Str) == 3 && v.Str[0] == '\'' && v.Str[2] == '\'' {
				v = Value{Num: big.NewInt(int64(v.Str[1]))}
			}
			if v.Num == nil || v.Num.Sign() < 0 || v.Num.Cmp(big.NewInt(255)) > 0 {
				return c, bad(at(val), "a byte is 0..255, 0xNN or 'c'")
			}
		}
		c.Value = v
		return c, nil
	}
	// A state check: [len(]PATH[)] [OP VALUE]
	c.Kind = ExpectState
	expr := s
	if strings.HasPrefix(expr, "len(") {
		end := strings.IndexByte(expr, ')')
		if end < 0 {
			return c, bad(3, "len( is never closed")
		}
		c.Len = true
		p, err := parsePath(expr[4:end])
		if err != nil {
			return c, bad(4, "%v", err)
		}
		c.Path = p
		expr = expr[end+1:]
	} else {
		w, _ := cutWord(expr)
		p, err := parsePath(w)
		if err != nil {
			return c, bad(0, "%v", err)
		}
		c.Path = p
		expr = expr[len(w):]
	}
	off := len(s) - len(expr)
	expr = strings.TrimSpace(expr)
	if expr == "" {
		if c.Len {
			return c, bad(off, "len(...) needs a comparison")
		}
		return c, nil
	}
	off = len(s) - len(expr)
	op, val := cutWord(expr)
	if !contains(ops, op) {
		return c, bad(off, "want a comparison (%s), got %q", strings.Join(ops, " "), op)
	}
	c.Op = op
	val = strings.TrimSpace(val)
	if val == "" {
		return c, bad(len(s), "nothing to compare with")
	}
	v, err := parseValue(val)
	if err != nil {
		return c, bad(at(val), "%v", err)
	}
	if isRef(v) {
		if v.Ref, err = parsePath(v.Str); err != nil {
			return c, bad(at(val), "%v", err)
		}
	}
	if (c.Len || op == "<" || op == ">" || op == "<=" || op == ">=") && (v.Num == nil || v.Quote) && v.Ref == nil {
		return c, bad(at(val), "%s compares numbers", op)
	}
	c.Value = v
	return c, nil
}

// isRef says whether a bare value names another path of the state:
// it starts with a letter and has a '.' or a '[' (calls[0].segments[0].handle).
func isRef(v Value) bool {
	if v.Quote || v.Num != nil || v.Bool != nil || v.Null || v.Str == "" {
		return false
	}
	c := v.Str[0]
	return (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && strings.ContainsAny(v.Str, ".[")
}

// resolved is the value a Ref names in the state, as a check's value,
// and how a verdict shows it.
func resolved(state any, ref Path) (Value, string, error) {
	v, err := resolve(state, ref)
	if err != nil {
		return v, "", err
	}
	x, _ := lookup(state, ref)
	return v, fmt.Sprintf("%s (%s)", show(x), ref), nil
}

func resolve(state any, ref Path) (Value, error) {
	x, err := lookup(state, ref)
	if err != nil {
		return Value{}, err
	}
	switch t := x.(type) {
	case nil:
		return Value{Null: true, Str: "null"}, nil
	case bool:
		return Value{Bool: &t, Str: strconv.FormatBool(t)}, nil
	case string:
		v := Value{Str: t}
		if n, ok := parseNumber(t); ok {
			v.Num = n
		}
		return v, nil
	case []any, map[string]any:
		return Value{}, fmt.Errorf("%s is %s, not a value to compare with", ref, show(x))
	}
	n, ok := number(x)
	if !ok {
		return Value{}, fmt.Errorf("%s is %s, not a value to compare with", ref, show(x))
	}
	return Value{Num: n, Str: n.String()}, nil
}

func cutWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// parsePath reads a.b[0].c[name=nfsd1].
func parsePath(s string) (Path, error) {
	if s == "" {
		return nil, fmt.Errorf("an empty path")
	}
	var p Path
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '.':
			if i == 0 || i+1 == len(s) || s[i+1] == '.' || s[i+1] == '[' {
				return nil, fmt.Errorf("path %q: a stray '.' at %d", s, i+1)
			}
			i++
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: '[' is never closed", s)
			}
			inner := s[i+1 : i+end]
			if k, v, ok := strings.Cut(inner, "="); ok {
				if !isIdent(k) || v == "" {
					return nil, fmt.Errorf("path %q: want [key=value]", s)
				}
				val, err := parseValue(v)
				if err != nil {
					return nil, fmt.Errorf("path %q: %v", s, err)
				}
				p = append(p, PathElem{SelKey: k, SelValue: val})
			} else {
				n, err := strconv.Atoi(inner)
				if err != nil {
					return nil, fmt.Errorf("path %q: [%s] is not an index or [key=value]", s, inner)
				}
				p = append(p, PathElem{Index: &n})
			}
			i += end + 1
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if !isIdent(s[i:j]) {
				return nil, fmt.Errorf("path %q: %q is not a field name", s, s[i:j])
			}
			p = append(p, PathElem{Name: s[i:j]})
			i = j
		}
	}
	return p, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// parseValue reads a number (decimal, 0x hex, with k or M for KiB and
// MiB), a quoted string, true, false, null, or a bare word (a string).
func parseValue(s string) (Value, error) {
	switch s {
	case "true", "false":
		b := s == "true"
		return Value{Bool: &b, Str: s}, nil
	case "null":
		return Value{Null: true, Str: s}, nil
	}
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return Value{}, fmt.Errorf("malformed string %s", s)
		}
		return Value{Str: u, Quote: true}, nil
	}
	if strings.ContainsAny(s, " \t") {
		return Value{}, fmt.Errorf("%q: quote a value that has blanks", s)
	}
	v := Value{Str: s}
	if n, ok := parseNumber(s); ok {
		v.Num = n
	}
	return v, nil
}

func parseNumber(s string) (*big.Int, bool) {
	mult := int64(1)
	t := s
	switch {
	case strings.HasSuffix(t, "k") || strings.HasSuffix(t, "K"):
		mult, t = 1024, t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, t[:len(t)-1]
	}
	n, ok := new(big.Int).SetString(t, 0)
	if !ok {
		return nil, false
	}
	return n.Mul(n, big.NewInt(mult)), true
}

func parsePageRef(s string) (page string, off int, ok bool) {
	open := strings.IndexByte(s, '[')
	if open <= 0 || !strings.HasSuffix(s, "]") {
		return "", 0, false
	}
	n, err := strconv.ParseInt(s[open+1:len(s)-1], 0, 32)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return s[:open], int(n), isIdent(s[:open])
}

// lookup follows p through a decoded JSON document.
func lookup(doc any, p Path) (any, error) {
	cur := doc
	for i, e := range p {
		where := Path(p[:i+1]).String()
		switch {
		case e.Name != "":
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s is not an object", where, Path(p[:i]).String())
			}
			v, ok := m[e.Name]
			if !ok {
				return nil, fmt.Errorf("%s: no field %q", where, e.Name)
			}
			cur = v
		case e.Index != nil:
			a, ok := cur.([]any)
			if !ok {
				if cur == nil {
					a = nil
				} else {
					return nil, fmt.Errorf("%s: not a list", where)
				}
			}
			k := *e.Index
			if k < 0 {
				k += len(a)
			}
			if k < 0 || k >= len(a) {
				return nil, fmt.Errorf("%s: the list has %d entries", where, len(a))
			}
			cur = a[k]
		default:
			a, _ := cur.([]any)
			found := false
			for _, x := range a {
				m, ok := x.(map[string]any)
				if ok && equal(m[e.SelKey], e.SelValue) {
					cur, found = x, true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("%s: no entry with %s=%s", where, e.SelKey, e.SelValue.Str)
			}
		}
	}
	return cur, nil
}

// equal compares a JSON value with a check's value.
func equal(x any, v Value) bool {
	switch t := x.(type) {
	case nil:
		return v.Null
	case bool:
		return v.Bool != nil && *v.Bool == t
	case json.Number:
		n, ok := new(big.Int).SetString(t.String(), 10)
		if ok && v.Num != nil && !v.Quote {
			return n.Cmp(v.Num) == 0
		}
		return t.String() == v.Str
	case string:
		if t == v.Str {
			return true
		}
		// "0x5eed0010" in the state against 0x5eed0010 in the check
		if n, ok := parseNumber(t); ok && v.Num != nil && !v.Quote {
			return n.Cmp(v.Num) == 0
		}
	}
	return false
}

// show prints a JSON value briefly, for verdicts.
func show(x any) string {
	switch t := x.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case []any:
		return fmt.Sprintf("a list of %d", len(t))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(x)
}

// knownFunc is nil when events can name fn (kernel.Emits: what `until`
// accepts), else bad of why, with the name most likely meant: a misspelt
// name in a check would only ever fail.
func knownFunc(fn string, bad func(msg string) error) error {
	if kernel.Emits(fn) {
		return nil
	}
	msg := "no function or trace point of the model is called " + fn
	if near := nearest.Word(fn, kernel.Names(kernel.Traced())); near != "" {
		msg += " (did you mean " + near + "?)"
	}
	return bad(msg)
}
