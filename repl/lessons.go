package repl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/internal/nearest"
	"github.com/rdmalab/rdmalab/lessons"
)

// lessonForbidden are the commands a lesson file may not run: they read
// other files, leave the session, or take the screen. A learner may still
// type any of them during a paced lesson.
var lessonForbidden = map[string]string{
	"source":  "reads another file of commands",
	"learn":   "starts another lesson",
	"quit":    "ends the session",
	"history": "shows the learner's own history",
	"view":    "takes the screen (the narration can tell the learner to type it)",
	"engine":  "changes the provider",
}

// loadLessons finds the session's lesson folders: the shipped lessons,
// then each of dirs. A folder that cannot be read is reported and left
// out. The lessons are read when first asked for (lessonCatalog), not at
// every start: a session that never lists or takes one reads none.
func (s *Session) loadLessons(dirs []string, warn io.Writer) {
	list := []lessons.Dir{{FS: lessons.Shipped(), Name: "shipped"}}
	for _, d := range dirs {
		st, err := os.Stat(d)
		var dir lessons.Dir
		switch {
		case err == nil && !st.IsDir():
			err = errors.New("not a directory")
		case err == nil:
			// Read through an os.Root: no link in it leads out.
			dir, err = lessons.OpenDir(d)
		}
		if err != nil {
			fmt.Fprintf(warn, "rdmalab: lessons folder %s: %s (left out)\n", shown(d), shown(err.Error()))
			continue
		}
		list = append(list, dir)
	}
	s.lessonDirs, s.lessonWarn = list, warn
}

// lessonCatalog is the session's lessons, read and parsed the first time
// it is asked for.
func (s *Session) lessonCatalog() *lessons.Catalog {
	if s.catalog != nil {
		return s.catalog
	}
	c, err := lessons.Load(s.validateLessonLine, s.lessonDirs...)
	if err != nil {
		fmt.Fprintf(s.lessonWarn, "rdmalab: lessons: %s\n", shown(err.Error()))
		c, _ = lessons.Load(s.validateLessonLine, s.lessonDirs[0])
	}
	s.catalog = c
	return c
}

// validateLessonLine vets one command of a lesson file before anything
// runs: a known command, allowed in a lesson, whose arguments parse, and
// whose FILE arguments are plain names in the lesson's own folder.
func (s *Session) validateLessonLine(line string) (int, error) {
	toks, err := Tokenize(line)
	if err != nil {
		return 0, err
	}
	if len(toks) == 0 {
		return 0, errors.New("an empty command")
	}
	w := words(toks)
	cmd := s.lookup(w[0])
	if cmd == nil {
		return 1, s.unknownCommand(w)
	}
	if why, ok := lessonForbidden[cmd.Name]; ok {
		return 1, fmt.Errorf("%s cannot run in a lesson: it %s", cmd.Name, why)
	}
	a, err := cmd.parse(cmd.lineWords(line, toks)[1:])
	if err != nil {
		col := 1
		if len(toks) > 1 {
			col = toks[1].Start + 1
		}
		return col, errors.New(Explain(err))
	}
	// Every positional value is vetted, whatever it looks like: after a
	// bare -- a word that starts with -- is one too.
	pt := positionalTokens(cmd, toks[1:])
	for i, v := range a.Pos {
		arg, ok := argAt(cmd, i)
		if !ok || !arg.Paths || plainFileName(v) {
			continue
		}
		col := 1
		if i < len(pt) {
			col = pt[i].Start + 1
		}
		return col, fmt.Errorf("file %q: a lesson names files in its own folder, as plain names", v)
	}
	return 0, nil
}

// positionalTokens are the tokens parse takes for positional values, in
// order: what is not an option or an option's value, and all after --.
func positionalTokens(c *Command, toks []Token) []Token {
	var out []Token
	for i := 0; i < len(toks); i++ {
		t := toks[i].Text
		if t == "--" {
			return append(out, toks[i+1:]...)
		}
		if name, ok := strings.CutPrefix(t, "--"); ok {
			n, _, hasVal := strings.Cut(name, "=")
			if f := c.flag(n); f != nil && f.Value != "" && !hasVal {
				i++
			}
			continue
		}
		out = append(out, toks[i])
	}
	return out
}

