package repl

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/lessons"
)

// lessonText is a lesson file of these command lines.
func lessonText(name string, front string, cmds ...string) string {
	return "---\nname: " + name + "\ntitle: T\nsummary: s\nlevel: beginner\n" + front + "---\nHi.\n\n```rdmalab\n" +
		strings.Join(cmds, "\n") + "\n```\n"
}

// writeFiles writes name, text pairs into dir.
func writeFiles(t *testing.T, dir string, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		p := filepath.Join(dir, kv[i])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(kv[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A word that starts with -- after a bare -- is a FILE all the same: the
// vetting refuses it, at its column, as it refuses any other path.
func TestLessonValidatorVetsEveryPositional(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []struct {
		line string
		col  int
	}{
		{"save -- --x/../../../../tmp/f", 9},
		{"save -- /etc/x", 9},
		{"save -- ..", 9},
		{"save -- .", 9},
		{"capture save -- --x/../f.pcap", 17},
		{"capture start -- --x/../f.pcap", 18},
		{"capture open -- --x/../f.pcap", 17},
		{"capture open --max-expand 1M -- --x/../f.pcap", 33},
		{"replay -- --x/../f.pcap", 11},
		{"replay --json -- --x/../f.pcap", 18},
		{"replay --qp 17 -- --a/b", 19},
		{"replay --qp=17 -- --a/b", 19},
		{"capture -- save --x/../f", 17},
		{`save -- "--a/b"`, 9},
		{"save -- $'\\x1b]0;x\\x07'", 9},
	} {
		col, err := s.validateLessonLine(c.line)
		if err == nil || !strings.Contains(err.Error(), "a lesson names files in its own folder") || col != c.col {
			t.Errorf("%q: column %d, %v; want column %d", c.line, col, err, c.col)
		}
	}
	for _, ok := range []string{"save -- --notes.json", "save -- ．．／x", "replay --json -- trace.pcap"} {
		if _, err := s.validateLessonLine(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// lesson check refuses such a line before anything runs, at FILE:LINE:COL,
// and nothing is written.
func TestLessonCheckRefusesDashDashEscape(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	target := filepath.Join(out, "pwned")
	rel := "--x/" + strings.Repeat("../", 12) + strings.TrimPrefix(target, "/")
	writeFiles(t, dir, "esc.md", lessonText("esc", "", "save -- "+rel))
	var o, e bytes.Buffer
	failed, err := CheckLessons(LessonCheckOptions{Targets: []string{dir}, Out: &o, Err: &e})
	if err != nil || failed != 1 || !strings.Contains(e.String(), filepath.Join(dir, "esc.md")+":10:9: file ") {
		t.Errorf("lesson check: %d failed, %v\n%s%s", failed, err, o.String(), e.String())
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the lesson wrote outside its folder")
	}
}

// runUnvetted runs a lesson's lines as the session runs them, without the
// vetting: the jail alone must keep the files in the lesson's folder.
func runUnvetted(t *testing.T, s *Session, cmds ...string) (string, []lessons.Result) {
	t.Helper()
	l, err := lessons.Parse("jail.md", []byte(lessonText("jail", "", cmds...)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, err := s.beginLesson(&lessons.Entry{Lesson: l, File: "jail.md"}, &out, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.end(s)
	var res []lessons.Result
	for !r.tutor.Done() {
		x, _ := r.tutor.Run()
		res = append(res, x)
	}
	return r.dir, res
}

// Every command that takes a FILE, run by a lesson, resolves it inside
// the lesson's folder or refuses it, naming the lesson's FILE:LINE; the
// vetting is not what stops it.
func TestLessonCommandsStayInTheirFolder(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.pcap")
	writeFiles(t, outside, "victim.pcap", "secret")
	up := "--x/" + strings.Repeat("../", 12) + strings.TrimPrefix(outside, "/") + "/"
	lines := []string{
		"save -- " + up + "saved.json",
		"capture save -- " + up + "cap.pcap",
		"capture start -- " + up + "rec.pcap",
		"capture open -- " + up + "victim.pcap",
		"replay -- " + up + "victim.pcap",
		"replay --json -- " + up + "victim.pcap",
		"save " + victim,
		"capture open " + victim,
		"save ../" + filepath.Base(outside) + "/x",
	}
	s := newTestSession(t)
	s.tmpRoot = t.TempDir()
	_, res := runUnvetted(t, s, lines...)
	for i, r := range res {
		if r.Err == nil || !strings.Contains(r.Err.Error(), "jail.md:"+strconv.Itoa(10+i)+": file ") ||
			!strings.Contains(r.Err.Error(), "lesson's folder") || strings.Contains(r.Err.Error(), "magic") {
			t.Errorf("%q: %v", lines[i], r.Err)
		}
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Errorf("the lesson wrote beside its folder: %v", ents)
	}
	if b, _ := os.ReadFile(victim); string(b) != "secret" {
		t.Errorf("victim: %q", b)
	}
}

// A symbolic link in the lesson's folder (planted by the learner, or by
// anything else) does not carry a lesson's command out of it; a link that
// stays inside is followed.
func TestLessonJailSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, outside, "secret.pcap", "secret")
	writeFiles(t, dir, "in.pcap", "x")
	for name, to := range map[string]string{
		"out.pcap": filepath.Join(outside, "secret.pcap"),
		"sub":      outside,
		"loop":     "loop",
		"inlink":   "in.pcap",
		"dangling": filepath.Join(outside, "later"),
	} {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	j := &lessonJail{dir: dir, at: "x.md:3"}
	for _, bad := range []string{"out.pcap", "sub/secret.pcap", "sub/new.json", "sub/../sub/x", "loop/x", "dangling/x", "dangling", "/etc/passwd", "../x", "a/../../x", ""} {
		if p, err := j.resolve(bad); err == nil || !strings.HasPrefix(err.Error(), "x.md:3: file ") {
			t.Errorf("%q: %q, %v", bad, p, err)
		}
	}
	root, _ := filepath.EvalSymlinks(dir)
	for name, want := range map[string]string{
		"new.json":         filepath.Join(root, "new.json"),
		"in.pcap":          filepath.Join(root, "in.pcap"),
		"inlink":           filepath.Join(root, "inlink"), // a write replaces the link itself
		"a/../in.pcap":     filepath.Join(root, "in.pcap"),
		"--x/../new.json":  filepath.Join(root, "new.json"),
		"nodir/deeper/x.j": filepath.Join(root, "nodir/deeper/x.j"),
	} {
		if p, err := j.resolve(name); err != nil || p != want {
			t.Errorf("%q: %q, %v; want %q", name, p, err, want)
		}
	}
}

// A lesson started from a sourced script reads and writes in its own
// folder, not the script's, however deep the nesting: the user's file
// beside the script is untouched, and the shipped real-capture lesson
// finds its capture.
func TestLessonFromSourcedScriptWorksInItsFolder(t *testing.T) {
	lessonsDir, work := t.TempDir(), t.TempDir()
	writeFiles(t, lessonsDir, "notes.md", lessonText("notes", "", "save notes.json"))
	writeFiles(t, work,
		"notes.json", "mine",
		"demo.rdl", "learn notes\nlearn real-capture\n",
		"a/b/nest.rdl", "source ../../demo.rdl\n",
		"top.rdl", "source a/b/nest.rdl\n")
	s, err := NewSession(Options{LessonDirs: []string{lessonsDir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.tmpRoot = t.TempDir()
	var out, errs bytes.Buffer
	failed, err := s.RunScript(strings.NewReader("source "+filepath.Join(work, "top.rdl")+"\n"), "t", &out, ScriptOptions{Stderr: &errs})
	if err != nil || failed != 0 {
		t.Errorf("%d failed, %v\n%s\n%s", failed, err, errs.String(), out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(work, "notes.json")); string(b) != "mine" {
		t.Errorf("the lesson replaced the script's notes.json: %.40q", b)
	}
	if !strings.Contains(out.String(), "224 packets, 18 RPCs") {
		t.Errorf("real-capture did not open its capture:\n%s", out.String())
	}
}

// A learner's own command during a paced lesson is not jailed: they may
// name any file.
func TestPacedLearnerIsNotJailed(t *testing.T) {
	s, out := pacedSession(t, Options{})
	s.tmpRoot = t.TempDir()
	if err := s.Exec("learn first-write", Pos{}, out); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "mine.json")
	if got := input(t, s, out, "save "+p); strings.Contains(got, "error") {
		t.Fatalf("save %s: %s", p, got)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error(err)
	}
}

// A recording a lesson started ends with the lesson: its file was in the
// lesson's folder, gone now.
func TestLessonRecordingEndsWithTheLesson(t *testing.T) {
	s := newTestSession(t)
	s.tmpRoot = t.TempDir()
	dir, res := runUnvetted(t, s, "capture start rec.pcap")
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	if s.capture.rec != nil {
		t.Error("the lesson's recording still runs after it")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the lesson's folder: %v", err)
	}
}

// A trainer's lesson whose `files:` names a link out of its folder, a
// FIFO, or a 6 GB sparse file does not start, and says why at the
// lesson's FILE:LINE; nothing hangs and nothing is copied in.
func TestLessonFilesAreReadWithCare(t *testing.T) {
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(files, "passwd")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(files, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(files, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(6 << 30)
	f.Close()
	want := map[string]string{
		"passwd": "passwd.md:6: file passwd: a symbolic link to /etc/passwd, out of the lesson's folder",
		"fifo":   "fifo.md:6: file fifo: a named pipe (FIFO), not a regular file",
		"sparse": "sparse.md:6: file sparse: 6442450944 bytes: at most 67108864 (64 MiB)",
	}
	for name := range want {
		writeFiles(t, dir, name+".md", lessonText(name, "files: "+name+"\n", "help"))
	}
	s, err := NewSession(Options{LessonDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.tmpRoot = t.TempDir()
	for name, msg := range want {
		done := make(chan error, 1)
		go func() { done <- s.Exec("learn "+name, Pos{}, io.Discard) }()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("learn %s hangs", name)
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("learn %s: %v; want %q", name, err, msg)
		}
	}
	if ents, _ := os.ReadDir(s.tmpRoot); len(ents) != 0 {
		t.Errorf("lesson folders left: %v", ents)
	}
}

// Every command of the table with a FILE argument a lesson may run is
// confined: each way to reach its FILE (the words its completers offer
// before it) with a path that leads out of the lesson's folder fails,
// naming the folder, or is a usage error, and nothing is written out.
// A new command with a FILE is covered without a change here.
func TestEveryFileCommandIsJailed(t *testing.T) {
	s := newTestSession(t)
	s.tmpRoot = t.TempDir()
	outside := t.TempDir()
	writeFiles(t, outside, "f", "secret")
	up := "--x/" + strings.Repeat("../", 12) + strings.TrimPrefix(outside, "/") + "/f"
	var lines []string
	for _, cmd := range s.Commands() {
		if _, no := lessonForbidden[cmd.Name]; no {
			continue
		}
		for i, arg := range cmd.Args {
			if !arg.Paths {
				continue
			}
			prefixes := [][]string{{cmd.Name}}
			for _, before := range cmd.Args[:i] {
				var next [][]string
				for _, p := range prefixes {
					if before.Complete == nil {
						t.Fatalf("%s: no completer for %s, before FILE", cmd.Name, before.Name)
					}
					for _, sg := range before.Complete(s, p[1:]) {
						next = append(next, append(append([]string{}, p...), sg.Text))
					}
				}
				prefixes = next
			}
			for _, p := range prefixes {
				lines = append(lines, strings.Join(p, " ")+" -- "+up, strings.Join(p, " ")+" "+filepath.Join(outside, "f"))
			}
		}
	}
	if len(lines) < 8 {
		t.Fatalf("only %d lines: %q", len(lines), lines)
	}
	_, res := runUnvetted(t, s, lines...)
	for i, r := range res {
		var ue *usageError
		if r.Err == nil || !strings.Contains(r.Err.Error(), "lesson's folder") && !errors.As(r.Err, &ue) {
			t.Errorf("%q: %v", lines[i], r.Err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("written beside the lesson's folder: %v", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f")); string(b) != "secret" {
		t.Errorf("replaced: %.30q", b)
	}
}
