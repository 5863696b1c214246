package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// Snapshot is the whole state a view draws, JSON-serialisable. Field names
// are part of rdmalab's stable interface (`show --json`, `view --snapshot`).
type Snapshot struct {
	Settings    Settings         `json:"settings"`
	Behaviour   string           `json:"behaviour"`
	Clock       string           `json:"clock"`
	Threads     []ThreadSnap     `json:"threads"`
	Reads       []ReadSnap       `json:"reads"` // calls whose Read list is being pulled or just landed
	RWCtxts     RWSnap           `json:"rw_ctxts"`
	Chains      []ChainSnap      `json:"chains"` // chains on the Send Queue, not yet completed
	SQ          SQSnap           `json:"sq"`
	CQ          []Completion     `json:"cq"`
	Pending     []string         `json:"pending"` // provider operations waiting for delivery
	Positions   PositionSnap     `json:"positions"`
	Counters    svcrdma.Counters `json:"counters"`
	Calls       []CallSnap       `json:"calls"`
	LastEvent   *trace.Event     `json:"last_event,omitempty"`
	XprtClosing bool             `json:"xprt_closing"`
	XprtDead    bool             `json:"xprt_dead"`
}

// ThreadSnap is one nfsd thread.
type ThreadSnap struct {
	Name       string     `json:"name"`
	State      string     `json:"state"`
	WaitingFor string     `json:"waiting_for,omitempty"`
	Frames     []string   `json:"frames,omitempty"`
	Focused    bool       `json:"focused"`
	Pages      []PageSnap `json:"pages"` // rq_pages in use (with bytes from somewhere), in order
	ReplyPos   uint64     `json:"reply_pos"`
	Call       *ChunkSnap `json:"call,omitempty"` // the call this thread took last
}

// ChunkSnap is a call's transport header as the server parsed it.
type ChunkSnap struct {
	XID    string   `json:"xid"`
	Proc   string   `json:"proc"`
	Chunks []string `json:"chunks"`
}

