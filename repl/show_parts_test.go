package repl

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine"
)

// Each show target reads only the parts of the snapshot it does not leave
// out: its text and its JSON are the same from a whole snapshot, at every
// point of a script that leaves calls, replies in the DRC, chains on the
// Send Queue and Read lists in flight.
func TestShowTargetsParts(t *testing.T) {
	s := newTestSession(t)
	script := strings.Split(strings.TrimSpace(cycle+cycle+"write 64k\ncomplete\nrecv\nreadlist\nread 8192\n"), "\n")
	for i, line := range script {
		if err := s.Exec(line, Pos{}, io.Discard); err != nil {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
		whole := s.lab.Snapshot()
		for _, tg := range showTargets() {
			if tg.reads&^engine.PartsCostly != 0 {
				t.Fatalf("show %s reads %b, not a costly part", tg.Name, tg.reads)
			}
			if tg.without() == 0 {
				continue
			}
			want, err1 := tg.report(s, whole, "")
			got, err2 := tg.report(s, s.lab.SnapshotWithout(tg.without()), "")
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("after %q, show %s: %v from a whole snapshot, %v without %b", line, tg.Name, err1, err2, tg.without())
			}
			if err1 != nil {
				continue
			}
			var wt, gt bytes.Buffer
			want.writeText(&wt)
			got.writeText(&gt)
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got)
			if wt.String() != gt.String() || !bytes.Equal(wj, gj) {
				t.Fatalf("after %q, show %s without %b differs:\n%s\nwant:\n%s", line, tg.Name, tg.without(), gt.String(), wt.String())
			}
		}
	}
	if calls := s.lab.Snapshot(); len(calls.Calls) == 0 || len(calls.Positions.Replies) == 0 {
		t.Fatalf("%d calls and %d replies: the script leaves nothing to leave out", len(calls.Calls), len(calls.Positions.Replies))
	}
}
