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

// readlist runs on to where svc_rdma_recvfrom parks the call, so its
// trace point is printed with readlist, not with the next command; a
// failed Read list still stops at svc_rdma_process_read_list's return.
func TestReadlistShowsTheCallParked(t *testing.T) {
	s := newTestSession(t)
	got := execAll(t, s, "hints off", "write 4096", "complete", "recv", "readlist")
	if !strings.Contains(got, "svc_rdma_recvfrom: Reads posted: the call waits for their completion") {
		t.Errorf("readlist did not reach the parked call:\n%s", got)
	}
	if got := execAll(t, s, "step"); strings.Contains(got, "Reads posted") || !strings.Contains(got, "← svc_rdma_recvfrom") {
		t.Errorf("the next step printed:\n%s", got)
	}
	s = newTestSession(t)
	execAll(t, s, "hints off", "trace off", "inject dma_map 1", "write 4096", "complete", "recv", "readlist")
	if last := s.lab.Last(); last.Kind != trace.Return || last.Func != "svc_rdma_process_read_list" || last.Err != "EIO" {
		t.Errorf("a failed Read list stopped at %v", last)
	}
}
