package repl

import (
	"strings"
	"testing"
)

// A call svc_process dropped (B5: the inline bytes copied from the
// transport header, lesson 10) is shown as dropped, with the reason, not
// as sent forever.
func TestShowCallsSaysDropped(t *testing.T) {
	s := newTestSession(t)
	execAll(t, s, "hints off", "trace off", "call --read data:4096 --read 4300:1000", "complete", "recv", "readlist", "complete all", "continue")
	got := exec(t, s, "show calls")
	if !strings.Contains(got, "dropped") || !strings.Contains(got, "dropped by svc_process: cannot decode the RPC call header") ||
		!strings.Contains(got, "msg_type is 1, not Call") {
		t.Errorf("show calls:\n%s", got)
	}
	// A call answered is not called dropped.
	s = newTestSession(t)
	execAll(t, s, "hints off", "trace off", "write 100 --inline", "complete all", "continue", "complete all", "continue")
	if got := exec(t, s, "show calls"); strings.Contains(got, "dropped") {
		t.Errorf("show calls:\n%s", got)
	}
}
