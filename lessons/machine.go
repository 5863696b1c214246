package lessons

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// Machine is what a lesson runs on: the REPL's session, adapted. The
// lessons package knows nothing of the REPL; it hands the machine command
// lines and reads back what they did.
type Machine interface {
	// Reset gives a fresh lab with these settings applied in order.
	Reset(settings []Setting) error
	// Exec runs one command line of the lesson file; at is where it
	// stands there, for messages.
	Exec(line string, at Pos) Result
	// State is the lab's snapshot as decoded JSON (encoding/json with
	// UseNumber), the document `show snapshot --json` prints.
	State() (any, error)
	// PageByte is the byte at off in the named page, and where it came
	// from ("inline", "read chunk 0 seg 0", ...; "" when unknown).
	PageByte(page string, off int) (b byte, source string, err error)
}

// Result is what one command did.
type Result struct {
	Output string        // what it printed
	Events []trace.Event // the events it caused
	Err    error         // its error; nil when it succeeded
}

// Verdict is one check's outcome, in plain words.
type Verdict struct {
	Check *Check
	OK    bool
	Say   string
}

// evaluate runs every check of st against what its command did. A
// command that fails fails the step unless a check expects the error.
func evaluate(st *Step, r Result, m Machine) []Verdict {
	var out []Verdict
	wantsErr := false
	for i := range st.Checks {
		if st.Checks[i].Kind == ExpectError {
			wantsErr = true
		}
	}
	if r.Err != nil && !wantsErr {
		out = append(out, Verdict{OK: false, Say: fmt.Sprintf("the command failed: %v", r.Err)})
	}
	var state any
	var stateErr error
	loaded := false
	for i := range st.Checks {
		c := &st.Checks[i]
		if c.Kind == ExpectState && !loaded {
			state, stateErr = m.State()
			loaded = true
		}
		out = append(out, evalOne(c, r, m, state, stateErr))
	}
	return out
}

