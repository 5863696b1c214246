// Package snap is the picture of a lab at one moment: the data a view
// draws, `show --json` prints, `save` writes and a published session sends,
// one JSON object. The engine fills it from a live Lab (engine.Lab.Snapshot);
// captures/replay fills it from a capture. Neither the view nor the replay
// needs the simulator to read it, so the package imports nothing of rdmalab
// but engine/trace (the last event).
//
// The JSON field names are rdmalab's stable interface: lessons' checks,
// snapshot files and the socket protocol read them. Rename a Go field
// freely; never its tag.
package snap
