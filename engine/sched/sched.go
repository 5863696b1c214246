// Package sched runs the engine's kernel contexts — nfsd threads,
// completion handlers — as coroutines under one deterministic scheduler.
//
// The model code reads as straight-line kernel code: it calls Task.Emit at
// each trace point and Task.WaitUntil where the kernel would sleep. Each
// Emit hands one event to whoever calls Scheduler.Step and suspends the task
// until it is picked again, so stepping is a property of the caller, and
// any interleaving of threads can be forced by choosing which task runs.
// Exactly one task runs at a time, so the model needs no locks of its own;
// the kernel's locks that matter to a lesson are modelled with Mutex.
package sched

import (
	"errors"
	"fmt"
	"iter"
	"runtime/debug"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// errAbort unwinds a task whose scheduler was closed.
var errAbort = errors.New("sched: task aborted")

// State is a task's scheduling state.
type State uint8

// Task states.
const (
	Runnable State = iota
	Blocked
	Done
)

func (s State) String() string {
	switch s {
	case Runnable:
		return "runnable"
	case Blocked:
		return "blocked"
	case Done:
		return "done"
	}
	return "?"
}

// Task is one kernel context: an nfsd thread or a completion handler.
type Task struct {
	Name string
	// Handler tasks (completion handlers) run before threads: in the kernel
	// they run in softirq context and never sleep.
	Handler bool

	s       *Scheduler
	r       *runner // the coroutine running the task's body
	depth   int
	frames  []string
	cond    func() bool
	waitFor string
	done    bool
	ended   bool // the body returned
	started bool
	// ev is the event being emitted, built in place: an event is 112
	// bytes, and the hundreds a 1 MiB I/O emits were copied three times
	// each on their way to the history.
	ev trace.Event
}

// Scheduler owns the tasks and hands out their events one at a time.
type Scheduler struct {
	tasks   []*Task
	current *Task
	focus   *Task
	seq     uint64
	idle    []*runner // runners of finished tasks, for new tasks to take
	slab    []trace.Arg
	argf    trace.Formatter // formats args into slab
	// Quiet asks the model to skip formatting event arguments (benchmarks);
	// events are still emitted so interleavings stay the same.
	Quiet bool
	// inline, when set (SetInline), takes each event where it is emitted.
	inline func(*Task, *trace.Event) bool
	inHook bool // inline is running: a panic in it is the stepper's
}

// New returns an empty scheduler.
func New() *Scheduler { return &Scheduler{} }

// Go creates a task running body. It starts on the first Step that picks it.
func (s *Scheduler) Go(name string, handler bool, body func(t *Task)) *Task {
	t := &Task{Name: name, Handler: handler, s: s}
	var r *runner
	if n := len(s.idle); n > 0 {
		// A completion handler is a short task: it takes the coroutine
		// (and the call frames) a finished one left rather than new ones.
		r, s.idle = s.idle[n-1], s.idle[:n-1]
	} else {
		r = newRunner()
	}
	r.t, r.body = t, body
	for _, f := range r.frames {
		f.t = t
	}
	t.r = r
	s.tasks = append(s.tasks, t)
	return t
}

// maxIdle bounds the runners a Scheduler keeps for new tasks.
const maxIdle = 8

// taskEnd is the event a runner yields when its task's body has returned;
// it never leaves the scheduler.
const taskEnd = trace.Kind(0xff)

// Taken is the Kind of what Step returns for an event the inline function
// (SetInline) has already taken: there is nothing more to do with it.
const Taken = trace.Kind(0xfe)

// SetInline makes a task hand each event it emits to f where it is
// emitted, with the scheduler's bookkeeping of a Step done, rather than
// suspend (nil: suspend, as by default). When f reports true the task runs
// on to its next event at once, which saves two coroutine switches an
// event: f must say so only when the next Step would pick this task and do
// nothing else. When f reports false the task suspends, and the Step that
// resumed it returns an event of Kind Taken. A stepper that runs many
// events (until a stop condition) sets it for the run and clears it after.
// The event f is given is valid only during the call.
func (s *Scheduler) SetInline(f func(t *Task, ev *trace.Event) bool) { s.inline = f }

// Picks reports whether the next Step would run t.
func (s *Scheduler) Picks(t *Task) bool { return s.pick() == t }

// runner is a coroutine that runs task bodies one after another, with the
// call frames they use (kept per depth).
type runner struct {
	next   func() (trace.Event, bool)
	stop   func()
	yield  func(trace.Event) bool
	t      *Task
	body   func(*Task)
	frames []*frame
}

func newRunner() *runner {
	r := &runner{}
	r.next, r.stop = iter.Pull(func(yield func(trace.Event) bool) {
		r.yield = yield
		for r.run() {
			if !yield(trace.Event{Kind: taskEnd}) {
				return
			}
		}
	})
	return r
}

// run runs the current task's body. It reports whether the runner may
// take another task: not once it was stopped, nor after a panic.
func (r *runner) run() (again bool) {
	t := r.t
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		again = false
		if p == errAbort {
			return
		}
		if t.s.inHook {
			// The inline function's panic is the stepper's, as if it had
			// run on the stepper's side of the switch.
			t.s.inHook = false
			panic(p)
		}
		// A bug in the model must not end the session: report it as a
		// fault event and end the task.
		t.cond = nil
		r.yield(trace.Event{Kind: trace.Fault, Func: "engine panic",
			Text: fmt.Sprintf("%v (task %s ended)\n%s", p, t.Name, debug.Stack())})
	}()
	r.body(t)
	return true
}