// plainFileName reports whether name is a file of the folder itself: no
// separator, no . or .., nothing a terminal or the system would act on.
func plainFileName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00") && shown(name) == name
}

// lessonMachine runs a lesson's commands on the session.
type lessonMachine struct {
	s    *Session
	file string
	dir  string    // the lesson's folder: its commands' files stay there
	echo io.Writer // where command output also goes as it is printed; nil: nowhere
	// echoCmd prints each command before its output, as a transcript.
	echoCmd bool
}

func (m *lessonMachine) Reset(set []lessons.Setting) error {
	if err := m.s.Exec("reset --defaults", Pos{}, io.Discard); err != nil {
		return err
	}
	for _, x := range set {
		if err := m.s.Exec("set "+x.Name+" "+x.Value, Pos{File: m.file, Line: x.Line}, io.Discard); err != nil {
			return fmt.Errorf("line %d: %s", x.Line, Explain(err))
		}
	}
	return nil
}

// Exec runs a command of the lesson file, its files confined to the
// lesson's folder.
func (m *lessonMachine) Exec(line string, at lessons.Pos) lessons.Result {
	var buf bytes.Buffer
	var w io.Writer = &buf
	if m.echo != nil {
		w = io.MultiWriter(&buf, m.echo)
		if m.echoCmd {
			fmt.Fprintf(m.echo, "> %s\n", shown(line))
		}
	}
	at.Col = 0
	c := &Ctx{S: m.s, out: w, keep: true, jail: &lessonJail{dir: m.dir, at: shown(at.String())}}
	err := m.s.exec(c, line)
	return lessons.Result{Output: buf.String(), Events: c.kept, Err: err}
}

func (m *lessonMachine) State() (any, error) {
	var sn snap.Snapshot
	m.s.readLab(func() { sn = m.s.lab.Snapshot() })
	b, err := json.Marshal(sn)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	return v, d.Decode(&v)
}

func (m *lessonMachine) PageByte(name string, off int) (byte, string, error) {
	p, ok := m.s.lab.Page(name)
	if !ok {
		return 0, "", fmt.Errorf("no page %s is held by a thread or a Read now", name)
	}
	if off < 0 || off >= len(p.Data) {
		return 0, "", fmt.Errorf("%s[%d]: a page has %d bytes", name, off, len(p.Data))
	}
	src := ""
	for _, e := range p.Extents {
		if off >= e.Off && off < e.Off+e.Len {
			src = e.Source
		}
	}
	return p.Data[off], src, nil
}

// lessonRun is a lesson being taken: its tutor and its working folder.
type lessonRun struct {
	entry   *lessons.Entry
	tutor   *lessons.Tutor
	machine *lessonMachine
	dir     string    // the lesson's folder, removed at the end
	lock    io.Closer // held while the folder is in use
	prevDir string
	paced   bool
	last    string  // how the last step went, for the views
	lastRun stepRun // the same, check by check (lessonState)
}

// beginLesson prepares a lesson: a folder of its own holding its files,
// the session reading and writing there, and a fresh lab.
func (s *Session) beginLesson(e *lessons.Entry, echo io.Writer, paced bool) (*lessonRun, error) {
	if kind := s.engineKind(); !e.Lesson.RunsOn(kind) {
		return nil, fmt.Errorf("lesson %s runs on %s only (engines: %s): what it shows cannot happen on engine %s; engine sim, then learn %s",
			e.Lesson.Name, strings.Join(e.Lesson.Engines, ", "), strings.Join(e.Lesson.Engines, " "), shown(s.lab.Set.Engine), e.Lesson.Name)
	}
	dir, lock, err := newLessonDir(s.tmpRoot)
	if err != nil {
		return nil, err
	}
	s.tmp.add(dir)
	run := &lessonRun{entry: e, dir: dir, lock: lock, prevDir: s.dir, paced: paced}
	for _, f := range e.Lesson.Files {
		if err := copyLessonFile(e, f, dir); err != nil {
			run.end(s)
			return nil, fmt.Errorf("%s:%d: file %s: %w", shown(e.Lesson.File), e.Lesson.FilesLine, shown(f), err)
		}
	}
	s.dir = dir
	run.machine = &lessonMachine{s: s, file: e.Lesson.File, dir: dir, echo: echo}
	if run.tutor, err = lessons.NewTutor(e.Lesson, run.machine); err != nil {
		run.end(s)
		return nil, err
	}
	run.tutor.Stop = s.leaving
	return run, nil
}

