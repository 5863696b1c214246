package repl

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// LessonInfo names a lesson.
type LessonInfo struct {
	Name  string
	Title string
}

// LessonSource lists lessons and opens one as a command script. The
// lessons package plugs in here; without it the REPL has the built-in
// walkthroughs.
type LessonSource interface {
	Lessons() []LessonInfo
	Open(name string) (io.Reader, error)
}

//go:embed lessons/*.rdl
var builtinFS embed.FS

// fsLessons serves the *.rdl files of a file system; a lesson's title is
// its first line, a comment.
type fsLessons struct{ fsys fs.FS }

func builtinLessons() LessonSource { return fsLessons{builtinFS} }

func (f fsLessons) Lessons() []LessonInfo {
	names, _ := fs.Glob(f.fsys, "lessons/*.rdl")
	sort.Strings(names)
	var out []LessonInfo
	for _, n := range names {
		b, err := fs.ReadFile(f.fsys, n)
		if err != nil {
			continue
		}
		title, _, _ := strings.Cut(string(b), "\n")
		out = append(out, LessonInfo{Name: strings.TrimSuffix(path.Base(n), ".rdl"),
			Title: strings.TrimSpace(strings.TrimPrefix(title, "#"))})
	}
	return out
}

func (f fsLessons) Open(name string) (io.Reader, error) {
	b, err := fs.ReadFile(f.fsys, "lessons/"+name+".rdl")
	if err != nil {
		return nil, fmt.Errorf("no lesson %q", name)
	}
	return bytes.NewReader(b), nil
}

func runLearn(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	list := s.lessons.Lessons()
	if len(a.Pos) == 0 {
		if len(list) == 0 {
			fmt.Fprintln(out, "no lessons in this build")
			return nil
		}
		var b strings.Builder
		fmt.Fprintln(&b, "lessons (learn NAME runs one):")
		for _, l := range list {
			fmt.Fprintf(&b, "  %-14s %s\n", l.Name, l.Title)
		}
		fmt.Fprint(out, fitText(b.String(), textWidth))
		return nil
	}
	name := a.Pos[0]
	r, err := s.lessons.Open(name)
	if err != nil {
		var names []string
		for _, l := range list {
			names = append(names, l.Name)
		}
		if near := nearest(name, names); near != "" {
			return fmt.Errorf("no lesson %q: did you mean `learn %s`?", name, near)
		}
		return fmt.Errorf("no lesson %q (learn lists them)", name)
	}
	return s.runLines(r, "lesson "+name, out)
}