// Tasks lists the live tasks in creation order.
func (s *Scheduler) Tasks() []*Task { return s.tasks }

// Task finds a live task by name.
func (s *Scheduler) Task(name string) *Task {
	for _, t := range s.tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Focus makes t the task that runs whenever it can (nil: no preference).
func (s *Scheduler) Focus(t *Task) { s.focus = t }

// Focused is the task chosen with Focus, if any.
func (s *Scheduler) Focused() *Task { return s.focus }

// Current is the task that produced the last event.
func (s *Scheduler) Current() *Task { return s.current }

// Runnable reports whether any task can run.
func (s *Scheduler) Runnable() bool { return s.pick() != nil }

func (s *Scheduler) pick() *Task {
	for _, t := range s.tasks {
		if t.Handler && t.runnable() {
			return t
		}
	}
	if s.focus != nil && !s.focus.done && s.focus.runnable() {
		return s.focus
	}
	if s.current != nil && !s.current.done && s.current.runnable() {
		return s.current
	}
	for _, t := range s.tasks {
		if t.runnable() {
			return t
		}
	}
	return nil
}

// Step runs the chosen task to its next event. ok is false when every task
// is blocked or finished.
func (s *Scheduler) Step() (ev trace.Event, ok bool) {
	for {
		t := s.pick()
		if t == nil {
			return trace.Event{}, false
		}
		return s.StepTask(t)
	}
}

// StepTask runs t to its next event, whatever the policy says. A task that
// cannot run yields ok=false.
func (s *Scheduler) StepTask(t *Task) (trace.Event, bool) {
	for !t.done {
		if !t.runnable() {
			return trace.Event{}, false
		}
		t.started = true
		ev, more := t.r.next()
		if more && ev.Kind == taskEnd {
			more, t.ended = false, true
		}
		if !more {
			s.finish(t)
			if s.Runnable() {
				t = s.pick()
				continue
			}
			return trace.Event{}, false
		}
		if ev.Kind == Taken {
			return ev, true // counted where it was emitted
		}
		s.current = t
		s.seq++
		ev.Seq = s.seq
		if ev.Kind == trace.Fault && ev.Func == "engine panic" {
			s.finish(t)
		}
		return ev, true
	}
	return trace.Event{}, false
}

func (s *Scheduler) finish(t *Task) {
	t.done = true
	if r := t.r; t.ended && len(s.idle) < maxIdle {
		// The body has returned: none of its frames can return any more,
		// and the coroutine waits for the next task.
		r.t, r.body = nil, nil
		s.idle = append(s.idle, r)
	} else {
		r.stop()
	}
	t.r = nil
	for i, x := range s.tasks {
		if x == t {
			s.tasks = append(s.tasks[:i], s.tasks[i+1:]...)
			break
		}
	}
	if s.current == t {
		s.current = nil
	}
	if s.focus == t {
		s.focus = nil
	}
}

// Close ends every task; their deferred code runs, their events are dropped.
func (s *Scheduler) Close() {
	for len(s.tasks) > 0 {
		s.finish(s.tasks[0])
	}
	for _, r := range s.idle {
		r.stop()
	}
	s.idle = nil
}

// runnable: not finished and either not waiting or its condition now holds.
func (t *Task) runnable() bool {
	return !t.done && (t.cond == nil || t.cond())
}

// State reports the task's scheduling state.
func (t *Task) State() State {
	switch {
	case t.done:
		return Done
	case t.cond != nil && !t.cond():
		return Blocked
	}
	return Runnable
}

// WaitingFor names what a blocked task waits on.
func (t *Task) WaitingFor() string {
	if t.cond == nil {
		return ""
	}
	return t.waitFor
}

// Depth is the task's current call depth.
func (t *Task) Depth() int { return t.depth }

// Frames is the task's call stack, outermost first.
func (t *Task) Frames() []string { return t.frames }

// Quiet reports whether event arguments may be left out.
func (t *Task) Quiet() bool { return t.s.Quiet }

// args formats kv as trace.Fmt does, into Args cut from a slab the
// scheduler refills: an event's arguments cost no allocation of their own.
func (s *Scheduler) args(kv []any) []trace.Arg {
	n := len(kv) / 2
	if n == 0 {
		return nil
	}
	if cap(s.slab)-len(s.slab) < n {
		s.slab = make([]trace.Arg, 0, max(256, n))
	}
	start := len(s.slab)
	s.slab = s.argf.AppendFmt(s.slab, kv...)
	return s.slab[start:len(s.slab):len(s.slab)]
}

// Emit hands ev to the stepper and suspends the task until it is picked.
func (t *Task) Emit(ev trace.Event) {
	t.ev = ev
	t.emit()
}

// emit is Emit of the event built in t.ev.
func (t *Task) emit() {
	ev := &t.ev
	ev.Task = t.Name
	if ev.Kind != trace.Call && ev.Kind != trace.Return {
		ev.Depth = t.depth
	}
	if s := t.s; s.inline != nil {
		// What StepTask does with an event, then the stepper's turn.
		s.current = t
		s.seq++
		ev.Seq = s.seq
		s.inHook = true
		on := s.inline(t, ev)
		s.inHook = false
		if on {
			return
		}
		*ev = trace.Event{Kind: Taken}
	}
	if !t.r.yield(*ev) {
		panic(errAbort)
	}
}

// Point emits a trace point: what the current function did.
func (t *Task) Point(fn *trace.Func, kv ...any) {
	t.ev = trace.Event{Kind: trace.Point, Func: fn.Name()}
	if !t.s.Quiet {
		t.ev.Args = t.s.args(kv)
	}
	t.emit()
}

// Pointf emits a trace point with a sentence of text.
func (t *Task) Pointf(fn *trace.Func, format string, a ...any) {
	ev := trace.Event{Kind: trace.Point, Func: fn.Name()}
	if !t.s.Quiet {
		ev.Text = fmt.Sprintf(format, a...)
	}
	t.Emit(ev)
}

// Fault emits a fault event: the kernel would have crashed or corrupted
// memory here. The caller decides how the model goes on.
func (t *Task) Fault(what, format string, a ...any) {
	t.Emit(trace.Event{Kind: trace.Fault, Func: what, Text: fmt.Sprintf(format, a...)})
}

// Call emits the entry of fn and returns the function that emits its
// return; use it as `defer t.Call(kernel.SvcRdmaX, k, v)(&err)`. A non-nil
// error is shown by its errno name.
func (t *Task) Call(fn *trace.Func, kv ...any) func(err *error) {
	return t.enter(fn, kv).retErr
}

// CallV is Call for functions that return a value: the returned function
// takes the value to show (an int, or an error).
func (t *Task) CallV(fn *trace.Func, kv ...any) func(v any) {
	return t.enter(fn, kv).retV
}

// frame is one call of the task's stack. Frames are kept per depth and
// reused, with their return functions bound once, so a call allocates
// nothing: calls return in LIFO order, and a frame is reused only after
// its return function ran.
type frame struct {
	t      *Task
	fn     string
	retErr func(err *error)
	retV   func(v any)
}

// leave pops the frame and gives the return event to fill in and emit.
func (f *frame) leave() trace.Event {
	t := f.t
	t.depth--
	t.frames = t.frames[:len(t.frames)-1]
	return trace.Event{Kind: trace.Return, Func: f.fn, Depth: t.depth}
}

// enter emits fn's entry and pushes its frame.
func (t *Task) enter(fun *trace.Func, kv []any) *frame {
	fn := fun.Name()
	ev := trace.Event{Kind: trace.Call, Func: fn, Depth: t.depth}
	if !t.s.Quiet {
		ev.Args = t.s.args(kv)
	}
	t.frames = append(t.frames, fn)
	for len(t.r.frames) <= t.depth {
		f := &frame{t: t}
		f.retErr = func(err *error) {
			ev := f.leave()
			if err != nil && *err != nil {
				ev.Err = errName(*err)
			}
			f.t.Emit(ev)
		}
		f.retV = func(v any) {
			ev := f.leave()
			switch x := v.(type) {
			case error:
				if x != nil {
					ev.Err = errName(x)
				}
			case nil:
			default:
				if !f.t.s.Quiet {
					ev.Args = f.t.s.args([]any{"ret", x})
				}
			}
			f.t.Emit(ev)
		}
		t.r.frames = append(t.r.frames, f)
	}
	f := t.r.frames[t.depth]
	f.fn = fn
	t.Emit(ev)
	t.depth++
	return f
}

func errName(err error) string {
	var e verbs.Errno
	if errors.As(err, &e) {
		return e.Error()
	}
	return err.Error()
}

// WaitUntil blocks the task until cond holds, emitting one Wait event each
// time it finds cond false; what names the wait queue as the kernel does.
func (t *Task) WaitUntil(what string, cond func() bool) {
	for !cond() {
		t.cond = cond
		t.waitFor = what
		t.Emit(trace.Event{Kind: trace.Wait, Func: what})
		t.cond = nil
		t.waitFor = ""
	}
}

// Mutex is a kernel lock that a lesson wants to see: a task that finds it
// taken blocks until it is released.
type Mutex struct {
	Name   string
	holder *Task
}

// Lock takes m, waiting while another task holds it.
func (t *Task) Lock(m *Mutex) {
	t.WaitUntil("spin_lock("+m.Name+")", func() bool { return m.holder == nil })
	m.holder = t
}

// Unlock releases m.
func (t *Task) Unlock(m *Mutex) {
	if m.holder == t {
		m.holder = nil
	}
}

// Holder names the task holding m, or "".
func (m *Mutex) Holder() string {
	if m.holder == nil {
		return ""
	}
	return m.holder.Name
}

// NextHandler is the first runnable completion-handler task, or nil.
func (s *Scheduler) NextHandler() *Task {
	for _, t := range s.tasks {
		if t.Handler && t.runnable() {
			return t
		}
	}
	return nil
}
