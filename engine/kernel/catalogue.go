package kernel

import (
	"slices"
	"strings"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// all is every Func of the package, in the order the files declare them.
// It is filled while the package's variables are initialised and only
// read after.
var all []*trace.Func

// declare is trace.Declare, and the Func joins the catalogue.
func declare(name, doc string, args ...string) *trace.Func {
	f := trace.Declare(name, doc, args...)
	all = append(all, f)
	return f
}

// mention is trace.Mention, and the Func joins the catalogue.
func mention(name, doc string) *trace.Func {
	f := trace.Mention(name, doc)
	all = append(all, f)
	return f
}

// All is every declared function and trace point, by name.
func All() []*trace.Func {
	out := slices.Clone(all)
	slices.SortFunc(out, func(a, b *trace.Func) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Traced is every function and trace point the model's tasks emit events
// for, by name: what `until` and a lesson's checks can stop at.
func Traced() []*trace.Func {
	return slices.DeleteFunc(All(), func(f *trace.Func) bool { return !f.Traced() })
}

// Lookup finds a declared function or trace point by its kernel name.
func Lookup(name string) (*trace.Func, bool) {
	for _, f := range all {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Emits reports whether the model's events can name fn: a function or
// trace point of Traced. `until` and a lesson's checks both ask it, so a
// lesson names only what the REPL can stop at.
func Emits(fn string) bool {
	f, ok := Lookup(fn)
	return ok && f.Traced()
}

// Names is the names of fs, in order.
func Names(fs []*trace.Func) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name()
	}
	return out
}
