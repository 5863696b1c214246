package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// The reports of `show` on the snapshot: each has the JSON shape documented
// in doc.go and a text form that fits 80 columns.

type threadsReport struct {
	Threads []snap.Thread `json:"threads"`
}

func (v threadsReport) writeText(w io.Writer) {
	for _, t := range v.Threads {
		mark := " "
		if t.Focused {
			mark = "*"
		}
		state := t.State
		if t.WaitingFor != "" && t.State != "idle" {
			state += " in " + t.WaitingFor
		}
		fmt.Fprintf(w, "%s%-6s %-28s reply_pos %d, %d page(s) in use\n", mark, t.Name, state, t.ReplyPos, len(t.Pages))
		if len(t.Frames) > 0 {
			fmt.Fprintf(w, "        stack: %s\n", strings.Join(t.Frames, " > "))
		}
	}
}

type callsReport struct {
	Calls []snap.Call `json:"calls"`
}

func (v callsReport) writeText(w io.Writer) {
	if len(v.Calls) == 0 {
		fmt.Fprintln(w, "no calls yet: write, read, readdir, longcall or call make one")
		return
	}
	for _, k := range v.Calls {
		fmt.Fprintf(w, "xid %s  %-9s %-10s %s", k.XID, k.State, k.Proc, k.Label)
		if k.Status != "" && k.Status != "NFS3_OK" && k.Status != "SUCCESS" {
			fmt.Fprintf(w, "  status: %s", k.Status)
		}
		if k.Err != "" {
			fmt.Fprintf(w, "  error: %s", k.Err)
		}
		fmt.Fprintln(w)
	}
}

type pagesReport struct {
	Threads []snap.Thread `json:"threads"`
	Reads   []snap.Read   `json:"reads"`
}

func (v pagesReport) writeText(w io.Writer) {
	some := false
	for _, t := range v.Threads {
		if len(t.Pages) == 0 {
			continue
		}
		some = true
		fmt.Fprintf(w, "%s rq_pages in use:\n", t.Name)
		writePages(w, t.Pages)
	}
	for _, r := range v.Reads {
		some = true
		fmt.Fprintf(w, "rc_pages of xid %s (rc_curpage %d, rc_pageoff %d, rc_page_count %d):\n", r.XID, r.CurPage, r.PageOff, r.PageCount)
		writePages(w, r.Pages)
	}
	if !some {
		fmt.Fprintln(w, "no page holds call data now")
	}
}

func writePages(w io.Writer, pages []snap.Page) {
	for _, p := range pages {
		if len(p.Extents) == 0 {
			fmt.Fprintf(w, "  [%d] %-6s empty\n", p.Index, p.Name)
			continue
		}
		for i, e := range p.Extents {
			head := fmt.Sprintf("[%d] %s", p.Index, p.Name)
			if i > 0 {
				head = ""
			}
			fmt.Fprintf(w, "  %-11s %5d..%-5d %s\n", head, e.Off, e.Off+e.Len, e.Source)
		}
	}
}

type rwReport struct {
	RW snap.RWCtxts `json:"rw_ctxts"`
}

func (v rwReport) writeText(w io.Writer) {
	if len(v.RW.InUse) == 0 {
		fmt.Fprintln(w, "in use: none")
	}
	for _, r := range v.RW.InUse {
		fmt.Fprintf(w, "rw#%d %s: nents %d, first_sgl_nents %d, chained %s, %s\n", r.ID, r.Type, r.NEnts, r.FirstSGLNents, yesNo(r.Chained), r.Where)
	}
	ids := make([]string, len(v.RW.Cached))
	for i, id := range v.RW.Cached {
		ids[i] = fmt.Sprintf("rw#%d", id)
	}
	if len(ids) == 0 {
		ids = []string{"empty"}
	}
	fmt.Fprintf(w, "cache (top first): %s\ncreated: %d\n", strings.Join(ids, " "), v.RW.Created)
}

// sglReport shows the same rw ctxts, entry by entry.
type sglReport rwReport

func (v sglReport) writeText(w io.Writer) {
	if len(v.RW.InUse) == 0 {
		fmt.Fprintln(w, "no rw ctxt is in use, so no SGL is built (the next Read or Write builds one)")
		return
	}
	for _, r := range v.RW.InUse {
		fmt.Fprintf(w, "rw#%d %s, %s: %d entries", r.ID, r.Type, r.Where, r.NEnts)
		if r.Chained {
			fmt.Fprintf(w, " (chained: more than first_sgl_nents %d)", r.FirstSGLNents)
		}
		fmt.Fprintln(w)
		writeSGEs(w, "    sgl", r.SGL)
	}
}

