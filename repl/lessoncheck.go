package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rdmalab/rdmalab/lessons"
)

// LessonCheckOptions configure CheckLessons.
type LessonCheckOptions struct {
	// Targets are lesson files and folders of them; none means every
	// lesson of the catalog (the shipped ones and Dirs).
	Targets []string
	Dirs    []string // trainers' folders, as Options.LessonDirs
	// Transcript, when set, receives each lesson's commands, output and
	// verdicts.
	Transcript io.Writer
	Out, Err   io.Writer
	// Engine is every lesson's provider, as Options.Engine.
	Engine string
}

// CheckLessons runs lessons without a terminal, each in a fresh session,
// and stops each at its first unmet check, which it reports as
// FILE:LINE:COL. It returns how many lessons failed.
func CheckLessons(o LessonCheckOptions) (failed int, err error) {
	entries, err := lessonTargets(o)
	if err != nil {
		return 0, err
	}
	if len(entries) == 0 {
		return 0, errors.New("no lessons to check")
	}
	known := knownLessons(o.Dirs)
	skipped := 0
	for _, e := range entries {
		for _, w := range lessonWarnings(e, known) {
			fmt.Fprintln(o.Err, shownLines(w))
		}
		switch checkOneLesson(e, o) {
		case checkFailed:
			failed++
		case checkSkipped:
			skipped++
		}
	}
	fmt.Fprintf(o.Out, "%d lesson(s) checked, %d failed", len(entries)-skipped, failed)
	if skipped > 0 {
		eng := o.Engine
		if eng == "" {
			eng = "sim"
		}
		fmt.Fprintf(o.Out, ", %d skipped (not for engine %s)", skipped, shown(eng))
	}
	fmt.Fprintln(o.Out)
	return failed, nil
}

// lessonTargets lists what CheckLessons runs. A file or folder is loaded
// with a validator bound to a throw-away session: each lesson gets its
// own session when it runs.
func lessonTargets(o LessonCheckOptions) ([]*lessons.Entry, error) {
	s, err := NewSession(Options{LessonDirs: o.Dirs, Warn: o.Err})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if len(o.Targets) == 0 {
		return s.lessonCatalog().Entries(), nil
	}
	var out []*lessons.Entry
	for _, t := range o.Targets {
		st, err := os.Stat(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", shown(t), errors.Unwrap(err))
		}
		dir, names := filepath.Dir(t), []string{filepath.Base(t)}
		if st.IsDir() {
			dir = t
			m, _ := filepath.Glob(filepath.Join(t, "*.md"))
			names = names[:0]
			for _, f := range m {
				if !strings.EqualFold(filepath.Base(f), "README.md") {
					names = append(names, filepath.Base(f))
				}
			}
			sort.Strings(names)
		}
		d, err := lessons.OpenDir(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", shown(dir), errors.Unwrap(err))
		}
		for _, n := range names {
			out = append(out, lessons.LoadEntry(d, n, s.validateLessonLine))
		}
	}
	return out, nil
}

// lessonWarnings are what lesson check says of e without failing it: its
// steps without narration, and the lesson of the same name in known (the
// catalog `learn` reads) that e would take the place of, or that would
// run instead of e.
func lessonWarnings(e *lessons.Entry, known *lessons.Catalog) []string {
	if e.Lesson == nil {
		return nil
	}
	out := e.Lesson.Warnings()
	if other := shadowedBy(e, known); other != "" {
		out = append(out, fmt.Sprintf("%s: warning: lesson %s has the name of %s: learn %s runs %s",
			e.Lesson.File, e.Lesson.Name, other, e.Lesson.Name, lessonSource(e)))
	}
	return out
}

// knownLessons is the catalog of the shipped lessons and dirs, unvetted:
// what a lesson checked may share a name with; nil when it cannot load.
func knownLessons(dirs []string) *lessons.Catalog {
	list := []lessons.Dir{{FS: lessons.Shipped(), Name: "shipped"}}
	for _, d := range dirs {
		if dir, err := lessons.OpenDir(d); err == nil {
			list = append(list, dir)
		}
	}
	c, err := lessons.Load(nil, list...)
	if err != nil {
		return nil
	}
	return c
}

// shadowedBy names the other lesson of e's name in c, one a catalog
// holding both would not run (or run instead of e), when its text
// differs from e's; "" when none.
func shadowedBy(e *lessons.Entry, c *lessons.Catalog) string {
	if c == nil {
		return ""
	}
	name := e.Lesson.Name
	for _, x := range append([]*lessons.Entry{c.Shadowed(name)}, c.Entries()...) {
		if x == nil || x.Name() != name || sameLessonText(x, e) {
			continue
		}
		return "the lesson " + lessonSource(x)
	}
	return ""
}

// sameLessonText reports whether two entries read the same file text.
func sameLessonText(a, b *lessons.Entry) bool {
	ta, errA := fs.ReadFile(a.Dir.FS, a.File)
	tb, errB := fs.ReadFile(b.Dir.FS, b.File)
	return errA == nil && errB == nil && bytes.Equal(ta, tb)
}

// lessonSource says where a lesson comes from: "shipped (FILE)" or the
// file's path in a trainer's folder.
func lessonSource(e *lessons.Entry) string {
	if e.Dir.Name == "shipped" {
		return "shipped with rdmalab (" + e.File + ")"
	}
	return "in " + shown(filepath.Join(e.Dir.Name, e.File))
}

// checkOutcome is what became of one lesson in CheckLessons.
type checkOutcome int

const (
	checkPassed checkOutcome = iota
	checkFailed
	checkSkipped // its engines: leave this engine out
)

func checkOneLesson(e *lessons.Entry, o LessonCheckOptions) checkOutcome {
	if e.Err != nil {
		fmt.Fprintf(o.Err, "%s\n", shownLines(e.Err.Error()))
		return checkFailed
	}
	l := e.Lesson
	s, err := NewSession(Options{Engine: o.Engine})
	if err != nil {
		fmt.Fprintf(o.Err, "%s: %s\n", shown(l.File), shown(err.Error()))
		return checkFailed
	}
	defer s.Close()
	if kind := s.engineKind(); !l.RunsOn(kind) {
		fmt.Fprintf(o.Out, "skip %-21s runs on %s only (engines: %s), not on %s\n", l.Name,
			strings.Join(l.Engines, ", "), strings.Join(l.Engines, " "), kind)
		return checkSkipped
	}
	start := time.Now()
	r, err := s.beginLesson(e, o.Transcript, false)
	if err != nil {
		fmt.Fprintf(o.Err, "%s\n", shownLines(err.Error()))
		return checkFailed
	}
	if o.Transcript != nil {
		r.machine.echoCmd = true
	}
	defer r.end(s)
	checks := 0
	err = r.tutor.Check(func(st *lessons.Step, res lessons.Result, v []lessons.Verdict) {
		checks += len(st.Checks)
		if o.Transcript != nil {
			writeVerdicts(o.Transcript, st, v)
		}
	})
	if err != nil {
		fmt.Fprintf(o.Err, "%s\n", shownLines(err.Error()))
		return checkFailed
	}
	fmt.Fprintf(o.Out, "ok  %-22s %3d steps %3d checks  %s\n", l.Name, len(l.Steps), checks,
		time.Since(start).Round(time.Millisecond))
	return checkPassed
}
