package repl

import "github.com/rdmalab/rdmalab/engine/kernel"

// kernelFuncs offers the model's functions and trace points, with what
// each does, for `until` completion; functions seen in events are offered
// too (completeFuncs).
func kernelFuncs() []Suggestion {
	var out []Suggestion
	for _, f := range kernel.Traced() {
		out = append(out, Suggestion{f.Name(), f.Doc()})
	}
	return out
}
