package viz_test

import (
	"context"
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/viz"
)

// How a session wires the view: the Lab goes behind an engine.Shared,
// which the REPL's commands drive; the view and the published socket
// other terminals follow read it through a LabSource, whose keys step the
// same Lab.
func Example() {
	lab, err := engine.New(engine.DefaultSettings())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lab.Close()
	shared := engine.NewShared(lab)
	src := viz.NewLabSource(shared)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pub, err := viz.Listen(viz.SocketPath())
	if err != nil {
		fmt.Println(err) // another session publishes: this one still runs
	} else {
		go pub.Serve(ctx, src) // `rdmalab view` in another terminal attaches here
	}

	// A REPL command.
	err = shared.Do(func(l *engine.Lab) error {
		_, err := l.Write(10000, engine.ChunkOpts{Segments: 3})
		return err
	})
	if err != nil {
		fmt.Println(err)
	}

	// `view`: full screen until q; the terminal is restored on return.
	screen, err := tcell.NewScreen()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := (&viz.Viewer{}).Run(ctx, screen, src); err != nil {
		fmt.Println(err)
	}
}

// `rdmalab view` in another terminal.
func ExampleAttach() {
	ctx := context.Background()
	src, err := viz.Attach(ctx, viz.SocketPath())
	if err != nil {
		fmt.Println(err) // no rdmalab session is running (looked for …)
		return
	}
	screen, err := tcell.NewScreen()
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = (&viz.Viewer{}).Run(ctx, screen, src)
}
