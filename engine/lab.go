// Package engine joins the parts of the lab: the client (engine/xprt), the
// server transport (engine/svcrdma) with its upper layer (engine/nfsd), and
// the verbs.Provider they share: the sim (engine/sim) by default, or a real
// device (engine/ibv). It owns the event stream and the stepping: the model
// emits an event at each trace point, and the Lab runs it one event, one
// function or one completion at a time.
//
// Lab.Snapshot takes the lab's picture as engine/snap's data types, which
// the view and the capture replay read without the simulator. A Lab is
// not safe for concurrent use: Shared guards one for a session whose
// commands run on one goroutine while views read on others.
package engine

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/xprt"
)

// maxHistory bounds the events a Lab keeps.
const maxHistory = 100_000

// What crossed the wire is kept up to this many operations and bytes.
const (
	maxTransfers     = 100_000
	maxTransferBytes = 64 << 20
)

// MaxSteps bounds one run, so a model bug cannot hang a session.
const MaxSteps = 5_000_000

// Lab is one session's engine.
type Lab struct {
	Set Settings
	// Provider runs the lab's work requests: the sim's (sim.Provider) or a
	// real device's (engine/ibv). What only one of them can do is a
	// capability found by interface assertion (verbs.Link, ...).
	Provider verbs.Provider
	// DeviceReport says, on a real device, where its attributes differ
	// from the sim's and what the connection goes by.
	DeviceReport []string
	Sched        *sched.Scheduler
	Server       *svcrdma.Xprt
	Client       *xprt.Client
	NFS          *nfsd.Server
	Rqsts        []*svcrdma.Rqst

	history       history
	seq           uint64
	last          *trace.Event // the newest event, in history; nil before any
	sinks         []func(trace.Event)
	completions   []snap.Completion
	cqShared      bool          // a snapshot holds completions' newest (addCompletion)
	callSnaps     callSnapCache // the last snapshot's finished calls (snapshot.go)
	callSpare     callSnapCache // the next one, built while the last is read
	transfers     fifo[sim.Transfer]
	transferChunk fifo[*chunk] // the chunk of each kept transfer's payload
	payloads      payloads     // payloads.go
	transferBytes int
	capture       captureState // capture.go
	xptID         uint64
	lastPattern   []byte
	wcs           [32]verbs.WC // pollCQs' scratch
	cqs           [4]cqRef     // the CQs pollCQs drains, set by build
	noteBuf       []byte       // deliver's scratch
	run           runState     // runUntil's, for inline
}

// cqRef is one CQ pollCQs drains, and whose it is.
type cqRef struct {
	side, name string
	cq         verbs.CQ
}

// runState is the run Run is doing: its stop and halt conditions, and
// the steps it has taken.
type runState struct {
	stop  func(trace.Event) bool
	halt  func() bool
	steps int
}

// Stop says why Run ended.
type Stop uint8

// Why a run ends.
const (
	Reached Stop = iota // stop accepted an event
	Idle                // nothing can run
	Faulted             // a FAULT event: the kernel would have crashed
	Halted              // halt said so (the REPL's Ctrl-C)
	Runaway             // MaxSteps steps without any of the above
)

// New builds a lab with settings s: the fabric, both peers, a connected
// RC QP pair and the nfsd threads, parked in svc_recv.
func New(s Settings) (*Lab, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Engine != "" && s.Engine != "sim" {
		return newReal(s)
	}
	l := &Lab{Set: s, Sched: sched.New(), xptID: 1}
	f := sim.NewFabric(sim.Config{Seed: s.Seed, LinkRate: s.LinkRate, Latency: s.Latency})
	l.Provider = sim.NewProvider(f)
	l.capture.keep = true
	l.setTap()
	devS, err := f.NewDevice("server", s.deviceAttr(), sim.GrantSendSGE(s.QPMaxSendSGE))
	if err != nil {
		return nil, fmt.Errorf("server device: %w", err)
	}
	devC, err := f.NewDevice("client", sim.DefaultAttr())
	if err != nil {
		return nil, fmt.Errorf("client device: %w", err)
	}
	if err := l.build(devS, devC); err != nil {
		return nil, err
	}
	return l, nil
}

