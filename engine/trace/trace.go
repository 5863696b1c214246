// Package trace defines the events the rdmalab engine emits: one per trace
// point of the model, named after the kernel function or trace event that
// stands there, with its arguments and the state it changed. Views, the
// REPL and tests read the same stream.
package trace

import (
	"fmt"
	"strings"
)

// Kind says what an event marks.
type Kind uint8

// Event kinds.
const (
	Call   Kind = iota // a model function was entered
	Return             // a model function returned (Err holds its errno name, if any)
	Point              // a trace point inside a function: what it did
	Wait               // the task blocked (Text says on what)
	Fault              // the kernel would have crashed or corrupted memory here
	Note               // something outside the model happened (client, provider, user)
)

var kindNames = [...]string{"call", "return", "point", "wait", "fault", "note"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText makes Kind read as its name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a Kind written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event kind %q", b)
}

// Arg is one named value of an event, already formatted.
type Arg struct {
	Key string `json:"key"`
	Val string `json:"val"`
}

// Event is one step of the engine.
type Event struct {
	Seq   uint64 `json:"seq"`
	Task  string `json:"task"`
	Kind  Kind   `json:"kind"`
	Func  string `json:"func"`
	Depth int    `json:"depth"`
	Args  []Arg  `json:"args,omitempty"`
	Err   string `json:"err,omitempty"`
	Text  string `json:"text,omitempty"`
}

// Fmt turns key, value pairs into Args; values are formatted with %v, and
// integers that look like keys or addresses should be passed pre-formatted.
func Fmt(kv ...any) []Arg {
	if len(kv) == 0 {
		return nil
	}
	args := make([]Arg, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		args = append(args, Arg{Key: k, Val: fmt.Sprint(kv[i+1])})
	}
	return args
}

// MaxIndent is the deepest call String indents for. Depth may come from a
// file or a socket: it is a claim, and a line never grows with it.
const MaxIndent = 32

// String renders the event as the one readable line the REPL prints.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s ", e.Task)
	b.WriteString(strings.Repeat("  ", min(max(e.Depth, 0), MaxIndent)))
	if e.Depth > MaxIndent {
		fmt.Fprintf(&b, "[%d] ", e.Depth)
	}
	switch e.Kind {
	case Call:
		b.WriteString("→ ")
		b.WriteString(e.Func)
		writeArgs(&b, e.Args, "(", ")")
	case Return:
		b.WriteString("← ")
		b.WriteString(e.Func)
		if e.Err != "" {
			b.WriteString(" = -")
			b.WriteString(e.Err)
		} else if len(e.Args) > 0 {
			writeArgs(&b, e.Args, " = ", "")
		}
	case Wait:
		b.WriteString("… ")
		b.WriteString(e.Func)
		writeArgs(&b, e.Args, " ", "")
	case Fault:
		b.WriteString("FAULT ")
		b.WriteString(e.Func)
		writeArgs(&b, e.Args, " ", "")
	default:
		b.WriteString("• ")
		b.WriteString(e.Func)
		writeArgs(&b, e.Args, " ", "")
	}
	if e.Text != "" {
		b.WriteString(": ")
		b.WriteString(e.Text)
	}
	return b.String()
}

func writeArgs(b *strings.Builder, args []Arg, open, close string) {
	if len(args) == 0 {
		if open == "(" {
			b.WriteString("()")
		}
		return
	}
	b.WriteString(open)
	for i, a := range args {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(a.Key)
		b.WriteString("=")
		b.WriteString(a.Val)
	}
	b.WriteString(close)
}
