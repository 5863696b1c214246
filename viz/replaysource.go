package viz

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/replay"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/watch"
)

// Rewinder is a Source that can also go back: its Act takes ActBack and
// ActBackRPC. The view binds b and B only for one.
type Rewinder interface {
	Source
	CanRewind() bool
}

// FrameSource is a Source whose place is a frame of the capture the
// Packets pane lists (a replay): as the place moves, the pane selects that
// frame.
type FrameSource interface {
	// Frame is the current frame, 1-based; 0 before the first.
	Frame() int
}

// FrameSeeker is a Source that can move to a frame of that capture: g in
// the Packets pane asks it to go to the selected packet. It returns what
// it did, for the status line.
type FrameSeeker interface {
	SeekFrame(frame int) (string, error)
}

// ReplaySource is a Source over a replayed capture: the actions move
// through its steps instead of running an engine. s steps a packet, n goes
// to the next RPC, f to the end of this one, c to the end of the capture,
// C to the next completion, b and B go back a step and an RPC, t follows
// one transport alone (the next each time, then all again). The timeline
// is built as the player goes.
type ReplaySource struct {
	mu    sync.Mutex
	p     *replay.Player
	note  string    // said after the place (SetNote)
	moved watch.Set // OnMove's callbacks
}

var (
	_ Rewinder    = (*ReplaySource)(nil)
	_ Describer   = (*ReplaySource)(nil)
	_ Narrator    = (*ReplaySource)(nil)
	_ FrameSource = (*ReplaySource)(nil)
	_ FrameSeeker = (*ReplaySource)(nil)
)

// NewReplaySource plays tl from before its first step.
func NewReplaySource(tl *replay.Timeline) *ReplaySource {
	return &ReplaySource{p: tl.Player()}
}

// Snapshot is the server's picture after the current step.
func (r *ReplaySource) Snapshot() snap.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p.Snapshot()
}

// Events is the newest n events up to the current step.
func (r *ReplaySource) Events(n int) []trace.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p.Events(n)
}

// Describe says which capture and where in it: "replay of FILE · frame N of M · RPC k of K",
// after the note, if any (first: a narrow status line keeps it).
func (r *ReplaySource) Describe() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.note != "" {
		return r.note + " · " + r.p.Describe()
	}
	return r.p.Describe()
}

// SetNote adds s to what Describe says (the class page's address, for
// the trainer's title bar).
func (r *ReplaySource) SetNote(s string) {
	r.mu.Lock()
	r.note = s
	r.mu.Unlock()
}

// OnMove calls f after each move (Act, Seek, SeekFrame), on the mover's
// goroutine: f must not block. It is not the view's Watcher: the view
// pulls after its own moves already; a class page follows with it.
func (r *ReplaySource) OnMove(f func()) (stop func()) { return r.moved.Add(f) }

// Narration is the current step in words.
func (r *ReplaySource) Narration() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p.Narration()
}

// CanRewind says the replay can go back.
func (r *ReplaySource) CanRewind() bool { return true }

// Seek moves to step i (-1: before the first), for tests and callers that
// open a replay at a frame.
func (r *ReplaySource) Seek(i int) {
	r.mu.Lock()
	r.p.Seek(i)
	r.mu.Unlock()
	r.moved.Notify()
}

// Frame is the frame of the current step, 0 before the first.
func (r *ReplaySource) Frame() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.p.Step(); s != nil {
		return s.Frame
	}
	return 0
}

// SeekFrame moves to the step of frame; a frame that is not a step (it
// changes nothing the server sees) goes to the step before it.
func (r *ReplaySource) SeekFrame(frame int) (string, error) {
	if frame < 1 {
		return "", fmt.Errorf("no frame %d: frames count from 1", frame)
	}
	defer r.moved.Notify() // after the unlock below
	r.mu.Lock()
	defer r.mu.Unlock()
	i, exact := r.p.SeekFrame(frame)
	switch {
	case exact:
		return fmt.Sprintf("frame %d: step %d of %d", frame, i+1, r.p.Timeline().NumSteps()), nil
	case i < 0:
		return fmt.Sprintf("frame %d comes before the first step: back at the start", frame), nil
	}
	return fmt.Sprintf("frame %d changes nothing the server sees: at the step before it, frame %d", frame, r.p.Step().Frame), nil
}

