package repl

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// segs is n segments of size each, as SEGS: "16M,16M,...".
func segs(size string, n int) string {
	return strings.TrimSuffix(strings.Repeat(size+",", n), ",")
}

// call is bounded as a whole, before its message or any chunk is made:
// each line here asked for a gigabyte or more (the first filled 1 GiB, the
// second made the process die out of memory) in one command.
func TestCallBoundedAsAWhole(t *testing.T) {
	g := segs("16M", 64) // one chunk of 1 GiB
	for _, line := range []string{
		"call --read data:" + g,
		"call --read 0:" + g + " --read 200:" + g + " --read 300:" + g + " --read 400:" + g + " --read 500:" + g,
		"call --read 0:" + g,
		"call --reply " + g,
		"call --read data:4096" + strings.Repeat(" --write "+segs("16M", 4), 200),
		"call --read 124:16M --read 124:16M --read 124:16M --read 124:16M --data 16M",
		"call --read data:16M --write 16M --reply 16M,16K",
	} {
		s := newTestSession(t)
		var msg string
		n := testutil.Allocated(func() { msg = execErr(t, s, line) })
		if !strings.Contains(msg, "a call carries at most 50331648 bytes (48 MiB) in all") || !strings.Contains(msg, "this one asks for") {
			t.Errorf("%.60s...: %s", line, msg)
		}
		if n > 8<<20 {
			t.Errorf("%.60s...: %d bytes allocated before the refusal", line, n)
		}
	}
	// Up to the bound, a call goes: 16M of data and 16M back, and more.
	s := newTestSession(t)
	execAll(t, s, "hints off", "call --read data:16M --write 16M --reply 15M,1000K")
}

// The calls in flight are bounded together: a script of big WRITEs never
// completed made the process die out of memory at the 129th.
func TestCallsInFlightBounded(t *testing.T) {
	s := newTestSession(t)
	execAll(t, s, "hints off", "trace off")
	var err string
	for i := 0; i < 20 && err == ""; i++ {
		var out strings.Builder
		if e := s.Exec("write 16M --pageoff 1", Pos{}, &out); e != nil {
			err = Explain(e)
		}
	}
	if !strings.Contains(err, "call(s) in flight hold") || !strings.Contains(err, "268435456 bytes (256 MiB)") {
		t.Fatalf("20 WRITEs of 16M in flight: %q", err)
	}
	// Answered, they let the next ones go.
	execAll(t, s, "set auto_complete on", "continue", "write 16M --pageoff 1")
}

// Many small segments: the header could never fit the inline threshold,
// and that is said before a segment is registered.
func TestCallHeaderOverThreshold(t *testing.T) {
	s := newTestSession(t)
	line := "call --read data:4096" + strings.Repeat(" --write "+segs("1", 64), 300)
	msg := execErr(t, s, line)
	if !strings.Contains(msg, "the transport header alone would be 309652 bytes with these 19201 segments, over the server's 4096-byte inline threshold") {
		t.Errorf("%s", msg)
	}
}
