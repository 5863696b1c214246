package replay

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Player walks a timeline: it holds every transport's picture after the
// current step, starting before the first. It can follow one transport
// (Follow) or all of them, interleaved as on the wire. It builds the
// timeline as far as it goes. It is not safe for concurrent use.
type Player struct {
	tl    *Timeline
	at    int      // the last step applied; -1 before the first
	world []*state // each transport's picture, by Conn.ID-1
	owned []bool   // world[k] is the player's own (else a checkpoint's)
	only  int      // the transport followed (Conn.ID), 0: every one
	st    *state   // the picture shown: the current step's transport's
	step  Step     // the current step (at ≥ 0)
}

// Player returns a player before the first step.
func (tl *Timeline) Player() *Player {
	p := &Player{tl: tl, at: -1}
	p.show()
	return p
}

// Timeline is what p plays.
func (p *Player) Timeline() *Timeline { return p.tl }

// At is the index of the current step, -1 before the first.
func (p *Player) At() int { return p.at }

// Step returns the current step, or nil before the first.
func (p *Player) Step() *Step {
	if p.at < 0 {
		return nil
	}
	return &p.step
}

// Follow makes the player follow transport id (Conn.ID) alone, or every
// transport for 0; the place does not change.
func (p *Player) Follow(id int) {
	p.only = min(max(id, 0), len(p.tl.Conns))
	p.show()
}

// Following is the transport followed, 0 for every one.
func (p *Player) Following() int { return p.only }

// Conn is the transport whose picture is shown, 0 for none yet.
func (p *Player) Conn() int {
	if p.only != 0 {
		return p.only
	}
	if p.at >= 0 && p.step.Conn != 0 {
		return p.step.Conn
	}
	for i := p.at - 1; i >= 0; i-- {
		if c := p.tl.Step(i).Conn; c != 0 {
			return c
		}
	}
	return 0
}

// show points st at the picture of the transport shown.
func (p *Player) show() {
	p.st = nil
	if c := p.Conn(); c > 0 && c <= len(p.world) {
		p.st = p.world[c-1]
	}
	if p.st == nil {
		p.st = newState(p.tl.pageSize)
	}
}

// apply applies step j to its transport's picture.
func (p *Player) apply(j int) {
	s := p.tl.Step(j)
	if s.Conn == 0 {
		return
	}
	k := s.Conn - 1
	for len(p.world) <= k {
		p.world = append(p.world, nil)
		p.owned = append(p.owned, false)
	}
	switch {
	case p.world[k] == nil:
		p.world[k], p.owned[k] = newState(p.tl.pageSize), true
	case !p.owned[k]:
		p.world[k], p.owned[k] = p.world[k].clone(), true
	}
	st := p.world[k]
	st.frame, st.rel = s.Frame, s.Time
	_ = s.op.apply(st) // a step that does not read changes what it could
}

// Seek moves to step i (clamped to -1 … the last step), building the
// timeline as far as it must. Going forward it applies the steps in
// between; going back it starts again from the nearest checkpoint.
func (p *Player) Seek(i int) {
	p.tl.more(i)
	i = min(max(i, -1), p.tl.NumSteps()-1)
	if i < p.at || i-p.at > p.tl.ckEvery {
		cks := p.tl.checkpoints
		k := sort.Search(len(cks), func(k int) bool { return cks[k].step > i }) - 1
		if i >= 0 && k >= 0 {
			p.world = slices.Clone(cks[k].world)
			p.owned = make([]bool, len(p.world))
			p.at = cks[k].step - 1
		} else {
			p.world, p.owned = nil, nil
			p.at = -1
		}
	}
	for p.at < i {
		p.at++
		p.apply(p.at)
	}
	if p.at >= 0 {
		p.step = p.tl.Step(p.at)
	}
	p.show()
}

// follows reports whether step j is of the transport followed.
func (p *Player) follows(j int) bool {
	return p.only == 0 || p.tl.Step(j).Conn == p.only
}

// find is the first step from j on (building as it goes) for which ok
// holds, or -1.
func (p *Player) find(j int, ok func(int) bool) int {
	for ; p.tl.more(j); j++ {
		if p.follows(j) && ok(j) {
			return j
		}
	}
	return -1
}

// findBack is the last step before j for which ok holds, or -1.
func (p *Player) findBack(j int, ok func(int) bool) int {
	for j--; j >= 0; j-- {
		if p.follows(j) && ok(j) {
			return j
		}
	}
	return -1
}

func always(int) bool { return true }

// SeekFrame moves to the step of a capture frame (1-based), or, when that
// frame is not a step (it changes nothing the server sees), to the last
// step before it. It returns the step's index (-1: before the first) and
// whether it is the frame's own step.
func (p *Player) SeekFrame(frame int) (int, bool) {
	tl := p.tl
	for tl.NumSteps() == 0 || tl.Step(tl.NumSteps()-1).Frame <= frame {
		if !tl.pump() {
			break
		}
	}
	// Steps are in capture order: the first step after the frame, less one.
	i := sort.Search(tl.NumSteps(), func(k int) bool { return tl.Step(k).Frame > frame }) - 1
	p.Seek(i)
	return i, i >= 0 && p.step.Frame == frame
}