// build joins the peers on their devices: a connected RC QP pair and the
// nfsd threads, parked in svc_recv.
func (l *Lab) build(devS, devC verbs.Device) error {
	s := l.Set
	pdS, err := devS.AllocPD()
	if err != nil {
		return fmt.Errorf("server PD: %w", err)
	}
	l.Server, err = svcrdma.NewXprt(devS, pdS, s.xprtConfig(), s.Behaviour(), l.xptID, l.Now)
	if err != nil {
		return err
	}
	if err := l.Server.CreateQP(); err != nil {
		return err
	}
	l.Client, err = xprt.New(devC, s.InlineThreshold, s.Credits, uint32(0x5eed0000+s.Seed%0x10000*0x10))
	if err != nil {
		return err
	}
	if err := l.Server.Connect("client", l.Client.QP().Num(), s.PathMTU); err != nil {
		return err
	}
	if err := l.Client.Connect("server", l.Server.QP().Num(), s.PathMTU, 32); err != nil {
		return err
	}
	l.cqs = [...]cqRef{
		{"server", "send", l.Server.SendCQ}, {"server", "recv", l.Server.RecvCQ},
		{"client", "send", l.Client.SendCQ}, {"client", "recv", l.Client.RecvCQ},
	}
	l.NFS = nfsd.New(l.Server.PageSize)
	for i := 0; i < s.Threads; i++ {
		rq := l.Server.NewRqst(fmt.Sprintf("nfsd%d", i))
		l.Rqsts = append(l.Rqsts, rq)
		l.Sched.Go(rq.Name, false, func(t *sched.Task) { l.Server.Serve(t, rq, l.NFS) })
	}
	// Park the threads in svc_recv without recording the start-up.
	for i := 0; i < 1000 && l.Sched.Runnable(); i++ {
		l.Sched.Step()
	}
	return nil
}

// Close ends the lab's tasks and lets go of the provider's devices.
func (l *Lab) Close() {
	l.Sched.Close()
	_ = l.Provider.Close()
}

// Now is the provider's clock: virtual on the sim, the time since the
// device was opened on a real one.
func (l *Lab) Now() time.Duration { return l.Provider.Now() }

// Pending lists the posted work requests the model has not seen complete:
// on the sim, operations not yet executed; on a real device, work the
// device ran whose completions wait for the learner.
func (l *Lab) Pending() []verbs.Op { return l.Provider.Pending() }

// PendingCount is len(Pending()).
func (l *Lab) PendingCount() int { return l.Provider.PendingCount() }

// Subscribe calls f with every event from now on.
func (l *Lab) Subscribe(f func(trace.Event)) { l.sinks = append(l.sinks, f) }

// History is every event kept (the last 100 000), oldest first, as a copy.
func (l *Lab) History() []trace.Event { return l.Tail(maxHistory) }

// Tail is the newest n events kept, oldest first, as a copy.
func (l *Lab) Tail(n int) []trace.Event {
	n = min(n, l.history.n)
	out := make([]trace.Event, n)
	start := l.history.n - n
	for i := range out {
		out[i] = *l.history.at(start + i)
	}
	return out
}

// Since is the events kept whose Seq is above seq, oldest first.
func (l *Lab) Since(seq uint64) []trace.Event {
	n := 0
	if l.seq > seq {
		n = int(min(l.seq-seq, uint64(l.history.n)))
	}
	return l.Tail(n)
}

// Last is the most recent event.
func (l *Lab) Last() trace.Event {
	if l.last == nil {
		return trace.Event{}
	}
	return *l.last
}

