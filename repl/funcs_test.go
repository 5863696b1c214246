package repl

import (
	"strings"
	"testing"
)

// until checks the name before it runs anything: a name no event can
// carry is refused at once, with the nearest one, and the lab has not
// moved; a known name runs as before.
func TestUntilUnknownFunctionRefusedFirst(t *testing.T) {
	s := newTestSession(t)
	execAll(t, s, "trace off", "hints off", "write 65536", "complete")
	before := s.lab.Last()
	msg := execErr(t, s, "until svc_rdma_sendot")
	if !strings.Contains(msg, "no function or trace point of the model is called svc_rdma_sendot (did you mean svc_rdma_sendto?)") {
		t.Errorf("until svc_rdma_sendot: %s", msg)
	}
	msg = execErr(t, s, "until nosuch_function")
	if !strings.Contains(msg, "nosuch_function") || strings.Contains(msg, "did not reach") {
		t.Errorf("until nosuch_function: %s", msg)
	}
	if after := s.lab.Last(); after.String() != before.String() || after.Seq != before.Seq {
		t.Errorf("the lab ran: last event %v, was %v", after, before)
	}
	s = newTestSession(t)
	execAll(t, s, "trace off", "hints off", "write 100 --inline", "complete", "until nfsd3_proc_write")
	if last := s.lab.Last(); last.Func != "nfsd3_proc_write" {
		t.Errorf("until nfsd3_proc_write stopped at %v", last)
	}
}

// write and read --inline say why the data still went in a chunk.
func TestInlineRefusedSaysWhy(t *testing.T) {
	s := newTestSession(t)
	execAll(t, s, "hints off", "trace off")
	for line, want := range map[string]string{
		"write 10000 --inline":           "a WRITE with 10000 bytes of data does not fit the 4096-byte inline threshold, so the data goes in a Read chunk",
		"read 10000 --inline":            "a reply with 10000 bytes of data does not fit the 4096-byte inline threshold, so the data goes in a Write chunk",
		"read 100 --inline --chunk 4096": "--inline is overridden by --chunk",
	} {
		if got := exec(t, s, line); !strings.Contains(got, want) {
			t.Errorf("%s:\n%s\nwant %q", line, got, want)
		}
	}
	if got := exec(t, s, "write 100 --inline"); strings.Contains(got, "note:") {
		t.Errorf("write 100 --inline went inline, but:\n%s", got)
	}
}
