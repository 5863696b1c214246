package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/lessons"
)

// pacedSession is a session as the terminal runs it, with a progress file.
func pacedSession(t *testing.T, o Options) (*Session, *bytes.Buffer) {
	t.Helper()
	if o.ProgressFile == "" {
		o.ProgressFile = filepath.Join(t.TempDir(), "lessons.json")
	}
	s, err := NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.tty = true
	return s, &bytes.Buffer{}
}

// input types a line at a paced lesson: the lesson's words, or a command.
func input(t *testing.T, s *Session, out *bytes.Buffer, line string) string {
	t.Helper()
	out.Reset()
	if !s.LessonInput(line, out, out) {
		if err := s.Exec(line, Pos{}, out); err != nil {
			out.WriteString("error: " + err.Error() + "\n")
		}
		s.remind(out)
	}
	return out.String()
}

// A paced lesson waits for Enter, shows each step in the views (the
// session's source, which attached views read) and records the finish.
func TestPacedLessonNarratesAndFinishes(t *testing.T) {
	s, out := pacedSession(t, Options{})
	if err := s.Exec("learn first-write", Pos{}, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "── step 1 of 7 ──") || !strings.Contains(out.String(), "⏎ write 10000") {
		t.Fatalf("the first step is not proposed:\n%s", out)
	}
	if len(s.lab.Client.Calls()) != 0 {
		t.Fatal("the step ran before Enter")
	}
	if n := s.shared.Narration(); !strings.Contains(n, "step 1 of 7 · ⏎ write 10000") || !strings.Contains(n, "registers the data") {
		t.Errorf("the views' narration: %q", n)
	}
	if p := s.PromptText(); p != "first-write 1/7> " {
		t.Errorf("prompt %q", p)
	}

	// A command of the learner's own runs, and the step still waits.
	got := input(t, s, out, "show sq")
	if !strings.Contains(got, "sc_sq_avail") || !strings.Contains(got, "⏎ write 10000") {
		t.Errorf("show sq during the lesson:\n%s", got)
	}
	got = input(t, s, out, "hint")
	if !strings.Contains(got, "hint: The WRITE is the first call") {
		t.Errorf("hint:\n%s", got)
	}

	got = input(t, s, out, "")
	if !strings.Contains(got, "> write 10000") || !strings.Contains(got, "✓ calls[0].state is \"sent\"") ||
		!strings.Contains(got, "── step 2 of 7 ──") {
		t.Errorf("Enter:\n%s", got)
	}
	if n := s.shared.Narration(); !strings.Contains(n, "step 2 of 7 · ⏎ complete") || !strings.Contains(n, "last step (write 10000): ✓ 3 check(s) held\n  ✓ calls[0].state is \"sent\"\n") {
		t.Errorf("the views' narration after a step: %q", n)
	}

	// back: a fresh lab, the steps before run again, the same state.
	got = input(t, s, out, "back")
	if !strings.Contains(got, "── step 1 of 7 ──") || len(s.lab.Client.Calls()) != 0 {
		t.Errorf("back:\n%s", got)
	}
	for range 7 {
		input(t, s, out, "")
	}
	if s.lesson != nil || !strings.Contains(out.String(), "lesson first-write finished: every check held") {
		t.Fatalf("the end:\n%s", out)
	}
	// The views show how it ended, with the closing text, until the next
	// command.
	if n := s.shared.Narration(); !strings.Contains(n, "the end") || !strings.Contains(n, "lesson first-write finished: every check held") {
		t.Errorf("the views' closing summary: %q", n)
	}
	s.Exec("show sq", Pos{}, out)
	if n := s.shared.Narration(); n != "" {
		t.Errorf("narration left after the next command: %q", n)
	}
	if p, err := lessons.LoadProgress(s.progress.Path()); err != nil || !p.Done("first-write") {
		t.Errorf("progress not recorded: %v", err)
	}
	out.Reset()
	s.Exec("learn", Pos{}, out)
	if !strings.Contains(out.String(), "✓ first-write") {
		t.Errorf("the list does not mark it finished:\n%s", out)
	}
}