// Completions lists the completions delivered so far (the last
// maxCompletions).
func (l *Lab) Completions() []snap.Completion { return l.completions }

// SetCapture turns the recording of wire transfers on or off (on by
// default; off saves a copy of every payload). A capture StartCapture
// streams goes on either way.
func (l *Lab) SetCapture(on bool) {
	l.capture.keep = on
	l.setTap()
}

// Transfers lists what crossed the wire (the seam the captures package
// turns into packets). A payload's bytes are reused once the bounds drop
// its transfer: copy what is kept longer than the next commands.
func (l *Lab) Transfers() []sim.Transfer { return l.transfers.items() }

// maxCompletions is how many completions a Lab keeps.
const maxCompletions = 1000

// addCompletion keeps c with the newest maxCompletions, dropping the
// oldest quarter at once so the cost stays constant per completion. When
// a snapshot holds the newest ones (Snapshot's CQ), those kept move to a
// new array rather than over what it holds.
func (l *Lab) addCompletion(c snap.Completion) {
	if n := len(l.completions); n >= maxCompletions {
		keep := l.completions[n-maxCompletions+maxCompletions/4:]
		if l.cqShared {
			l.completions, l.cqShared = append(make([]snap.Completion, 0, cap(l.completions)), keep...), false
		} else {
			l.completions = append(l.completions[:0], keep...)
		}
	}
	l.completions = append(l.completions, c)
}

// keepTransfer remembers what crossed the wire, bounded by count and by
// payload bytes.
func (l *Lab) keepTransfer(t sim.Transfer) {
	c := l.payloads.kept(t.Payload)
	if b, shared, ok := l.payloads.share(t.Payload, c); ok {
		t.Payload, c = b, shared
	}
	if n := l.transfers.len(); n >= maxTransfers {
		// Drop the oldest quarter at once, so the cost stays constant per
		// transfer.
		l.dropTransfers(n - maxTransfers + maxTransfers/4)
	}
	l.transfers.push(t)
	l.transferChunk.push(c)
	l.transferBytes += len(t.Payload)
	k, bytes := 0, l.transferBytes
	for kept := l.transfers.items(); bytes > maxTransferBytes && k < len(kept)-1; k++ {
		bytes -= len(kept[k].Payload)
	}
	l.dropTransfers(k)
}

// dropTransfers lets the k oldest kept transfers go.
func (l *Lab) dropTransfers(k int) {
	chunks := l.transferChunk.items()
	for i, old := range l.transfers.items()[:k] {
		l.transferBytes -= len(old.Payload)
		l.payloads.drop(chunks[i])
	}
	l.transfers.drop(k)
	l.transferChunk.drop(k)
	l.capture.dropped += k
}

func (l *Lab) record(ev trace.Event) {
	l.recordp(&ev)
}

// recordp is record for an event the caller holds: it is numbered and
// copied once, into the history.
func (l *Lab) recordp(ev *trace.Event) {
	l.seq++
	ev.Seq = l.seq
	l.last = l.history.push(ev)
	for _, f := range l.sinks {
		f(*l.last)
	}
}

func (l *Lab) note(task, fn, format string, a ...any) {
	ev := trace.Event{Kind: trace.Note, Task: task, Func: fn}
	if !l.Sched.Quiet { // what a quiet trace leaves out, as deliver's notes
		ev.Text = fmt.Sprintf(format, a...)
	}
	l.record(ev)
}

// Step runs the model to its next event. It reports false when nothing can
// run: every thread waits and no completion is delivered automatically.
//
// With automatic completion the wire is faster than the CPU: whatever the
// provider has pending executes before the next thread event.
func (l *Lab) Step() bool {
	if l.Set.AutoComplete && l.PendingCount() > 0 {
		_, ok := l.deliver(nil)
		return ok
	}
	if ev, ok := l.Sched.Step(); ok {
		if ev.Kind != sched.Taken { // inline took it (runUntil)
			l.recordp(&ev)
		}
		return true
	}
	// Completions the provider made without an operation (flushes when a
	// QP enters ERR) wait in the CQs.
	before := l.seq
	l.pollCQs()
	if l.Sched.Runnable() {
		return l.Step()
	}
	return l.seq != before
}

