package engine

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// callHeader is the transport header of rc's call as the server parsed it.
func callHeader(rc *svcrdma.RecvCtxt) *snap.CallHeader {
	cs := &snap.CallHeader{XID: hexString(uint64(rc.XID)), Proc: rpcrdma.Proc(rc.MsgType).String()}
	for _, c := range rc.CallPCL.Chunks {
		cs.Chunks = append(cs.Chunks, fmt.Sprintf("call chunk: %d bytes in %d segments %v", c.Length, len(c.Segments), c.Segments))
	}
	for _, c := range rc.ReadPCL.Chunks {
		cs.Chunks = append(cs.Chunks, fmt.Sprintf("read chunk %d: position %d, %d bytes in %d segments %v", c.Index, c.Position, c.Length, len(c.Segments), c.Segments))
	}
	for _, c := range rc.WritePCL.Chunks {
		cs.Chunks = append(cs.Chunks, fmt.Sprintf("write chunk %d: %d bytes in %d segments %v", c.Index, c.Length, len(c.Segments), c.Segments))
	}
	for _, c := range rc.ReplyPCL.Chunks {
		cs.Chunks = append(cs.Chunks, fmt.Sprintf("reply chunk: %d bytes in %d segments %v", c.Length, len(c.Segments), c.Segments))
	}
	return cs
}

// hexString is fmt.Sprintf("0x%x", v) without fmt: a snapshot has one
// for each of its calls and replies.
func hexString(v uint64) string {
	var b [18]byte
	return string(strconv.AppendUint(append(b[:0], "0x"...), v, 16))
}

// callStatus reads k's reply: RPC status, then NFS status.
func callStatus(k *xprt.Call) string {
	r := k.Reply
	switch {
	case r == nil || r.Header.Proc == rpcrdma.ProcError:
		return ""
	case r.RPCErr != "":
		return "malformed RPC reply"
	case r.RPC.Stat != oncrpc.MsgAccepted:
		return "MSG_DENIED " + r.RPC.RejectStat.String()
	case r.RPC.AcceptStat != oncrpc.Success:
		return r.RPC.AcceptStat.String()
	case k.Prog == nfs.ProgNFS && k.Vers == 3 && k.RPCProc != 0 && len(r.Results) >= 4:
		return nfs.Stat3(binary.BigEndian.Uint32(r.Results)).String()
	}
	return oncrpc.Success.String()
}

func pageSnaps(pages []*svcrdma.Page, usedOnly bool) []snap.Page {
	var out []snap.Page
	for i, p := range pages {
		if p == nil || (usedOnly && len(p.Extents) == 0) {
			continue
		}
		out = append(out, snap.Page{Index: i, Name: p.Name(), Extents: extents(p.Extents)})
	}
	return out
}

// extents copies a page's extents into the picture.
func extents(ext []svcrdma.Extent) []snap.Extent {
	if len(ext) == 0 {
		return nil
	}
	out := make([]snap.Extent, len(ext))
	for i, e := range ext {
		out[i] = snap.Extent(e)
	}
	return out
}

func sgeSnaps(sgl []svcrdma.SGE) []snap.SGE {
	out := make([]snap.SGE, 0, len(sgl))
	for _, s := range sgl {
		out = append(out, snap.SGE{Page: s.Page.Name(), Off: s.Off, Len: s.Len, Source: s.Source()})
	}
	return out
}

// wrSGEs is what a WR gathers or scatters: its SGL, or for an RDMA op
// through an MR the one SGE that covers the MR's range.
func wrSGEs(w *svcrdma.WR) []snap.SGE {
	if w.MR == nil || (w.Op != verbs.WRRDMARead && w.Op != verbs.WRRDMAReadWithInv && w.Op != verbs.WRRDMAWrite) {
		return sgeSnaps(w.SGL)
	}
	return []snap.SGE{{Page: fmt.Sprintf("mr#%d", w.MR.ID), Len: w.Bytes(), IOVA: hexString(w.MR.IOVA())}}
}

func rwSnap(c *svcrdma.RWCtxt) snap.RWCtxt {
	n := min(c.NEnts, len(c.SGL))
	return snap.RWCtxt{ID: c.ID, Type: c.RW.Type.String(), NEnts: c.NEnts, FirstSGLNents: c.FirstSGLNents,
		Chained: c.Chained, SGL: sgeSnaps(c.SGL[:n]), Where: c.Where}
}

// A snapshot shows the most recent completions and calls only.
const (
	snapshotCQ    = 200
	snapshotCalls = 200
)

// Part is a part of a snapshot that costs more than the rest to take,
// which a reader that does not show it can ask to leave out.
type Part uint8

const (
	PartCalls   Part = 1 << iota // Calls: the client's newest calls
	PartReplies                  // Positions.Replies: the DRC's replies
	// PartsCostly is every part SnapshotWithout can leave out.
	PartsCostly = PartCalls | PartReplies
)

// Snapshot captures the lab's state.
func (l *Lab) Snapshot() snap.Snapshot { return l.SnapshotWithout(0) }

