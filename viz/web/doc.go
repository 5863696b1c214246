// Package web serves a session's picture to a class over HTTP: the same
// snapshot the terminal view draws, rendered on the server as SVG with
// html/template (every string from a capture, a lesson or a file name is
// escaped by construction), and pushed to every open page with
// Server-Sent Events. It is read-only: no request changes the lab.
//
// It imports the picture (engine/snap, engine/trace), never the simulator
// or the terminal view: a live session, a saved snapshot and a replayed
// capture all feed it through Source.
package web
