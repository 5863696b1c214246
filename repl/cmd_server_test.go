package repl

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// until ib_post_send stops where the function is entered, as for any
// function: the chain is about to be posted, not on the Send Queue yet;
// --return (and post) stop once it is.
func TestUntilIBPostSendStopsBeforeThePost(t *testing.T) {
	s := newTestSession(t)
	got := execAll(t, s, "trace off", "hints off", "write 4096", "complete", "until ib_post_send")
	if last := s.lab.Last(); last.Kind != trace.Call || last.Func != "ib_post_send" || !strings.Contains(got, "→ ib_post_send(wrs=1") {
		t.Fatalf("stopped at %v:\n%s", last, got)
	}
	if n := len(s.lab.Snapshot().Chains); n != 0 {
		t.Errorf("%d chain(s) on the Send Queue before ib_post_send ran", n)
	}
	got = execAll(t, s, "until ib_post_send --return")
	if last := s.lab.Last(); last.Kind != trace.Return || len(s.lab.Snapshot().Chains) != 1 || !strings.Contains(got, "← ib_post_send") {
		t.Errorf("after the return: last %v, %d chain(s):\n%s", last, len(s.lab.Snapshot().Chains), got)
	}
}
