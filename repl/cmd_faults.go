package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

func faultCommands() []*Command {
	return []*Command{
		{
			Name: "fail", Group: GroupFaults,
			Usage: "fail N STATUS",
			Short: "make the Nth operation from now fail with STATUS",
			Long: "A REM_* status is a NAK from the responder, whose QP goes to ERR as well; any other\n" +
				"status fails on the requester's side. Several failures may be armed at once. On a real\n" +
				"device (engine ibv) a failure is provoked, not declared: REM_ACCESS_ERR sends the Nth RDMA\n" +
				"WRITE or READ posted from now 1 GiB past its remote address (outside the peer's MR),\n" +
				"LOC_PROT_ERR the Nth WR with a wrong lkey; arm it before the command that posts. Other\n" +
				"statuses need the sim.",
			Example: "fail 1 REM_ACCESS_ERR\nfail 2 RETRY_EXC_ERR",
			Kernel:  []*trace.Func{kernel.SvcRdmaWcReadDone, kernel.SvcRdmaWriteDone, kernel.SvcRdmaWcSend, kernel.SvcXprtDeferredClose},
			Args:    []Arg{{Name: "N", Complete: completeCounts()}, {Name: "STATUS", Complete: completeStatuses}},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				n, err := engine.ParseInt("N", a.Pos[0], 1, 1_000_000)
				if err != nil {
					return err
				}
				st, err := parseStatus(a.Pos[1])
				if err != nil {
					return err
				}
				if err := c.S.lab.FailNth(int(n), st); err != nil {
					return err
				}
				if !c.S.lab.Can(engine.DeclaredStatus) {
					// The device already ran what is posted: only what is
					// posted from now can be made to fail.
					what := "RDMA WRITE or READ"
					if st == engine.StatusLocProtErr {
						what = "work request"
					}
					fmt.Fprintf(out, "%s number %d posted from now will fail on the device with %v: %s\n", what, n, st, st.Meaning())
					return nil
				}
				fmt.Fprintf(out, "operation %d from now will complete with %v: %s\n", n, st, st.Meaning())
				return nil
			},
		},
		{
			Name: "disconnect", Group: GroupFaults, Hint: true,
			Usage:   "disconnect",
			Short:   "break the link: QPs to ERR, work requests flush",
			Example: "disconnect\ncomplete all\nshow cq",
			Kernel:  []*trace.Func{kernel.SvcXprtDeferredClose, kernel.SvcRdmaWcReceive, kernel.TraceSvcrdmaWcReadFlush},
			Run: func(c *Ctx, a Args, out io.Writer) error {
				c.S.lab.Disconnect()
				if !c.S.lab.Can(engine.DeclaredStatus) {
					msg := "disconnected: both QPs are in ERR on the device; what it had not run completes with WR_FLUSH_ERR"
					if n := c.S.lab.PendingCount(); n > 0 {
						msg += fmt.Sprintf(", after the %d operation(s) it had run: they keep their status and wait for complete, and the flushes of their QPs wait behind them", n)
					}
					fmt.Fprintln(out, msg)
					return nil
				}
				fmt.Fprintln(out, "disconnected: outstanding work requests complete with WR_FLUSH_ERR")
				return nil
			},
		},
		{
			Name: "inject", Group: GroupFaults,
			Usage:   "inject POINT [N]",
			Short:   "make an allocation or a DMA mapping fail",
			Long:    "POINT is one of:\n" + injectHelp(),
			Example: "inject rw_ctxt\ninject dma_map 2\ninject send_ctxt 0",
			Kernel:  []*trace.Func{kernel.SvcRdmaGetRwCtxt, kernel.RdmaRwCtxInit, kernel.SvcRdmaWriteInfoAlloc, kernel.SvcRdmaSendCtxtGet, kernel.IbPostSend},
			Args: []Arg{{Name: "POINT", Complete: completeInjectPoints},
				{Name: "N", Optional: true, Complete: completeCounts("0")}},
			Run: runInject,
		},
	}
}

func injectHelp() string {
	var b strings.Builder
	for _, p := range engine.InjectPoints() {
		fmt.Fprintf(&b, "  %-11s %s: %s\n", p.Name, p.Func, p.Desc)
	}
	return b.String()
}

func runInject(c *Ctx, a Args, out io.Writer) error {
	var names []string
	for _, p := range engine.InjectPoints() {
		names = append(names, p.Name)
		if p.Name != a.Pos[0] && (p.Func != a.Pos[0] || p.Func == kernel.IbPostSend.Name()) {
			continue
		}
		n := int64(1)
		if len(a.Pos) > 1 {
			var err error
			if n, err = engine.ParseInt("N", a.Pos[1], 0, 1_000_000); err != nil {
				return err
			}
		}
		c.S.lab.Inject(p, int(n))
		if n == 0 {
			fmt.Fprintf(out, "%s will not fail\n", p.Func)
		} else {
			fmt.Fprintf(out, "call %d of %s from now will fail: %s\n", n, p.Func, p.Desc)
		}
		return nil
	}
	msg := fmt.Sprintf("unknown injection point %q (want %s)", a.Pos[0], strings.Join(names, ", "))
	if near := nearest.Word(a.Pos[0], names); near != "" {
		msg = fmt.Sprintf("unknown injection point %q: did you mean %s?", a.Pos[0], near)
	}
	return fmt.Errorf("%s", msg)
}
