package nearest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

func TestDistanceAndNearest(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"write", "write", 0}, {"wirte", "write", 1}, {"sgl", "sql", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
	cands := []string{"segments", "pageoff", "inline"}
	if got := Word("segmnts", cands); got != "segments" {
		t.Errorf("nearest segmnts = %q", got)
	}
	if got := Word("zzz", cands); got != "" {
		t.Errorf("nearest zzz = %q", got)
	}
	if got := Word("pa", cands); got != "pageoff" {
		t.Errorf("nearest pa = %q (prefix)", got)
	}
}

// A long mistyped word is not measured against candidates it cannot be
// near: a 64 KiB word against 500 function names allocated 131 MB (its
// runes and rows per candidate) and took seconds; the words it can be
// near get the same answer as before.
func TestNearestLongWord(t *testing.T) {
	var names []string
	for i := range 500 {
		names = append(names, fmt.Sprintf("svc_rdma_function_%d", i))
	}
	long := strings.Repeat("x", 64<<10)
	var got string
	if n := testutil.Allocated(func() { got = Word(long, names) }); got != "" || n > 1<<20 {
		t.Errorf("nearest of a %d-byte word: %q, %d bytes allocated", len(long), got, n)
	}
	for w, want := range map[string]string{"svc_rdma_functon_7": "svc_rdma_function_7", "SVC_rdma_function_42x": "svc_rdma_function_42", "svc_rdma_func": "svc_rdma_function_0"} {
		if got := Word(w, names); got != want {
			t.Errorf("nearest %q = %q, want %q", w, got, want)
		}
	}
}
