package repl

import (
	"errors"
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/viz"
)

// errNoTerminal is what view says without a terminal.
var errNoTerminal = errors.New("view needs a terminal: start rdmalab at one, or draw a saved state with `rdmalab view --snapshot FILE`")

func viewCommand() *Command {
	return &Command{
		Name: "view", Group: GroupShow,
		Usage: "view",
		Short: "full screen: pages, SGLs, chains, SQ, positions",
		Long: "The view takes the terminal until q. Its keys step the engine (s step, n next, f finish,\n" +
			"c continue, C complete), 1-5 switch layouts, Tab selects a pane, z zooms it, j/k move\n" +
			"down/up in it and g/G to its top/bottom, ? lists the keys. In a lesson the narration has\n" +
			"a pane of its own. From another terminal, `rdmalab view` attaches to this session\n" +
			"read-only. The packets layout (5) draws the capture `capture open` loaded; / filters it\n" +
			"with a display filter or the short forms packets takes (qp=17, xid=0x5eed0010,\n" +
			"opcode=read, rpcs, anomalies), as packets does (Tab completes a field, Enter applies,\n" +
			"Esc cancels, Up recalls).",
		Example:  "view",
		OwnsLock: true,
		Run: func(c *Ctx, a Args, out io.Writer) error {
			s := c.S
			if !s.tty {
				return errNoTerminal
			}
			screen, err := viz.NewScreen()
			if err != nil {
				return fmt.Errorf("open the terminal: %w", err)
			}
			// The view owns the screen: events its keys cause must not be
			// printed under it.
			cur := s.cur
			s.cur = nil
			defer func() { s.cur = cur }()
			if err := (&viz.Viewer{Packets: s.packetSource(), Filters: &s.capture.filters}).Run(s.leave, screen, viz.NewLabSource(s.shared)); err != nil {
				return fmt.Errorf("the view stopped: %w", err)
			}
			// The view may have stepped the lab: take its picture now.
			s.Refresh()
			return nil
		},
	}
}