func chunkSnap(rc *svcrdma.RecvCtxt) *ChunkSnap {
	cs := &ChunkSnap{XID: fmt.Sprintf("0x%x", rc.XID), Proc: rpcrdma.Proc(rc.MsgType).String()}
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

// PageSnap is one page and where its bytes came from.
type PageSnap struct {
	Index   int              `json:"index"` // slot in rq_pages (or rc_pages)
	Name    string           `json:"name"`
	Extents []svcrdma.Extent `json:"extents,omitempty"`
}

// SGESnap is one scatterlist entry. The SGE of an RDMA op on the MR path
// names the MR ("mr#1") and its IOVA instead of a page: the MR maps the
// pages its REG_MR listed.
type SGESnap struct {
	Page   string `json:"page"`
	Off    int    `json:"off"`
	Len    int    `json:"len"`
	Source string `json:"source,omitempty"`
	IOVA   string `json:"iova,omitempty"`
}

// RWCtxtSnap is one R/W context.
type RWCtxtSnap struct {
	ID            int       `json:"id"`
	Type          string    `json:"type"`
	NEnts         int       `json:"nents"`
	FirstSGLNents int       `json:"first_sgl_nents"`
	Chained       bool      `json:"chained"`
	SGL           []SGESnap `json:"sgl,omitempty"`
	Where         string    `json:"where"`
}

// RWSnap is the R/W contexts in use and in the cache.
type RWSnap struct {
	InUse   []RWCtxtSnap `json:"in_use"`
	Cached  []int        `json:"cached"` // ids, top of the cache first
	Created int          `json:"created"`
}

// ReadSnap is a recv ctxt pulling a Read list.
type ReadSnap struct {
	XID       string       `json:"xid"`
	CurPage   int          `json:"rc_curpage"`
	PageOff   int          `json:"rc_pageoff"`
	ReadBytes int          `json:"rc_readbytes"`
	PageCount int          `json:"rc_page_count"`
	SQECount  int          `json:"cc_sqecount"`
	Chunks    []string     `json:"chunks"`
	RWCtxts   []RWCtxtSnap `json:"rw_ctxts"` // in posting order
	Pages     []PageSnap   `json:"pages"`
}

// WRSnap is one work request.
type WRSnap struct {
	Opcode   string    `json:"opcode"`
	SGEs     []SGESnap `json:"sges,omitempty"`
	Bytes    int       `json:"bytes"`
	Remote   string    `json:"remote_addr,omitempty"`
	RKey     string    `json:"rkey,omitempty"`
	Signaled bool      `json:"signaled"`
	CQE      string    `json:"cqe,omitempty"`
	WRID     uint64    `json:"wr_id"`
}

// ChainSnap is one posted chain.
type ChainSnap struct {
	Owner    string   `json:"owner"`
	Task     string   `json:"task"`
	SQECount int      `json:"sqecount"`
	Pos      uint64   `json:"pos,omitempty"`
	WRs      []WRSnap `json:"wrs"`
}

// SQSnap is the Send Queue accounting.
type SQSnap struct {
	Depth   int      `json:"sc_sq_depth"`
	Avail   int      `json:"sc_sq_avail"`
	Waiters []string `json:"waiters,omitempty"`
	Starve  int      `json:"sq_starve"`
	MaxSGEs int      `json:"sc_max_send_sges"`
}

// ReplySnap is one reply's position. SendQueued says its Send is still on
// the Send Queue: acked with it set is the premature acknowledgement the
// post lock prevents (the reply is not delivered).
type ReplySnap struct {
	XID        string `json:"xid"`
	Proc       string `json:"proc"`
	Pos        uint64 `json:"pos"`
	Acked      bool   `json:"acked"`
	Inflight   bool   `json:"inflight"`
	Evicted    bool   `json:"evicted"`
	SendQueued bool   `json:"send_queued,omitempty"`
}

// PositionSnap is the patch's state.
type PositionSnap struct {
	Enabled  bool        `json:"enabled"`
	PostLock bool        `json:"post_lock"`
	PostSeq  uint64      `json:"sc_post_seq"`
	AckedPos uint64      `json:"xpt_acked_pos"`
	LockHeld string      `json:"lock_holder,omitempty"`
	Replies  []ReplySnap `json:"replies"`
}

// CallSnap is one client call. Status is what an answered call's reply
// says: the RPC accept status when it is not SUCCESS, else the NFSv3
// status ("NFS3_OK", "NFS3ERR_STALE"); empty without an RPC reply.
type CallSnap struct {
	XID    string `json:"xid"`
	Label  string `json:"label"`
	Proc   string `json:"proc"`
	State  string `json:"state"`
	Status string `json:"status,omitempty"`
	Err    string `json:"err,omitempty"`
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

func pageSnaps(pages []*svcrdma.Page, usedOnly bool) []PageSnap {
	var out []PageSnap
	for i, p := range pages {
		if p == nil || (usedOnly && len(p.Extents) == 0) {
			continue
		}
		out = append(out, PageSnap{Index: i, Name: p.Name(), Extents: append([]svcrdma.Extent(nil), p.Extents...)})
	}
	return out
}

func sgeSnaps(sgl []svcrdma.SGE) []SGESnap {
	out := make([]SGESnap, 0, len(sgl))
	for _, s := range sgl {
		out = append(out, SGESnap{Page: s.Page.Name(), Off: s.Off, Len: s.Len, Source: s.Source()})
	}
	return out
}

// wrSGEs is what a WR gathers or scatters: its SGL, or for an RDMA op
// through an MR the one SGE that covers the MR's range.
func wrSGEs(w *svcrdma.WR) []SGESnap {
	if w.MR == nil || (w.Op != verbs.WRRDMARead && w.Op != verbs.WRRDMAReadWithInv && w.Op != verbs.WRRDMAWrite) {
		return sgeSnaps(w.SGL)
	}
	return []SGESnap{{Page: fmt.Sprintf("mr#%d", w.MR.ID), Len: w.Bytes(), IOVA: fmt.Sprintf("0x%x", w.MR.IOVA())}}
}

func rwSnap(c *svcrdma.RWCtxt) RWCtxtSnap {
	n := min(c.NEnts, len(c.SGL))
	return RWCtxtSnap{ID: c.ID, Type: c.RW.Type.String(), NEnts: c.NEnts, FirstSGLNents: c.FirstSGLNents,
		Chained: c.Chained, SGL: sgeSnaps(c.SGL[:n]), Where: c.Where}
}

// A snapshot shows the most recent completions and calls only.
const (
	snapshotCQ    = 200
	snapshotCalls = 200
)

// Snapshot captures the lab's state.
func (l *Lab) Snapshot() Snapshot {
	x := l.Server
	s := Snapshot{Settings: l.Set, Behaviour: x.Beh.String(), Clock: l.Fabric.Now().String(),
		Counters: x.Counters, XprtClosing: x.Close, XprtDead: x.Dead}
	for _, rq := range l.Rqsts {
		ts := ThreadSnap{Name: rq.Name, State: "exited", Pages: pageSnaps(rq.Pages, true), ReplyPos: rq.ReplyPos}
		if rq.Decoding != nil {
			ts.Call = chunkSnap(rq.Decoding)
		}
		if t := l.Sched.Task(rq.Name); t != nil {
			ts.State, ts.WaitingFor, ts.Frames = t.State().String(), t.WaitingFor(), append([]string(nil), t.Frames()...)
			ts.Focused = l.Sched.Focused() == t
			if t.State() == sched.Blocked && t.WaitingFor() == "svc_recv" {
				ts.State = "idle"
			}
		}
		s.Threads = append(s.Threads, ts)
	}
	for _, rc := range x.ActiveReads() {
		rs := ReadSnap{XID: fmt.Sprintf("0x%x", rc.XID), CurPage: rc.CurPage, PageOff: rc.PageOff, ReadBytes: rc.ReadBytes,
			PageCount: rc.PageCount, SQECount: rc.CC.SQECount, Pages: pageSnaps(rc.Pages, false)}
		rs.Chunks = chunkSnap(rc).Chunks
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
	for _, c := range x.OutstandingChains() {
		cs := ChainSnap{Owner: c.Owner, Task: c.Task, SQECount: c.SQECount, Pos: c.Seq}
		for w := c.First; w != nil; w = w.Next {
			ws := WRSnap{Opcode: w.Op.String(), SGEs: wrSGEs(w), Bytes: w.Bytes(), Signaled: w.Signaled, WRID: w.ID}
			if w.RKey != 0 {
				ws.Remote, ws.RKey = fmt.Sprintf("0x%x", w.RemoteAddr), fmt.Sprintf("0x%x", w.RKey)
			}
			if w.CQE != nil {
				ws.CQE = w.CQE.Name
			}
			cs.WRs = append(cs.WRs, ws)
		}
		s.Chains = append(s.Chains, cs)
	}
	s.SQ = SQSnap{Depth: x.SQDepth, Avail: x.SQAvail, Starve: x.Counters.SQStarve, MaxSGEs: x.MaxSendSGEs}
	for _, t := range l.Sched.Tasks() {
		if w := t.WaitingFor(); w != "" && w != "svc_recv" {
			s.SQ.Waiters = append(s.SQ.Waiters, t.Name+": "+w)
		}
	}
	s.CQ = append([]Completion(nil), l.completions[max(0, len(l.completions)-snapshotCQ):]...)
	for _, op := range l.Fabric.Pending() {
		s.Pending = append(s.Pending, op.String())
	}
	s.Positions = PositionSnap{Enabled: l.Set.Positions, PostLock: l.Set.PostLock, PostSeq: x.PostSeq,
		AckedPos: x.AckedPos, LockHeld: x.PostLock.Holder()}
	queued := map[uint64]bool{}
	for _, c := range x.OutstandingChains() {
		if c.Seq != 0 {
			queued[c.Seq] = true
		}
	}
	for _, e := range l.NFS.DRC {
		s.Positions.Replies = append(s.Positions.Replies, ReplySnap{XID: fmt.Sprintf("0x%x", e.XID), Proc: e.Proc,
			Pos: e.Pos, Acked: nfsd.Acked(e, x), Inflight: e.Inflight, SendQueued: e.Pos != 0 && queued[e.Pos]})
	}
	for _, e := range l.NFS.Evicted {
		s.Positions.Replies = append(s.Positions.Replies, ReplySnap{XID: fmt.Sprintf("0x%x", e.XID), Proc: e.Proc,
			Pos: e.Pos, Acked: true, Evicted: true, SendQueued: e.Pos != 0 && queued[e.Pos]})
	}
	calls := l.Client.Calls()
	for _, k := range calls[max(0, len(calls)-snapshotCalls):] {
		st := "prepared"
		switch {
		case k.Done:
			st = "answered"
		case k.Sent:
			st = "sent"
		}
		s.Calls = append(s.Calls, CallSnap{XID: fmt.Sprintf("0x%x", k.XID), Label: k.Spec.Label, Proc: k.Header.Proc.String(),
			State: st, Status: callStatus(k), Err: k.Err})
	}
	if l.seq > 0 {
		ev := l.last
		s.LastEvent = &ev
	}
	return s
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
