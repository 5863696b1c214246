package viz

import (
	"errors"
	"fmt"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// Action is what a key in the view asks the engine to do.
type Action int

// The actions; they mirror the REPL's stepping commands.
const (
	ActStep      Action = iota + 1 // run to the next event
	ActNext                        // step over a function
	ActFinish                      // run until the current function returns
	ActContinue                    // run until nothing can run
	ActComplete                    // deliver the next completion
	ActBack                        // one step back (a Rewinder only)
	ActBackRPC                     // back to the previous RPC (a Rewinder only)
	ActTransport                   // follow the next transport alone, then all (a replay only)
)

func (a Action) String() string {
	switch a {
	case ActStep:
		return "step"
	case ActNext:
		return "next"
	case ActFinish:
		return "finish"
	case ActContinue:
		return "continue"
	case ActComplete:
		return "complete"
	case ActBack:
		return "back"
	case ActBackRPC:
		return "back to the previous RPC"
	case ActTransport:
		return "the next transport"
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// Source is what a Viewer draws. Snapshot and Events may be called from
// the view's goroutine while Act runs on another: implementations lock.
type Source interface {
	// Snapshot is the engine's state now.
	Snapshot() snap.Snapshot
	// Events is the newest n events, oldest first.
	Events(n int) []trace.Event
	// Act runs an action; a read-only source returns ErrReadOnly.
	Act(Action) error
}

// ErrReadOnly is what a source that only watches answers to an action.
var ErrReadOnly = errors.New("read-only view: step the engine from the session's REPL")

// Watcher is a Source whose state changes without the view asking (a
// session stepped from its REPL, a published session): f is called after
// each change, from any goroutine, and must not block.
type Watcher interface {
	Watch(f func()) (stop func())
}

// Describer is a Source that says where its picture comes from ("attached
// to …", "session ended; reconnecting"), for the title bar.
type Describer interface {
	Describe() string
}

// Narrator is a Source that carries lesson text.
type Narrator interface {
	Narration() string
}

// PacketSource fills the Packets pane: the captures package implements it
// over a decoded capture. Indexes run from 0 to Len()-1; the pane asks
// only for the packets it shows, so a source may decode lazily.
type PacketSource interface {
	Len() int
	// Summary is the packet's one-line description for the list.
	Summary(i int) string
	// Detail is the packet's decoded layers as an indented tree.
	Detail(i int) []DetailLine
	// Bytes is the packet as captured, for the hex dump.
	Bytes(i int) []byte
}

// DetailLine is one node of a packet's detail tree.
type DetailLine struct {
	Depth int
	Text  string
}

// Frame is one picture of a session: what Publish sends, one JSON object
// a line, and what a snapshot file holds.
type Frame struct {
	Snapshot  snap.Snapshot `json:"snapshot"`
	Events    []trace.Event `json:"events"`
	Narration string        `json:"narration,omitempty"`
}

// StaticSource draws one frame and refuses actions: a saved snapshot.
func StaticSource(f Frame, origin string) Source { return &static{f, origin} }

type static struct {
	f      Frame
	origin string
}

func (s *static) Snapshot() snap.Snapshot { return s.f.Snapshot }
func (s *static) Act(Action) error        { return ErrReadOnly }
func (s *static) ReadOnly() bool          { return true }
func (s *static) Describe() string        { return s.origin }
func (s *static) Narration() string       { return s.f.Narration }

func (s *static) Events(n int) []trace.Event {
	n = min(max(n, 0), len(s.f.Events))
	return s.f.Events[len(s.f.Events)-n:]
}

var (
	_ Describer = (*static)(nil)
	_ Narrator  = (*static)(nil)
	_ ReadOnly  = (*static)(nil)
)
