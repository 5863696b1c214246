package viz

import (
	"errors"
	"testing"

	"github.com/rdmalab/rdmalab/engine"
)

// live is the view's source over l, as a session hands it out.
func live(l *engine.Lab) *LabSource { return NewLabSource(engine.NewShared(l)) }

// The view's actions step the shared Lab; what they did is in the picture
// the source gives, and a lesson's narration comes through too.
func TestLabSourceActs(t *testing.T) {
	l := newLab(t, nil)
	must[any](t)(l.Write(10000, engine.ChunkOpts{Segments: 3}))
	sh := engine.NewShared(l)
	src := NewLabSource(sh)
	if d := src.Describe(); d != "live" {
		t.Errorf("Describe %q", d)
	}
	if err := src.Act(ActStep); !errors.Is(err, errIdle) {
		t.Errorf("a step with every thread waiting: %v", err)
	}
	if err := src.Act(ActComplete); err != nil {
		t.Fatal(err)
	}
	if err := src.Act(ActContinue); err != nil {
		t.Fatal(err)
	}
	if got := len(src.Snapshot().Chains); got != 1 {
		t.Errorf("%d chains after continue, want the Reads posted", got)
	}
	if e, s := src.Events(1), sh.Snapshot(); len(e) != 1 || e[0].Seq != s.LastEvent.Seq {
		t.Errorf("the source's newest event %v, the lab's %v", e, s.LastEvent)
	}
	if err := src.Act(ActBack); err == nil {
		t.Error("a live lab went back")
	}
	sh.SetNarration("step 2 of 5")
	if n := src.Narration(); n != "step 2 of 5" {
		t.Errorf("narration %q", n)
	}
}
