package repl

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// savedEvents is how many recent events a saved snapshot keeps.
const savedEvents = 200

// savedFrame is the file `save` writes and `rdmalab view --snapshot` reads.
type savedFrame struct {
	Snapshot engine.Snapshot `json:"snapshot"`
	Events   []trace.Event   `json:"events"`
}

func saveCommand() *Command {
	return &Command{
		Name: "save", Group: GroupShow,
		Usage: "save FILE",
		Short: "write the current state as JSON for view --snapshot",
		Long: "FILE gets the snapshot (as show snapshot --json prints it) and the last 200 events.\n" +
			"`rdmalab view --snapshot FILE` draws it; attach it to a bug report.",
		Example: "save write-posted.json",
		Args:    []Arg{{Name: "FILE", Paths: true}},
		Run: func(c *Ctx, a Args, out io.Writer) error {
			s := c.S
			path := a.Pos[0]
			if !filepath.IsAbs(path) {
				path = filepath.Join(s.curDir(), path)
			}
			f := savedFrame{Snapshot: s.lab.Snapshot(), Events: s.lab.Tail(savedEvents)}
			b, err := json.MarshalIndent(f, "", "  ")
			if err != nil {
				return fmt.Errorf("encode the snapshot: %w", err)
			}
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(out, "saved the state and %d events to %s\n", len(f.Events), a.Pos[0])
			return nil
		},
	}
}