// StepN runs n steps and reports how many ran.
func (l *Lab) StepN(n int) int {
	i := 0
	for ; i < n && l.Step(); i++ {
	}
	return i
}

// runUntil steps until stop says so (checked after each event; nil: never),
// a FAULT, or idle. It reports whether stop was met.
func (l *Lab) runUntil(stop func(trace.Event) bool) bool {
	why := l.Run(stop, nil)
	if why == Runaway {
		l.note("lab", "runaway", "stopped after %d steps", MaxSteps)
	}
	return why == Reached
}

// Run steps until stop accepts an event (checked after each event; nil:
// never), a FAULT, idle, halt reports true (checked before each step;
// nil: never) or MaxSteps steps, and says which.
//
// The thread that emits an event goes on to its next one without
// suspending (inline) whenever the next step would pick it again anyway:
// the events, their order and what runs between them are the same as
// with one Step at a time.
func (l *Lab) Run(stop func(trace.Event) bool, halt func() bool) Stop {
	l.run = runState{stop: stop, halt: halt}
	l.Sched.SetInline(l.inline)
	defer func() {
		l.Sched.SetInline(nil)
		l.run = runState{}
	}()
	for ; l.run.steps < MaxSteps; l.run.steps++ {
		if halt != nil && halt() {
			return Halted
		}
		before := l.seq
		if !l.Step() {
			return Idle
		}
		if l.seq == before {
			continue
		}
		if stop != nil && stop(*l.last) {
			return Reached
		}
		if l.last.Kind == trace.Fault {
			return Faulted
		}
	}
	return Runaway
}

// inline takes event ev of task t during Run, as Step would, and reports
// whether Run's next step would be t's next event: the loop goes on (not
// stopped, no fault, not halted, steps left) and Step would pick t, with
// nothing to deliver first.
func (l *Lab) inline(t *sched.Task, ev *trace.Event) bool {
	l.recordp(ev)
	if (l.run.stop != nil && l.run.stop(*ev)) || ev.Kind == trace.Fault || l.run.steps+1 >= MaxSteps {
		return false
	}
	if l.run.halt != nil && l.run.halt() {
		return false
	}
	if l.Set.AutoComplete && l.PendingCount() > 0 {
		return false
	}
	if !l.Sched.Picks(t) {
		return false
	}
	l.run.steps++
	return true
}

// Next steps over: after a function entry it runs to that function's
// return; otherwise it runs one event, and over the whole call if that
// event enters a function.
func (l *Lab) Next() bool {
	last := l.Last()
	if last.Kind != trace.Call {
		if !l.Step() {
			return false
		}
		last = l.Last()
		if last.Kind != trace.Call {
			return true
		}
	}
	return l.runUntil(func(e trace.Event) bool {
		return e.Task == last.Task && e.Kind == trace.Return && e.Depth == last.Depth && e.Func == last.Func
	})
}

// Finish runs until the function the last event happened in returns.
func (l *Lab) Finish() bool {
	last := l.Last()
	target := last.Depth - 1
	if last.Kind == trace.Call {
		target = last.Depth
	}
	if target < 0 {
		return l.Continue()
	}
	return l.runUntil(func(e trace.Event) bool {
		return e.Task == last.Task && e.Kind == trace.Return && e.Depth == target
	})
}

// Continue runs until nothing can run (every thread waits for work or for
// a completion the learner delivers) or a FAULT.
func (l *Lab) Continue() bool {
	return l.runUntil(nil)
}

