package repl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/snap"
)

// A long run of whole pages folds to its ends and a count; short runs and
// differing entries print in full.
func TestWriteSGEsFoldsRuns(t *testing.T) {
	var sges []snap.SGE
	sges = append(sges, snap.SGE{Page: "pg1", Off: 100, Len: 3996, Source: "read chunk 0 seg 0"})
	for i := 2; i <= 9; i++ {
		sges = append(sges, snap.SGE{Page: fmt.Sprintf("pg%d", i), Len: 4096, Source: "read chunk 0 seg 0"})
	}
	sges = append(sges, snap.SGE{Page: "pg10", Len: 12, Source: "read chunk 0 seg 0"})
	var b strings.Builder
	writeSGEs(&b, "sgl", sges)
	want := `sgl[0] pg1    off  100 len  3996  read chunk 0 seg 0
sgl[1] pg2    off    0 len  4096  read chunk 0 seg 0
sgl[2..7] 6 more like it: pg3..pg8 off 0 len 4096
sgl[8] pg9    off    0 len  4096  read chunk 0 seg 0
sgl[9] pg10   off    0 len    12  read chunk 0 seg 0
`
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}

// execAll runs lines in s and returns the output of the last one.
func execAll(t *testing.T, s *Session, lines ...string) string {
	t.Helper()
	var out strings.Builder
	for _, l := range lines {
		out.Reset()
		if err := s.Exec(l, Pos{}, &out); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	return out.String()
}

// show counters counts the threads that hang, as the snapshot does.
func TestShowCountersHung(t *testing.T) {
	s := newTestSession(t)
	got := execAll(t, s, "trace off", "hints off", "set profile seed", "set sq_depth 3", "write 10000 --segments 3",
		"complete", "continue", "show counters")
	if s.lab.Snapshot().Counters.Hung != 1 || !strings.Contains(got, "hung tasks 1") {
		t.Errorf("hung %d; show counters:\n%s", s.lab.Snapshot().Counters.Hung, got)
	}
}

// An RDMA op through an MR prints the MR and its IOVA, not a NULL page.
func TestWriteSGEsMR(t *testing.T) {
	var b strings.Builder
	writeSGEs(&b, "sge", []snap.SGE{{Page: "mr#1", Len: 65536, IOVA: "0x1080a19eb000"}})
	if want := "sge[0] mr#1   iova 0x1080a19eb000 len 65536\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// show calls says how a call failed when its reply is not a success.
func TestShowCallsStatus(t *testing.T) {
	var b strings.Builder
	callsReport{[]snap.Call{
		{XID: "0x1", State: "answered", Proc: "RDMA_NOMSG", Label: "custom WRITE 11068", Status: "GARBAGE_ARGS"},
		{XID: "0x2", State: "answered", Proc: "RDMA_MSG", Label: "NFSv3 WRITE 4096", Status: "NFS3_OK"},
	}}.writeText(&b)
	want := "xid 0x1  answered  RDMA_NOMSG custom WRITE 11068  status: GARBAGE_ARGS\n" +
		"xid 0x2  answered  RDMA_MSG   NFSv3 WRITE 4096\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}

// A reply acked while its Send is still queued says it is not delivered.
func TestShowPositionsPrematureAck(t *testing.T) {
	var b strings.Builder
	positionsReport{snap.Positions{Enabled: true, PostSeq: 2, AckedPos: 2, Replies: []snap.Reply{
		{XID: "0xa", Proc: "WRITE", Pos: 1, Acked: true, SendQueued: true},
		{XID: "0xb", Proc: "WRITE", Pos: 2, Acked: true},
		{XID: "0xc", Proc: "WRITE", Pos: 0},
	}}}.writeText(&b)
	for _, want := range []string{"pos 1    acked, but its Send is still queued: not delivered\n", "pos 2    acked\n",
		"pos 0    no position: the reply never reached the wire, never acked\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
