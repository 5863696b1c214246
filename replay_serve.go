package main

import (
	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/repl"
	"github.com/rdmalab/rdmalab/viz"
	"github.com/rdmalab/rdmalab/viz/web"
)

// replayPackets is how many packets of the capture the class page lists,
// around the step's.
const replayPackets = 200

// replayPage is the replay the trainer steps in the view, as the class
// page reads it (rdmalab replay --serve): each move of the view redraws
// the page.
type replayPage struct {
	*viz.ReplaySource
	x    *decode.Index
	name string
}

var (
	_ web.PacketLister  = replayPage{}
	_ web.PacketBrowser = replayPage{}
)

// Watch is the view's moves.
func (p replayPage) Watch(f func()) (stop func()) { return p.OnMove(f) }

// Packets lists the packets around the step's frame, that one selected
// with its tree and bytes.
func (p replayPage) Packets() *web.Packets {
	n, sel := p.x.Len(), p.Frame()
	from := max(1, min(sel-replayPackets/2, n-replayPackets+1))
	return repl.IndexPackets(p.x, p.name, n, from, replayPackets, sel)
}

// BrowsePackets reads the capture on a page's request (the index locks
// its own reads).
func (p replayPage) BrowsePackets(from, count, sel int) *web.Packets {
	return repl.IndexPackets(p.x, p.name, p.x.Len(), from, count, sel)
}

// serveReplay starts the class page on r's place at addr ("-": the
// default address).
func serveReplay(r *viz.Replay, name, addr string) (*web.Server, error) {
	if addr == "-" {
		addr = ""
	}
	src := replayPage{ReplaySource: r.Source(), x: r.Index(), name: name}
	return web.Listen(src, "replay of "+name, web.Options{Addr: addr})
}
