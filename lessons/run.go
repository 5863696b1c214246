package lessons

import (
	"errors"
	"fmt"
)

// CheckError is an unmet check: where it is written, and what was found.
type CheckError struct {
	Pos  Pos
	Step int // 0-based
	Say  string
	Hint string
}

func (e *CheckError) Error() string {
	s := fmt.Sprintf("%s: %s", e.Pos, e.Say)
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// Tutor walks one lesson on a machine, a step at a time. Paced front
// ends (the REPL's learn) and the unattended checker share it.
type Tutor struct {
	L *Lesson
	M Machine
	i int // the step proposed next
	// Failed counts the checks that did not hold; Skipped the steps the
	// learner skipped. A lesson is finished when it reaches the end with
	// both at zero.
	Failed, Skipped int
	// Stop, when set, is asked before each step Back runs again: true
	// ends the replay (the session is ending).
	Stop func() bool
}

// NewTutor prepares l on m: a fresh lab with the lesson's settings,
// unless the lesson says why it keeps the lab.
func NewTutor(l *Lesson, m Machine) (*Tutor, error) {
	t := &Tutor{L: l, M: m}
	if err := t.reset(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Tutor) reset() error {
	if t.L.KeepLab != "" {
		return nil
	}
	if err := t.M.Reset(t.L.Settings); err != nil {
		return fmt.Errorf("%s: the lesson's settings: %w", t.L.File, err)
	}
	return nil
}

// Index is the 0-based number of the step proposed next.
func (t *Tutor) Index() int { return t.i }

// Done reports whether every step has been run or skipped.
func (t *Tutor) Done() bool { return t.i >= len(t.L.Steps) }

// Current is the step proposed next, or nil at the end.
func (t *Tutor) Current() *Step {
	if t.Done() {
		return nil
	}
	return &t.L.Steps[t.i]
}

// Passed reports whether the lesson ended with every check met.
func (t *Tutor) Passed() bool { return t.Done() && t.Failed == 0 && t.Skipped == 0 }

// Run runs the proposed step's command, checks it and moves on.
func (t *Tutor) Run() (Result, []Verdict) {
	st := t.Current()
	if st == nil {
		return Result{}, nil
	}
	r := t.M.Exec(st.Command, Pos{t.L.File, st.Line, st.Col})
	v := evaluate(st, r, t.M)
	for _, x := range v {
		if !x.OK {
			t.Failed++
		}
	}
	t.i++
	return r, v
}

// Skip moves past the proposed step without running it.
func (t *Tutor) Skip() {
	if !t.Done() {
		t.i++
		t.Skipped++
	}
}

// Back goes back one step. A lab cannot be undone, so it starts a fresh
// one and runs the steps before that one again, quietly; the simulator
// is deterministic, so the lab is as it was then.
func (t *Tutor) Back() error {
	if t.L.KeepLab != "" {
		return errors.New("this lesson runs on the lab as it was, so it cannot go back")
	}
	if t.i == 0 {
		return errors.New("already at the first step")
	}
	target := t.i - 1
	if err := t.reset(); err != nil {
		return err
	}
	t.i, t.Failed, t.Skipped = 0, 0, 0
	for t.i < target {
		if t.Stop != nil && t.Stop() {
			return errors.New("stopped: the session is ending")
		}
		t.Run()
	}
	return nil
}

// CheckLesson runs every step of l on a fresh machine without pausing
// and returns the first unmet check as a *CheckError. progress, when not
// nil, is told after each step.
func CheckLesson(l *Lesson, m Machine, progress func(st *Step, r Result, v []Verdict)) error {
	t, err := NewTutor(l, m)
	if err != nil {
		return err
	}
	return t.Check(progress)
}

// Check runs the remaining steps without pausing and returns the first
// unmet check as a *CheckError.
func (t *Tutor) Check(progress func(st *Step, r Result, v []Verdict)) error {
	for !t.Done() {
		st := t.Current()
		i := t.i
		r, v := t.Run()
		if progress != nil {
			progress(st, r, v)
		}
		for _, x := range v {
			if x.OK {
				continue
			}
			pos := Pos{t.L.File, st.Line, st.Col}
			if x.Check != nil {
				pos = x.Check.Pos
			}
			return &CheckError{Pos: pos, Step: i, Say: x.Say, Hint: st.Hint}
		}
	}
	return nil
}