func TestPacedLessonSkipAndQuit(t *testing.T) {
	s, out := pacedSession(t, Options{})
	s.Exec("learn first-read", Pos{}, out)
	got := input(t, s, out, "skip")
	if !strings.Contains(got, "skipped: read 64k --segments 2") || s.lesson.tutor.Index() != 1 {
		t.Errorf("skip:\n%s", got)
	}
	got = input(t, s, out, "quit")
	if !strings.Contains(got, "left lesson first-read at step 2") || s.lesson != nil || s.Quitting() {
		t.Errorf("quit leaves the lesson, not the session:\n%s", got)
	}
	if s.shared.Narration() != "" {
		t.Error("narration left after quit")
	}
	if p, _ := lessons.LoadProgress(s.progress.Path()); p.Done("first-read") {
		t.Error("a quit lesson counts as finished")
	}
	// The folder the lesson ran in is gone.
	if s.dir != "" {
		t.Errorf("the session's folder is still %q", s.dir)
	}
}

// A trainer's folder adds lessons; a broken one shows in the list with
// its place and the rest still run.
func TestTrainerLessons(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mine.md", "---\nname: mine\ntitle: Mine\nsummary: a trainer's\nlevel: beginner\n---\nHello.\n\n```rdmalab\nwrite 100\nexpect calls[0].state == sent\n```\n")
	write("broken.md", "---\nname: broken\ntitle: B\nsummary: s\nlevel: beginner\n---\n```rdmalab\nsource /etc/passwd\n```\n")
	s, out := pacedSession(t, Options{LessonDirs: []string{dir}})
	s.Exec("learn", Pos{}, out)
	list := out.String()
	if !strings.Contains(list, "mine             Mine ("+dir+")") || !strings.Contains(list, "broken.md:8:1: source cannot run in a lesson") {
		t.Errorf("list:\n%s", list)
	}
	s.tty = false
	out.Reset()
	if err := s.Exec("learn mine", Pos{}, out); err != nil {
		t.Errorf("learn mine: %v\n%s", err, out)
	}
	if err := s.Exec("learn broken", Pos{}, out); err == nil || !strings.Contains(err.Error(), "broken.md:8:1") {
		t.Errorf("learn broken: %v", err)
	}
	// The same checks run unattended.
	var o, e bytes.Buffer
	failed, err := CheckLessons(LessonCheckOptions{Targets: []string{dir}, Out: &o, Err: &e})
	if err != nil || failed != 1 || !strings.Contains(o.String(), "ok  mine") || !strings.Contains(e.String(), "broken.md:8:1") {
		t.Errorf("lesson check: %d failed, %v\n%s\n%s", failed, err, o.String(), e.String())
	}
}

// A lesson's unmet check stops lesson check at its FILE:LINE:COL, and the
// hint comes with it.
func TestLessonCheckNamesTheCheck(t *testing.T) {
	dir := t.TempDir()
	text := "---\nname: wrong\ntitle: W\nsummary: s\nlevel: beginner\n---\n```rdmalab\nwrite 100\nexpect positions.xpt_acked_pos == 5\nhint Nothing was acknowledged yet.\ncomplete\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "wrong.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	failed, err := CheckLessons(LessonCheckOptions{Targets: []string{filepath.Join(dir, "wrong.md")}, Out: &o, Err: &e})
	if err != nil || failed != 1 {
		t.Fatalf("%d failed, %v", failed, err)
	}
	want := filepath.Join(dir, "wrong.md") + ":9:8: positions.xpt_acked_pos is 0, expected 5 (hint: Nothing was acknowledged yet.)"
	// Its steps have no narration: warnings come first, the fault last.
	lines := strings.Split(strings.TrimSpace(e.String()), "\n")
	if lines[len(lines)-1] != want {
		t.Errorf("got %q\nwant %q", e.String(), want)
	}
}

// A lesson that cannot begin (its file is missing) is reported, with or
// without a transcript, and nothing panics.
func TestLessonCheckUnstartableWithTranscript(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "lessons", "18-real-capture.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "18-real-capture.md"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*bytes.Buffer{nil, {}} {
		var o, e bytes.Buffer
		opts := LessonCheckOptions{Targets: []string{filepath.Join(dir, "18-real-capture.md")}, Out: &o, Err: &e}
		if tr != nil {
			opts.Transcript = tr
		}
		failed, err := CheckLessons(opts)
		if err != nil || failed != 1 || !strings.Contains(e.String(), "no such file") {
			t.Errorf("transcript %v: %d failed, %v\n%s", tr != nil, failed, err, e.String())
		}
	}
}

