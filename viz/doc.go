// Package viz is rdmalab's terminal view: a tcell picture of what the
// svcrdma model just did — rq_pages and their scatterlists, the R/W
// contexts and their cache, the WR chains on the Send Queue, the SQ and CQ,
// the reply positions and the acknowledged position, captured packets, and
// the last events with the kernel functions that emitted them.
//
// The view draws a Model: the last snap.Snapshot (the picture, from
// engine/snap), a ring of recent events and the view's own state (layout,
// zoom, selection, scroll). A Viewer runs the event loop on a tcell.Screen
// it is handed, reading a Source: a live lab (LabSource, over the
// engine.Shared the REPL's commands run through), a session published on
// a Unix socket (Publish, Attach), a capture replayed (ReplaySource), or a
// snapshot saved as JSON (RunSnapshot). Only LabSource knows the engine;
// every pane draws snap types. Panes never
// carry meaning in colour alone: every source of bytes, the signaled WR and
// the position markers also have a glyph, so NO_COLOR still reads.
//
// What a view draws may come from a file, a capture or a socket, and is
// treated as a claim. A snapshot or a published frame is checked before
// it is drawn (validate.go: every number used as a size, index or loop
// bound, every string and list, the file or frame as a whole); the panes
// clamp what they loop over anyway; and no rune a terminal acts on
// reaches a cell (celltext.go). Screens come from NewScreen, whose keyTty
// keeps tcell's input parser from swallowing keys after Esc ] or Esc X.
package viz
