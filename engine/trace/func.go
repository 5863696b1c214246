package trace

// Func is a kernel function or trace point the model names: what an
// event's Func says, declared once (package engine/kernel) so that code
// names it by a value the compiler checks, not by a string. A Func is
// immutable: its fields are set by Declare or Mention.
type Func struct {
	name   string
	doc    string
	args   []string
	traced bool
}

// Declare makes the Func of a function or trace point the model's tasks
// emit events for: its kernel name, one line of what it does, and the
// argument keys its events may carry.
func Declare(name, doc string, args ...string) *Func {
	return &Func{name: name, doc: doc, args: args, traced: true}
}

// Mention makes the Func of a kernel function the model does not trace
// (a help page names it; a note may carry it): `until` cannot stop there.
func Mention(name, doc string) *Func {
	return &Func{name: name, doc: doc}
}

// Name is the kernel's name, the one events carry.
func (f *Func) Name() string { return f.name }

// Doc is one line of what the function or trace point does.
func (f *Func) Doc() string { return f.doc }

// Args are the keys its events may carry, in no promised order.
func (f *Func) Args() []string { return append([]string(nil), f.args...) }

// HasArg reports whether its events may carry key.
func (f *Func) HasArg(key string) bool {
	for _, a := range f.args {
		if a == key {
			return true
		}
	}
	return false
}

// Traced reports whether the model's tasks emit events for it.
func (f *Func) Traced() bool { return f.traced }

// String is the name.
func (f *Func) String() string { return f.name }

// MarshalText makes a Func read as its name in JSON.
func (f *Func) MarshalText() ([]byte, error) { return []byte(f.name), nil }

// Is reports whether e is an event of f.
func (f *Func) Is(e *Event) bool { return e.Func == f.name }
