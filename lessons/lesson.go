package lessons

import (
	"fmt"
	"strings"
)

// Lesson is one parsed lesson file.
type Lesson struct {
	File    string // the path it was read from, for messages
	Name    string // what `learn NAME` takes
	Title   string
	Summary string // one line, for the list
	Level   string // beginner, intermediate or advanced
	// Settings are applied, in order, to a fresh lab before the first
	// step: profile first when the front matter names one.
	Settings []Setting
	// KeepLab, when not empty, says why the lesson runs on the lab as it
	// stands instead of a fresh one.
	KeepLab string
	// Files are shipped files the lesson's commands read (a capture),
	// copied into its working folder before it starts.
	Files     []string
	FilesLine int // the line of `files:`, for messages
	// Engines are the engines the lesson runs on (Engines' names); none
	// means every one. A lesson that shows what only the sim can do
	// (a completion status declared, a virtual link) says `engines: sim`.
	Engines []string
	Steps   []Step
	Outro   string // the prose after the last step
}

// Setting is one `set NAME VALUE` a lesson starts from.
type Setting struct {
	Name, Value string
	Line        int
}

// Step is one command the lesson proposes, with what it expects.
type Step struct {
	// Narration is what the learner reads before the command: the prose
	// since the previous step and the comment lines just above it.
	Narration string
	Command   string
	Line, Col int // where Command stands in the file
	Checks    []Check
	Hint      string // shown when a check fails
	// Quiet steps (`@quiet` before the command) set the scene: they run
	// without a pause in paced mode.
	Quiet bool
}

// Pos is a place in a lesson file.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line <= 0 { // the whole file: too big, say
		return p.File
	}
	if p.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Error is a problem in a lesson file, at a place.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Engines are the values `engines:` takes: the sim, and a real device
// through libibverbs (--engine ibv:DEV).
var Engines = []string{"sim", "ibv"}

// RunsOn says whether the lesson runs on the engine kind ("sim" or "ibv").
func (l *Lesson) RunsOn(kind string) bool {
	return len(l.Engines) == 0 || contains(l.Engines, kind)
}

// Levels are the values `level:` takes, in the order lists show them.
var Levels = []string{"beginner", "intermediate", "advanced"}

// Describe is the lesson's one-line entry in a list.
func (l *Lesson) Describe() string {
	s := l.Title
	if l.Summary != "" {
		s += " — " + l.Summary
	}
	return strings.TrimSpace(s)
}

// Warnings are what lesson check points out without failing the lesson:
// a step the learner would meet with its command and no word of why.
func (l *Lesson) Warnings() []string {
	var out []string
	for i := range l.Steps {
		st := &l.Steps[i]
		if st.Quiet || strings.TrimSpace(st.Narration) != "" {
			continue
		}
		at := Pos{l.File, st.Line, st.Col}
		out = append(out, fmt.Sprintf("%s: warning: step %d (%s) has no narration: the learner sees only its command", at, i+1, st.Command))
	}
	return out
}