// Thread focuses the scheduler on one nfsd thread: it runs whenever it can,
// which is how a lesson forces an interleaving. "" clears the focus.
func (l *Lab) Thread(name string) error {
	if name == "" {
		l.Sched.Focus(nil)
		return nil
	}
	t := l.Sched.Task(name)
	if t == nil {
		return fmt.Errorf("no thread %q", name)
	}
	l.Sched.Focus(t)
	return nil
}

// StepThread runs one event of the named thread, whatever the focus.
func (l *Lab) StepThread(name string) error {
	t := l.Sched.Task(name)
	if t == nil {
		return fmt.Errorf("no thread %q", name)
	}
	ev, ok := l.Sched.StepTask(t)
	if !ok {
		if w := t.WaitingFor(); w != "" {
			return fmt.Errorf("%s is blocked in %s", name, w)
		}
		return fmt.Errorf("%s cannot run", name)
	}
	l.record(ev)
	return nil
}

// ErrNothingPending says there is no posted work request to complete.
var ErrNothingPending = errors.New("no work request is waiting for its completion")

// Complete delivers the next n operations of the provider (n < 0: all) and
// runs the completion handlers they trigger; status, when given, is what
// the first one completes with.
func (l *Lab) Complete(n int, status *verbs.Status) (int, error) {
	if _, ok := l.Provider.(verbs.StatusChooser); status != nil && !ok {
		return 0, ErrSimOnly("completing with a chosen status")
	}
	done, before := 0, l.seq
	l.pollCQs()
	l.runHandlers()
	for n < 0 || done < n {
		if l.PendingCount() == 0 {
			break
		}
		st := status
		if done > 0 {
			st = nil
		}
		if _, ok := l.deliver(st); !ok {
			break
		}
		done++
		l.runHandlers()
	}
	if done == 0 && l.seq == before {
		return 0, ErrNothingPending
	}
	return done, nil
}

// runHandlers runs the completion handlers to their end: in the kernel
// they run in softirq context and never sleep.
func (l *Lab) runHandlers() {
	for i := 0; i < MaxSteps; i++ {
		t := l.Sched.NextHandler()
		if t == nil {
			return
		}
		ev, ok := l.Sched.StepTask(t)
		if !ok {
			return
		}
		l.record(ev)
	}
}

// deliver executes the provider's next operation and polls the CQs;
// status, when given, is what it completes with (Complete has checked
// that the provider can choose).
func (l *Lab) deliver(status *verbs.Status) (verbs.Op, bool) {
	var op verbs.Op
	var err error
	if c, ok := l.Provider.(verbs.StatusChooser); ok && status != nil {
		op, err = c.DeliverNextAs(*status)
	} else {
		op, err = l.Provider.DeliverNext()
	}
	if errors.Is(err, verbs.ErrIdle) {
		return op, false
	}
	if err != nil {
		l.note("wire", "execute", "%v", err)
		l.pollCQs()
		return op, false
	}
	if l.Sched.Quiet {
		// The note's text is what a quiet trace leaves out.
		l.record(trace.Event{Kind: trace.Note, Task: "wire", Func: "execute"})
		l.pollCQs()
		return op, true
	}
	// "server qp 7 RDMA_READ 4096B remote 0x… rkey 0x…", built without fmt:
	// every operation executed makes one, in a buffer the Lab keeps.
	b := l.noteBuf[:0]
	b = append(append(b, op.Node...), " qp "...)
	b = strconv.AppendUint(b, uint64(op.QPNum), 10)
	b = append(append(append(b, ' '), op.Opcode.String()...), ' ')
	b = append(strconv.AppendInt(b, int64(op.Bytes), 10), 'B')
	if op.RKey != 0 {
		b = strconv.AppendUint(append(b, " remote 0x"...), op.RemoteAddr, 16)
		b = strconv.AppendUint(append(b, " rkey 0x"...), uint64(op.RKey), 16)
	}
	if op.Retry {
		b = append(b, " (RNR NAK: will retry)"...)
	} else if op.Status != verbs.StatusSuccess {
		b = append(append(b, " → "...), op.Status.String()...)
	}
	l.noteBuf = b
	l.record(trace.Event{Kind: trace.Note, Task: "wire", Func: "execute", Text: string(b)})
	l.pollCQs()
	return op, true
}

