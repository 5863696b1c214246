package trace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Depth is a claim when an event comes from a file or a socket: the line
// String builds stays short whatever it says, and says the depth it cut.
func TestStringDepthIsBounded(t *testing.T) {
	for _, depth := range []int{-1 << 62, -1, 0, 3, MaxIndent, MaxIndent + 1, math.MaxInt32, 1 << 40, 1 << 53, math.MaxInt} {
		e := Event{Task: "nfsd0", Kind: Call, Func: "svc_rdma_recvfrom", Depth: depth}
		s := e.String()
		if len(s) > 200 {
			t.Errorf("depth %d: line of %d bytes", depth, len(s))
		}
		indent := len(s) - len(strings.TrimLeft(strings.TrimPrefix(s, "nfsd0  "), " ")) - len("nfsd0  ")
		want := min(max(depth, 0), MaxIndent) * 2
		if indent != want {
			t.Errorf("depth %d: indent %d, want %d: %q", depth, indent, want, s)
		}
		if cut := depth > MaxIndent; cut != strings.Contains(s, "[") {
			t.Errorf("depth %d: %q should say the depth only when it was cut", depth, s)
		}
	}
	if got := (Event{Task: "nfsd0", Kind: Call, Func: "f", Depth: 2}).String(); got != "nfsd0      → f()" {
		t.Errorf("got %q", got)
	}
}

// fmtString is how String rendered an event with fmt, the reference the
// append-based String must match byte for byte.
func fmtString(e Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s ", e.Task)
	b.WriteString(strings.Repeat("  ", min(max(e.Depth, 0), MaxIndent)))
	if e.Depth > MaxIndent {
		fmt.Fprintf(&b, "[%d] ", e.Depth)
	}
	args := func(open, close string) {
		if len(e.Args) == 0 {
			if open == "(" {
				b.WriteString("()")
			}
			return
		}
		b.WriteString(open)
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(a.Key + "=" + a.Val)
		}
		b.WriteString(close)
	}
	switch e.Kind {
	case Call:
		b.WriteString("→ " + e.Func)
		args("(", ")")
	case Return:
		b.WriteString("← " + e.Func)
		if e.Err != "" {
			b.WriteString(" = -" + e.Err)
		} else if len(e.Args) > 0 {
			args(" = ", "")
		}
	case Wait:
		b.WriteString("… " + e.Func)
		args(" ", "")
	case Fault:
		b.WriteString("FAULT " + e.Func)
		args(" ", "")
	default:
		b.WriteString("• " + e.Func)
		args(" ", "")
	}
	if e.Text != "" {
		b.WriteString(": " + e.Text)
	}
	return b.String()
}

func TestStringMatchesFmt(t *testing.T) {
	args := []Arg{{Key: "a", Val: "1"}, {Key: "bb", Val: "x y"}}
	for _, task := range []string{"", "cq", "nfsd0", "client", "nfsd10", "wïre", "ünïcödé-task"} {
		for _, depth := range []int{-3, 0, 1, 5, MaxIndent, MaxIndent + 1, 1000} {
			for k := Call; k <= Note+1; k++ {
				for _, e := range []Event{
					{Task: task, Kind: k, Func: "svc_rdma_x", Depth: depth},
					{Task: task, Kind: k, Func: "f", Depth: depth, Args: args, Text: "some text"},
					{Task: task, Kind: k, Func: "g", Depth: depth, Err: "EIO", Args: args[:1]},
				} {
					if got, want := e.String(), fmtString(e); got != want {
						t.Errorf("%+v:\n got %q\nwant %q", e, got, want)
					}
				}
			}
		}
	}
}

func TestSprintMatchesFmt(t *testing.T) {
	type named uint32
	for _, v := range []any{"s", "", 0, -5, 1 << 40, int64(-9), int32(7), uint64(1<<63 + 5), uint32(0xffffffff),
		uint16(9), uint8(200), true, false, named(3), 1.5, []int{1, 2}, nil, fmt.Errorf("boom"),
		Call, Kind(9), (*nilStringer)(nil), nilStringer{}} {
		if got, want := Sprint(v), fmt.Sprint(v); got != want {
			t.Errorf("Sprint(%#v) = %q, want %q", v, got, want)
		}
	}
}

type nilStringer struct{ s *string }

func (n *nilStringer) String() string { return *n.s }

