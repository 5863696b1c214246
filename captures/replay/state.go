package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/rdmalab/rdmalab/engine/snap"
)

const (
	// defaultPageSize is the page size rc_pages are drawn with: the wire
	// does not say the server's.
	defaultPageSize = 4096
	// ckEvery is how many steps apart the player's checkpoints are.
	ckEvery = 256
	// maxReplies, maxCalls, maxReads and maxChains bound what a picture
	// holds (the newest): a checkpoint copies them, so a capture that
	// never completes anything must not grow each copy. A real server's
	// credits and Send Queue keep far fewer in flight.
	maxReplies = 64
	maxCalls   = 200
	maxReads   = 128
	maxChains  = 256
	// maxDrawnPages bounds the rc_pages a picture lists for one Read list
	// (the kernel's own limit, rq_maxpages, is a few hundred).
	maxDrawnPages = 16384
)

// The states a call goes through, as snap.Call.State says them.
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
	rpc  int
	snap snap.Read // the parts that do not change (Pages empty)
	// dense: the capture holds the bytes of the whole layout, so every
	// page of it is listed; otherwise only the pages planned (the SGLs
	// point into them) and those bytes landed in, since the layout's
	// length is only what the call claimed.
	dense   bool
	planned []int // sorted; shared, never changed
	// runs are the bytes landed, in the order they landed: append-only,
	// so a clone shares them (pages are cut from them for a picture).
	runs   []landRun
	landed int
	done   bool
}

// landRun is n bytes at off of the rc_pages stream, landed from src.
type landRun struct {
	off, n int
	src    string
}

// chainState is a posted chain not yet completed.
type chainState struct {
	rpc   int
	snap  snap.Chain    // never changed once posted
	ctxts []snap.RWCtxt // the R/W contexts it carries (Write and Reply chunks)
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
	call      *snap.CallHeader // the transport header of the newest call
}

func newState(pageSize int) *state { return &state{pageSize: pageSize} }

func (s *state) clone() *state {
	c := *s
	c.calls = slices.Clone(s.calls)
	c.chains = slices.Clone(s.chains)
	c.replies = slices.Clone(s.replies)
	c.reads = slices.Clone(s.reads)
	for i := range c.reads {
		// Clipped: an append to either copy cannot write into the other's.
		r := &c.reads[i]
		r.runs = r.runs[:len(r.runs):len(r.runs)]
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

func (s *state) addRead(r readState) {
	if len(s.reads) == maxReads {
		s.reads = slices.Delete(s.reads, 0, 1)
	}
	s.reads = append(s.reads, r)
}

func (s *state) addChain(c chainState) {
	if len(s.chains) == maxChains {
		s.chains = slices.Delete(s.chains, 0, 1)
	}
	s.chains = append(s.chains, c)
}

func (s *state) dropRead(id int) {
	s.reads = slices.DeleteFunc(s.reads, func(r readState) bool { return r.rpc == id })
}

// land records n bytes at byte off of the rc_pages stream as landed from
// src. The builder has checked the place against the segment.
func (r *readState) land(off, n int, src string) {
	r.landed += n
	r.runs = append(r.runs, landRun{off: off, n: n, src: src})
}

// pages cuts the landed runs into rc_pages, as the picture lists them:
// every page of a dense layout, else the pages planned or landed in; at
// most maxDrawnPages.
func (r *readState) pages(pageSize int) []snap.Page {
	if r.dense {
		exts := make([][]snap.Extent, min(r.snap.PageCount, maxDrawnPages))
		r.cut(pageSize, func(pg, po, k int, src string) {
			if pg < len(exts) {
				exts[pg] = mark(exts[pg], po, k, src)
			}
		})
		out := make([]snap.Page, len(exts))
		for i, e := range exts {
			out[i] = snap.Page{Index: i, Name: pageName(i), Extents: e}
		}
		return out
	}
	exts := map[int][]snap.Extent{}
	for _, pg := range r.planned {
		if len(exts) < maxDrawnPages {
			exts[pg] = nil
		}
	}
	r.cut(pageSize, func(pg, po, k int, src string) {
		if e, ok := exts[pg]; ok || len(exts) < maxDrawnPages {
			exts[pg] = mark(e, po, k, src)
		}
	})
	out := make([]snap.Page, 0, len(exts))
	for pg, e := range exts {
		out = append(out, snap.Page{Index: pg, Name: pageName(pg), Extents: e})
	}
	slices.SortFunc(out, func(a, b snap.Page) int { return a.Index - b.Index })
	return out
}

// cut calls fn for each page piece of each landed run, in landing order.
func (r *readState) cut(pageSize int, fn func(pg, po, k int, src string)) {
	for _, run := range r.runs {
		off, n := run.off, run.n
		for n > 0 {
			pg, po := off/pageSize, off%pageSize
			k := min(n, pageSize-po)
			fn(pg, po, k, run.src)
			off, n = off+k, n-k
		}
	}
}

// maxPageExtents bounds the extents a page is drawn with: a real Read
// list has one or two sources a page, and a view draws a few cells.
const maxPageExtents = 32

// mark adds [off, off+n) from src to a page's extents, merging it with an
// adjacent extent of the same source (responses land in order).
func mark(ext []snap.Extent, off, n int, src string) []snap.Extent {
	for i := range ext {
		e := &ext[i]
		if e.Source == src && e.Off+e.Len == off {
			e.Len += n
			return ext
		}
	}
	if len(ext) >= maxPageExtents {
		return ext
	}
	ext = append(ext, snap.Extent{Off: off, Len: n, Source: src})
	slices.SortFunc(ext, func(a, b snap.Extent) int { return a.Off - b.Off })
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
func (s *state) snapshot() snap.Snapshot {
	pic := snap.Snapshot{
		Settings:  snap.Settings{PageSize: s.pageSize, Positions: true, PostLock: true},
		Behaviour: "replay",
		Clock:     fmtRel(s.rel),
	}
	for _, r := range s.reads {
		rs := r.snap
		rs.Pages = r.pages(s.pageSize)
		pic.Reads = append(pic.Reads, rs)
		if !r.done {
			pic.RWCtxts.InUse = append(pic.RWCtxts.InUse, rs.RWCtxts...)
		}
	}
	for _, c := range s.chains {
		pic.Chains = append(pic.Chains, c.snap)
		pic.RWCtxts.InUse = append(pic.RWCtxts.InUse, c.ctxts...)
	}
	pic.RWCtxts.Created = s.rwCreated
	pic.Positions = snap.Positions{Enabled: true, PostLock: true, PostSeq: s.postSeq, AckedPos: s.ackedPos}
	for _, r := range s.replies {
		pic.Positions.Replies = append(pic.Positions.Replies, snap.Reply{XID: hexXID(r.xid), Proc: r.proc,
			Pos: r.pos, Acked: r.acked, Inflight: !r.acked})
	}
	for _, c := range s.calls {
		pic.Calls = append(pic.Calls, snap.Call{XID: hexXID(c.xid), Label: c.label, Proc: c.proc, State: c.state})
	}
	if s.call != nil {
		pic.Threads = []snap.Thread{{Name: "nfsd", State: "unknown", Call: s.call}}
	}
	return pic
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
