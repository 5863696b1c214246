package viz

import (
	"errors"
	"fmt"

	"github.com/rdmalab/rdmalab/engine"
)

// LabSource is a Source over a live lab: the view reads the picture and
// the events the engine.Shared copied after its last change, and its keys
// step the Lab through the same Do the REPL's commands run in.
type LabSource struct {
	*engine.Shared
}

// NewLabSource shows sh.
func NewLabSource(sh *engine.Shared) *LabSource { return &LabSource{sh} }

var (
	_ Source    = (*LabSource)(nil)
	_ Watcher   = (*LabSource)(nil)
	_ Narrator  = (*LabSource)(nil)
	_ Describer = (*LabSource)(nil)
)

// Describe says the view drives this session.
func (s *LabSource) Describe() string { return "live" }

// Act runs a on the Lab.
func (s *LabSource) Act(a Action) error {
	return s.Do(func(l *engine.Lab) error { return runAction(l, a) })
}

// errIdle is what stepping says when every thread waits.
var errIdle = errors.New("nothing can run: every thread waits (C delivers a completion)")

func runAction(l *engine.Lab, a Action) error {
	if l == nil {
		return errors.New("no lab")
	}
	switch a {
	case ActStep:
		if !l.Step() {
			return errIdle
		}
	case ActNext, ActFinish:
		ok := l.Next
		if a == ActFinish {
			ok = l.Finish
		}
		if !ok() {
			return errors.New("stopped before the function returned: nothing could run, or a FAULT")
		}
	case ActContinue:
		l.Continue() // stops when idle or at a FAULT: both are answers
	case ActComplete:
		if _, err := l.Complete(1, nil); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown action %v", a)
	}
	return nil
}
