package repl

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLineScanner(t *testing.T) {
	type got struct {
		line string
		long int
	}
	at := strings.Repeat("a", maxLine)
	over := strings.Repeat("b", maxLine+1)
	huge := strings.Repeat("c", 3<<20)
	in := "one\r\ntwo\n\n" + at + "\n" + over + "\r\n" + huge + "\n" + at + "\r\nlast"
	sc := newLineScanner(strings.NewReader(in))
	var all []got
	for {
		l, long, err := sc.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got{l, long})
	}
	want := []got{{"one", 0}, {"two", 0}, {"", 0}, {at, 0}, {"", maxLine + 1}, {"", 3 << 20}, {at, 0}, {"last", 0}}
	if len(all) != len(want) || sc.n != len(want) {
		t.Fatalf("%d lines (n %d), want %d", len(all), sc.n, len(want))
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("line %d: %d bytes, long %d; want %d bytes, long %d", i+1, len(all[i].line), all[i].long, len(want[i].line), want[i].long)
		}
	}
}

// A script line over 64 KiB fails with FILE:LINE and its length, is not
// run, and --keep-going goes on to the next line.
func TestScriptLongLine(t *testing.T) {
	script := "hints off\nwrite " + strings.Repeat("1", 2<<20) + "\nengine\n"
	out, errs, failed := runScript(t, script, ScriptOptions{})
	if failed != 1 || strings.Contains(out, "engine sim") || strings.Contains(out, "111") {
		t.Errorf("stop: failed %d, out %q", failed, out)
	}
	if want := "t.rdl:2: line of 2097158 bytes is over the 65536-byte (64 KiB) limit: not run\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	out, _, failed = runScript(t, script, ScriptOptions{KeepGoing: true})
	if failed != 1 || !strings.Contains(out, "> engine\nengine sim") {
		t.Errorf("keep going: failed %d, out %q", failed, out)
	}
	out, errs, failed = runScript(t, script, ScriptOptions{KeepGoing: true, JSON: true})
	if failed != 1 || !strings.Contains(out, `"command":"engine"`) || !strings.HasPrefix(errs, "t.rdl:2: line of") {
		t.Errorf("json: failed %d, out %q, stderr %q", failed, out, errs)
	}
}

// source stops at the long line with its place.
func TestSourceLongLine(t *testing.T) {
	s := newTestSession(t)
	dir := t.TempDir()
	s.dir = dir
	os.WriteFile(filepath.Join(dir, "long.rdl"), []byte("hints off\n"+strings.Repeat("#", 70000)+"\nengine\n"), 0o644)
	var out bytes.Buffer
	err := s.Exec("source long.rdl", Pos{}, &out)
	if err == nil || err.Error() != "source: long.rdl:2: line of 70000 bytes is over the 65536-byte (64 KiB) limit: not run" {
		t.Errorf("got %v", err)
	}
	if strings.Contains(out.String(), "engine") {
		t.Errorf("ran past the long line: %q", out.String())
	}
}

// Script lines, comments and file names are echoed escaped: an escape
// sequence in a script never reaches the terminal.
func TestScriptEchoEscaped(t *testing.T) {
	script := "# \x1b]0;title\x07 set\nwrite \x1b[2J\r\x1b[31mFAKE\nsource \"\x1b[2J.rdl\"\n"
	out, errs, _ := runScript(t, script, ScriptOptions{KeepGoing: true})
	for _, s := range []string{out, errs} {
		if strings.ContainsAny(s, "\x1b\x07\r") {
			t.Errorf("raw control characters: %q", s)
		}
	}
	want := "# \\x1b]0;title\\a set\n> write \\x1b[2J\\r\\x1b[31mFAKE\n> source \"\\x1b[2J.rdl\"\n"
	if out != want {
		t.Errorf("transcript %q, want %q", out, want)
	}
	if !strings.Contains(errs, "t.rdl:3: source: \\x1b[2J.rdl: no such file") {
		t.Errorf("stderr %q", errs)
	}
}

// The history file loads whatever it holds: a line over 64 KiB or one
// holding an escape sequence is skipped, the rest kept.
func TestHistorySkipsBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	content := "write 1M\n" + strings.Repeat("x", 2<<20) + "\nhelp\n\x1b[2Jshow sq\ncomplete\n"
	os.WriteFile(path, []byte(content), 0o600)
	h, lines, skipped, err := openHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if want := []string{"write 1M", "help", "complete"}; !reflect.DeepEqual(lines, want) || skipped != 2 {
		t.Errorf("lines %q, skipped %d", lines, skipped)
	}
}
