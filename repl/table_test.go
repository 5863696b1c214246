package repl

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func newTestSession(t testing.TB) *Session {
	t.Helper()
	s, err := NewSession(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// The table is consistent: usage starts with the name, every row has a
// summary short enough for the completion menu at 80 columns, an example
// and a group help knows.
func TestCommandTable(t *testing.T) {
	s := newTestSession(t)
	known := map[Group]bool{}
	for _, g := range groups() {
		known[g.g] = true
	}
	seen := map[string]bool{}
	for _, c := range s.Commands() {
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			if seen[n] {
				t.Errorf("%s: name %q used twice", c.Name, n)
			}
			seen[n] = true
		}
		if !strings.HasPrefix(c.Usage, c.Name) {
			t.Errorf("%s: usage %q does not start with the name", c.Name, c.Usage)
		}
		if n := utf8.RuneCountInString(c.Short); n == 0 || n > 52 {
			t.Errorf("%s: summary is %d characters, want 1..52: %q", c.Name, n, c.Short)
		}
		if c.Example == "" || c.Run == nil || !known[c.Group] {
			t.Errorf("%s: example %q, run %v, group %q", c.Name, c.Example, c.Run != nil, c.Group)
		}
	}
	for _, tg := range showTargets() {
		if n := utf8.RuneCountInString(tg.Short); n > 52 {
			t.Errorf("show %s: summary is %d characters, want at most 52", tg.Name, n)
		}
	}
}

// Help fits an 80-column terminal.
func TestHelpFits80Columns(t *testing.T) {
	s := newTestSession(t)
	lines := []string{"help", "help tour", "show settings", "show bugs"}
	for _, c := range s.Commands() {
		lines = append(lines, "help "+c.Name)
	}
	for _, tg := range showTargets() {
		lines = append(lines, "help show "+tg.Name)
	}
	for _, l := range lines {
		var out bytes.Buffer
		if err := s.Exec(l, Pos{}, &out); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		for _, row := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(row); n > 79 {
				t.Errorf("%s: %d columns: %q", l, n, row)
			}
		}
	}
}

func TestBannerFits(t *testing.T) {
	s := newTestSession(t)
	var out bytes.Buffer
	writeBanner(&out, s)
	rows := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(rows) > 3 {
		t.Errorf("banner has %d lines, want at most 3", len(rows))
	}
	for _, r := range rows {
		if n := utf8.RuneCountInString(r); n > 79 {
			t.Errorf("banner line of %d columns: %q", n, r)
		}
	}
}

// The tour in `help tour` runs as written and ends with the reply
// acknowledged.
func TestTourRuns(t *testing.T) {
	s := newTestSession(t)
	n := 0
	for _, l := range strings.Split(tour, "\n") {
		if !strings.HasPrefix(l, "  ") {
			continue
		}
		cmd, _, _ := strings.Cut(strings.TrimSpace(l), "  ")
		if err := s.Exec(cmd, Pos{}, io.Discard); err != nil {
			t.Fatalf("tour step %q: %v", cmd, err)
		}
		n++
	}
	if n < 8 || s.lab.Server.AckedPos != 1 {
		t.Errorf("%d steps, xpt_acked_pos %d", n, s.lab.Server.AckedPos)
	}
}
