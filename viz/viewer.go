package viz

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/gdamore/tcell/v2"
)

// Viewer runs the view full screen: it draws a Source, redraws when the
// source changes, and turns keys into actions on it.
type Viewer struct {
	Events  int          // events the model keeps (DefaultEvents when 0)
	Mono    bool         // draw without colour; NO_COLOR in the environment does too
	Layout  Layout       // the layout the view opens with
	Packets PacketSource // fills the Packets pane (nil: "no capture loaded")
	Zoomed  bool         // the layout's first pane opens filling the screen (z undoes it)
	// Filters, when set, carries the Packets pane's display filters from
	// one Run to the next (the REPL keeps one for its session).
	Filters *FilterMemory
}

// Run initialises s, runs the view on it until q, a closed screen or ctx,
// and finalises s on every way out, a panic included: the terminal is
// always given back. It returns nil on a normal exit.
func (v *Viewer) Run(ctx context.Context, s tcell.Screen, src Source) (err error) {
	if src == nil {
		return errors.New("viz: nothing to view (nil source)")
	}
	if err := s.Init(); err != nil {
		return fmt.Errorf("viz: start the screen: %w", err)
	}
	l := v.newLoop(s, src)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("viz: the view panicked: %v\n%s", r, debug.Stack())
		}
		l.stop()
		s.Fini()
	}()
	return l.run(ctx)
}

// actResult is what an action goroutine hands back: an Action's, or a
// seek's (what names it, note says what it did).
type actResult struct {
	a    Action
	what string
	note string
	err  error
}

// loop is one Run: the state only the drawing goroutine touches, plus the
// channels other goroutines reach it through.
type loop struct {
	s      tcell.Screen
	src    Source
	m      *Model
	th     Theme
	placed []Placement
	render renderer

	evs     chan tcell.Event
	quit    chan struct{}
	done    chan actResult
	fail    chan error
	changed atomic.Bool // the source said it changed
	packets atomic.Bool // the packet source moved on (a capture being indexed)
	unwatch func()

	busy     bool
	queued   []Action // typed while busy, run in order after it
	quitting bool
	dirty    bool
	sync     bool
	lastBtn  tcell.ButtonMask
	pasting  bool // inside a bracketed paste
	mem      *FilterMemory
	stopped  bool
	frame    int // the FrameSource's frame the Packets pane last followed
}

func (v *Viewer) newLoop(s tcell.Screen, src Source) *loop {
	colors := s.Colors()
	if v.Mono || os.Getenv("NO_COLOR") != "" {
		colors = 0
	}
	m := NewModel(v.Events)
	m.Packets = v.Packets
	m.Can = abilitiesOf(src)
	if v.Layout >= 0 && v.Layout < numLayouts {
		m.View.Layout = v.Layout
		m.View.Selected = layouts(v.Layout)[0].cells[0].pane
		m.View.Zoomed = v.Zoomed
	}
	l := &loop{s: s, src: src, m: m, th: NewTheme(colors), mem: v.Filters,
		evs: make(chan tcell.Event, 64), quit: make(chan struct{}), done: make(chan actResult, 1), fail: make(chan error, 1)}
	l.recall()
	return l
}

func (l *loop) run(ctx context.Context) error {
	l.s.EnableMouse(tcell.MouseButtonEvents)
	l.s.EnablePaste()
	l.s.HideCursor()
	l.pull()
	l.dirty = true
	if w, ok := l.src.(Watcher); ok {
		l.unwatch = w.Watch(l.wake)
	}
	if w, ok := l.m.Packets.(Watcher); ok {
		stop := w.Watch(func() { l.packets.Store(true); _ = l.s.PostEvent(tcell.NewEventInterrupt(nil)) })
		defer stop()
	}
	l.goSafe(func() { l.s.ChannelEvents(l.evs, l.quit) })
	for {
		if l.quitting && !l.busy {
			return nil
		}
		l.redraw()
		select {
		case <-ctx.Done():
			return nil
		case err := <-l.fail:
			return err
		case r := <-l.done:
			l.finished(r)
		case ev, ok := <-l.evs:
			if !ok {
				return nil
			}
			l.handle(ev)
		}
		l.drain()
	}
}

// drain handles what is already queued before the next frame, so a burst
// of keys or source changes costs one redraw.
func (l *loop) drain() {
	for more := true; more; {
		select {
		case r := <-l.done:
			l.finished(r)
		case ev, ok := <-l.evs:
			if ok {
				l.handle(ev)
			} else {
				more = false // the main loop sees the close
			}
		default:
			more = false
		}
	}
	if l.changed.Swap(false) {
		l.pull()
	}
	if l.packets.Swap(false) {
		l.dirty = true
		settleFilter(l.m)
	}
}

// stop ends the goroutines Run started (an action still running finishes
// on its own: a source serialises its actions).
func (l *loop) stop() {
	if l.stopped {
		return
	}
	l.stopped = true
	l.remember()
	l.m.View.Filter.clear()
	if l.unwatch != nil {
		l.unwatch()
	}
	close(l.quit)
}

