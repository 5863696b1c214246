package snap

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/rdmalab/rdmalab/"

// deps lists the rdmalab packages pkg depends on, pkg included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	var ours []string
	for _, dep := range strings.Fields(string(out)) {
		if p, ok := strings.CutPrefix(dep, module); ok {
			ours = append(ours, p)
		}
	}
	return ours
}

// The snapshot is a leaf: it needs the standard library and the event
// type, nothing of the simulator.
func TestSnapIsALeaf(t *testing.T) {
	for _, dep := range deps(t, "engine/snap") {
		if dep != "engine/snap" && dep != "engine/trace" {
			t.Errorf("engine/snap depends on %s", dep)
		}
	}
}
