package engine

import (
	"os/exec"
	"strings"
	"testing"
)

// The engine and the codecs must not depend on the front ends or on
// terminal libraries: dependencies point one way.
func TestDependenciesPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/rdmalab/rdmalab/engine/...", "github.com/rdmalab/rdmalab/captures/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"gdamore/tcell", "c-bata/go-prompt", "rdmalab/repl", "rdmalab/viz", "rdmalab/lessons"} {
			if strings.Contains(dep, bad) {
				t.Errorf("engine or captures depends on %s", dep)
			}
		}
	}
}
