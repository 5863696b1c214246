package replay

import (
	"os/exec"
	"strings"
	"testing"
)

// A replay draws a capture as the simulator's picture without the
// simulator: of the engine it reads the snapshot (engine/snap) and the
// events (engine/trace) only.
func TestReplayNeedsNoSimulator(t *testing.T) {
	const module = "github.com/rdmalab/rdmalab/"
	out, err := exec.Command("go", "list", "-deps", module+"captures/replay").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		p, ours := strings.CutPrefix(dep, module)
		if ours && (p == "engine" || strings.HasPrefix(p, "engine/")) && p != "engine/snap" && p != "engine/trace" {
			t.Errorf("captures/replay depends on %s", p)
		}
	}
}
