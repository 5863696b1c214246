package repl

import (
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// anyFunc stands in a command's kernel functions for whatever runs next
// (step, next): it is no function of the kernel, so not in its catalogue.
var anyFunc = trace.Mention("any", "whatever function runs next")

// knownFunc reports whether events can name fn: a function of the model,
// one of its trace points (kernel.Emits), or a name already seen in this
// session.
func (s *Session) knownFunc(fn string) bool {
	if kernel.Emits(fn) {
		return true
	}
	for _, f := range s.funcList {
		if f == fn {
			return true
		}
	}
	return false
}
