package web

import (
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// Source is what the page reads: engine.Shared is one (a live session),
// and Static holds a saved snapshot or a replayed capture's last step.
type Source interface {
	// Snapshot is the state now.
	Snapshot() snap.Snapshot
	// Events is the newest n events, oldest first.
	Events(n int) []trace.Event
	// Narration is what a lesson or a replay says now ("" for nothing).
	Narration() string
	// Watch calls f after every change, from any goroutine; f must not
	// block. stop ends the calls.
	Watch(f func()) (stop func())
}

// Frame is one picture of a session, as a page draws it.
type Frame struct {
	Snapshot  snap.Snapshot
	Events    []trace.Event
	Narration string
	Packets   *Packets     // a capture's packets (nil: none open)
	Lesson    *snap.Lesson // where a paced lesson stands (nil: none)
	Browsable bool         // a page may ask for any packet (PacketBrowser)
}

// LessonSource is a Source that says where a paced lesson stands
// (engine.Shared): the page draws it in place of the narration's text.
type LessonSource interface {
	Lesson() *snap.Lesson
}

// Packets is a capture's packet list, one packet's tree and its bytes, as
// the caller decoded them (the page imports no decoder).
type Packets struct {
	Name     string
	Total    int
	First    int      // the number of List[0], from 1
	List     []string // summaries
	Selected int      // the packet Detail and Bytes show, from 1 (0: none)
	Detail   []DetailLine
	Bytes    []byte
}

// DetailLine is one line of a packet's tree.
type DetailLine struct {
	Depth int
	Text  string
}

// PacketLister is a Source with a capture open.
type PacketLister interface {
	Packets() *Packets
}

// frameOf reads src once.
func frameOf(src Source, events int) Frame {
	f := Frame{Snapshot: src.Snapshot(), Events: src.Events(events), Narration: src.Narration()}
	if l, ok := src.(LessonSource); ok {
		f.Lesson = l.Lesson()
	}
	if p, ok := src.(PacketLister); ok {
		f.Packets = p.Packets()
	}
	_, f.Browsable = src.(PacketBrowser)
	return f
}

// Static is a Source that never changes: a saved snapshot, a replay's
// step.
func Static(f Frame) Source { return static{f} }

type static struct{ f Frame }

func (s static) Snapshot() snap.Snapshot    { return s.f.Snapshot }
func (s static) Narration() string          { return s.f.Narration }
func (s static) Packets() *Packets          { return s.f.Packets }
func (s static) Lesson() *snap.Lesson       { return s.f.Lesson }
func (s static) Watch(func()) (stop func()) { return func() {} }
func (s static) Events(n int) []trace.Event {
	n = min(max(n, 0), len(s.f.Events))
	return s.f.Events[len(s.f.Events)-n:]
}
