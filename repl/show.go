package repl

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/nearest"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// report is what a show target produces: JSON-tagged for --json, and able
// to write itself as text.
type report interface {
	writeText(w io.Writer)
}

// showTarget is one thing `show` can display.
type showTarget struct {
	Name     string
	Aliases  []string
	Short    string
	Kernel   []*trace.Func
	Arg      string // an optional filter argument, "" if none
	Complete Completer
	report   func(s *Session, pic snap.Snapshot, arg string) (report, error)
	// reads is the costly parts of the snapshot report reads; the
	// snapshot taken for it leaves the others out.
	reads engine.Part
}

// without is the costly parts the snapshot taken for t leaves out.
func (t showTarget) without() engine.Part { return engine.PartsCostly &^ t.reads }

// showTargets lists the targets in help order.
func showTargets() []showTarget {
	return []showTarget{
		{Name: "settings", Short: "every setting, its value and range", report: settingsReportOf},
		{Name: "bugs", Short: "which historical bugs B1..B13 are on", report: bugsReportOf},
		{Name: "threads", Aliases: []string{"thread"}, Short: "nfsd threads: state, what they wait for, call stack",
			Kernel: []*trace.Func{kernel.SvcRecv}, report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
				return threadsReport{pic.Threads}, nil
			}},
		{Name: "calls", reads: engine.PartCalls, Short: "the client's calls: xid, state, reply", report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
			return callsReport{pic.Calls}, nil
		}},
		{Name: "chunks", Aliases: []string{"chunk"}, Short: "the chunk lists each call advertised",
			Arg: "XID", Complete: completeXIDs, Kernel: []*trace.Func{kernel.RpcrdmaMarshalReq, kernel.SvcRdmaXdrDecodeReq}, report: chunksReportOf},
		{Name: "segment", Aliases: []string{"seg"}, Short: "one client segment and its first bytes",
			Arg: "XID/N", Complete: completeSegments, report: segmentReportOf},
		{Name: "pages", Aliases: []string{"page"}, Short: "rq_pages, rc_pages and where their bytes came from",
			Kernel: []*trace.Func{kernel.SvcRdmaBuildReadSegment, kernel.SvcRdmaClearRqstPages}, report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
				return pagesReport{pic.Threads, pic.Reads}, nil
			}},
		{Name: "sgl", Short: "the scatterlist of each rw ctxt in use", Arg: "RW", Complete: completeRWIDs,
			Kernel: []*trace.Func{kernel.SgSetPage, kernel.SvcRdmaBuildReadSegment, kernel.SvcRdmaPagelistToSg}, report: sglReportOf},
		{Name: "rw", Aliases: []string{"rwctxts", "rw_ctxts"}, Short: "rw ctxts in use and in the cache",
			Kernel: []*trace.Func{kernel.SvcRdmaGetRwCtxt, kernel.SvcRdmaPutRwCtxt}, report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
				return rwReport{pic.RWCtxts}, nil
			}},
		{Name: "reads", Short: "Read lists being pulled: rc_curpage, rc_pageoff...",
			Kernel: []*trace.Func{kernel.SvcRdmaProcessReadList}, report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
				return readsReport{pic.Reads}, nil
			}},
		{Name: "chain", Aliases: []string{"chains", "wr", "wrs"}, Short: "work-request chains on the Send Queue",
			Kernel: []*trace.Func{kernel.RdmaRwCtxWrs, kernel.SvcRdmaPostChunkCtxt, kernel.SvcRdmaPostSend}, report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
				return chainsReport{pic.Chains}, nil
			}},
		{Name: "sq", Short: "Send Queue: sc_sq_depth, sc_sq_avail, waiters",
			Kernel: []*trace.Func{kernel.SvcRdmaPostChunkCtxt, kernel.SvcRdmaWakeSendWaiters}, report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
				return sqReport{pic.SQ, pic.Chains}, nil
			}},
		{Name: "cq", Short: "completions delivered, and what is on the wire", report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
			return cqReport{pic.CQ, pic.Pending, !s.lab.Can(engine.DeclaredStatus)}, nil
		}},
		{Name: "pending", Aliases: []string{"wire"}, Short: "operations posted and not yet executed", report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
			return pendingReport{pic.Pending, !s.lab.Can(engine.DeclaredStatus)}, nil
		}},
		{Name: "positions", reads: engine.PartReplies, Aliases: []string{"pos"}, Short: "reply positions: sc_post_seq, xpt_acked_pos, the DRC",
			Kernel: []*trace.Func{kernel.SvcRdmaPostSend, kernel.SvcXprtAdvanceAcked}, report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
				return positionsReport{pic.Positions}, nil
			}},
		{Name: "events", Short: "the last events (default 20)", Arg: "N", report: eventsReportOf},
		{Name: "counters", Aliases: []string{"stats"}, Short: "svcrdma statistics", report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
			return countersReport{pic.Counters, pic.RWCtxts.Created, len(pic.CQ)}, nil
		}},
		{Name: "snapshot", reads: engine.PartsCostly, Aliases: []string{"all"}, Short: "everything at once (the JSON is snap.Snapshot)", report: func(s *Session, pic snap.Snapshot, _ string) (report, error) {
			return snapshotReport{pic}, nil
		}},
	}
}