// SnapshotWithout is Snapshot with the parts in leave left empty.
func (l *Lab) SnapshotWithout(leave Part) snap.Snapshot {
	x := l.Server
	s := snap.Snapshot{Settings: l.Set.Snap(), Behaviour: x.Beh.String(), Clock: l.Now().String(),
		Counters: snap.Counters(x.Counters), XprtClosing: x.Close, XprtDead: x.Dead}
	for _, rq := range l.Rqsts {
		ts := snap.Thread{Name: rq.Name, State: "exited", Pages: pageSnaps(rq.Pages, true), ReplyPos: rq.ReplyPos}
		if rq.Decoding != nil {
			ts.Call = callHeader(rq.Decoding)
		}
		if t := l.Sched.Task(rq.Name); t != nil {
			ts.State, ts.WaitingFor, ts.Frames = t.State().String(), t.WaitingFor(), append([]string(nil), t.Frames()...)
			ts.Focused = l.Sched.Focused() == t
			if t.State() == sched.Blocked && t.WaitingFor() == kernel.SvcRecv.Name() {
				ts.State = "idle"
			}
		}
		s.Threads = append(s.Threads, ts)
	}
	for _, rc := range x.ActiveReads() {
		rs := snap.Read{XID: hexString(uint64(rc.XID)), CurPage: rc.CurPage, PageOff: rc.PageOff, ReadBytes: rc.ReadBytes,
			PageCount: rc.PageCount, SQECount: rc.CC.SQECount, Pages: pageSnaps(rc.Pages, false)}
		rs.Chunks = callHeader(rc).Chunks
		for i := len(rc.CC.RWCtxts) - 1; i >= 0; i-- {
			rs.RWCtxts = append(rs.RWCtxts, rwSnap(rc.CC.RWCtxts[i]))
		}
		s.Reads = append(s.Reads, rs)
	}
	for _, c := range x.InUseRWCtxts() {
		s.RWCtxts.InUse = append(s.RWCtxts.InUse, rwSnap(c))
	}
	for _, c := range x.RWCache {
		s.RWCtxts.Cached = append(s.RWCtxts.Cached, c.ID)
	}
	s.RWCtxts.Created = x.RWCreated()
	s.Recent = recentSnap(x)
	for _, c := range x.OutstandingChains() {
		cs := snap.Chain{Owner: c.Owner, Task: c.Task, SQECount: c.SQECount, Pos: c.Seq}
		for w := c.First; w != nil; w = w.Next {
			ws := snap.WR{Opcode: w.Op.String(), SGEs: wrSGEs(w), Bytes: w.Bytes(), Signaled: w.Signaled, WRID: w.ID}
			if w.RKey != 0 {
				ws.Remote, ws.RKey = hexString(w.RemoteAddr), hexString(uint64(w.RKey))
			}
			if w.CQE != nil {
				ws.CQE = w.CQE.Name
			}
			cs.WRs = append(cs.WRs, ws)
		}
		s.Chains = append(s.Chains, cs)
	}
	s.SQ = snap.SQ{Depth: x.SQDepth, Avail: x.SQAvail, Starve: x.Counters.SQStarve, MaxSGEs: x.MaxSendSGEs}
	for _, t := range l.Sched.Tasks() {
		if w := t.WaitingFor(); w != "" && w != kernel.SvcRecv.Name() {
			s.SQ.Waiters = append(s.SQ.Waiters, t.Name+": "+w)
		}
	}
	if n := len(l.completions); n > 0 {
		// Shared, not copied: addCompletion will not write over it, and
		// the capacity is cut so appending to it cannot either.
		s.CQ, l.cqShared = l.completions[max(0, n-snapshotCQ):n:n], true
	}
	for _, op := range l.Pending() {
		s.Pending = append(s.Pending, op.String())
	}
	s.Positions = snap.Positions{Enabled: l.Set.Positions, PostLock: l.Set.PostLock, PostSeq: x.PostSeq,
		AckedPos: x.AckedPos, LockHeld: x.PostLock.Holder()}
	if leave&PartReplies == 0 {
		s.Positions.Replies = l.snapReplies()
	}
	if leave&PartCalls == 0 {
		s.Calls = l.snapCalls()
	}
	if l.seq > 0 {
		ev := l.Last()
		s.LastEvent = &ev
	}
	return s
}

