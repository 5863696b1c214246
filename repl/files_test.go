package repl

import (
	"bytes"
	"os"
	oexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// dirEntries lists dir: a temporary file left behind shows up here.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

// execErr runs a line that must fail and returns its message.
func execErr(t *testing.T, s *Session, line string) string {
	t.Helper()
	var out bytes.Buffer
	err := s.Exec(line, Pos{}, &out)
	if err == nil {
		t.Fatalf("%s succeeded:\n%s", line, out.String())
	}
	return Explain(err)
}

// trafficSession has sent a WRITE and its reply, so that save and capture
// save write a few kilobytes.
func trafficSession(t *testing.T) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := NewSession(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, l := range []string{"set auto_complete on", "write 64k", "continue"} {
		exec(t, s, l)
	}
	return s, dir
}

// A full disk (here RLIMIT_FSIZE, which makes write(2) fail with EFBIG as
// ENOSPC would) in the middle of save, capture save or a recording leaves
// the good file that was there whole, and no temporary file.
func TestFullDiskKeepsOldFiles(t *testing.T) {
	if os.Getenv("RDMALAB_FSIZE_CHILD") == "1" {
		fullDiskChild(t)
		return
	}
	dir := t.TempDir()
	old := map[string]string{"state.json": "the old state\n", "lab.pcap": "the old capture", "run.pcap": "the old run"}
	for name, body := range old {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	cmd := oexec.Command(os.Args[0], "-test.run=^TestFullDiskKeepsOldFiles$", "-test.v")
	cmd.Env = append(os.Environ(), "RDMALAB_FSIZE_CHILD=1", "RDMALAB_FSIZE_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for name, body := range old {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != body {
			t.Errorf("%s now holds %d bytes, want the old %q", name, len(b), body)
		}
	}
	if got := dirEntries(t, dir); !slices.Equal(got, []string{"lab.pcap", "run.pcap", "state.json"}) {
		t.Errorf("directory holds %q", got)
	}
}

func fullDiskChild(t *testing.T) {
	dir := os.Getenv("RDMALAB_FSIZE_DIR")
	s, err := NewSession(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, l := range []string{"set auto_complete on", "write 64k", "continue", "capture start run.pcap"} {
		exec(t, s, l)
	}
	lim := syscall.Rlimit{Cur: 4096, Max: 4096}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	for _, l := range []string{"save state.json", "capture save lab.pcap"} {
		msg := execErr(t, s, l)
		if !strings.Contains(msg, "file too large (nothing was written: a file already there is as it was)") {
			t.Errorf("%s: %s", l, msg)
		}
	}
	exec(t, s, "write 64k")
	exec(t, s, "continue")
	if msg := execErr(t, s, "capture stop"); msg != "capture: run.pcap: file too large (nothing was written: a file already there is as it was)" {
		t.Errorf("capture stop: %s", msg)
	}
	// The session goes on.
	exec(t, s, "show sq")
}

// A symbolic link at FILE is replaced by the file, never followed, and
// the message says so.
func TestSaveReplacesSymlink(t *testing.T) {
	s, dir := trafficSession(t)
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	for _, line := range []string{"save state.json", "capture save lab.pcap"} {
		name := strings.Fields(line)[len(strings.Fields(line))-1]
		if err := os.Symlink("victim", filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		out := exec(t, s, line)
		if !strings.Contains(out, "note: "+name+" was a symbolic link to victim: the link is now this file, and victim is untouched") {
			t.Errorf("%s:\n%s", line, out)
		}
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() || fi.Size() < 1000 {
			t.Errorf("%s: %v %v", name, fi, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the link's target now holds %d bytes", len(b))
	}
}

// A directory or a FIFO at FILE is refused, untouched, and the session
// goes on.
func TestSaveRefusesNotRegular(t *testing.T) {
	s, dir := trafficSession(t)
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"save out":               "save: out is a directory, not a regular file: nothing was written (name a file)",
		"capture save out":       "capture: out is a directory, not a regular file",
		"capture start out":      "capture: out is a directory, not a regular file",
		"save pipe":              "save: pipe is a named pipe (FIFO), not a regular file",
		"capture save pipe":      "capture: pipe is a named pipe (FIFO), not a regular file",
		"save nodir/x.json":      "save: nodir/x.json: no such directory: nodir",
		"capture save /dev/null": "capture: /dev/null is a character device, not a regular file",
	} {
		if msg := execErr(t, s, line); !strings.HasPrefix(msg, want) {
			t.Errorf("%s: %q, want %q", line, msg, want)
		}
	}
	if got := dirEntries(t, dir); !slices.Equal(got, []string{"out", "pipe"}) {
		t.Errorf("directory holds %q", got)
	}
	if got := dirEntries(t, filepath.Join(dir, "out")); len(got) != 0 {
		t.Errorf("the directory now holds %q", got)
	}
	exec(t, s, "save state.json")
}

// A recording goes to a temporary file beside FILE: until capture stop,
// FILE is the old one (a crash there loses nothing), and afterwards only
// FILE is left.
func TestRecordingReplacesAtStop(t *testing.T) {
	s, dir := trafficSession(t)
	path := filepath.Join(dir, "run.pcap")
	os.WriteFile(path, []byte("the old run"), 0o600)
	exec(t, s, "capture start run.pcap")
	exec(t, s, "write 64k")
	exec(t, s, "continue")
	if b, _ := os.ReadFile(path); string(b) != "the old run" {
		t.Fatalf("run.pcap changed while recording: %d bytes", len(b))
	}
	if got := dirEntries(t, dir); len(got) != 2 || !strings.HasPrefix(got[0], ".run.pcap.tmp-") {
		t.Fatalf("while recording the directory holds %q", got)
	}
	exec(t, s, "capture stop")
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < 1000 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("run.pcap after stop: %v %v", fi, err)
	}
	if got := dirEntries(t, dir); !slices.Equal(got, []string{"run.pcap"}) {
		t.Errorf("after stop the directory holds %q", got)
	}
}

// A script that ends while recording stops the recording, keeps it and
// says so.
func TestScriptEndStopsRecording(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSession(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, errs bytes.Buffer
	if _, err := s.RunScript(strings.NewReader("capture start end.pcap\nwrite 4096\n"), "t.rdl", &out, ScriptOptions{Stderr: &errs}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "capture: the recording still running at the end was stopped: ") ||
		!strings.HasSuffix(out.String(), " packets in end.pcap\n") {
		t.Errorf("transcript:\n%s", out.String())
	}
	if got := dirEntries(t, dir); !slices.Equal(got, []string{"end.pcap"}) {
		t.Errorf("directory holds %q", got)
	}
}

func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"lab.pcap":           "lab.pcap",
		`C:\tmp\a b`:         `C:\tmp\a b`,
		"a\tb":               "a\tb",
		"a\x1b[2Jb":          `a\x1b[2Jb`,
		"a\x1b[2J\\b":        `a\x1b[2J\\b`,
		"line\r\nforged":     `line\r\nforged`,
		"\u202eevil":         `\u202eevil`,
		string([]byte{0xff}): `\xff`,
	} {
		if got := shown(in); got != want {
			t.Errorf("shown(%q) = %q, want %q", in, got, want)
		}
	}
	if got := shownLines("a: \"\\x1b\"\nusage: x"); got != "a: \"\\x1b\"\nusage: x" {
		t.Errorf("shownLines escaped a message already safe: %q", got)
	}
}