// copyLessonFile copies a file the lesson's `files:` names into its
// folder.
func copyLessonFile(e *lessons.Entry, name, dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := e.CopyFile(name, f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// end gives the session its folder back, removes the lesson's, and
// clears the views' narration.
func (r *lessonRun) end(s *Session) {
	s.dir = r.prevDir
	if rec := s.capture.rec; rec != nil && rec.lesson {
		// Its file is in the folder removed below.
		s.capture.rec = nil
		rec.abort()
	}
	s.tmp.drop(r.dir)
	os.RemoveAll(r.dir)
	r.lock.Close()
	if r.paced {
		s.setNarration(nil)
		s.setLessonState(nil)
	}
}

func runLearn(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	if len(a.Pos) == 0 {
		s.listLessons(out)
		return nil
	}
	e, err := s.lessonCatalog().Find(a.Pos[0])
	var nf *lessons.NotFoundError
	if errors.As(err, &nf) {
		var names []string
		for _, e := range s.lessonCatalog().Entries() {
			names = append(names, e.Name())
		}
		if near := nearest.Word(a.Pos[0], names); near != "" {
			return fmt.Errorf("no lesson %q: did you mean `learn %s`?", shown(a.Pos[0]), near)
		}
		return fmt.Errorf("no lesson %q (learn lists them)", shown(a.Pos[0]))
	}
	if err != nil {
		return errors.New(shownLines(err.Error()))
	}
	if s.lesson != nil {
		return fmt.Errorf("lesson %s is running: quit it first", s.lesson.entry.Name())
	}
	paced := s.tty && c.Pos.File == "" && s.depth == 0
	if sh := s.lessonCatalog().Shadowed(e.Name()); sh != nil {
		prefix := ""
		if !paced {
			prefix = "# "
		}
		fmt.Fprintf(out, "%snote: this lesson %s is %s, in place of the one %s\n", prefix, e.Name(), lessonSource(e), lessonSource(sh))
	}
	if paced {
		return s.startPaced(e, out)
	}
	return s.runLessonThrough(e, out)
}

// engineKind is the kind of engine the lab runs on, as a lesson's
// engines: names it: "sim", or "ibv" for a real device.
func (s *Session) engineKind() string {
	if server, _, err := engine.ParseEngine(s.lab.Set.Engine); err == nil && server != "" {
		return "ibv"
	}
	return "sim"
}

// listLessons prints the catalog: finished ones marked, broken ones with
// their fault.
func (s *Session) listLessons(out io.Writer) {
	entries := s.lessonCatalog().Entries()
	if len(entries) == 0 {
		fmt.Fprintln(out, "no lessons")
		return
	}
	fmt.Fprintln(out, "lessons (learn NAME takes one; ✓ finished):")
	for _, e := range entries {
		if e.Err != nil {
			fmt.Fprintf(out, "  ! %-20s %s\n", shown(e.Name()), shownLines(e.Err.Error()))
			continue
		}
		l := e.Lesson
		mark := " "
		if s.progress != nil && s.progress.Done(l.Name) {
			mark = "✓"
		}
		from := ""
		if e.Dir.Name != "shipped" {
			from = " (" + shown(e.Dir.Name) + ")"
			if sh := s.lessonCatalog().Shadowed(l.Name); sh != nil {
				from = " (" + shown(e.Dir.Name) + ", in place of the one " + lessonSource(sh) + ")"
			}
		}
		fmt.Fprintf(out, "  %s %-16s %s%s\n", mark, l.Name, shown(l.Title), from)
		if l.Summary != "" {
			level := l.Level
			if len(l.Engines) > 0 {
				level += " · " + strings.Join(l.Engines, ", ") + " only"
			}
			for _, ln := range strings.Split(fitText(level+" · "+shown(l.Summary), textWidth-21), "\n") {
				fmt.Fprintf(out, "  %-18s %s\n", "", ln)
			}
		}
	}
}

// runLessonThrough runs a whole lesson at once, for scripts: the
// narration as comments, each command and its output, each check's
// verdict. It fails when a check did not hold.
func (s *Session) runLessonThrough(e *lessons.Entry, out io.Writer) error {
	r, err := s.beginLesson(e, out, false)
	if err != nil {
		return err
	}
	defer r.end(s)
	l := e.Lesson
	fmt.Fprintf(out, "# lesson %s: %s\n", l.Name, shown(l.Title))
	checks := 0
	for !r.tutor.Done() {
		if s.leaving() {
			return fmt.Errorf("lesson %s: stopped by a signal at step %d", l.Name, r.tutor.Index()+1)
		}
		st := r.tutor.Current()
		writeNarration(out, st.Narration, "# ")
		fmt.Fprintf(out, "> %s\n", shown(st.Command))
		res, verdicts := r.tutor.Run()
		if res.Err != nil {
			fmt.Fprintf(out, "error: %s\n", shownLines(Explain(res.Err)))
		}
		writeVerdicts(out, st, verdicts)
		checks += len(st.Checks)
	}
	writeNarration(out, l.Outro, "# ")
	if r.tutor.Failed > 0 {
		return fmt.Errorf("lesson %s: %d of %d checks did not hold", l.Name, r.tutor.Failed, checks)
	}
	s.lessonPassed(l.Name, out)
	return nil
}

// startPaced begins a lesson at the terminal: each step waits for the
// learner.
func (s *Session) startPaced(e *lessons.Entry, out io.Writer) error {
	r, err := s.beginLesson(e, out, true)
	if err != nil {
		return err
	}
	s.lesson = r
	l := e.Lesson
	fmt.Fprintf(out, "lesson %s: %s (%s, %d steps)\n", l.Name, shown(l.Title), l.Level, len(l.Steps))
	if l.KeepLab != "" {
		fmt.Fprintf(out, "it runs on the lab as it stands: %s\n", shown(l.KeepLab))
	} else {
		fmt.Fprintln(out, "a fresh lab with the lesson's settings is ready")
	}
	fmt.Fprintln(out, "Enter (or the command typed) runs the proposed step; any other command looks around; skip, back, hint, again, quit")
	s.propose(out)
	return nil
}

// propose shows the next step: quiet steps run at once, their output
// left out so the narration stays on the screen, then the narration and
// the command Enter will run.
func (s *Session) propose(out io.Writer) {
	r := s.lesson
	t := r.tutor
	for !t.Done() && t.Current().Quiet {
		if s.leaving() {
			return
		}
		st := t.Current()
		writeNarration(out, st.Narration, "")
		echo := r.machine.echo
		r.machine.echo = nil
		res, v := t.Run()
		r.machine.echo = echo
		fmt.Fprintf(out, "  (setting the scene) %s\n", shown(st.Command))
		if res.Err != nil {
			fmt.Fprintf(out, "error: %s\n", shownLines(Explain(res.Err)))
		}
		writeVerdicts(out, st, failedOnly(v))
	}
	if t.Done() {
		s.endPaced(out)
		return
	}
	st := t.Current()
	fmt.Fprintf(out, "\n── step %d of %d ──\n", t.Index()+1, len(r.entry.Lesson.Steps))
	writeNarration(out, st.Narration, "")
	s.remind(out)
	s.narrate(st)
}

// narrate shows the lesson's current step in the views, this session's
// and every attached one, so a class follows at the trainer's pace: the
// step and its command first (a pane's title row), the lesson's title,
// how the last step went, then its narration. The text is built when a view reads it, from
// values taken now: with no view attached no work is done.
func (s *Session) narrate(st *lessons.Step) {
	r := s.lesson
	if r == nil {
		return
	}
	l := r.entry.Lesson
	title, at, steps, last := l.Title, r.tutor.Index()+1, len(l.Steps), r.last
	command, narration := st.Command, st.Narration
	s.setLessonState(s.lessonState(st))
	s.setNarration(func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "step %d of %d · ⏎ %s\n%s\n", at, steps, command, title)
		if last != "" {
			b.WriteString(last + "\n\n")
		}
		b.WriteString(reflow(keepLists(lessons.Plain(narration))))
		return b.String()
	})
}

