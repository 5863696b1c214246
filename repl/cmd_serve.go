package repl

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/viz/web"
)

// serveCommand is `serve [ADDR|stop]`: the session's picture for a class,
// read-only over HTTP.
func serveCommand() *Command {
	return &Command{
		Name: "serve", Group: GroupShow,
		Usage: "serve [ADDR|stop]",
		Short: "a read-only web page of this session for a class",
		Long: "Serves the session's pictures (pages, SGLs, chains, SQ, CQ, positions, events and a\n" +
			"lesson's narration) over HTTP, redrawn at every step, and prints the URL to hand out:\n" +
			"it carries a random token, and the page refuses any request without it. Nothing on the\n" +
			"page changes the lab. ADDR defaults to 127.0.0.1 on a free port; give 0.0.0.0:8080 to\n" +
			"open it to the room. With a capture open (capture open FILE) the page lists its packets\n" +
			"and each student can open any packet's tree and bytes, without moving the session.\n" +
			"`serve` again says where it serves; `serve stop` stops it. To let a class follow a\n" +
			"capture step by step, run `rdmalab replay --serve ADDR FILE`.",
		Example: "serve 0.0.0.0:8080",
		Args:    []Arg{{Name: "ADDR", Optional: true}},
		// Starting draws the lab once: not from inside the lock.
		OwnsLock: true,
		Run: func(c *Ctx, a Args, out io.Writer) error {
			s := c.S
			addr := ""
			if len(a.Pos) > 0 {
				addr = a.Pos[0]
			}
			switch {
			case addr == "stop":
				if s.web == nil {
					return fmt.Errorf("not serving")
				}
				err := s.web.Close()
				s.web, s.webSrc = nil, nil
				fmt.Fprintln(out, "stopped serving; the pages say the session ended")
				return err
			case s.web != nil:
				fmt.Fprintf(out, "serving at %s (%d page(s) following); `serve stop` first to move it\n", s.web.URL(), s.web.Clients())
				return nil
			}
			src := &liveSource{Shared: s.shared}
			w, err := web.Listen(src, "live session", web.Options{Addr: addr})
			if err != nil {
				return err
			}
			s.web, s.webSrc = w, src
			s.publishPackets()
			fmt.Fprintf(out, "serving this session read-only at\n  %s\nhand that URL out: the page needs its token\n", w.URL())
			return nil
		},
	}
}

// stopServing ends the class page, telling its pages why.
func (s *Session) stopServing() {
	if s.web != nil {
		s.web.Close()
		s.web, s.webSrc = nil, nil
	}
}

// WebServer is the class page the session serves, or nil.
func (s *Session) WebServer() *web.Server { return s.web }

// ServeAt runs `serve ADDR` for rdmalab --serve ADDR ("": nothing to
// serve; "-": the default address), printing the URL to out.
func (s *Session) ServeAt(addr string, out io.Writer) error {
	switch addr {
	case "":
		return nil
	case "-":
		addr = ""
	}
	return s.Exec(strings.TrimSpace("serve "+addr), Pos{}, out)
}

// liveSource is the session as the class page reads it: the shared lab,
// and the packets of the capture open, taken on the REPL's goroutine
// after each command (publishPackets); the render loop never reads the
// capture, only a student's own request for one packet or page does
// (BrowsePackets).
type liveSource struct {
	*engine.Shared
	packets atomic.Pointer[web.Packets]
	capture atomic.Pointer[liveCapture] // what a page may browse
}

// liveCapture is the open capture as a page's request reads it.
type liveCapture struct {
	x    *decode.Index
	name string
}

// BrowsePackets reads the open capture on a page's request: the index
// locks its own reads, and one closed meanwhile answers with errors in
// the lines, never with a crash.
func (l *liveSource) BrowsePackets(from, count, sel int) *web.Packets {
	c := l.capture.Load()
	if c == nil {
		return nil
	}
	return IndexPackets(c.x, c.name, c.x.Len(), from, count, sel)
}

// Packets is the open capture's list, or nil.
func (l *liveSource) Packets() *web.Packets { return l.packets.Load() }

// livePackets is how many packets of an open capture the page lists.
const livePackets = 200

// publishPackets hands the page the open capture's first packets once
// they change (a capture opened, closed, or still being indexed).
func (s *Session) publishPackets() {
	l := s.webSrc
	if l == nil {
		return
	}
	x, old := s.capture.index, l.packets.Load()
	if c := l.capture.Load(); x == nil && c != nil || x != nil && (c == nil || c.x != x) {
		if x == nil {
			l.capture.Store(nil)
		} else {
			l.capture.Store(&liveCapture{x: x, name: s.capture.name})
		}
	}
	if x == nil {
		if old != nil {
			l.packets.Store(nil)
			s.web.Changed()
		}
		return
	}
	n := x.Len()
	if old != nil && old.Name == s.capture.name && old.Total == n {
		return
	}
	p := &web.Packets{Name: s.capture.name, Total: n, First: 1}
	for i := range min(n, livePackets) {
		p.List = append(p.List, x.Summary(i))
	}
	l.packets.Store(p)
	s.web.Changed()
}
