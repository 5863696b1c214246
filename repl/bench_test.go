package repl

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// cycle is one WRITE and one READ stepped by hand, with looks at the
// state: 20 commands.
const cycle = `write 4096
complete
recv
readlist
show sgl
complete
reply
complete
continue
show positions
read 4096
complete
recv
reply
show chain
complete all
continue
show sq
show cq
show calls
`

// script10k is 10 000 commands.
func script10k() string {
	return strings.Repeat(cycle, 10_000/strings.Count(cycle, "\n"))
}

// BenchmarkScript10k runs a 10 000-command script with the trace on, as
// `rdmalab run` does (the transcript goes to io.Discard).
func BenchmarkScript10k(b *testing.B) {
	script := script10k()
	if n := strings.Count(script, "\n"); n != 10_000 {
		b.Fatalf("%d commands", n)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := NewSession(Options{})
		if err != nil {
			b.Fatal(err)
		}
		var errs bytes.Buffer
		failed, err := s.RunScript(strings.NewReader(script), "bench", io.Discard, ScriptOptions{Stderr: &errs})
		if err != nil || failed != 0 {
			b.Fatalf("%d failed: %v %s", failed, err, errs.String())
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/10_000, "µs/command")
}

// BenchmarkStartup is what the REPL does before its first prompt, short
// of the terminal: the lab, the history, the banner, the first snapshot.
func BenchmarkStartup(b *testing.B) {
	hist := filepath.Join(b.TempDir(), "history")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := NewSession(Options{})
		if err != nil {
			b.Fatal(err)
		}
		h, lines, _, err := openHistory(hist)
		if err != nil {
			b.Fatal(err)
		}
		s.hist = lines
		writeBanner(io.Discard, s)
		s.Refresh()
		h.Close()
		s.Close()
	}
}
