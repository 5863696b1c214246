package trace

import (
	"math"
	"strings"
	"testing"
)

// Depth is a claim when an event comes from a file or a socket: the line
// String builds stays short whatever it says, and says the depth it cut.
func TestStringDepthIsBounded(t *testing.T) {
	for _, depth := range []int{-1 << 62, -1, 0, 3, MaxIndent, MaxIndent + 1, math.MaxInt32, 1 << 40, 1 << 53, math.MaxInt} {
		e := Event{Task: "nfsd0", Kind: Call, Func: "svc_rdma_recvfrom", Depth: depth}
		s := e.String()
		if len(s) > 200 {
			t.Errorf("depth %d: line of %d bytes", depth, len(s))
		}
		indent := len(s) - len(strings.TrimLeft(strings.TrimPrefix(s, "nfsd0  "), " ")) - len("nfsd0  ")
		want := min(max(depth, 0), MaxIndent) * 2
		if indent != want {
			t.Errorf("depth %d: indent %d, want %d: %q", depth, indent, want, s)
		}
		if cut := depth > MaxIndent; cut != strings.Contains(s, "[") {
			t.Errorf("depth %d: %q should say the depth only when it was cut", depth, s)
		}
	}
	if got := (Event{Task: "nfsd0", Kind: Call, Func: "f", Depth: 2}).String(); got != "nfsd0      → f()" {
		t.Errorf("got %q", got)
	}
}