// The proposed command typed as it is counts as the step: its checks run,
// the lesson moves on, and the next Enter runs the next step, not this
// one again. Any other command is the learner looking around.
func TestPacedLessonTypedCommandIsTheStep(t *testing.T) {
	s, out := pacedSession(t, Options{})
	s.Exec("learn first-write", Pos{}, out)
	got := input(t, s, out, "write   10000 ")
	if s.lesson.tutor.Index() != 1 || !strings.Contains(got, "✓ calls[0].state is \"sent\"") || !strings.Contains(got, "── step 2 of 7 ──") {
		t.Fatalf("the typed command did not count as step 1 (at step %d):\n%s", s.lesson.tutor.Index()+1, got)
	}
	if n := len(s.lab.Client.Calls()); n != 1 {
		t.Errorf("%d calls after the typed step, want 1", n)
	}
	got = input(t, s, out, "")
	if !strings.Contains(got, "> complete") || strings.Contains(got, "✗") || s.lesson.tutor.Index() != 2 {
		t.Errorf("Enter after the typed step:\n%s", got)
	}
	// Looking around: the step waits.
	input(t, s, out, "show sq")
	if s.lesson.tutor.Index() != 2 {
		t.Errorf("show sq moved the lesson to step %d", s.lesson.tutor.Index()+1)
	}
}

// back and skip replace the views' "last step" line: it never shows the
// verdict of a step the lesson has gone back over.
func TestPacedLessonBackRefreshesTheViews(t *testing.T) {
	s, out := pacedSession(t, Options{})
	s.Exec("learn first-write", Pos{}, out)
	input(t, s, out, "")
	if n := s.shared.Narration(); !strings.Contains(n, "last step (write 10000)") {
		t.Fatalf("after step 1: %q", n)
	}
	input(t, s, out, "back")
	n := s.shared.Narration()
	if strings.Contains(n, "last step (write 10000)") || !strings.Contains(n, "back to step 1") || !strings.Contains(n, "step 1 of 7") {
		t.Errorf("after back the views say %q", n)
	}
	input(t, s, out, "again")
	if got := s.shared.Narration(); got != n {
		t.Errorf("again changed the views' text:\n%q\n%q", n, got)
	}
	input(t, s, out, "skip")
	if n := s.shared.Narration(); !strings.Contains(n, "skipped step 1 (write 10000)") {
		t.Errorf("after skip the views say %q", n)
	}
}

// After a check that did not hold the lesson says how to go on.
func TestPacedLessonSaysHowToGoOnAfterAFailure(t *testing.T) {
	dir := t.TempDir()
	text := "---\nname: wrong\ntitle: W\nsummary: s\nlevel: beginner\n---\nOne.\n\n```rdmalab\nwrite 100\nexpect positions.xpt_acked_pos == 5\n```\n\nTwo.\n\n```rdmalab\ncomplete\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "wrong.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, out := pacedSession(t, Options{LessonDirs: []string{dir}})
	s.Exec("learn wrong", Pos{}, out)
	got := input(t, s, out, "")
	if !strings.Contains(got, "✗ positions.xpt_acked_pos") || !strings.Contains(got, "back redoes step 1 on a fresh lab; Enter goes on to step 2") {
		t.Errorf("after a ✗:\n%s", got)
	}
}

// Inside a lesson, help on the lesson's words says what they do there;
// outside one, help quit is the command's.
func TestPacedLessonHelpOnItsWords(t *testing.T) {
	s, out := pacedSession(t, Options{})
	s.Exec("learn first-write", Pos{}, out)
	for word, want := range map[string]string{
		"quit":  "in lesson first-write, quit leaves the lesson at this step",
		"skip":  "in lesson first-write, skip goes on to the next step",
		"back":  "in lesson first-write, back goes back one step",
		"again": "in lesson first-write, again shows the step again",
		"hint":  "in lesson first-write, hint says what the step's author left",
	} {
		if got := input(t, s, out, "help "+word); !strings.Contains(got, want) {
			t.Errorf("help %s in a lesson:\n%s", word, got)
		}
	}
	input(t, s, out, "quit")
	if got := input(t, s, out, "help quit"); strings.Contains(got, "in lesson") || !strings.Contains(got, "usage: quit") {
		t.Errorf("help quit outside a lesson:\n%s", got)
	}
}

