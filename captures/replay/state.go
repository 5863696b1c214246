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
	// runs are the bytes landed, in the order they landed, a run that
	// continues the last from the same source merged into it (a READ's
	// responses): pages are cut from them for every picture. A clone
	// shares them; the first shared of them, up to len(runs) when cloned,
	// are never changed again.
	runs   []landRun
	shared int
	landed int
	done   bool
	// drawn is the last dense picture's pages, which the next one starts
	// from: a picture a step, each cut again from every byte landed,
	// made a READ of n responses cost n² to step through.
	drawn *drawnPages
}

// drawnPages is a dense page list and the runs it was cut from: the first
// nRuns of runs (the array at first), the last of them lastN bytes long.
type drawnPages struct {
	first        *landRun
	nRuns, lastN int
	pages        []snap.Page // never changed: pictures hold it
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
	names     names // apply's cache of the names it interned lately
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
	sends     []snap.SendDone  // the latest Send completions, oldest first
}

func newState(pageSize int) *state { return &state{pageSize: pageSize} }

func (s *state) clone() *state {
	c := *s
	c.calls = slices.Clone(s.calls)
	c.chains = slices.Clone(s.chains)
	c.replies = slices.Clone(s.replies)
	c.sends = slices.Clone(s.sends)
	c.reads = slices.Clone(s.reads)
	for i := range c.reads {
		// Clipped: an append to either copy cannot write into the other's,
		// and neither merges into a run they share.
		r := &c.reads[i]
		r.runs = r.runs[:len(r.runs):len(r.runs)]
		r.shared = len(r.runs)
		s.reads[i].shared = len(r.runs)
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
	if k := len(r.runs) - 1; k >= r.shared && r.runs[k].src == src && r.runs[k].off+r.runs[k].n == off {
		r.runs[k].n += n // cut into pages, the same extents as two runs
		return
	}
	r.runs = append(r.runs, landRun{off: off, n: n, src: src})
}

// pages cuts the landed runs into rc_pages, as the picture lists them:
// every page of a dense layout, else the pages planned or landed in; at
// most maxDrawnPages.
func (r *readState) pages(pageSize int) []snap.Page {
	if r.dense {
		return r.densePages(pageSize)
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

// densePages lists every page of a dense layout with the extents landed
// in it: the last picture's list (drawn) with what landed since, when
// this state's runs continue the ones it was cut from, else cut anew.
func (r *readState) densePages(pageSize int) []snap.Page {
	n := min(r.snap.PageCount, maxDrawnPages)
	d := r.drawn
	var out []snap.Page
	from, skip := 0, 0 // cut runs[from:], the first of them past skip bytes
	if d != nil && len(d.pages) == n && d.nRuns > 0 && len(r.runs) >= d.nRuns &&
		&r.runs[0] == d.first && r.runs[d.nRuns-1].n >= d.lastN {
		out = slices.Clone(d.pages)
		from, skip = d.nRuns-1, d.lastN
	} else {
		out = make([]snap.Page, n)
		for i := range out {
			out[i] = snap.Page{Index: i, Name: pageName(i)}
		}
	}
	touched := make(map[int]bool)
	cutRuns(r.runs[from:], skip, pageSize, func(pg, po, k int, src string) {
		if pg < len(out) {
			if !touched[pg] { // the extents are the last picture's too
				out[pg].Extents = slices.Clone(out[pg].Extents)
				touched[pg] = true
			}
			out[pg].Extents = mark(out[pg].Extents, po, k, src)
		}
	})
	if len(r.runs) > 0 {
		r.drawn = &drawnPages{first: &r.runs[0], nRuns: len(r.runs), lastN: r.runs[len(r.runs)-1].n, pages: out}
	}
	return out
}

// cut calls fn for each page piece of each landed run, in landing order.
func (r *readState) cut(pageSize int, fn func(pg, po, k int, src string)) {
	cutRuns(r.runs, 0, pageSize, fn)
}

// cutRuns is cut over runs, the first of them past its first skip bytes.
func cutRuns(runs []landRun, skip, pageSize int, fn func(pg, po, k int, src string)) {
	for i, run := range runs {
		off, n := run.off, run.n
		if i == 0 {
			off, n = off+skip, n-skip
		}
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

// maxSends bounds the Send completions the picture keeps, as the lab's.
const maxSends = 32

func (s *state) sent(pos uint64, ok bool) {
	if len(s.sends) == maxSends {
		s.sends = slices.Delete(s.sends, 0, 1)
	}
	s.sends = append(s.sends, snap.SendDone{Pos: pos, OK: ok})
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
	for i := range s.reads {
		r := &s.reads[i] // pages keeps what it drew for the next picture
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
	if len(s.sends) > 0 {
		pic.Recent = &snap.Recent{Sends: slices.Clone(s.sends)}
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
