package viz

import (
	"reflect"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// DefaultEvents is how many recent events a Model keeps unless told.
const DefaultEvents = 10_000

// ViewState is what the person looking chose: it changes on keys and
// clicks, never with the engine.
type ViewState struct {
	Layout   Layout
	Selected PaneID
	Zoomed   bool // the selected pane fills the screen
	Help     bool // the help overlay is up
	// Scroll is each pane's first line; the Events pane counts from the
	// newest event up, the Packets pane holds the selected packet.
	Scroll [numPanes]int
	// Packets is the Packets pane's other choices (pane_packets.go).
	Packets PacketsView
	// Filter is the Packets pane's display filter (filterbar.go).
	Filter FilterView
}

// Model is everything a frame is drawn from: the last snapshot, the recent
// events, what a lesson says, and the view state.
type Model struct {
	Snap      snap.Snapshot
	Narration string       // lesson text, when a lesson runs
	Packets   PacketSource // nil until a capture is loaded
	Origin    string       // where the picture comes from: "live", "snapshot FILE", …
	Status    string       // what the last action did, or why it failed
	StatusErr bool         // Status is an error
	Busy      bool         // an action is running
	Can       Abilities    // what the source does: which keys the view has
	View      ViewState

	events trace.Ring
	facts  facts
	seen   uint64    // Seq of the newest event ever observed
	pages  *pageData // the Pages pane's work on Snap, done once (pageDataOf)
}

// NewModel returns an empty model that keeps at most maxEvents events
// (DefaultEvents when maxEvents < 1).
func NewModel(maxEvents int) *Model {
	if maxEvents < 1 {
		maxEvents = DefaultEvents
	}
	m := &Model{events: trace.NewRing(maxEvents)}
	m.View.Selected = layouts(LayoutOverview)[0].cells[0].pane
	return m
}

// Update takes a new snapshot and the latest events (oldest first, as
// Source.Events returns them) and reports whether anything changed. Events
// already held are skipped; a sequence that restarts means a new session,
// and the old events are dropped.
func (m *Model) Update(s snap.Snapshot, evs []trace.Event) bool {
	changed := false
	if m.restarted(s, evs) {
		m.events.Reset()
		m.seen = 0
		changed = true
	}
	for i := range evs {
		if evs[i].Seq <= m.seen {
			continue
		}
		m.events.Push(evs[i])
		m.seen = evs[i].Seq
		changed = true
	}
	if !reflect.DeepEqual(m.Snap, s) {
		m.Snap, m.pages = s, nil
		m.facts = factsOf(&m.Snap)
		changed = true
	}
	return changed
}

// restarted reports whether s and evs come from another session than the
// events held: their sequence went back, the event with the newest
// sequence held is a different one, or not among them, or the source
// holds none and its state says none happened.
func (m *Model) restarted(s snap.Snapshot, evs []trace.Event) bool {
	if m.seen == 0 {
		return false
	}
	if s.LastEvent != nil && s.LastEvent.Seq < m.seen {
		return true
	}
	if len(evs) == 0 {
		// No event, and a state that says none happened: a new session
		// that has not run yet.
		return s.LastEvent == nil
	}
	if evs[len(evs)-1].Seq < m.seen {
		return true
	}
	last, _ := m.events.Last()
	for i := range evs {
		if evs[i].Seq == m.seen {
			return !sameEvent(&evs[i], last)
		}
	}
	// The events span the newest held without holding it: another
	// stream (a replay showing another transport's events).
	return evs[0].Seq < m.seen
}

func sameEvent(a, b *trace.Event) bool {
	return a.Seq == b.Seq && a.Task == b.Task && a.Kind == b.Kind && a.Func == b.Func && a.Text == b.Text
}

// EventCount is the number of events the model holds.
func (m *Model) EventCount() int { return m.events.Len() }

// Event is the i'th event held, 0 the oldest.
func (m *Model) Event(i int) trace.Event { return *m.events.At(i) }

// Seen is the sequence number of the newest event observed.
func (m *Model) Seen() uint64 { return m.seen }