// help history says exactly what Ctrl-R does, since it is not readline's.
func TestHelpHistorySaysWhatCtrlRDoes(t *testing.T) {
	s, out := pacedSession(t, Options{})
	s.Exec("help history", Pos{}, out)
	if got := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(got, "not readline's incremental search") || !strings.Contains(got, "type part of a line first, then Ctrl-R") {
		t.Errorf("help history:\n%s", out)
	}
}

// A trainer's lesson with a shipped lesson's name takes its place: lesson
// check warns, the list and learn say which one runs.
func TestTrainerLessonShadowsAShippedOne(t *testing.T) {
	dir := t.TempDir()
	text := "---\nname: first-write\ntitle: Mine\nsummary: a trainer's\nlevel: beginner\n---\nHello.\n\n```rdmalab\nwrite 100\nexpect calls[0].state == sent\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "fw.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	failed, err := CheckLessons(LessonCheckOptions{Targets: []string{dir}, Dirs: []string{dir}, Out: &o, Err: &e})
	want := "warning: lesson first-write has the name of the lesson shipped with rdmalab (01-first-write.md): learn first-write runs in " + filepath.Join(dir, "fw.md")
	if err != nil || failed != 0 || !strings.Contains(e.String(), want) {
		t.Errorf("lesson check: %d failed, %v\n%s", failed, err, e.String())
	}
	s, out := pacedSession(t, Options{LessonDirs: []string{dir}})
	s.Exec("learn", Pos{}, out)
	if !strings.Contains(out.String(), "in place of the one shipped with rdmalab (01-first-write.md)") {
		t.Errorf("the list does not say it:\n%s", out)
	}
	out.Reset()
	s.Exec("learn first-write", Pos{}, out)
	if !strings.Contains(out.String(), "note: this lesson first-write is in "+filepath.Join(dir, "fw.md")+", in place of the one shipped") ||
		!strings.Contains(out.String(), "lesson first-write: Mine") {
		t.Errorf("learn does not say which one it runs:\n%s", out)
	}
}

// lesson check refuses a kernel name events cannot carry, in each form a
// check names one, with FILE:LINE:COL and the name most likely meant; a
// step with no narration is warned of.
func TestLessonCheckRefusesUnknownFunctions(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"expect event svc_rdma_wc_recieve", ":11:14: no function or trace point of the model is called svc_rdma_wc_recieve (did you mean svc_rdma_wc_receive?)"},
		{"expect no event svc_rdma_buld_read_segment", ":11:17: no function or trace point of the model is called svc_rdma_buld_read_segment (did you mean svc_rdma_build_read_segment?)"},
		{"expect errno EIO from svc_rdma_recvfrm", ":11:23: no function or trace point of the model is called svc_rdma_recvfrm (did you mean svc_rdma_recvfrom?)"},
		// Declared, but the model emits no event for it: until refuses it too.
		{"expect event svc_rdma_accept", ":11:14: no function or trace point of the model is called svc_rdma_accept"},
	} {
		dir := t.TempDir()
		text := "---\nname: typo\ntitle: T\nsummary: s\nlevel: beginner\n---\nOne.\n\n```rdmalab\nwrite 100\n" + c.line + "\n```\n\n```rdmalab\ncomplete\n```\n"
		file := filepath.Join(dir, "typo.md")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var o, e bytes.Buffer
		failed, err := CheckLessons(LessonCheckOptions{Targets: []string{file}, Out: &o, Err: &e})
		if err != nil || failed != 1 || !strings.Contains(e.String(), file+c.want) {
			t.Errorf("%s: %d failed, %v\n%s", c.line, failed, err, e.String())
		}
		s, out := pacedSession(t, Options{})
		fn := strings.Fields(c.line)[len(strings.Fields(c.line))-1]
		if err := s.Exec("until "+fn, Pos{}, out); err == nil {
			t.Errorf("until %s is accepted, the lesson check refuses it", fn)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "bare.md")
	text := "---\nname: bare\ntitle: T\nsummary: s\nlevel: beginner\n---\nOne.\n\n```rdmalab\nwrite 100\n```\n\n```rdmalab\ncomplete\n```\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if failed, _ := CheckLessons(LessonCheckOptions{Targets: []string{file}, Out: &o, Err: &e}); failed != 0 ||
		!strings.Contains(e.String(), file+":14:1: warning: step 2 (complete) has no narration") {
		t.Errorf("no warning of a step without narration: %d failed\n%s", failed, e.String())
	}
}

