package repl

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/nearest"
)

func threadArg() Arg {
	return Arg{Name: "THREAD", Optional: true, Complete: completeThreads}
}

func serverCommands() []*Command {
	return []*Command{
		{
			Name: "recv", Group: GroupServer, Hint: true,
			Usage: "recv [THREAD]",
			Short: "a thread takes the next call, decodes its header",
			Long: "Runs the nfsd threads (THREAD, if given, first) until one returns from\n" +
				"svc_rdma_xdr_decode_req, then shows the transport header it parsed and the chunk\n" +
				"lists the call carries. The client's Send must have landed first: complete.",
			Example: "write 64k\ncomplete\nrecv",
			Kernel:  []*trace.Func{kernel.SvcRdmaRecvfrom, kernel.SvcRdmaXdrDecodeReq, kernel.PclAllocCall, kernel.PclAllocWrite},
			Args:    []Arg{threadArg()},
			Run:     runRecv,
		},
		{
			Name: "readlist", Aliases: []string{"pull"}, Group: GroupServer, Hint: true,
			Usage: "readlist [THREAD]",
			Short: "build the Read list's SGLs, post the RDMA Reads",
			Long: "Runs until svc_rdma_process_read_list returns and svc_rdma_recvfrom parks the call to\n" +
				"wait for its Reads: each Read segment gets an rw ctxt whose SGL maps it onto rq_pages\n" +
				"(svc_rdma_build_read_segment), and the chain of RDMA Reads is posted. Shows the recv\n" +
				"ctxt's page cursor and the SGLs built.",
			Example: "readlist\nshow sgl",
			Kernel:  []*trace.Func{kernel.SvcRdmaProcessReadList, kernel.SvcRdmaBuildReadChunk, kernel.SvcRdmaBuildReadSegment, kernel.SvcRdmaPostChunkCtxt},
			Args:    []Arg{threadArg()},
			Run:     runReadlist,
		},
		{
			Name: "post", Group: GroupServer, Hint: true,
			Usage:   "post [THREAD]",
			Short:   "run to the next ib_post_send, show the chain",
			Example: "post\nshow sq",
			Kernel:  []*trace.Func{kernel.SvcRdmaPostChunkCtxt, kernel.SvcRdmaPostSend, kernel.IbPostSend},
			Args:    []Arg{threadArg()},
			Run:     runPost,
		},
		{
			Name: "reply", Group: GroupServer, Hint: true,
			Usage: "reply [THREAD]",
			Short: "run svc_rdma_sendto: Write list, Reply chunk, Send",
			Long: "Finishes the call in the upper layer (the NFS procedure) and runs svc_rdma_sendto to its\n" +
				"return: the Write list is pushed with RDMA Writes, the Reply chunk filled, and the\n" +
				"reply's Send posted with its position. Shows the chains now on the Send Queue.",
			Example: "reply\ncomplete all\nshow positions",
			Kernel:  []*trace.Func{kernel.SvcRdmaSendto, kernel.SvcRdmaSendWriteList, kernel.SvcRdmaPrepareReplyChunk, kernel.SvcRdmaSendReplyMsg, kernel.SvcRdmaPostSend},
			Args:    []Arg{threadArg()},
			Run:     runReply,
		},
		{
			Name: "until", Aliases: []string{"run-to"}, Group: GroupServer, Hint: true,
			Usage:   "until FUNC [--return] [--thread THREAD]",
			Short:   "run until a kernel function is entered or returns",
			Long:    "Stops at the first event naming FUNC: its entry or a trace point inside it; with\n--return, at its return. A name the model never emits is refused before anything\nruns, with the nearest one.",
			Example: "until svc_rdma_build_read_segment\nuntil svc_rdma_sendto --return",
			Kernel:  []*trace.Func{anyFunc},
			Args:    []Arg{{Name: "FUNC", Complete: completeFuncs}},
			Flags: []Flag{{Name: "return", Usage: "stop at the function's return"},
				{Name: "thread", Value: "THREAD", Usage: "only events of this thread count", Complete: completeThreads}},
			Run: runUntil,
		},
		{
			Name: "complete", Aliases: []string{"deliver"}, Group: GroupServer, Hint: true,
			Usage: "complete [N|all] [--status STATUS]",
			Short: "deliver N operations on the wire, run the handlers",
			Long: "Executes posted work requests in wire order, writes their completions and runs the\n" +
				"completion handlers (svc_rdma_wc_receive, svc_rdma_wc_read_done, svc_rdma_wc_send...).\n" +
				"--status makes the first one complete with that status instead of SUCCESS.",
			Example: "complete\ncomplete all\ncomplete --status REM_ACCESS_ERR",
			Kernel:  []*trace.Func{kernel.SvcRdmaWcReceive, kernel.SvcRdmaWcReadDone, kernel.SvcRdmaWriteDone, kernel.SvcRdmaWcSend, kernel.SvcXprtAdvanceAcked},
			Args:    []Arg{{Name: "N", Optional: true, Complete: completeCounts("all")}},
			Flags:   []Flag{{Name: "status", Value: "STATUS", Usage: "the first completion's status", Complete: completeStatuses}},
			Run:     runComplete,
		},
	}
}