// findTarget looks a show target up by name or alias.
func findTarget(name string) (showTarget, bool) {
	n := strings.ToLower(name)
	for _, t := range showTargets() {
		if t.Name == n {
			return t, true
		}
		for _, a := range t.Aliases {
			if a == n {
				return t, true
			}
		}
	}
	return showTarget{}, false
}

func targetNames() []string {
	var out []string
	for _, t := range showTargets() {
		out = append(out, t.Name)
	}
	return out
}

func showCommand() *Command {
	return &Command{
		Name: "show", Group: GroupShow,
		Usage: "show WHAT [ARG] [--json]",
		Short: "show pages, sgl, rw, chain, sq, cq, positions...",
		Long: "Displays one part of the lab's state. WHAT is one of:\n" + targetHelp() +
			"With --json the result is one JSON document whose field names are snap.Snapshot's\n" +
			"(see the repl package documentation for the schema).",
		Example: "show sgl\nshow positions --json\nshow chunks 0x5eed0010",
		Kernel:  []*trace.Func{kernel.SvcRdmaBuildReadSegment, kernel.SvcRdmaPostSend, kernel.SvcXprtAdvanceAcked},
		Args: []Arg{{Name: "WHAT", Complete: completeTargets},
			{Name: "ARG", Optional: true, Complete: completeTargetArg}},
		Flags: []Flag{jsonFlag()},
		Run:   runShow,
	}
}

func targetHelp() string {
	var b strings.Builder
	for _, t := range showTargets() {
		name := t.Name
		if t.Arg != "" {
			name += " [" + t.Arg + "]"
		}
		fmt.Fprintf(&b, "  %-18s %s\n", name, t.Short)
	}
	return b.String()
}

func runShow(c *Ctx, a Args, out io.Writer) error {
	t, ok := findTarget(a.Pos[0])
	if !ok {
		msg := fmt.Sprintf("unknown show target %q", a.Pos[0])
		if near := nearest.Word(a.Pos[0], targetNames()); near != "" {
			return fmt.Errorf("%s: did you mean `show %s`?", msg, near)
		}
		return fmt.Errorf("%s (want one of: %s)", msg, strings.Join(targetNames(), ", "))
	}
	arg := ""
	if len(a.Pos) > 1 {
		if t.Arg == "" {
			return fmt.Errorf("show %s takes no argument, not %q", t.Name, a.Pos[1])
		}
		arg = a.Pos[1]
	}
	v, err := t.report(c.S, c.S.lab.SnapshotWithout(t.without()), arg)
	if err != nil {
		return fmt.Errorf("show %s: %w", t.Name, err)
	}
	return c.emit(v, out)
}

// emit writes a structured result: as the data of the JSON record in run
// --json mode, as indented JSON with --json, as text otherwise.
func (c *Ctx) emit(v report, out io.Writer) error {
	switch {
	case c.collect && c.JSON:
		c.data, c.hasData = v, true
		return nil
	case c.JSON:
		b, err := safe.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("encode JSON: %w", err)
		}
		_, err = fmt.Fprintf(out, "%s\n", b)
		return err
	}
	v.writeText(out)
	return nil
}

func sglReportOf(s *Session, pic snap.Snapshot, arg string) (report, error) {
	v := rwReport{pic.RWCtxts}
	if arg == "" {
		return sglReport(v), nil
	}
	id, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(arg, "rw"), "#"))
	if err != nil {
		return nil, fmt.Errorf("%q is not an rw ctxt id (try rw#1 or 1)", arg)
	}
	var keep []snap.RWCtxt
	for _, r := range v.RW.InUse {
		if r.ID == id {
			keep = append(keep, r)
		}
	}
	if keep == nil {
		return nil, fmt.Errorf("rw#%d is not in use (in use: %s)", id, rwIDs(v.RW.InUse))
	}
	v.RW.InUse = keep
	return sglReport(v), nil
}

func rwIDs(rs []snap.RWCtxt) string {
	if len(rs) == 0 {
		return "none"
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, fmt.Sprintf("rw#%d", r.ID))
	}
	return strings.Join(ids, " ")
}

func eventsReportOf(s *Session, _ snap.Snapshot, arg string) (report, error) {
	n := int64(20)
	if arg != "" {
		var err error
		if n, err = engine.ParseInt("N", arg, 1, 100_000); err != nil {
			return nil, err
		}
	}
	return eventsReport{Events: s.lab.Tail(int(n))}, nil
}
