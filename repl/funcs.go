package repl

import (
	"strings"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// anyFunc stands in a command's kernel functions for whatever runs next
// (step, next): it is no function of the kernel, so not in its catalogue.
var anyFunc = trace.Mention("any", "whatever function runs next")

// nfsdProcPrefix names the NFSv3 procedures nfsd runs: nfsd3_proc_read, ...
const nfsdProcPrefix = "nfsd3_proc_"

// knownFunc reports whether events can name fn: a function of the model,
// one of its trace points, or a name already seen in this session.
func (s *Session) knownFunc(fn string) bool {
	if strings.HasPrefix(fn, nfsdProcPrefix) && len(fn) > len(nfsdProcPrefix) {
		return true
	}
	if f, ok := kernel.Lookup(fn); ok && f.Traced() {
		return true
	}
	for _, f := range s.funcList {
		if f == fn {
			return true
		}
	}
	return false
}