// Every step of a shipped lesson has narration: lesson check warns of
// none.
func TestShippedLessonsNarrateEveryStep(t *testing.T) {
	s, _ := pacedSession(t, Options{})
	for _, e := range s.lessonCatalog().Entries() {
		if e.Lesson == nil {
			t.Errorf("%s: %v", e.File, e.Err)
			continue
		}
		for _, w := range e.Lesson.Warnings() {
			t.Error(w)
		}
	}
}

// pageNumber is "page 0" and the like, not rc_curpage 1.
var pageNumber = regexp.MustCompile(`(?:^|[^\w])pages? [0-9]`)

// read-segment asks for `show pages` only once the Reads have landed, and
// its narration names the pages as the output does (pg1 is rq_pages[0]).
func TestReadSegmentShowPagesAfterTheReads(t *testing.T) {
	s, _ := pacedSession(t, Options{})
	e, err := s.lessonCatalog().Find("read-segment")
	if err != nil {
		t.Fatal(err)
	}
	landed := -1
	for i, st := range e.Lesson.Steps {
		if st.Command == "complete all" {
			landed = i
		}
	}
	if landed < 0 {
		t.Fatal("no complete all in read-segment")
	}
	shown := false
	for i, st := range e.Lesson.Steps {
		if strings.Contains(st.Narration, "show pages") && i <= landed {
			t.Errorf("step %d (%s) asks for show pages before the Reads land (step %d)", i+1, st.Command, landed+1)
		}
		shown = shown || (i > landed && st.Command == "show pages")
	}
	if !shown {
		t.Error("no show pages step after the Reads land")
	}
	for _, name := range []string{"read-segment", "long-call", "bug-b1"} {
		e, _ := s.lessonCatalog().Find(name)
		for i, st := range e.Lesson.Steps {
			for _, text := range []string{st.Narration, st.Hint} {
				if w := pageNumber.FindString(text); w != "" {
					t.Errorf("%s step %d says %q where the output says pg1, pg2, …", name, i+1, w)
				}
			}
		}
	}
}

// A lesson's engines: decide where it runs: lesson check skips it
// elsewhere (not a failure), learn refuses it with the reason, and the
// list says where it runs.
func TestLessonEngines(t *testing.T) {
	dir := t.TempDir()
	for name, engines := range map[string]string{"real": "ibv", "both": "sim ibv"} {
		text := "---\nname: " + name + "\ntitle: T\nsummary: s\nlevel: beginner\nengines: " + engines +
			"\n---\nHello.\n\n```rdmalab\nwrite 100\nexpect calls[0].state == sent\n```\n"
		if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var o, e bytes.Buffer
	failed, err := CheckLessons(LessonCheckOptions{Targets: []string{dir}, Out: &o, Err: &e})
	if err != nil || failed != 0 || !strings.Contains(o.String(), "ok  both") ||
		!strings.Contains(o.String(), "skip real                  runs on ibv only (engines: ibv), not on sim") ||
		!strings.Contains(o.String(), "1 lesson(s) checked, 0 failed, 1 skipped (not for engine sim)") {
		t.Errorf("lesson check: %d failed, %v\n%s\n%s", failed, err, o.String(), e.String())
	}
	s, err := NewSession(Options{LessonDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := &bytes.Buffer{}
	s.Exec("learn", Pos{}, out)
	if got := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(got, "beginner · ibv only · s") || !strings.Contains(got, "beginner · sim, ibv only · s") {
		t.Errorf("list:\n%s", out)
	}
	if err := s.Exec("learn real", Pos{}, out); err == nil || !strings.Contains(err.Error(), "lesson real runs on ibv only (engines: ibv)") {
		t.Errorf("learn real on the sim: %v", err)
	}
	if err := s.Exec("learn both", Pos{}, out); err != nil {
		t.Errorf("learn both: %v", err)
	}
}