// runThread runs to match, with THREAD (if given) focused meanwhile.
func (s *Session) runThread(thread string, match func(trace.Event) bool) (stop, error) {
	if thread != "" {
		if err := s.checkThread(thread); err != nil {
			return stopIdle, err
		}
		restore, err := s.lab.Focus(thread)
		if err != nil {
			return stopIdle, err
		}
		defer restore()
	}
	return s.runTo(func(e trace.Event) bool {
		return (thread == "" || e.Task == thread) && match(e)
	}), nil
}

// checkThread says whether name is an nfsd thread.
func (s *Session) checkThread(name string) error {
	names := s.lab.Threads()
	if slices.Contains(names, name) {
		return nil
	}
	msg := fmt.Sprintf("no thread %q (threads: %s)", name, strings.Join(names, ", "))
	if near := nearest.Word(name, names); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	return fmt.Errorf("%s", msg)
}

func optPos(a Args, i int) string {
	if i < len(a.Pos) {
		return a.Pos[i]
	}
	return ""
}

// serverRun is the common part of recv, readlist, post and reply.
func (c *Ctx) serverRun(out io.Writer, thread, target string, match func(trace.Event) bool) error {
	s := c.S
	before := s.lab.Last().Seq
	why, err := s.runThread(thread, match)
	if err != nil {
		return err
	}
	if why != stopReached && s.lab.Last().Seq == before {
		return s.stopError(why, target) // it says why nothing ran
	}
	c.reportStop(out, why, before)
	return s.stopError(why, target)
}

func runRecv(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	err := c.serverRun(out, optPos(a, 0), kernel.SvcRdmaXdrDecodeReq.Name(), func(e trace.Event) bool {
		return e.Kind == trace.Return && e.Func == kernel.SvcRdmaXdrDecodeReq.Name()
	})
	if err != nil {
		return err
	}
	last := s.lab.Last()
	if last.Err != "" {
		fmt.Fprintf(out, "%s could not decode the header: -%s (the client gets an RDMA_ERROR)\n", last.Task, last.Err)
		return nil
	}
	// The decode trace point names the XID; the client's call has the
	// lists as they were advertised.
	h := s.lab.Tail(50)
	for i := len(h) - 1; i >= 0; i-- {
		e := h[i]
		if e.Task != last.Task || e.Func != kernel.TraceSvcrdmaDecodeRqst.Name() {
			continue
		}
		xid := argVal(e.Args, "xid")
		fmt.Fprintf(out, "%s took xid %s: %s, %s-byte transport header\n  read chunks %s, write chunks %s, reply chunk %s\n",
			e.Task, xid, argVal(e.Args, "proc"), argVal(e.Args, "hdrlen"), argVal(e.Args, "read_chunks"),
			argVal(e.Args, "write_chunks"), argVal(e.Args, "reply_chunk"))
		if k, err := findCall(s, xid); err == nil {
			writeSegments(out, chunksOf(k))
		}
		break
	}
	return nil
}

