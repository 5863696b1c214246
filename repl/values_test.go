package repl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

func TestParseStatusSuggests(t *testing.T) {
	if st, err := parseStatus("ibv_wc_rem_access_err"); err != nil || st.String() != "REM_ACCESS_ERR" {
		t.Errorf("%v %v", st, err)
	}
	if _, err := parseStatus("REM_ACESS_ERR"); err == nil || err.Error() != `unknown completion status "REM_ACESS_ERR": did you mean REM_ACCESS_ERR?` {
		t.Errorf("%v", err)
	}
}

func TestDistanceAndNearest(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"write", "write", 0}, {"wirte", "write", 1}, {"sgl", "sql", 1}, {"abc", "", 3}, {"kitten", "sitting", 3}} {
		if got := distance(tc.a, tc.b); got != tc.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
	cands := []string{"segments", "pageoff", "inline"}
	if got := nearest("segmnts", cands); got != "segments" {
		t.Errorf("nearest segmnts = %q", got)
	}
	if got := nearest("zzz", cands); got != "" {
		t.Errorf("nearest zzz = %q", got)
	}
	if got := nearest("pa", cands); got != "pageoff" {
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
	long := strings.Repeat("x", maxLine)
	var got string
	if n := testutil.Allocated(func() { got = nearest(long, names) }); got != "" || n > 1<<20 {
		t.Errorf("nearest of a %d-byte word: %q, %d bytes allocated", len(long), got, n)
	}
	for w, want := range map[string]string{"svc_rdma_functon_7": "svc_rdma_function_7", "SVC_rdma_function_42x": "svc_rdma_function_42", "svc_rdma_func": "svc_rdma_function_0"} {
		if got := nearest(w, names); got != want {
			t.Errorf("nearest %q = %q, want %q", w, got, want)
		}
	}
}

func TestFitText(t *testing.T) {
	got := fitText("  name   a description that is long enough to need wrapping somewhere here", 40)
	want := "  name   a description that is long\n         enough to need wrapping\n         somewhere here"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := reflow("one\ntwo\n  list\nthree:\nfour"); got != "one two\n  list\nthree:\nfour" {
		t.Errorf("reflow: %q", got)
	}
}