func evalOne(c *Check, r Result, m Machine, state any, stateErr error) Verdict {
	v := Verdict{Check: c}
	switch c.Kind {
	case ExpectState:
		if stateErr != nil {
			v.Say = fmt.Sprintf("cannot read the lab's state: %v", stateErr)
			return v
		}
		x, err := lookup(state, c.Path)
		if err != nil {
			v.Say = err.Error()
			return v
		}
		name := c.Path.String()
		want, wantS := c.Value, c.Value.String()
		if c.Value.Ref != nil {
			var err error
			if want, wantS, err = resolved(state, c.Value.Ref); err != nil {
				v.Say = err.Error()
				return v
			}
		}
		if c.Len {
			n := 0
			switch t := x.(type) {
			case []any:
				n = len(t)
			case map[string]any:
				n = len(t)
			case string:
				n = len(t)
			case nil:
			default:
				v.Say = fmt.Sprintf("%s is %s, which has no length", name, show(x))
				return v
			}
			v.OK = compareNum(big.NewInt(int64(n)), c.Op, want.Num)
			v.Say = fmt.Sprintf("%s has %d entries", name, n)
			if !v.OK {
				v.Say += fmt.Sprintf(", expected %s %s", c.Op, wantS)
			}
			return v
		}
		switch c.Op {
		case "":
			v.OK = present(x)
			v.Say = fmt.Sprintf("%s is %s", name, show(x))
			if !v.OK {
				v.Say += ", expected something there"
			}
		case "==", "!=":
			eq := equal(x, want)
			v.OK = eq == (c.Op == "==")
			v.Say = fmt.Sprintf("%s is %s", name, show(x))
			if !v.OK {
				if c.Op == "==" {
					v.Say += fmt.Sprintf(", expected %s", wantS)
				} else {
					v.Say += ", expected anything else"
				}
			}
		case "contains":
			v.OK = containsValue(x, want)
			v.Say = fmt.Sprintf("%s contains %s", name, wantS)
			if !v.OK {
				v.Say = fmt.Sprintf("%s is %s, which does not contain %s", name, show(x), wantS)
			}
		default:
			n, ok := number(x)
			if !ok {
				v.Say = fmt.Sprintf("%s is %s, not a number", name, show(x))
				return v
			}
			v.OK = compareNum(n, c.Op, want.Num)
			v.Say = fmt.Sprintf("%s is %s", name, n)
			if !v.OK {
				v.Say += fmt.Sprintf(", expected %s %s", c.Op, wantS)
			}
		}
	case ExpectEvent:
		seen := false
		for _, e := range r.Events {
			if e.Func == c.Func {
				seen = true
				break
			}
		}
		v.OK = seen != c.Not
		switch {
		case seen && !c.Not:
			v.Say = c.Func + " ran"
		case seen:
			v.Say = c.Func + " ran, and this step expected it not to"
		case c.Not:
			v.Say = c.Func + " did not run"
		default:
			v.Say = c.Func + " did not run in this step"
		}
	case ExpectErrno:
		for _, e := range r.Events {
			if e.Kind == trace.Return && strings.TrimPrefix(e.Err, "-") == c.Word && (c.Func == "" || e.Func == c.Func) {
				v.OK = !c.Not
				v.Say = fmt.Sprintf("%s returned -%s", e.Func, c.Word)
				if c.Not {
					v.Say += ", and this step expected no function to"
				}
				return v
			}
		}
		if c.Not {
			v.OK = true
			v.Say = fmt.Sprintf("no function returned -%s", c.Word)
			if c.Func != "" {
				v.Say = fmt.Sprintf("%s did not return -%s", c.Func, c.Word)
			}
			return v
		}
		if c.Func != "" {
			v.Say = fmt.Sprintf("%s did not return -%s in this step", c.Func, c.Word)
		} else {
			v.Say = fmt.Sprintf("no function returned -%s in this step", c.Word)
		}
	case ExpectFault:
		for _, e := range r.Events {
			// A FAULT's title ("hung task", "BUG_ON(!nents)") is its Func.
			if e.Kind == trace.Fault && (strings.Contains(e.Func, c.Word) || strings.Contains(e.Text, c.Word)) {
				v.OK = true
				v.Say = fmt.Sprintf("the kernel would fault here: %s: %s", e.Func, e.Text)
				return v
			}
		}
		v.Say = "no kernel fault in this step"
		if c.Word != "" {
			v.Say = fmt.Sprintf("no kernel fault mentioning %q in this step", c.Word)
		}
	case ExpectError:
		switch {
		case r.Err == nil:
			v.Say = "the command succeeded, and this step expected it to fail"
		case strings.Contains(r.Err.Error(), c.Word):
			v.OK = true
			v.Say = fmt.Sprintf("the command failed as expected: %v", r.Err)
		default:
			v.Say = fmt.Sprintf("the command failed with %q, expected a message with %q", r.Err, c.Word)
		}
	case ExpectOutput:
		v.OK = strings.Contains(r.Output, c.Word)
		v.Say = fmt.Sprintf("the output says %q", c.Word)
		if !v.OK {
			v.Say = fmt.Sprintf("the output does not say %q", c.Word)
		}
	case ExpectByte, ExpectSource:
		b, src, err := m.PageByte(c.Page, c.Off)
		if err != nil {
			v.Say = err.Error()
			return v
		}
		where := fmt.Sprintf("%s[%d]", c.Page, c.Off)
		if c.Kind == ExpectByte {
			eq := big.NewInt(int64(b)).Cmp(c.Value.Num) == 0
			v.OK = eq == (c.Op == "==")
			v.Say = fmt.Sprintf("%s holds 0x%02x", where, b)
			if !v.OK {
				v.Say += fmt.Sprintf(", expected %s 0x%02x", c.Op, c.Value.Num)
			}
		} else {
			eq := src == c.Value.Str
			v.OK = eq == (c.Op == "==")
			v.Say = fmt.Sprintf("%s came from %q", where, src)
			if !v.OK {
				v.Say += fmt.Sprintf(", expected %s %q", c.Op, c.Value.Str)
			}
		}
	}
	return v
}

func present(x any) bool {
	switch t := x.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	}
	if n, ok := number(x); ok {
		return n.Sign() != 0
	}
	return true
}

func number(x any) (*big.Int, bool) {
	switch t := x.(type) {
	case interface{ String() string }:
		return new(big.Int).SetString(t.String(), 10)
	case string:
		return parseNumber(t)
	}
	return nil, false
}

func compareNum(a *big.Int, op string, b *big.Int) bool {
	if b == nil {
		return false
	}
	c := a.Cmp(b)
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

func containsValue(x any, v Value) bool {
	switch t := x.(type) {
	case string:
		return strings.Contains(t, v.Str)
	case []any:
		for _, e := range t {
			if equal(e, v) {
				return true
			}
		}
	}
	return false
}