// keepLists indents the items of a list so reflow keeps each on its own
// line.
func keepLists(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || listNumber(l) {
			lines[i] = " " + l
		}
	}
	return strings.Join(lines, "\n")
}

// listNumber reports whether l starts as an item of a numbered list: "1. ".
func listNumber(l string) bool {
	d := strings.TrimLeft(l, "0123456789")
	return len(d) < len(l) && strings.HasPrefix(d, ". ")
}

// setNarration hands the views a lesson's text, built when one reads it
// (nil clears it). Inside a command the shared lab is locked
// (runLocked), so the text waits for the command's end.
func (s *Session) setNarration(text func() string) {
	if s.shared == nil {
		return
	}
	if text == nil {
		text = func() string { return "" }
	}
	if s.cur != nil {
		s.pendingNarr = text
		return
	}
	s.shared.SetNarrationFunc(text)
}

// remind repeats the proposed command.
func (s *Session) remind(out io.Writer) {
	if s.lesson == nil || s.lesson.tutor.Done() {
		return
	}
	fmt.Fprintf(out, "  ⏎ %s\n", shown(s.lesson.tutor.Current().Command))
}

// LessonInput handles a line typed while a paced lesson runs: Enter, or
// the proposed command typed as it is, runs the step, and skip, back,
// hint, again and quit steer the lesson. Any other line is left to the session (it returns false), and
// the proposal is repeated after it.
func (s *Session) LessonInput(line string, out, errw io.Writer) bool {
	r := s.lesson
	if r == nil {
		return false
	}
	t := r.tutor
	typed := strings.TrimSpace(line)
	if typed != "" && !t.Done() && sameCommand(typed, t.Current().Command) {
		typed = "" // the proposed command, typed: it is the step
	}
	switch typed {
	case "":
		st := t.Current()
		if line == "" {
			fmt.Fprintf(out, "> %s\n", shown(st.Command))
		}
		res, v := t.Run()
		if res.Err != nil {
			fmt.Fprintf(errw, "error: %s\n", shownLines(Explain(res.Err)))
		}
		writeVerdicts(out, st, v)
		if len(failedOnly(v)) > 0 && !t.Done() {
			fmt.Fprintf(out, "  a check did not hold: back redoes step %d on a fresh lab; Enter goes on to step %d (hint and again help with it)\n", t.Index(), t.Index()+1)
		}
		r.last = summarize(st, v)
		r.lastRun = stepRun{st, v}
		s.propose(out)
	case "skip":
		fmt.Fprintf(out, "skipped: %s (the checks after it may not hold)\n", shown(t.Current().Command))
		r.last = fmt.Sprintf("skipped step %d (%s)", t.Index()+1, t.Current().Command)
		t.Skip()
		s.propose(out)
	case "back":
		if err := t.Back(); err != nil {
			fmt.Fprintf(errw, "error: %s\n", err)
			s.remind(out)
			return true
		}
		fmt.Fprintf(out, "a fresh lab, the steps before step %d run again\n", t.Index()+1)
		r.last = fmt.Sprintf("back to step %d: a fresh lab, the steps before it ran again", t.Index()+1)
		s.propose(out)
	case "hint":
		if h := t.Current().Hint; h != "" {
			fmt.Fprintf(out, "hint: %s\n", shown(h))
		} else {
			fmt.Fprintln(out, "no hint for this step: Enter runs it")
		}
		s.remind(out)
	case "again":
		s.propose(out)
	case "quit", "exit":
		fmt.Fprintf(out, "left lesson %s at step %d; the lab stays as it is\n", r.entry.Name(), t.Index()+1)
		r.end(s)
		s.lesson = nil
	default:
		return false
	}
	return true
}

