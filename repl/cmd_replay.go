package repl

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rdmalab/rdmalab/captures/replay"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/viz"
)

// replaySummary is what `replay --json` gives in `run --json` mode.
type replaySummary struct {
	File    string   `json:"file"`
	Server  string   `json:"server"`
	Client  string   `json:"client"`
	Frames  int      `json:"frames"`
	Steps   int      `json:"steps"`
	RPCs    int      `json:"rpcs"`
	Unknown []string `json:"unknown"`
	Err     string   `json:"error,omitempty"`
}

func replayCommand() *Command {
	return &Command{
		Name: "replay", Group: GroupShow,
		Usage: "replay FILE [--text] [--rpc] [--events] [--json] [--qp QPN]",
		Short: "step through an NFS/RDMA capture: the server's work",
		Long: "Each packet that changes the server's picture is a step, told in the kernel's words: the\n" +
			"call svc_rdma_recvfrom took, the Read list posted as one chain of RDMA READs and landing\n" +
			"in rc_pages, the reply chain (RDMA WRITEs and the Send) svc_rdma_sendto posted, and the\n" +
			"ACKs whose MSNs complete the Sends and advance xpt_acked_pos. At a terminal it opens the\n" +
			"view on the replay (s step, n next RPC, f end of this RPC, c end, C next completion,\n" +
			"b and B back, t one transport alone, q back to the prompt); in scripts, or with --text,\n" +
			"it prints the steps. Every transport (QP) in the capture is replayed, each its own picture;\n" +
			"--qp QPN follows only the transport one of whose queue pairs is QPN (the transcript's\n" +
			"xprt lines name each transport's).\n" +
			"The lab is not touched.",
		Example: "replay nfs3-rdma.pcap\nreplay nfs3-rdma.pcap --rpc",
		Kernel:  []*trace.Func{kernel.SvcRdmaRecvfrom, kernel.SvcRdmaProcessReadList, kernel.SvcRdmaSendto, kernel.SvcRdmaWcSend},
		Args:    []Arg{{Name: "FILE", Paths: true}},
		Flags: []Flag{
			{Name: "text", Usage: "print the steps even at a terminal"},
			optionFlag(cli.ReplayRPC()),
			optionFlag(cli.ReplayEvents()),
			optionFlag(cli.ReplayJSON()),
			optionFlag(cli.QP()),
			optionFlag(cli.MaxExpand()),
		},
		OwnsLock: true, // the lab is not touched
		Run:      runReplayCmd,
	}
}

func runReplayCmd(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	path, err := c.resolveFile(a.Pos[0])
	if err != nil {
		return err
	}
	maxExpand, err := maxExpandOf(a)
	if err != nil {
		return err
	}
	var qp uint32
	if v, ok := a.Flag(cli.QP().Name); ok {
		if qp, err = cli.ParseQP(v); err != nil {
			return err
		}
	}
	byRPC, events := a.Has(cli.ReplayRPC().Name), a.Has(cli.ReplayEvents().Name)
	text := a.Has("text") || byRPC || events
	view := s.tty && !text && !c.JSON
	// Named as the user wrote it: transcripts stay the same wherever they run.
	tl, r, closeTL, err := readReplay(path, a.Pos[0], replay.ReadOptions{MaxExpand: maxExpand, QP: qp}, view)
	if err != nil {
		return err
	}
	defer closeTL() // a big capture's steps are in a spill file
	switch {
	case c.collect && c.JSON:
		sum := replaySummary{File: tl.File, Server: tl.Server.String(), Client: tl.Client.String(), Frames: tl.Frames,
			Steps: tl.NumSteps(), RPCs: len(tl.RPCs), Unknown: tl.Unknown}
		if tl.Err != nil {
			sum.Err = tl.Err.Error()
		}
		c.data, c.hasData = sum, true
	case s.tty && !text && !c.JSON:
		screen, err := viz.NewScreen()
		if err != nil {
			return fmt.Errorf("open the terminal: %w", err)
		}
		cur := s.cur
		s.cur = nil // the view owns the screen
		defer func() { s.cur = cur }()
		if err := viz.RunReplay(context.Background(), screen, r); err != nil {
			return fmt.Errorf("the view stopped: %w", err)
		}
		if err := tl.StorageErr(); err != nil {
			fmt.Fprintf(out, "note: %s; the steps were kept in memory instead\n", safe.Text(err.Error()))
		}
	default:
		o := replay.Options{ByRPC: byRPC, Events: events, JSON: c.JSON}
		if err := tl.WriteTranscript(out, o); err != nil {
			return err
		}
	}
	if tl.Err != nil {
		return fmt.Errorf("%w (replayed up to there)", tl.Err)
	}
	return nil
}

// readReplay replays the capture at path to its end, named name. For the
// view it reads the file once, through the index that also fills the
// Packets pane (viz.OpenReplay).
func readReplay(path, name string, o replay.ReadOptions, view bool) (*replay.Timeline, *viz.Replay, func(), error) {
	if view {
		o.NoJSON = true // the view never writes one
		r, err := viz.OpenReplay(path, name, o)
		if err != nil {
			return nil, nil, nil, err
		}
		r.Timeline.All()
		return r.Timeline, r, r.Close, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	tl, err := replay.ReadWith(f, name, o)
	if err != nil {
		return nil, nil, nil, err
	}
	return tl, nil, tl.Close, nil
}
