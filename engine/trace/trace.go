// Package trace defines the events the rdmalab engine emits: one per trace
// point of the model, named after the kernel function or trace event that
// stands there, with its arguments and the state it changed. Views, the
// REPL and tests read the same stream.
package trace

import (
	"fmt"
	"strconv"
	"unicode/utf8"
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
	return AppendFmt(make([]Arg, 0, len(kv)/2), kv...)
}

// AppendFmt appends to args the Args Fmt makes of kv, one per pair.
func AppendFmt(args []Arg, kv ...any) []Arg {
	// Integers and booleans are formatted into one buffer and cut from one
	// string: every event formats its arguments, and most are numbers.
	var (
		scratch [128]byte
		ends    [16]int // where each of the first args' value ends in b; -1: not in b
	)
	b, base := scratch[:0], len(args)
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		ok := false
		if n := len(args) - base; n < len(ends) {
			b, ok = appendPlain(b, kv[i+1])
			ends[n] = end(b, ok)
		}
		args = append(args, Arg{Key: k})
		if !ok {
			args[len(args)-1].Val = Sprint(kv[i+1])
		}
	}
	return cut(args, base, ends[:], b)
}

// Appender is an argument value that appends its text, what fmt.Sprint
// prints for it, to b: a Formatter formats it in place, without a string
// of its own (the model's addresses, keys, SGEs and WR chains).
type Appender interface {
	AppendArg(b []byte) []byte
}

// Formatter is AppendFmt with a buffer kept from one call to the next,
// which Appenders are formatted in too: the only allocation an event's
// arguments cost is the one string they are all cut from.
type Formatter struct {
	buf []byte
}

// AppendFmt appends to args the Args Fmt makes of kv, one per pair.
func (f *Formatter) AppendFmt(args []Arg, kv ...any) []Arg {
	var ends [16]int // as AppendFmt's
	b, base := f.buf[:0], len(args)
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		ok := false
		if n := len(args) - base; n < len(ends) {
			if b, ok = appendPlain(b, kv[i+1]); !ok {
				if a, is := kv[i+1].(Appender); is {
					b, ok = appendArg(b, a)
				}
			}
			ends[n] = end(b, ok)
		}
		args = append(args, Arg{Key: k})
		if !ok {
			args[len(args)-1].Val = Sprint(kv[i+1])
		}
	}
	f.buf = b
	return cut(args, base, ends[:], b)
}

// end is where a value formatted into b ends, or -1 when it was not.
func end(b []byte, ok bool) int {
	if ok {
		return len(b)
	}
	return -1
}

// cut sets the values of args[base:] formatted into b (ends[i] >= 0) to
// their pieces of one string made of b.
func cut(args []Arg, base int, ends []int, b []byte) []Arg {
	if len(b) == 0 {
		return args
	}
	all, start := string(b), 0
	for i := range args[base:min(len(args), base+len(ends))] {
		if ends[i] >= 0 {
			args[base+i].Val, start = all[start:ends[i]], ends[i]
		}
	}
	return args
}

// appendArg is v.AppendArg(b), or b as it was and false when AppendArg
// panics (a nil receiver): Sprint then prints v as fmt does.
func appendArg(b []byte, v Appender) (out []byte, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = b, false
		}
	}()
	return v.AppendArg(b), true
}

// appendPlain appends v as fmt.Sprint does when it is an integer or a
// boolean of a built-in type, and reports whether it was one.
func appendPlain(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case int32:
		return strconv.AppendInt(b, int64(x), 10), true
	case uint64:
		return strconv.AppendUint(b, x, 10), true
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), true
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), true
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), true
	case bool:
		return strconv.AppendBool(b, x), true
	}
	return b, false
}

// Sprint is fmt.Sprint(v) without fmt for the plain types trace points pass
// most (every event formats its arguments).
func Sprint(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint16:
		return strconv.FormatUint(uint64(x), 10)
	case uint8:
		return strconv.FormatUint(uint64(x), 10)
	case bool:
		return strconv.FormatBool(x)
	case error:
		return method(v, x.Error)
	case fmt.Stringer:
		return method(v, x.String)
	}
	return fmt.Sprint(v)
}

// method is m(), or what fmt prints for v when m panics (a nil receiver).
func method(v any, m func() string) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprint(v)
		}
	}()
	return m()
}

// MaxIndent is the deepest call String indents for. Depth may come from a
// file or a socket: it is a claim, and a line never grows with it.
const MaxIndent = 32

// String renders the event as the one readable line the REPL prints.
func (e Event) String() string { return string(e.Append(make([]byte, 0, 128))) }

// Append appends the line String renders to b.
func (e Event) Append(b []byte) []byte {
	b = append(b, e.Task...)
	for n := utf8.RuneCountInString(e.Task); n < 6; n++ {
		b = append(b, ' ')
	}
	b = append(b, ' ')
	for i := min(max(e.Depth, 0), MaxIndent); i > 0; i-- {
		b = append(b, "  "...)
	}
	if e.Depth > MaxIndent {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(e.Depth), 10)
		b = append(b, "] "...)
	}
	switch e.Kind {
	case Call:
		b = append(b, "→ "...)
		b = append(b, e.Func...)
		b = appendArgs(b, e.Args, "(", ")")
	case Return:
		b = append(b, "← "...)
		b = append(b, e.Func...)
		if e.Err != "" {
			b = append(b, " = -"...)
			b = append(b, e.Err...)
		} else if len(e.Args) > 0 {
			b = appendArgs(b, e.Args, " = ", "")
		}
	case Wait:
		b = append(b, "… "...)
		b = append(b, e.Func...)
		b = appendArgs(b, e.Args, " ", "")
	case Fault:
		b = append(b, "FAULT "...)
		b = append(b, e.Func...)
		b = appendArgs(b, e.Args, " ", "")
	default:
		b = append(b, "• "...)
		b = append(b, e.Func...)
		b = appendArgs(b, e.Args, " ", "")
	}
	if e.Text != "" {
		b = append(b, ": "...)
		b = append(b, e.Text...)
	}
	return b
}

func appendArgs(b []byte, args []Arg, open, close string) []byte {
	if len(args) == 0 {
		if open == "(" {
			b = append(b, "()"...)
		}
		return b
	}
	b = append(b, open...)
	for i, a := range args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, a.Key...)
		b = append(b, '=')
		b = append(b, a.Val...)
	}
	return append(b, close...)
}