// endPaced closes a lesson that reached its end.
func (s *Session) endPaced(out io.Writer) {
	r := s.lesson
	t := r.tutor
	l := r.entry.Lesson
	writeNarration(out, l.Outro, "")
	r.end(s)
	s.lesson = nil
	defer s.setLessonState(endedState(r, t))
	var result string
	switch {
	case t.Passed():
		result = fmt.Sprintf("lesson %s finished: every check held", l.Name)
	case t.Skipped > 0:
		result = fmt.Sprintf("lesson %s ended with %d step(s) skipped; learn %s takes it again", l.Name, t.Skipped, l.Name)
	default:
		result = fmt.Sprintf("lesson %s ended with %d check(s) that did not hold; learn %s takes it again", l.Name, t.Failed, l.Name)
	}
	fmt.Fprintln(out, result)
	if t.Passed() {
		s.lessonPassed(l.Name, out)
	}
	// The views keep the closing summary until the next command.
	title, last, outro := l.Title, r.last, l.Outro
	s.setNarration(func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "the end of the lesson\n%s\n", title)
		if last != "" {
			b.WriteString(last + "\n\n")
		}
		b.WriteString(result + "\n")
		if strings.TrimSpace(outro) != "" {
			b.WriteString("\n" + reflow(keepLists(lessons.Plain(outro))))
		}
		return b.String()
	})
	s.closing = true
}