func argVal(args []trace.Arg, key string) string {
	for _, a := range args {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func runReadlist(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	thread := optPos(a, 0)
	// After a successful svc_rdma_process_read_list, stop at the thread's
	// next event, where svc_rdma_recvfrom parks the call: readlist shows
	// it, not the command after.
	posted := ""
	err := c.serverRun(out, thread, kernel.SvcRdmaProcessReadList.Name(), func(e trace.Event) bool {
		switch {
		case posted != "":
			return e.Task == posted
		case e.Kind == trace.Return && e.Func == kernel.SvcRdmaProcessReadList.Name():
			if e.Err != "" {
				return true
			}
			posted = e.Task
			return false
		}
		return e.Kind == trace.Return && e.Func == kernel.SvcRdmaRecvfrom.Name()
	})
	if err != nil {
		return err
	}
	if last := s.lab.Last(); last.Kind == trace.Return && last.Func == kernel.SvcRdmaRecvfrom.Name() {
		return fmt.Errorf("%s returned from svc_rdma_recvfrom without a Read list to process (the call carries none, or it was already pulled)", last.Task)
	}
	snap := s.lab.SnapshotWithout(engine.PartsCostly)
	readsReport{snap.Reads}.writeText(out)
	for _, r := range snap.Reads {
		for _, rw := range r.RWCtxts {
			fmt.Fprintf(out, "rw#%d SGL:\n", rw.ID)
			writeSGEs(out, "  sgl", rw.SGL)
		}
	}
	return nil
}

func runPost(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	// Stop at ib_post_send's return: the chain is on the SQ (or the post
	// has failed).
	poster := ""
	err := c.serverRun(out, optPos(a, 0), kernel.IbPostSend.Name(), func(e trace.Event) bool {
		if e.Kind == trace.Return && e.Func == kernel.IbPostSend.Name() {
			poster = e.Task
			return true
		}
		return false
	})
	if err != nil {
		return err
	}
	chains := s.lab.SnapshotWithout(engine.PartsCostly).Chains
	for i := len(chains) - 1; i >= 0; i-- {
		if chains[i].Task == poster {
			chainsReport{chains[i : i+1]}.writeText(out)
			return nil
		}
	}
	fmt.Fprintf(out, "%s posted nothing that is still on the Send Queue\n", poster)
	return nil
}

func runReply(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	err := c.serverRun(out, optPos(a, 0), "the return of svc_rdma_sendto", func(e trace.Event) bool {
		return e.Kind == trace.Return && e.Func == kernel.SvcRdmaSendto.Name()
	})
	if err != nil {
		return err
	}
	snap := s.lab.SnapshotWithout(engine.PartsCostly)
	chainsReport{snap.Chains}.writeText(out)
	return nil
}

func runUntil(c *Ctx, a Args, out io.Writer) error {
	fn := a.Pos[0]
	if !c.S.knownFunc(fn) {
		// Running the lab to idle would only say the same, later.
		msg := fmt.Sprintf("no function or trace point of the model is called %s", shown(fn))
		if near := nearest.Word(fn, append(kernel.Names(kernel.Traced()), c.S.funcList...)); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		return errors.New(msg + "; TAB after `until ` lists them")
	}
	ret := a.Has("return")
	thread, _ := a.Flag("thread")
	target := fn
	if ret {
		target = "the return of " + fn
	}
	return c.serverRun(out, thread, target, func(e trace.Event) bool {
		if e.Func != fn {
			return false
		}
		if ret {
			return e.Kind == trace.Return
		}
		return e.Kind != trace.Return && e.Kind != trace.Wait
	})
}

func runComplete(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	n := 1
	if len(a.Pos) > 0 {
		if strings.ToLower(a.Pos[0]) == "all" {
			n = -1
		} else {
			v, err := engine.ParseInt("N", a.Pos[0], 1, 100_000)
			if err != nil {
				return err
			}
			n = int(v)
		}
	}
	var st *engine.Status
	if v, ok := a.Flag("status"); ok {
		x, err := parseStatus(v)
		if err != nil {
			return err
		}
		st = &x
	}
	done, err := s.lab.Complete(n, st)
	if err != nil {
		return fmt.Errorf("complete: %w", err)
	}
	fmt.Fprintf(out, "delivered %d operation(s)", done)
	if st != nil && done > 0 {
		fmt.Fprintf(out, "; the first completed with %v:\n  %s", *st, st.Meaning())
	}
	fmt.Fprintln(out)
	return nil
}
