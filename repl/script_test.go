package repl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runScript(t *testing.T, script string, o ScriptOptions) (stdout, stderr string, failed int) {
	t.Helper()
	s := newTestSession(t)
	var out, errs bytes.Buffer
	o.Stderr = &errs
	failed, err := s.RunScript(strings.NewReader(script), "t.rdl", &out, o)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), failed
}

func TestScriptStopsAtFirstError(t *testing.T) {
	out, errs, failed := runScript(t, "hints off\n\nbogus\nshow sq\n", ScriptOptions{})
	if failed != 1 || strings.Contains(out, "show sq") {
		t.Errorf("failed %d, out %q", failed, out)
	}
	if errs != "t.rdl:3: unknown command \"bogus\": did you mean `show bugs`?\n" {
		t.Errorf("stderr %q", errs)
	}
	_, _, failed = runScript(t, "bogus\nwrite x\nshow sq\n", ScriptOptions{KeepGoing: true})
	if failed != 2 {
		t.Errorf("keep going: %d failed", failed)
	}
}

func TestScriptQuit(t *testing.T) {
	out, _, failed := runScript(t, "engine\nquit\nbogus\n", ScriptOptions{})
	if failed != 0 || strings.Contains(out, "bogus") {
		t.Errorf("quit did not stop the script: %q", out)
	}
}

func TestScriptJSON(t *testing.T) {
	out, errs, failed := runScript(t, "# hi\nhints off\nwrite 4096\nshow sq\nset threads 0\n", ScriptOptions{JSON: true, KeepGoing: true})
	if failed != 1 || !strings.HasPrefix(errs, "t.rdl:5: set: threads must be 1..64") {
		t.Errorf("failed %d, stderr %q", failed, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d records: %q", len(lines), out)
	}
	var recs []map[string]any
	for _, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		recs = append(recs, r)
	}
	if recs[0]["comment"] != "hi" || recs[2]["events"] == nil || recs[4]["ok"] != false {
		t.Errorf("records %v", recs)
	}
	sq, _ := recs[3]["data"].(map[string]any)["sq"].(map[string]any)
	if sq["sc_sq_depth"] == nil {
		t.Errorf("show sq data %v", recs[3]["data"])
	}
}

func TestSourceNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.rdl"), []byte("# a\nsource b.rdl\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.rdl"), []byte("engine\n\nwirte 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "loop.rdl"), []byte("source loop.rdl\n"), 0o644)
	s, err := NewSession(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	err = s.Exec("source a.rdl", Pos{}, &out)
	if err == nil || err.Error() != "source: a.rdl:2: source: b.rdl:3: unknown command \"wirte\": did you mean `write`?" {
		t.Errorf("error %v", err)
	}
	if !strings.Contains(out.String(), "> engine\nengine sim") {
		t.Errorf("transcript %q", out.String())
	}
	err = s.Exec("source loop.rdl", Pos{}, &out)
	if err == nil || err.Error() != "source nested 16 deep: does loop.rdl source itself?" {
		t.Errorf("loop: %v", err)
	}
}

// Nothing a user types makes the session panic.
func FuzzExec(f *testing.F) {
	for _, l := range []string{"write 1M", "show sgl rw#1", "call --read data:4096,4096@100", "set B4 on",
		"complete --status REM_ACCESS_ERR", "interleave nfsd0:3", "step 3", "show segment 0x5eed0010/0",
		"call --read 0:1 --write 0 --reply 0", "set page_size 65536", "readdir 512"} {
		f.Add(l)
	}
	s, err := NewSession(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "source") || strings.Contains(line, "learn") {
			return
		}
		var out bytes.Buffer
		err := s.Exec(line, Pos{}, &out)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%q: %v", line, err)
		}
	})
}

// The shipped lessons run to their end in a fresh lab, every check held.
func TestLessonsRun(t *testing.T) {
	s := newTestSession(t)
	for _, e := range s.lessonCatalog().Entries() {
		if e.Err != nil {
			t.Errorf("%s: %v", e.File, e.Err)
			continue
		}
		s := newTestSession(t)
		var out bytes.Buffer
		if err := s.Exec("learn "+e.Lesson.Name, Pos{}, &out); err != nil {
			t.Errorf("%s: %v\n%s", e.Lesson.Name, err, out.String())
		}
	}
}

// run --json writes a script's lines and messages under the one JSON
// rule: a C1 CSI, a bidi override and DEL in a command are \u escapes in
// the text (encoding/json left them raw) and the same runes once decoded.
func TestScriptJSONEscapes(t *testing.T) {
	const cmd = "set threads \u009b2J\u202e\x7f"
	out, _, _ := runScript(t, cmd+"\n", ScriptOptions{JSON: true, KeepGoing: true})
	for _, r := range out {
		if r >= 0x80 && r < 0xa0 || r == 0x202e || r == 0x7f {
			t.Fatalf("%U raw in %q", r, out)
		}
	}
	var rec struct{ Command string }
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.Command != cmd {
		t.Errorf("%q decodes to %q (%v)", out, rec.Command, err)
	}
	if !strings.Contains(out, `"set threads \u009b2J\u202e\u007f"`) {
		t.Errorf("%s", out)
	}
}
