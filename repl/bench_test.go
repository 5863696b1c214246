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

// runBenchScript runs script in a new session as `rdmalab run` does, the
// transcript going to io.Discard, and returns the session to look at.
func runBenchScript(b *testing.B, script string) *Session {
	s, err := NewSession(Options{})
	if err != nil {
		b.Fatal(err)
	}
	var errs bytes.Buffer
	failed, err := s.RunScript(strings.NewReader(script), "bench", io.Discard, ScriptOptions{Stderr: &errs})
	if err != nil || failed != 0 {
		b.Fatalf("%d failed: %v %s", failed, err, errs.String())
	}
	return s
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
		runBenchScript(b, script).Close()
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

// ioScript is calls NFSv3 calls, WRITE and READ of 64 KiB in turn, each
// followed by the commands that run it to its reply: continue with
// automatic completion, complete all and continue by hand.
func ioScript(calls int, auto bool) (script string, commands int) {
	var b strings.Builder
	if auto {
		b.WriteString("set auto_complete on\n")
	}
	per := "continue\n"
	if !auto {
		per = "complete all\ncontinue\ncomplete all\ncontinue\n"
	}
	for i := 0; i < calls; i++ {
		if i%2 == 0 {
			b.WriteString("write 64k\n")
		} else {
			b.WriteString("read 64k\n")
		}
		b.WriteString(per)
	}
	return b.String(), strings.Count(b.String(), "\n")
}

// benchRunScript runs an I/O script as `rdmalab run` does, the transcript
// going to io.Discard, and reports commands/s and calls/s.
func benchRunScript(b *testing.B, auto bool) {
	const calls = 2_000
	script, commands := ioScript(calls, auto)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := runBenchScript(b, script)
		if n := len(s.lab.Client.Calls()); n == 0 {
			b.Fatal("no call was made")
		}
		if out := s.lab.Client.Outstanding(); out != 0 {
			b.Fatalf("%d calls still outstanding", out)
		}
		s.Close()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(commands)*float64(b.N)/sec, "commands/s")
	b.ReportMetric(float64(calls)*float64(b.N)/sec, "calls/s")
}

// BenchmarkRunScriptAuto: write 64k / read 64k, each followed by continue,
// with auto_complete on.
func BenchmarkRunScriptAuto(b *testing.B) { benchRunScript(b, true) }

// BenchmarkRunScriptByHand: the same calls, their completions delivered
// by hand (complete all, continue).
func BenchmarkRunScriptByHand(b *testing.B) { benchRunScript(b, false) }