// snapReplies is the DRC as a snapshot shows it, with each reply's position.
func (l *Lab) snapReplies() []snap.Reply {
	x := l.Server
	var out []snap.Reply
	queued := map[uint64]bool{}
	for _, c := range x.OutstandingChains() {
		if c.Seq != 0 {
			queued[c.Seq] = true
		}
	}
	// A reply posted but not yet recorded in the DRC (its thread is still
	// in svc_rdma_sendto) has its position in the thread's rq_reply_pos:
	// the race shows the moment the acked position passes it.
	posted := map[*nfsd.DRCEntry]uint64{}
	for _, rq := range l.Rqsts {
		if e := l.NFS.Current(rq.Name); e != nil && rq.ReplyPos != 0 {
			posted[e] = rq.ReplyPos
		}
	}
	if n := len(l.NFS.DRC) + len(l.NFS.Evicted); n > 0 {
		out = make([]snap.Reply, 0, n)
	}
	for _, e := range l.NFS.DRC {
		r := snap.Reply{XID: hexString(uint64(e.XID)), Proc: e.Proc,
			Pos: e.Pos, Acked: nfsd.Acked(e, x), Inflight: e.Inflight}
		if p, ok := posted[e]; ok && e.Inflight && e.Pos == 0 {
			r.Pos, r.PosFromRqst = p, true
			r.Acked = e.Xprt == x.XptID && p <= x.AckedPosition()
		}
		r.SendQueued = r.Pos != 0 && queued[r.Pos]
		out = append(out, r)
	}
	for _, e := range l.NFS.Evicted {
		out = append(out, snap.Reply{XID: hexString(uint64(e.XID)), Proc: e.Proc,
			Pos: e.Pos, Acked: true, Evicted: true, SendQueued: e.Pos != 0 && queued[e.Pos]})
	}
	return out
}

// snapCalls is the newest calls as a snapshot shows them.
func (l *Lab) snapCalls() []snap.Call {
	var out []snap.Call
	calls := l.Client.Calls()
	calls = calls[max(0, len(calls)-snapshotCalls):]
	if len(calls) > 0 {
		out = make([]snap.Call, 0, len(calls))
	}
	prev, next := &l.callSnaps, &l.callSpare
	next.keys, next.snaps = next.keys[:0], next.snaps[:0]
	at := 0
	for _, k := range calls {
		// An answered call shrunk to a summary is never written again:
		// its line is the last snapshot's.
		final := k.Summary && k.Done
		var c snap.Call
		var ok bool
		if final {
			c, at, ok = prev.find(k, at)
		}
		if !ok {
			c = l.callSnap(k)
		}
		if final {
			next.keys, next.snaps = append(next.keys, k), append(next.snaps, c)
		}
		out = append(out, c)
	}
	l.callSnaps, l.callSpare = l.callSpare, l.callSnaps
	return out
}

// callSnap is call k as a snapshot shows it.
func (l *Lab) callSnap(k *xprt.Call) snap.Call {
	st := callState(k)
	errText := k.Err
	if why, ok := l.Server.DropOf(k.XID); ok && !k.Done {
		st, errText = "dropped", "dropped by "+why
	}
	c := snap.Call{XID: hexString(uint64(k.XID)), Label: k.Spec.Label, Proc: k.Header.Proc.String(),
		State: st, Status: callStatus(k), Err: errText}
	if len(k.Segs) > 0 {
		c.Segments = make([]snap.Segment, len(k.Segs))
	}
	for i, sg := range k.Segs {
		c.Segments[i] = snap.Segment{Kind: sg.Kind, Handle: hexString(uint64(sg.Handle)), Length: sg.Length, Offset: hexString(sg.Offset)}
		if strings.HasPrefix(sg.Kind, "read") || sg.Kind == "call chunk" {
			p := sg.Position
			c.Segments[i].Position = &p
		}
	}
	return c
}

// callSnapCache is the answered, summarized calls of a snapshot and their
// lines, in the order of the calls.
type callSnapCache struct {
	keys  []*xprt.Call
	snaps []snap.Call
}

// find looks k up from entry i on, where the next snapshot's calls, in
// the same order, are; it returns k's line and where to look next.
func (c *callSnapCache) find(k *xprt.Call, i int) (snap.Call, int, bool) {
	for j := i; j < len(c.keys); j++ {
		if c.keys[j] == k {
			return c.snaps[j], j + 1, true
		}
	}
	return snap.Call{}, i, false
}

// Page finds a server page by the name views and events print ("pg3"):
// one an nfsd thread holds in rq_pages, or one a Read is filling.
func (l *Lab) Page(name string) (*svcrdma.Page, bool) {
	for _, rq := range l.Rqsts {
		for _, p := range rq.Pages {
			if p != nil && p.Name() == name {
				return p, true
			}
		}
	}
	for _, rc := range l.Server.ActiveReads() {
		for _, p := range rc.Pages {
			if p != nil && p.Name() == name {
				return p, true
			}
		}
	}
	return nil, false
}

// recentSnap is what x did lately that its state does not say.
func recentSnap(x *svcrdma.Xprt) *snap.Recent {
	r := x.Recent()
	out := &snap.Recent{RWNew: r.RWNew, RWReused: r.RWReused, SQNeed: r.SQNeed}
	for _, c := range x.InUseRWCtxts() {
		if out.RWGot == nil {
			out.RWGot = map[int]bool{}
		}
		out.RWGot[c.ID] = c.Reused
	}
	for _, sd := range r.Sends {
		out.Sends = append(out.Sends, snap.SendDone{Pos: sd.Pos, OK: sd.OK})
	}
	return out
}