// writeSGEs prints a scatterlist one entry a line, folding a run of
// entries that differ only in their page (whole pages of one chunk) into
// its first and last entries and a line that counts the rest.
func writeSGEs(w io.Writer, label string, sges []snap.SGE) {
	line := func(i int, e snap.SGE) {
		if e.IOVA != "" {
			fmt.Fprintf(w, "%s[%d] %-6s iova %s len %5d\n", label, i, e.Page, e.IOVA, e.Len)
			return
		}
		fmt.Fprintf(w, "%s[%d] %-6s off %4d len %5d", label, i, e.Page, e.Off, e.Len)
		if e.Source != "" {
			fmt.Fprintf(w, "  %s", e.Source)
		}
		fmt.Fprintln(w)
	}
	for i := 0; i < len(sges); {
		j := i + 1
		for j < len(sges) && sges[j].Off == sges[i].Off && sges[j].Len == sges[i].Len && sges[j].Source == sges[i].Source {
			j++
		}
		if j-i < 5 {
			for ; i < j; i++ {
				line(i, sges[i])
			}
			continue
		}
		line(i, sges[i])
		fmt.Fprintf(w, "%s[%d..%d] %d more like it: %s..%s off %d len %d\n",
			label, i+1, j-2, j-i-2, sges[i+1].Page, sges[j-2].Page, sges[i].Off, sges[i].Len)
		line(j-1, sges[j-1])
		i = j
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

type readsReport struct {
	Reads []snap.Read `json:"reads"`
}

func (v readsReport) writeText(w io.Writer) {
	if len(v.Reads) == 0 {
		fmt.Fprintln(w, "no Read list is being pulled")
		return
	}
	for _, r := range v.Reads {
		fmt.Fprintf(w, "xid %s: rc_curpage %d, rc_pageoff %d, rc_readbytes %d, rc_page_count %d, cc_sqecount %d\n",
			r.XID, r.CurPage, r.PageOff, r.ReadBytes, r.PageCount, r.SQECount)
		for _, c := range r.Chunks {
			fmt.Fprintf(w, "  %s\n", c)
		}
		for _, c := range r.RWCtxts {
			fmt.Fprintf(w, "  rw#%d %s nents %d (%s)\n", c.ID, c.Type, c.NEnts, c.Where)
		}
	}
}

type chainsReport struct {
	Chains []snap.Chain `json:"chains"`
}

func (v chainsReport) writeText(w io.Writer) {
	if len(v.Chains) == 0 {
		fmt.Fprintln(w, "no chain is on the Send Queue")
		return
	}
	for i, c := range v.Chains {
		fmt.Fprintf(w, "chain %d: %s, posted by %s, %d SQE(s)", i+1, c.Owner, c.Task, c.SQECount)
		if c.Pos != 0 {
			fmt.Fprintf(w, ", position %d", c.Pos)
		}
		fmt.Fprintln(w)
		for _, r := range c.WRs {
			fmt.Fprintf(w, "  %-10s %6dB", r.Opcode, r.Bytes)
			if r.RKey != "" {
				fmt.Fprintf(w, " remote %s rkey %s", r.Remote, r.RKey)
			}
			switch {
			case r.Signaled && r.CQE != "":
				fmt.Fprintf(w, " → %s", r.CQE)
			case r.Signaled:
				fmt.Fprintf(w, " signaled")
			}
			fmt.Fprintln(w)
			writeSGEs(w, "      sge", r.SGEs)
		}
	}
}

type sqReport struct {
	SQ     snap.SQ      `json:"sq"`
	Chains []snap.Chain `json:"chains"`
}

func (v sqReport) writeText(w io.Writer) {
	q := v.SQ
	fmt.Fprintf(w, "sc_sq_depth %d, sc_sq_avail %d (%d in use), sc_max_send_sges %d, sq_starve %d\n",
		q.Depth, q.Avail, q.Depth-q.Avail, q.MaxSGEs, q.Starve)
	if len(q.Waiters) == 0 {
		fmt.Fprintln(w, "waiters: none")
	} else {
		fmt.Fprintf(w, "waiters: %s\n", strings.Join(q.Waiters, "; "))
	}
	sqes := 0
	for _, c := range v.Chains {
		sqes += c.SQECount
	}
	fmt.Fprintf(w, "chains on the SQ: %d (%d SQEs); show chain lists them\n", len(v.Chains), sqes)
}

type cqReport struct {
	CQ      []snap.Completion `json:"cq"`
	Pending []string          `json:"pending"`
	ran     bool              // as pendingReport's
}

func (v cqReport) writeText(w io.Writer) {
	cq := v.CQ
	if len(cq) == 0 {
		fmt.Fprintln(w, "no completion yet")
	} else {
		if len(cq) > 20 {
			fmt.Fprintf(w, "(the last 20 of %d; --json has them all)\n", len(cq))
			cq = cq[len(cq)-20:]
		}
		for _, c := range cq {
			fmt.Fprintf(w, "%-6s %-4s wr_id %#x %-10s %-13s %dB\n", c.Side, c.Queue, c.WRID, c.Opcode, c.Status, c.Bytes)
		}
	}
	pendingReport{v.Pending, v.ran}.writeText(w)
}

type pendingReport struct {
	Pending []string `json:"pending"`
	// ran: a real device ran each work request when it was posted; only
	// its completions wait.
	ran bool
}

func (v pendingReport) writeText(w io.Writer) {
	switch {
	case len(v.Pending) == 0:
		fmt.Fprintln(w, "nothing is pending on the wire")
		return
	case v.ran:
		fmt.Fprintf(w, "run by the device when posted, their completions held (complete delivers them in this order):\n")
	default:
		fmt.Fprintf(w, "pending on the wire (complete delivers them in this order):\n")
	}
	for _, p := range v.Pending {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

type positionsReport struct {
	Positions snap.Positions `json:"positions"`
}

func (v positionsReport) writeText(w io.Writer) {
	p := v.Positions
	if !p.Enabled {
		fmt.Fprintln(w, "the reply-position patch is off (set positions on)")
		return
	}
	lock := "on"
	if !p.PostLock {
		lock = "off (the race is possible)"
	}
	holder := "free"
	if p.LockHeld != "" {
		holder = "held by " + p.LockHeld
	}
	fmt.Fprintf(w, "sc_post_seq %d, xpt_acked_pos %d; sc_post_lock %s, %s\n", p.PostSeq, p.AckedPos, lock, holder)
	if len(p.Replies) == 0 {
		fmt.Fprintln(w, "no reply in the DRC yet")
		return
	}
	for _, r := range p.Replies {
		state := "not acked"
		switch {
		case r.Evicted && r.SendQueued:
			state = "acked, evicted from the DRC, but its Send is still queued: not delivered"
		case r.Evicted:
			state = "acked, evicted from the DRC"
		case r.Acked && r.SendQueued:
			state = "acked, but its Send is still queued: not delivered"
		case r.PosFromRqst && r.Acked:
			state = "acked (rq_reply_pos; svc_rdma_sendto has not returned)"
		case r.PosFromRqst:
			state = "posted (rq_reply_pos; svc_rdma_sendto has not returned)"
		case r.Inflight:
			state = "in flight"
		case r.Acked:
			state = "acked"
		case r.Pos == 0:
			state = "no position: the reply never reached the wire, never acked"
		}
		fmt.Fprintf(w, "  xid %s %-8s pos %-4d %s\n", r.XID, r.Proc, r.Pos, state)
	}
}

type eventsReport struct {
	Events []trace.Event `json:"events"`
}

func (v eventsReport) writeText(w io.Writer) {
	if len(v.Events) == 0 {
		fmt.Fprintln(w, "no events yet")
	}
	for _, e := range v.Events {
		fmt.Fprintf(w, "%6d %s\n", e.Seq, e.String())
	}
}

type countersReport struct {
	Counters    snap.Counters `json:"counters"`
	RWCreated   int           `json:"rw_ctxts_created"`
	Completions int           `json:"completions"`
}

func (v countersReport) writeText(w io.Writer) {
	c := v.Counters
	fmt.Fprintf(w, "reads %d, writes %d, sq_starve %d, recv errors %d, send errors %d, faults %d\n",
		c.Reads, c.Writes, c.SQStarve, c.RecvErrors, c.SendErrors, c.Faults)
	fmt.Fprintf(w, "hung tasks %d, rw ctxts created %d, completions kept %d\n", c.Hung, v.RWCreated, v.Completions)
}

type snapshotReport struct {
	snap.Snapshot
}

func (v snapshotReport) writeText(w io.Writer) {
	s := v.Snapshot
	fmt.Fprintf(w, "behaviour %s, clock %s", s.Behaviour, s.Clock)
	if s.XprtClosing || s.XprtDead {
		fmt.Fprintf(w, ", transport closing %s, dead %s", yesNo(s.XprtClosing), yesNo(s.XprtDead))
	}
	fmt.Fprintln(w)
	for _, part := range []struct {
		title string
		v     report
	}{
		{"threads", threadsReport{s.Threads}},
		{"calls", callsReport{s.Calls}},
		{"send queue", sqReport{s.SQ, s.Chains}},
		{"rw ctxts", rwReport{s.RWCtxts}},
		{"positions", positionsReport{s.Positions}},
		{"wire", pendingReport{Pending: s.Pending}},
	} {
		fmt.Fprintf(w, "-- %s\n", part.title)
		part.v.writeText(w)
	}
}
