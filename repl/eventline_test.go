package repl

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// A 1 MiB WRITE's readlist names 52 WRs and 256 pages in its events: the
// REPL prints each event on a line of at most maxEventLine bytes, with
// the first and last items and how many went between.
func TestLongEventLinesSummarised(t *testing.T) {
	s, out := pacedSession(t, Options{})
	s.tty = false
	for _, cmd := range []string{"write 1M", "complete", "recv", "readlist"} {
		if err := s.Exec(cmd, Pos{}, out); err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
	}
	text := out.String()
	for _, l := range strings.Split(text, "\n") {
		if len(l) > maxEventLine+len(" …") {
			t.Errorf("a line of %d bytes: %.200s…", len(l), l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("a line cut inside a rune: %q", l)
		}
	}
	for _, want := range []string{"rc_pages=[pg1,pg2,…,pg256 (256)]", "sges=5 → … 49 more → RDMA_READ 4096B"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the output", want)
		}
	}
	// The events themselves stay whole.
	whole := false
	for _, ev := range s.lab.History() {
		whole = whole || strings.Contains(ev.String(), "pg127,pg128,pg129")
	}
	if !whole {
		t.Error("the lab's events were cut")
	}
}

func TestSummariseEventShortLinesUntouched(t *testing.T) {
	for _, l := range []string{"", "nfsd0 → f(a=[1,2,3,4,5,6] chain=A → B → C → D → E)"} {
		if got := string(summariseEvent([]byte(l))); got != l {
			t.Errorf("%q became %q", l, got)
		}
	}
}

// The README's tour is the one `help tour` walks: the same commands.
func TestReadmeTourIsHelpTour(t *testing.T) {
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var readme []string
	in, block := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "## A short tour":
			in = true
		case in && l == "```":
			if block {
				in = false
			}
			block = !block
		case in && block:
			if cmd := strings.TrimSpace(strings.SplitN(l, "#", 2)[0]); cmd != "" {
				readme = append(readme, cmd)
			}
		}
	}
	var tourCmds []string
	for _, l := range strings.Split(tour, "\n") {
		if strings.HasPrefix(l, "  ") {
			tourCmds = append(tourCmds, strings.SplitN(strings.TrimSpace(l), "  ", 2)[0])
		}
	}
	if strings.Join(readme, "|") != strings.Join(tourCmds, "|") || len(readme) == 0 {
		t.Errorf("README tour %q\nhelp tour   %q", readme, tourCmds)
	}
}
