package replay

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Player walks a timeline: it holds the picture after the current step,
// starting before the first. It is not safe for concurrent use.
type Player struct {
	tl *Timeline
	at int // the last step applied; -1 before the first
	st *state
}

// Player returns a player before the first step.
func (tl *Timeline) Player() *Player {
	return &Player{tl: tl, at: -1, st: newState(tl.pageSize)}
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
	return &p.tl.Steps[p.at]
}

// Seek moves to step i (clamped to -1 … the last step). Going forward it
// applies the steps in between; going back it starts again from the
// nearest checkpoint.
func (p *Player) Seek(i int) {
	i = min(max(i, -1), len(p.tl.Steps)-1)
	if i < p.at || i-p.at > ckEvery {
		from := 0
		if i >= 0 && len(p.tl.checkpoints) > 0 {
			from = min(i/ckEvery, len(p.tl.checkpoints)-1)
			p.st = p.tl.checkpoints[from].clone()
			from *= ckEvery
		} else {
			p.st = newState(p.tl.pageSize)
		}
		p.at = from - 1
	}
	for p.at < i {
		p.at++
		p.tl.Steps[p.at].apply(p.st)
	}
}

// SeekFrame moves to the step of a capture frame (1-based), or, when that
// frame is not a step (it changes nothing the server sees), to the last
// step before it. It returns the step's index (-1: before the first) and
// whether it is the frame's own step.
func (p *Player) SeekFrame(frame int) (int, bool) {
	steps := p.tl.Steps
	// Steps are in capture order: the first step after the frame, less one.
	i := sort.Search(len(steps), func(k int) bool { return steps[k].Frame > frame }) - 1
	p.Seek(i)
	return i, i >= 0 && steps[i].Frame == frame
}

// Forward moves one step on; false at the end.
func (p *Player) Forward() bool {
	if p.at+1 >= len(p.tl.Steps) {
		return false
	}
	p.Seek(p.at + 1)
	return true
}

// Back moves one step back; false before the first.
func (p *Player) Back() bool {
	if p.at < 0 {
		return false
	}
	p.Seek(p.at - 1)
	return true
}

// NextRPC moves to the first step of the next RPC; false when no RPC
// starts after the current step.
func (p *Player) NextRPC() bool {
	for _, r := range p.tl.RPCs {
		if r.First > p.at {
			p.Seek(r.First)
			return true
		}
	}
	return false
}

// PrevRPC moves back to the first step of the RPC before the current one
// (or to the start of the current one, when inside it).
func (p *Player) PrevRPC() bool {
	best := -2
	for _, r := range p.tl.RPCs {
		if r.First < p.at && r.First > best {
			best = r.First
		}
	}
	if best == -2 {
		if p.at < 0 {
			return false
		}
		best = -1
	}
	p.Seek(best)
	return true
}

// FinishRPC moves to the last step of the current RPC (the ACK of its
// reply); when the current step ends its RPC, or belongs to none, to the
// end of the next RPC that has steps after it.
func (p *Player) FinishRPC() bool {
	if r := p.tl.RPCOf(p.at); r != nil && r.Last > p.at {
		p.Seek(r.Last)
		return true
	}
	for _, r := range p.tl.RPCs {
		if r.Last > p.at && r.First > p.at {
			p.Seek(r.Last)
			return true
		}
	}
	return false
}

// NextCompletion moves to the next step where a completion must have
// happened (a chain's last READ response, the ACK of a Send).
func (p *Player) NextCompletion() bool {
	for i := p.at + 1; i < len(p.tl.Steps); i++ {
		for _, e := range p.tl.StepEvents(i) {
			if e.Task == taskCQ && e.Kind == trace.Call && e.Func != "svc_rdma_wc_receive" {
				p.Seek(i)
				return true
			}
		}
	}
	return false
}

// End moves to the last step.
func (p *Player) End() bool {
	if p.at == len(p.tl.Steps)-1 {
		return false
	}
	p.Seek(len(p.tl.Steps) - 1)
	return true
}

// Events returns the newest n events up to the current step, oldest first,
// escaped for a terminal (Timeline.StepEvents has them exact).
func (p *Player) Events(n int) []trace.Event {
	end := p.tl.prelude
	if p.at >= 0 {
		end = p.tl.Steps[p.at].evTo
	}
	n = min(max(n, 0), end)
	evs := p.tl.log.slice(end-n, end)
	for i := range evs {
		evs[i] = safeEvent(evs[i])
	}
	return evs
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
		ev := safeEvent(p.tl.log.at(p.tl.Steps[p.at].evTo - 1))
		s.LastEvent = &ev
	}
	return s
}

// Where says the place in a few words: "replay frame 95/752 · RPC 14/60".
func (p *Player) Where() string {
	frame := 0
	if s := p.Step(); s != nil {
		frame = s.Frame
	}
	w := fmt.Sprintf("replay frame %d/%d", frame, p.tl.Frames)
	if r := p.rpcNow(); r != nil {
		w += fmt.Sprintf(" · RPC %d/%d", r.ID, len(p.tl.RPCs))
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

// Describe is the place for a title: "replay of FILE · frame N of M · RPC k of K".
func (p *Player) Describe() string {
	frame := 0
	if s := p.Step(); s != nil {
		frame = s.Frame
	}
	d := fmt.Sprintf("replay of %s · frame %d of %d", safe.Text(p.tl.File), frame, p.tl.Frames)
	if r := p.rpcNow(); r != nil {
		d += fmt.Sprintf(" · RPC %d of %d", r.ID, len(p.tl.RPCs))
	}
	return d
}

// Narration is the current step in words, then its RPC; before the first
// step, what the replay is and its keys.
func (p *Player) Narration() string {
	s := p.Step()
	if s == nil {
		return fmt.Sprintf("%s: server %v, client %v, %d steps, %d RPCs. Keys: s a step (a packet), n the next RPC, f the end of this one, C the next completion, c the end, b and B back. Below: what the capture cannot tell.",
			p.Describe(), p.tl.Server, p.tl.Client, len(p.tl.Steps), len(p.tl.RPCs))
	}
	// The step first: a small view shows only the first lines.
	text := fmt.Sprintf("frame %d: %s", s.Frame, safe.Display(p.tl.Text(p.at)))
	if r := p.tl.RPCOf(p.at); r != nil {
		text += fmt.Sprintf("\nRPC %d of %d: xid 0x%08x %s", r.ID, len(p.tl.RPCs), r.XID, safe.Display(r.Label))
	}
	return text
}