// wake is the source's change callback: any goroutine may call it. The
// flag carries the news; the interrupt only wakes the loop, and if the
// queue is full the loop is awake anyway.
func (l *loop) wake() {
	l.changed.Store(true)
	_ = l.s.PostEvent(tcell.NewEventInterrupt(nil))
}

// goSafe runs f on its own goroutine; a panic there ends the view with an
// error instead of killing the process with the terminal still raw.
func (l *loop) goSafe(f func()) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				l.failWith(fmt.Errorf("viz: a view goroutine panicked: %v\n%s", r, debug.Stack()))
			}
		}()
		f()
	}()
}

func (l *loop) failWith(err error) {
	select {
	case l.fail <- err:
	default:
	}
	_ = l.s.PostEvent(tcell.NewEventInterrupt(nil))
}

// eventProbe is how many events a wake-up asks for first: usually all
// that is new, without copying the source's whole history.
const eventProbe = 64

// pull reads the source into the model.
func (l *loop) pull() {
	snap := l.src.Snapshot()
	evs := l.src.Events(eventProbe)
	gap := len(evs) == eventProbe && evs[0].Seq > l.m.Seen()+1
	if gap || l.m.restarted(snap, evs) {
		evs = l.src.Events(l.m.events.Cap())
	}
	if l.m.Update(snap, evs) {
		l.dirty = true
	}
	if d, ok := l.src.(Describer); ok && d.Describe() != l.m.Origin {
		l.m.Origin, l.dirty = d.Describe(), true
	}
	if n, ok := l.src.(Narrator); ok && n.Narration() != l.m.Narration {
		began := l.m.Narration == ""
		l.m.Narration, l.dirty = n.Narration(), true
		l.m.View.Scroll[PaneNarration] = 0 // a new step reads from its start
		if began && lessonMode(l.m) && !l.m.View.Zoomed {
			l.m.View.Selected = PaneNarration // the keys scroll what the lesson says
		}
	}
	// The Packets pane follows the source's frame when it moves, and is
	// left where the user put it otherwise.
	if fs, ok := l.src.(FrameSource); ok && l.m.Packets != nil {
		if f := fs.Frame(); f != l.frame {
			l.frame, l.dirty = f, true
			if f > 0 {
				l.m.View.Scroll[PanePackets] = f - 1
			}
		}
	}
}

func (l *loop) redraw() {
	if !l.dirty {
		return
	}
	settleFilter(l.m) // what is drawn of the filter's search and the selection agree
	l.placed = l.render.draw(l.s, l.m, l.th)
	if l.sync {
		l.s.Sync()
	} else {
		l.s.Show()
	}
	l.dirty, l.sync = false, false
}

// maxQueued bounds the actions typed ahead of a running one.
const maxQueued = 16

// act runs a on its own goroutine so the view keeps drawing through a long
// continue; q during one waits for it, so the REPL gets the Lab back idle.
func (l *loop) act(a Action) {
	l.dirty = true
	if l.busy {
		// Keys typed ahead run in order once this action ends, as a
		// terminal would keep them; a long continue can be left alone.
		if len(l.queued) >= maxQueued || l.quitting {
			l.m.Status, l.m.StatusErr = "still running: wait for it to finish", true
			return
		}
		l.queued = append(l.queued, a)
		l.m.Status, l.m.StatusErr = fmt.Sprintf("%d queued", len(l.queued)), false
		return
	}
	l.busy, l.m.Busy = true, true
	l.m.Status, l.m.StatusErr = a.String(), false
	l.goSafe(func() {
		err := l.src.Act(a)
		l.done <- actResult{a: a, err: err}
	})
}

// seek asks fs to go to frame, on its own goroutine as act does.
func (l *loop) seek(fs FrameSeeker, frame int) {
	l.dirty = true
	if l.busy {
		l.m.Status, l.m.StatusErr = "still running: wait for it to finish", true
		return
	}
	l.busy, l.m.Busy = true, true
	l.m.Status, l.m.StatusErr = fmt.Sprintf("seek to frame %d", frame), false
	l.goSafe(func() {
		note, err := fs.SeekFrame(frame)
		l.done <- actResult{what: fmt.Sprintf("seek to frame %d", frame), note: note, err: err}
	})
}

// finished takes an action's result: the source changed, and the status
// line says what happened.
func (l *loop) finished(r actResult) {
	l.busy, l.m.Busy = false, false
	l.pull()
	l.dirty = true
	if r.err != nil || l.quitting {
		l.queued = l.queued[:0] // an error stops the keys typed ahead
	}
	if len(l.queued) > 0 && !l.quitting {
		next := l.queued[0]
		l.queued = append(l.queued[:0], l.queued[1:]...)
		l.act(next)
		return
	}
	what := r.what
	if what == "" {
		what = r.a.String()
	}
	if r.err != nil {
		l.m.Status, l.m.StatusErr = fmt.Sprintf("%s: %v", what, r.err), true
		return
	}
	l.m.StatusErr = false
	if r.note != "" {
		l.m.Status = r.note
		return
	}
	l.m.Status = what
	if n := l.m.EventCount(); n > 0 {
		l.m.Status += ": " + strings.Join(strings.Fields(l.m.Event(n-1).String()), " ")
	}
}