// TestFmtMatchesSprint: Fmt gives each value what Sprint gives it, whether
// it is cut from the shared buffer of numbers or formatted alone, past the
// first 16 arguments too, and drops a key without a value.
func TestFmtMatchesSprint(t *testing.T) {
	type named uint32
	vals := []any{"s", 7, "", uint64(1<<63 + 5), true, named(3), fmt.Errorf("boom"), int32(-7), 1.5, uint8(0), nil, -1 << 40}
	for len(vals) < 40 {
		vals = append(vals, len(vals)*1000, fmt.Sprintf("v%d", len(vals)))
	}
	var kv []any
	for i, v := range vals {
		kv = append(kv, fmt.Sprintf("k%d", i), v)
	}
	args := Fmt(append(kv, "dangling")...)
	if len(args) != len(vals) {
		t.Fatalf("%d args for %d pairs", len(args), len(vals))
	}
	for i, v := range vals {
		if want := (Arg{Key: fmt.Sprintf("k%d", i), Val: fmt.Sprint(v)}); args[i] != want {
			t.Errorf("arg %d = %+v, want %+v", i, args[i], want)
		}
	}
	if Fmt() != nil {
		t.Errorf("Fmt() is not nil")
	}
}

// hexer is an Appender, as the model's addresses are; a nil *hexer panics
// in AppendArg and String alike.
type hexer struct{ v *uint64 }

func (h *hexer) String() string { return string(h.AppendArg(nil)) }

func (h *hexer) AppendArg(b []byte) []byte { return strconv.AppendUint(append(b, "0x"...), *h.v, 16) }

// half appends part of its text, then panics, as String does.
type half struct{}

func (half) String() string { panic("half") }

func (half) AppendArg(b []byte) []byte { _ = append(b, "partial"...); panic("half") }

// long is an Appender whose text outgrows any small buffer.
type long int

func (l long) String() string { return strings.Repeat("ab", int(l)) }

func (l long) AppendArg(b []byte) []byte {
	for range l {
		b = append(b, "ab"...)
	}
	return b
}

// TestFormatterMatchesSprint: a Formatter gives each value what Sprint
// gives it, Appenders included (a panicking one as fmt prints it), past
// the first 16 arguments too, and the values of one call stay as they were
// while its buffer is reused by the next ones.
func TestFormatterMatchesSprint(t *testing.T) {
	x, y := uint64(0x1f000), uint64(7)
	vals := []any{&hexer{&x}, 7, (*hexer)(nil), long(100), half{}, "s", uint64(1<<63 + 5), fmt.Errorf("boom"), long(0),
		&hexer{&y}, true, nil, long(3), 1.5}
	for len(vals) < 40 {
		vals = append(vals, len(vals)*1000, long(len(vals)), &hexer{&y})
	}
	var (
		f    Formatter
		kv   []any
		args []Arg
	)
	for i, v := range vals {
		kv = append(kv, fmt.Sprintf("k%d", i), v)
		// Each prefix of kv is one call, appending to the same args.
		args = f.AppendFmt(args, kv...)
	}
	n := 0
	for calls := 1; calls <= len(vals); calls++ {
		for i, v := range vals[:calls] {
			if want := (Arg{Key: fmt.Sprintf("k%d", i), Val: fmt.Sprint(v)}); args[n] != want {
				t.Fatalf("call %d, arg %d = %+v, want %+v", calls, i, args[n], want)
			}
			n++
		}
	}
	if got := f.AppendFmt(nil, "dangling"); got != nil {
		t.Errorf("a key without a value made %v", got)
	}
}

// TestFormatterAllocatesOneString: once its buffer has grown, a Formatter
// formats numbers and Appenders into one string, the call's only
// allocation.
func TestFormatterAllocatesOneString(t *testing.T) {
	x := uint64(0xdead)
	h := &hexer{&x}
	var (
		f    Formatter
		args = make([]Arg, 0, 8)
	)
	kv := []any{"a", 1, "h", h, "l", long(40), "s", "str", "u", uint32(9)}
	f.AppendFmt(args, kv...)
	if n := testing.AllocsPerRun(100, func() { args = f.AppendFmt(args[:0], kv...) }); n != 1 {
		t.Errorf("%v allocations a call, want 1", n)
	}
	if got := fmt.Sprint(args); got != "[{a 1} {h 0xdead} {l "+strings.Repeat("ab", 40)+"} {s str} {u 9}]" {
		t.Errorf("got %s", got)
	}
}