// lessonPassed records a finished lesson.
func (s *Session) lessonPassed(name string, out io.Writer) {
	if s.progress == nil {
		return
	}
	if err := s.progress.MarkFinished(name, time.Now()); err != nil {
		fmt.Fprintf(out, "note: progress not saved: %s\n", shown(err.Error()))
	}
}

func writeNarration(out io.Writer, text, prefix string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	for _, ln := range strings.Split(fitText(shownLines(lessons.Plain(text)), textWidth-len(prefix)), "\n") {
		fmt.Fprintln(out, strings.TrimRight(prefix+ln, " "))
	}
}

// sameCommand reports whether typed is the proposed command, spaces
// aside.
func sameCommand(typed, proposed string) bool {
	return strings.Join(strings.Fields(typed), " ") == strings.Join(strings.Fields(proposed), " ")
}

// summarize says how a step went, for the views: one line, then each
// check's verdict.
func summarize(st *lessons.Step, v []lessons.Verdict) string {
	held, failed := 0, ""
	for _, x := range v {
		if x.OK {
			held++
		} else if failed == "" {
			failed = x.Say
		}
	}
	var b strings.Builder
	if failed != "" {
		fmt.Fprintf(&b, "last step (%s): ✗ %s", st.Command, failed)
	} else {
		fmt.Fprintf(&b, "last step (%s): ✓ %d check(s) held", st.Command, held)
	}
	// Then every verdict, for the class to read.
	for _, x := range v {
		mark := "✓"
		if !x.OK {
			mark = "✗"
		}
		fmt.Fprintf(&b, "\n  %s %s", mark, x.Say)
	}
	return b.String()
}

// failedOnly keeps the verdicts that did not hold.
func failedOnly(v []lessons.Verdict) []lessons.Verdict {
	var out []lessons.Verdict
	for _, x := range v {
		if !x.OK {
			out = append(out, x)
		}
	}
	return out
}

func writeVerdicts(out io.Writer, st *lessons.Step, v []lessons.Verdict) {
	failed := false
	for _, x := range v {
		mark := "✓"
		if !x.OK {
			mark, failed = "✗", true
		}
		fmt.Fprintf(out, "  %s %s\n", mark, shown(x.Say))
	}
	if failed && st.Hint != "" {
		fmt.Fprintf(out, "    hint: %s\n", shown(st.Hint))
	}
}
