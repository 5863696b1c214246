package repl

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/rdmalab/rdmalab/viz"
)

// A saved state is what `rdmalab view --snapshot` draws.
func TestSaveWritesWhatViewLoads(t *testing.T) {
	s, err := NewSession(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, line := range []string{"write 10000 --segments 3", "complete", "readlist", "save state.json"} {
		if err := s.Exec(line, Pos{}, io.Discard); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	f, err := viz.LoadSnapshot(filepath.Join(s.dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Snapshot.Reads) != 1 || len(f.Snapshot.Reads[0].RWCtxts) != 3 || len(f.Events) == 0 {
		t.Fatalf("loaded %d reads, %d events", len(f.Snapshot.Reads), len(f.Events))
	}
}
