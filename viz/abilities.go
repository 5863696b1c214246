package viz

// Abilities is what a view's source does with the view's actions. With
// what the Packets pane holds, it decides the keys the view answers, lists
// in its help and hints at in its status line (keys.go). At most one of
// Step and Replay is set; neither is a view that only watches.
type Abilities struct {
	Step   bool // s n f c C step an engine (a live lab)
	Replay bool // s n f c C move through a replayed capture (a FrameSource)
	Rewind bool // b and B go back (a Rewinder)
	Seek   bool // @ takes the source to the Packets pane's packet (a FrameSeeker)
}

// ReadOnly is a Source that takes no action: a session watched from
// another terminal, a saved snapshot, a capture. The view binds no
// stepping key for it; its Act refuses with ErrReadOnly all the same.
type ReadOnly interface {
	Source
	ReadOnly() bool
}

// abilitiesOf asks src what it does. A Source that does not say steps an
// engine, as a lab does.
func abilitiesOf(src Source) Abilities {
	var a Abilities
	if r, ok := src.(ReadOnly); ok && r.ReadOnly() {
		return a
	}
	_, a.Replay = src.(FrameSource)
	a.Step = !a.Replay
	if r, ok := src.(Rewinder); ok {
		a.Rewind = r.CanRewind()
	}
	_, a.Seek = src.(FrameSeeker)
	return a
}
