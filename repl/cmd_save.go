package repl

import (
	"fmt"
	"io"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/viz/web"
)

// savedEvents is how many recent events a saved snapshot keeps.
const savedEvents = 200

// savedFrame is the file `save` writes and `rdmalab view --snapshot` reads.
type savedFrame struct {
	Snapshot snap.Snapshot `json:"snapshot"`
	Events   []trace.Event `json:"events"`
}

func saveCommand() *Command {
	return &Command{
		Name: "save", Group: GroupShow,
		Usage: "save [--svg] FILE",
		Short: "write the current state as JSON for view --snapshot",
		Long: "FILE gets the snapshot (as show snapshot --json prints it) and the last 200 events.\n" +
			"`rdmalab view --snapshot FILE` draws it; attach it to a bug report.\n" +
			"The file is written whole or not at all: a temporary file beside FILE, renamed over\n" +
			"it once complete, so a full disk leaves an existing FILE as it was. A symbolic link at\n" +
			"FILE is replaced by the file, never followed; a directory or a device there is refused.\n" +
			"With --svg, FILE gets the pictures instead, as the class page (serve) draws them: one\n" +
			"SVG for slides.",
		Example: "save write-posted.json",
		Args:    []Arg{{Name: "FILE", Paths: true}},
		Flags:   []Flag{{Name: "svg", Usage: "the pictures as one SVG, not the state as JSON"}},
		Run: func(c *Ctx, a Args, out io.Writer) error {
			s := c.S
			name := a.Pos[0]
			if a.Has("svg") {
				return saveSVG(c, name, out)
			}
			f := savedFrame{Snapshot: s.lab.Snapshot(), Events: s.lab.Tail(savedEvents)}
			b, err := safe.MarshalIndent(f, "", "  ")
			if err != nil {
				return fmt.Errorf("encode the snapshot: %w", err)
			}
			af, err := c.writeFile(name, func(w io.Writer) error {
				_, err := w.Write(append(b, '\n'))
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "saved the state and %d events to %s\n", len(f.Events), shown(name))
			linkNote(out, name, af)
			return nil
		},
	}
}

// saveSVG writes the current pictures to name as one SVG.
func saveSVG(c *Ctx, name string, out io.Writer) error {
	s := c.S
	f := web.Frame{Snapshot: s.lab.Snapshot(), Events: s.lab.Tail(savedEvents)}
	af, err := c.writeFile(name, func(w io.Writer) error { return web.WriteSVG(w, f) })
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "saved the pictures to %s\n", shown(name))
	linkNote(out, name, af)
	return nil
}
