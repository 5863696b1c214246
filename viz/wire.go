package viz

import (
	"encoding/json"
	"fmt"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// trace.Kind marshals as its name but has no UnmarshalText, so events and
// snapshots (whose last_event is an event) are decoded through these
// shadows: the outer Kind field hides the embedded one.

// wireEvent is a trace.Event as JSON carries it.
type wireEvent struct {
	trace.Event
	Kind string `json:"kind"`
}

// wireSnapshot is a snap.Snapshot as JSON carries it.
type wireSnapshot struct {
	snap.Snapshot
	LastEvent *wireEvent `json:"last_event,omitempty"`
}

// wireFrame is a Frame as JSON carries it.
type wireFrame struct {
	Snapshot  wireSnapshot `json:"snapshot"`
	Events    []wireEvent  `json:"events"`
	Narration string       `json:"narration,omitempty"`
}

// parseKind is the inverse of trace.Kind.String.
func parseKind(s string) (trace.Kind, error) {
	for k := trace.Call; k <= trace.Note; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown event kind %q", s)
}

func (w *wireEvent) event() (trace.Event, error) {
	e := w.Event
	k, err := parseKind(w.Kind)
	if err != nil {
		return e, fmt.Errorf("event %d: %w", e.Seq, err)
	}
	e.Kind = k
	return e, nil
}

// snapshot converts w; p is its JSON path prefix, for errors.
func (w *wireSnapshot) snapshot(p string) (snap.Snapshot, error) {
	s := w.Snapshot
	s.LastEvent = nil
	if w.LastEvent != nil {
		e, err := w.LastEvent.event()
		if err != nil {
			return s, fmt.Errorf("field %slast_event.kind: %w", p, err)
		}
		s.LastEvent = &e
	}
	return s, nil
}

// frame converts w and checks it (validateFrame); snap is the JSON path
// prefix of its snapshot.
func (w *wireFrame) frame(snap string) (Frame, error) {
	s, err := w.Snapshot.snapshot(snap)
	if err != nil {
		return Frame{}, err
	}
	f := Frame{Snapshot: s, Narration: w.Narration, Events: make([]trace.Event, 0, len(w.Events))}
	for i := range w.Events {
		e, err := w.Events[i].event()
		if err != nil {
			return Frame{}, fmt.Errorf("field events[%d].kind: %w", i, err)
		}
		f.Events = append(f.Events, e)
	}
	if err := validateFrame(&f, snap); err != nil {
		return Frame{}, err
	}
	return f, nil
}

// UnmarshalJSON decodes a frame as Publish writes it, checked as a
// snapshot file is: it may come from a socket anyone of this user made.
func (f *Frame) UnmarshalJSON(b []byte) error {
	var w wireFrame
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	fr, err := w.frame("snapshot.")
	if err != nil {
		return err
	}
	*f = fr
	return nil
}
