package repl

import (
	"fmt"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/lessons"
)

// lessonState is where the paced lesson stands at step st, for the views.
func (s *Session) lessonState(st *lessons.Step) *snap.Lesson {
	r := s.lesson
	if r == nil {
		return nil
	}
	l := r.entry.Lesson
	return &snap.Lesson{
		Name: r.entry.Name(), Title: l.Title,
		Step: r.tutor.Index() + 1, Steps: len(l.Steps),
		Command: st.Command, Narration: lessons.Plain(st.Narration),
		Last: r.lastRun.result(),
	}
}

// stepRun is a step that ran and its verdicts.
type stepRun struct {
	st *lessons.Step
	v  []lessons.Verdict
}

// result is the step's verdicts as the views show them (nil: none ran).
func (r stepRun) result() *snap.StepResult {
	if r.st == nil {
		return nil
	}
	res := &snap.StepResult{Command: r.st.Command}
	for _, x := range r.v {
		res.Verdicts = append(res.Verdicts, snap.Verdict{OK: x.OK, Say: x.Say})
	}
	return res
}

// endedState is the lesson's closing summary, for the views: it stays
// until another lesson starts.
func endedState(r *lessonRun, t *lessons.Tutor) *snap.Lesson {
	l := r.entry.Lesson
	end := &snap.Lesson{Name: r.entry.Name(), Title: l.Title, Step: len(l.Steps), Steps: len(l.Steps), Last: r.lastRun.result(), Outro: lessons.Plain(l.Outro)}
	switch {
	case t.Passed():
		end.Ended = fmt.Sprintf("lesson %s finished: every check held", l.Name)
	case t.Skipped > 0:
		end.Ended = fmt.Sprintf("lesson %s ended with %d step(s) skipped", l.Name, t.Skipped)
	default:
		end.Ended = fmt.Sprintf("lesson %s ended with %d check(s) that did not hold", l.Name, t.Failed)
	}
	return end
}

// setLessonState hands the views the lesson's state (nil clears it).
// Inside a command the shared lab is locked, so it waits for the
// command's end, as the narration does.
func (s *Session) setLessonState(l *snap.Lesson) {
	if s.shared == nil {
		return
	}
	if s.cur != nil {
		s.pendingLesson = &l
		return
	}
	s.shared.SetLesson(l)
}

// readLab runs f, which reads the lab, with the lab locked against the
// views (their pictures fill the same caches a snapshot does), unless a
// command holds that lock already.
func (s *Session) readLab(f func()) {
	if s.locked || s.shared == nil {
		f()
		return
	}
	s.shared.Read(func(*engine.Lab) { f() })
}