// Forward moves one step on (of the transport followed); false at the end.
func (p *Player) Forward() bool {
	j := p.find(p.at+1, always)
	if j < 0 {
		return false
	}
	p.Seek(j)
	return true
}

// Back moves one step back; false before the first.
func (p *Player) Back() bool {
	if p.at < 0 {
		return false
	}
	p.Seek(p.findBack(p.at, always))
	return true
}

// starts reports whether step j is the first of its RPC.
func (p *Player) starts(j int) bool {
	s := p.tl.Step(j)
	return s.RPC != 0 && p.tl.RPCs[s.RPC-1].First == j
}

// NextRPC moves to the first step of the next RPC; false when no RPC
// starts after the current step.
func (p *Player) NextRPC() bool {
	j := p.find(p.at+1, p.starts)
	if j < 0 {
		return false
	}
	p.Seek(j)
	return true
}

// PrevRPC moves back to the first step of the RPC before the current one
// (or to the start of the current one, when inside it).
func (p *Player) PrevRPC() bool {
	if p.at < 0 {
		return false
	}
	p.Seek(p.findBack(p.at, p.starts))
	return true
}

// settle builds until RPC id's last step is known: until the capture is
// read well past its newest step.
func (p *Player) settle(id int) {
	tl := p.tl
	for !tl.done {
		r := &tl.RPCs[id-1]
		if r.Last >= 0 && tl.Frames > tl.Step(r.Last).Frame+maxLook {
			return
		}
		tl.pump()
	}
}

// FinishRPC moves to the last step of the current RPC (the ACK of its
// reply); when the current step ends its RPC, or belongs to none, to the
// end of the next RPC that has steps after it.
func (p *Player) FinishRPC() bool {
	if r := p.tl.RPCOf(p.at); r != nil && p.follows(p.at) {
		p.settle(r.ID)
		if r = &p.tl.RPCs[r.ID-1]; r.Last > p.at {
			p.Seek(r.Last)
			return true
		}
	}
	j := p.find(p.at+1, p.starts)
	if j < 0 {
		return false
	}
	id := p.tl.Step(j).RPC
	p.settle(id)
	p.Seek(max(p.tl.RPCs[id-1].Last, j))
	return true
}

// NextCompletion moves to the next step where a completion must have
// happened (a chain's last READ response, the ACK of a Send).
func (p *Player) NextCompletion() bool {
	j := p.find(p.at+1, func(i int) bool {
		for _, e := range p.tl.StepEvents(i) {
			if e.Task == taskCQ && e.Kind == trace.Call && e.Func != kernel.SvcRdmaWcReceive.Name() {
				return true
			}
		}
		return false
	})
	if j < 0 {
		return false
	}
	p.Seek(j)
	return true
}

// End moves to the last step (of the transport followed).
func (p *Player) End() bool {
	p.tl.All()
	j := p.findBack(p.tl.NumSteps(), always)
	if j < 0 || j == p.at {
		return false
	}
	p.Seek(j)
	return true
}

// Events returns the newest n events up to the current step, oldest first,
// escaped for a terminal (Timeline.StepEvents has them exact).
func (p *Player) Events(n int) []trace.Event {
	end := p.tl.prelude
	if p.at >= 0 {
		end = p.step.evTo
	}
	n = min(max(n, 0), end)
	var evs []trace.Event
	if c := p.Conn(); p.tl.transports() > 1 && c > 0 {
		evs = p.connEvents(c, n)
	} else {
		evs = p.tl.log.slice(end-n, end)
	}
	for i := range evs {
		evs[i] = safeEvent(evs[i])
	}
	return evs
}

// maxEventScan bounds how many steps back Events looks for a transport's
// own (of 58 transports interleaved, a few hundred steps hold the newest).
const maxEventScan = 4096

// connEvents is the newest n events of transport c's steps up to the
// current one (and the prelude), oldest first: each transport's events
// are its own, as its picture is.
func (p *Player) connEvents(c, n int) []trace.Event {
	var parts [][]trace.Event
	got := 0
	for j := p.at; j >= 0 && j > p.at-maxEventScan && got < n; j-- {
		s := p.tl.Step(j)
		if s.Conn != c && s.Conn != 0 {
			continue
		}
		evs := p.tl.log.slice(max(s.evFrom, s.evTo-(n-got)), s.evTo)
		parts = append(parts, evs)
		got += len(evs)
	}
	if got < n && p.at < maxEventScan {
		k := min(n-got, p.tl.prelude)
		parts = append(parts, p.tl.log.slice(p.tl.prelude-k, p.tl.prelude))
	}
	out := make([]trace.Event, 0, n)
	for k := len(parts) - 1; k >= 0; k-- {
		out = append(out, parts[k]...)
	}
	return out
}