// pollCQs drains all four CQs: the server's completions become handler
// tasks (the kernel's CQ poller calls each cqe's done), the client's are
// handled at once.
func (l *Lab) pollCQs() {
	// The scratch array lives in the Lab: a local one escapes through the
	// interface call and would be allocated at every poll.
	wcs := l.wcs[:]
	for i := range l.cqs {
		q := &l.cqs[i]
		for {
			n := q.cq.Poll(wcs)
			if n == 0 {
				break
			}
			for _, wc := range wcs[:n] {
				l.addCompletion(snap.Completion{Seq: l.seq, Side: q.side, Queue: q.name,
					WRID: wc.WRID, Opcode: wc.Opcode.String(), Status: wc.Status.String(), Bytes: wc.ByteLen})
				l.dispatch(q.side, q.name, wc)
			}
		}
	}
}

func (l *Lab) dispatch(side, queue string, wc verbs.WC) {
	switch {
	case side == "server" && queue == "send":
		l.Sched.Go("cq", true, func(t *sched.Task) { l.Server.HandleSendWC(t, wc) })
	case side == "server":
		l.Sched.Go("cq", true, func(t *sched.Task) { l.Server.HandleRecvWC(t, wc) })
	case queue == "send":
		l.record(trace.Event{Kind: trace.Note, Task: "client", Func: kernel.IbPollCq.Name(), Text: l.Client.HandleSendWC(wc)})
	default:
		l.record(trace.Event{Kind: trace.Note, Task: "client", Func: kernel.IbPollCq.Name(), Text: l.Client.HandleRecvWC(wc)})
	}
}

// Call prepares and posts a client call.
func (l *Lab) Call(spec xprt.CallSpec) (*xprt.Call, error) {
	k, err := l.Client.Prepare(spec)
	if err != nil {
		return nil, err
	}
	if err := l.Client.Send(k); err != nil {
		return k, err
	}
	l.note("client", kernel.RpcrdmaMarshalReq.Name(), "xid 0x%x %s: %v, read list %d, write list %d, reply chunk %v, %d inline bytes",
		k.XID, spec.Label, k.Header.Proc, len(k.Header.ReadList), len(k.Header.WriteList), k.Header.ReplyChunk != nil, len(k.Inline))
	return k, nil
}

// RunUntil runs until the named function is entered (ret false) or returns
// (ret true), a FAULT, or idle; it reports whether it got there.
func (l *Lab) RunUntil(fn string, ret bool) bool {
	kind := trace.Call
	if ret {
		kind = trace.Return
	}
	return l.runUntil(func(e trace.Event) bool { return e.Func == fn && e.Kind == kind })
}

// FailNth makes the nth operation the provider executes from now (1 = the
// next) complete with st.
func (l *Lab) FailNth(n int, st verbs.Status) error {
	if n < 1 {
		return fmt.Errorf("n must be 1 or more, not %d", n)
	}
	fi, ok := l.Provider.(verbs.FaultInjector)
	if !ok {
		return ErrSimOnly("failing a work request on purpose")
	}
	what, err := fi.FailNth(n, st)
	if err != nil {
		return err
	}
	l.note("lab", "inject", "%s", what)
	return nil
}

// Disconnect breaks the connection under both peers: their QPs go to ERR
// and every outstanding work request flushes.
func (l *Lab) Disconnect() {
	done, err := l.Provider.Disconnect()
	if err != nil {
		l.note("lab", "disconnect", "%v", err)
	}
	l.note("lab", "disconnect", "%s", done)
	l.pollCQs()
	l.runHandlers()
}