// The answers when an action has nowhere to go.
var (
	errReplayEnd   = errors.New("the end of the capture: b goes back")
	errReplayStart = errors.New("the start of the capture")
	errNoRPC       = errors.New("no RPC starts after this step")
	errNoComplete  = errors.New("no completion after this step")
	// A capture read as the replay goes may show more transports later.
	errOneTransport = errors.New("one transport so far: every step is its own")
)

// Act moves through the replay.
func (r *ReplaySource) Act(a Action) error {
	err := r.act(a)
	if err == nil {
		r.moved.Notify()
	}
	return err
}

func (r *ReplaySource) act(a Action) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.p
	ok, err := false, errReplayEnd
	switch a {
	case ActStep:
		ok = p.Forward()
	case ActNext:
		ok, err = p.NextRPC(), errNoRPC
	case ActFinish:
		ok = p.FinishRPC()
	case ActContinue:
		ok = p.End()
	case ActComplete:
		ok, err = p.NextCompletion(), errNoComplete
	case ActBack:
		ok, err = p.Back(), errReplayStart
	case ActBackRPC:
		ok, err = p.PrevRPC(), errReplayStart
	case ActTransport:
		n := len(p.Timeline().Conns)
		if n < 2 && p.Following() == 0 {
			return errOneTransport
		}
		p.Follow((p.Following() + 1) % (n + 1))
		ok = true
	default:
		return errors.New("a replay cannot " + a.String())
	}
	if !ok {
		return err
	}
	return nil
}

// Replay is a capture opened for the replay view (OpenReplay): one pass
// over the file, a decode.Index's, fills the Packets pane and feeds the
// replay's builder.
type Replay struct {
	Timeline *replay.Timeline
	x        *decode.Index
	src      *ReplaySource
}

// OpenReplay opens the capture at path for RunReplay: it returns once the
// replay's first step is built; indexing goes on behind it. name is what
// the timeline and its errors call the file. The index runs to the end of
// the file whether the Packets pane is shown or not: the replay reads it.
func OpenReplay(path, name string, o replay.ReadOptions) (*Replay, error) {
	x, err := decode.OpenIndexWith(path, decode.IndexOptions{MaxExpand: o.MaxExpand, Follow: true})
	if err != nil {
		var fe *decode.FileError
		if errors.As(err, &fe) {
			err = &decode.FileError{Path: name, Err: fe.Err} // named as the replay names it
		}
		return nil, err
	}
	tl, err := replay.OpenIndex(x, name, o)
	if err != nil {
		x.Close()
		return nil, err
	}
	return &Replay{Timeline: tl, x: x, src: NewReplaySource(tl)}, nil
}

// Source is the place RunReplay moves: another reader (a class page)
// follows it with OnMove.
func (r *Replay) Source() *ReplaySource { return r.src }

// Index is the capture's index, which the Packets pane lists.
func (r *Replay) Index() *decode.Index { return r.x }

// Close closes the timeline, then the index whose pass it read.
func (r *Replay) Close() {
	r.Timeline.Close()
	r.x.Close()
}

// RunReplay draws r full screen, from before its first step, until q:
// what `rdmalab replay FILE` runs on a terminal. The Packets pane (5)
// lists the capture's packets beside the replay, from the index whose
// pass the replay reads.
func RunReplay(ctx context.Context, s tcell.Screen, r *Replay) error {
	v := Viewer{Layout: LayoutRead, Packets: NewCaptureSource(r.x, r.Timeline.File)}
	return v.Run(ctx, s, r.src)
}