// safeEvent is e with its strings escaped for a terminal (termText):
// texts quote names and summaries off the wire.
func safeEvent(e trace.Event) trace.Event {
	e.Task, e.Func, e.Err, e.Text = safe.Display(e.Task), safe.Display(e.Func), safe.Display(e.Err), safe.Display(e.Text)
	for i, a := range e.Args {
		if !safe.IsDisplayable(a.Key) || !safe.IsDisplayable(a.Val) {
			e.Args = slices.Clone(e.Args) // the log's slice may be shared
			for j := i; j < len(e.Args); j++ {
				e.Args[j] = trace.Arg{Key: safe.Display(e.Args[j].Key), Val: safe.Display(e.Args[j].Val)}
			}
			break
		}
	}
	return e
}

// Snapshot is the server's picture after the current step, its strings
// escaped for a terminal.
func (p *Player) Snapshot() snap.Snapshot {
	s := p.st.snapshot()
	s.Behaviour = p.Where()
	if p.at >= 0 {
		ev := safeEvent(p.tl.lastEvent(p.step))
		s.LastEvent = &ev
	}
	return s
}

// counted is n, with "+" while the capture is still being read.
func (p *Player) counted(n int) string {
	if p.tl.done {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d+", n)
}

// Where says the place in a few words: "replay frame 95/752 · xprt 2/4 · RPC 14/60".
func (p *Player) Where() string {
	frame := 0
	if s := p.Step(); s != nil {
		frame = s.Frame
	}
	w := fmt.Sprintf("replay frame %d/%s", frame, p.counted(p.tl.Frames))
	if c := p.Conn(); c > 0 && p.tl.transports() > 1 {
		w += fmt.Sprintf(" · xprt %d/%s", c, p.counted(p.tl.transports()))
		if p.only != 0 {
			w += " alone"
		}
	}
	if r := p.rpcNow(); r != nil {
		w += fmt.Sprintf(" · RPC %d/%s", r.ID, p.counted(len(p.tl.RPCs)))
	}
	return w
}

// rpcNow is the RPC of the current step, or the newest one begun.
func (p *Player) rpcNow() *RPC {
	if r := p.tl.RPCOf(p.at); r != nil {
		return r
	}
	var last *RPC
	for i := range p.tl.RPCs {
		if p.tl.RPCs[i].First <= p.at && p.tl.RPCs[i].First >= 0 {
			last = &p.tl.RPCs[i]
		}
	}
	return last
}

// Describe is the place for a title: "replay of FILE · xprt k of K · frame N of M · RPC k of K".
func (p *Player) Describe() string {
	frame := 0
	if s := p.Step(); s != nil {
		frame = s.Frame
	}
	d := "replay of " + safe.Text(p.tl.File)
	if c := p.Conn(); c > 0 && p.tl.transports() > 1 {
		d += fmt.Sprintf(" · xprt %d of %s", c, p.counted(p.tl.transports()))
		if p.only != 0 {
			d += " (alone)"
		}
	}
	d += fmt.Sprintf(" · frame %d of %s", frame, p.counted(p.tl.Frames))
	if r := p.rpcNow(); r != nil {
		d += fmt.Sprintf(" · RPC %d of %s", r.ID, p.counted(len(p.tl.RPCs)))
	}
	return d
}

// Narration is the current step in words, then its RPC; before the first
// step, what the replay is and its keys.
func (p *Player) Narration() string {
	s := p.Step()
	if s == nil {
		n := fmt.Sprintf("%d steps, %d RPCs", p.tl.NumSteps(), len(p.tl.RPCs))
		if !p.tl.done {
			n = "steps and RPCs counted as the capture is read"
		}
		who := fmt.Sprintf("server %v, client %v", p.tl.Server, p.tl.Client)
		if k := p.tl.transports(); k > 1 {
			who += fmt.Sprintf(" (xprt 1 of %s; t follows one transport, then the next, then all)", p.counted(k))
		}
		return fmt.Sprintf("%s: %s, %s. Keys: s a step (a packet), n the next RPC, f the end of this one, C the next completion, c the end, b and B back. Below: what the capture cannot tell.",
			p.Describe(), who, n)
	}
	// The step first: a small view shows only the first lines.
	text := fmt.Sprintf("frame %d: %s", s.Frame, safe.Display(p.tl.Text(p.at)))
	if p.tl.transports() > 1 && s.Conn > 0 {
		text = fmt.Sprintf("frame %d, xprt %d: %s", s.Frame, s.Conn, safe.Display(p.tl.Text(p.at)))
	}
	if r := p.tl.RPCOf(p.at); r != nil {
		text += fmt.Sprintf("\nRPC %d of %s: xid 0x%08x %s", r.ID, p.counted(len(p.tl.RPCs)), r.XID, safe.Display(r.Label))
	}
	return text
}
