// Package lessons is rdmalab's lesson format, its parser and checks, the
// Tutor that walks a lesson a step at a time, and the lessons that ship
// with rdmalab (the *.md files here, embedded; Shipped serves them).
//
// A lesson is a Markdown file: front matter (name, title, summary, level,
// profile, settings, files, keep-lab), prose that narrates, and fenced
// ```rdmalab blocks whose lines are the steps, each followed by its
// `expect` checks and a `hint`. docs/lesson-format.md describes it for
// trainers; Parse reads it into a Lesson of Steps and Checks.
//
// A lesson file is untrusted input: it holds rdmalab commands only (no
// shell), and those are vetted before anything runs (Validator): source,
// learn, quit, history, view and engine are refused, and a FILE argument
// is a plain name in the lesson's own temporary folder, so a lesson
// cannot read or write elsewhere. There are no loops. A file is at most
// MaxFileSize bytes, a line MaxLineLen, a lesson MaxSteps steps of at
// most MaxChecks checks each, and any fault is reported as FILE:LINE:COL.
// Parsing is linear in the file's lines, whatever their shape.
//
// The lessons package knows nothing of the REPL: a Machine runs the
// commands (the REPL adapts its session to one), and Tutor walks the
// steps for the paced front end (`learn NAME`) and for CheckLesson, which
// `rdmalab lesson check` and CI use.
package lessons
