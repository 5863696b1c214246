package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
)

const (
	// defaultPageSize is the page size rc_pages are drawn with: the wire
	// does not say the server's.
	defaultPageSize = 4096
	// ckEvery is how many steps apart the player's checkpoints are.
	ckEvery = 256
	// maxReplies and maxCalls bound what a picture lists (the newest).
	maxReplies = 64
	maxCalls   = 200
)

// The states a call goes through, as CallSnap.State says them.
const (
	callReceived  = "received"
	callPulling   = "pulling its Read list"
	callInNfsd    = "in nfsd"
	callReplying  = "reply posted"
	callReplied   = "reply sent"
	callDelivered = "reply acknowledged"
)

// callState is one call the server took.
type callState struct {
	rpc   int
	xid   uint32
	label string
	proc  string
	state string
}

// readState is a Read list being pulled (or landed, until the reply):
// what rc_pages the kernel lays it in and how much has landed.
type readState struct {
	rpc    int
	snap   engine.ReadSnap    // the parts that do not change (Pages empty)
	pages  [][]svcrdma.Extent // landed bytes per rc_pages slot
	landed int
	done   bool
}

// chainState is a posted chain not yet completed.
type chainState struct {
	rpc   int
	snap  engine.ChainSnap    // never changed once posted
	ctxts []engine.RWCtxtSnap // the R/W contexts it carries (Write and Reply chunks)
}

// replyState is a reply with its position.
type replyState struct {
	xid   uint32
	proc  string
	pos   uint64
	acked bool
}

// state is the server's picture after a step. Its slices are copied by
// clone; what they point to is never changed once built.
type state struct {
	frame     int
	rel       time.Duration
	pageSize  int
	calls     []callState
	reads     []readState
	chains    []chainState
	postSeq   uint64
	ackedPos  uint64
	replies   []replyState
	rwCreated int
	call      *engine.ChunkSnap // the transport header of the newest call
}

func newState(pageSize int) *state { return &state{pageSize: pageSize} }

func (s *state) clone() *state {
	c := *s
	c.calls = slices.Clone(s.calls)
	c.chains = slices.Clone(s.chains)
	c.replies = slices.Clone(s.replies)
	c.reads = slices.Clone(s.reads)
	for i := range c.reads {
		pages := slices.Clone(c.reads[i].pages)
		for j := range pages {
			pages[j] = slices.Clone(pages[j])
		}
		c.reads[i].pages = pages
	}
	return &c
}

// callOf returns the call of RPC id, or nil.
func (s *state) callOf(id int) *callState {
	for i := len(s.calls) - 1; i >= 0; i-- {
		if s.calls[i].rpc == id {
			return &s.calls[i]
		}
	}
	return nil
}

func (s *state) setCall(id int, st string) {
	if c := s.callOf(id); c != nil {
		c.state = st
	}
}

func (s *state) addCall(c callState) {
	if len(s.calls) == maxCalls {
		s.calls = slices.Delete(s.calls, 0, 1)
	}
	s.calls = append(s.calls, c)
}

func (s *state) readOf(id int) *readState {
	for i := range s.reads {
		if s.reads[i].rpc == id {
			return &s.reads[i]
		}
	}
	return nil
}

func (s *state) dropRead(id int) {
	s.reads = slices.DeleteFunc(s.reads, func(r readState) bool { return r.rpc == id })
}

// land marks n bytes at byte off of the rc_pages stream as landed from src.
func (r *readState) land(off, n, pageSize int, src string) {
	r.landed += n
	for n > 0 {
		pg, po := off/pageSize, off%pageSize
		k := min(n, pageSize-po)
		for len(r.pages) <= pg {
			r.pages = append(r.pages, nil)
		}
		r.pages[pg] = mark(r.pages[pg], po, k, src)
		off, n = off+k, n-k
	}
}

// mark adds [off, off+n) from src to a page's extents, merging it with an
// adjacent extent of the same source (responses land in order).
func mark(ext []svcrdma.Extent, off, n int, src string) []svcrdma.Extent {
	for i := range ext {
		e := &ext[i]
		if e.Source == src && e.Off+e.Len == off {
			e.Len += n
			return ext
		}
	}
	ext = append(ext, svcrdma.Extent{Off: off, Len: n, Source: src})
	slices.SortFunc(ext, func(a, b svcrdma.Extent) int { return a.Off - b.Off })
	return ext
}

func (s *state) removeChain(rpc int, owner string) {
	s.chains = slices.DeleteFunc(s.chains, func(c chainState) bool { return c.rpc == rpc && c.snap.Owner == owner })
}

func (s *state) addReply(r replyState) {
	if len(s.replies) == maxReplies {
		s.replies = slices.Delete(s.replies, 0, 1)
	}
	s.replies = append(s.replies, r)
}

func (s *state) ackReply(pos uint64) {
	for i := range s.replies {
		if s.replies[i].pos == pos {
			s.replies[i].acked = true
		}
	}
}

// snapshot is the picture as the view's panes read it. What the capture
// cannot tell stays empty: the CQ, the SQ depth, the threads.
func (s *state) snapshot() engine.Snapshot {
	snap := engine.Snapshot{
		Settings:  engine.Settings{PageSize: s.pageSize, Positions: true, PostLock: true},
		Behaviour: "replay",
		Clock:     fmtRel(s.rel),
	}
	for _, r := range s.reads {
		rs := r.snap
		rs.Pages = make([]engine.PageSnap, 0, rs.PageCount)
		for i := range rs.PageCount {
			ps := engine.PageSnap{Index: i, Name: pageName(i)}
			if i < len(r.pages) {
				ps.Extents = slices.Clone(r.pages[i])
			}
			rs.Pages = append(rs.Pages, ps)
		}
		snap.Reads = append(snap.Reads, rs)
		if !r.done {
			snap.RWCtxts.InUse = append(snap.RWCtxts.InUse, rs.RWCtxts...)
		}
	}
	for _, c := range s.chains {
		snap.Chains = append(snap.Chains, c.snap)
		snap.RWCtxts.InUse = append(snap.RWCtxts.InUse, c.ctxts...)
	}
	snap.RWCtxts.Created = s.rwCreated
	snap.Positions = engine.PositionSnap{Enabled: true, PostLock: true, PostSeq: s.postSeq, AckedPos: s.ackedPos}
	for _, r := range s.replies {
		snap.Positions.Replies = append(snap.Positions.Replies, engine.ReplySnap{XID: hexXID(r.xid), Proc: r.proc,
			Pos: r.pos, Acked: r.acked, Inflight: !r.acked})
	}
	for _, c := range s.calls {
		snap.Calls = append(snap.Calls, engine.CallSnap{XID: hexXID(c.xid), Label: c.label, Proc: c.proc, State: c.state})
	}
	if s.call != nil {
		snap.Threads = []engine.ThreadSnap{{Name: "nfsd", State: "unknown", Call: s.call}}
	}
	return snap
}

// inFlight is the WQEs posted and not yet completed.
func (s *state) inFlight() int {
	n := 0
	for _, c := range s.chains {
		n += c.snap.SQECount
	}
	return n
}

func pageName(i int) string { return fmt.Sprintf("pg%d", i) }

func hexXID(x uint32) string { return fmt.Sprintf("0x%08x", x) }

// fmtRel is a capture time as tshark prints it.
func fmtRel(d time.Duration) string { return fmt.Sprintf("%.6fs", d.Seconds()) }
