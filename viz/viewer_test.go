package viz

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/watch"
)

// fakeSource records the actions asked of it and counts reads.
type fakeSource struct {
	mu      sync.Mutex
	snap    snap.Snapshot
	events  []trace.Event
	acts    []Action
	reads   atomic.Int32
	w       watch.Set
	actErr  error
	panicOn string // "snapshot" or "act"
}

func (f *fakeSource) Snapshot() snap.Snapshot {
	f.reads.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.panicOn == "snapshot" {
		panic("snapshot exploded")
	}
	return f.snap
}

func (f *fakeSource) Events(n int) []trace.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events[max(0, len(f.events)-n):]
}

func (f *fakeSource) Act(a Action) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.panicOn == "act" {
		panic("act exploded")
	}
	f.acts = append(f.acts, a)
	return f.actErr
}

func (f *fakeSource) Watch(fn func()) func() { return f.w.Add(fn) }

// countScreen counts the frames put on the terminal and keeps a copy of
// the last one: the simulation hands out its own cells, which the view's
// goroutine rewrites, so tests read the copy.
type countScreen struct {
	tcell.SimulationScreen
	shows atomic.Int32
	mu    sync.Mutex
	last  []tcell.SimCell
	w     int
}

func (c *countScreen) Show() { c.shown(c.SimulationScreen.Show) }
func (c *countScreen) Sync() { c.shown(c.SimulationScreen.Sync) }

func (c *countScreen) shown(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	cells, w, _ := c.GetContents()
	c.last, c.w = make([]tcell.SimCell, len(cells)), w
	for i, cell := range cells {
		c.last[i] = tcell.SimCell{Style: cell.Style, Runes: append([]rune(nil), cell.Runes...)}
	}
	c.shows.Add(1)
}

// frame is the last frame shown: its cells and its rows as text.
func (c *countScreen) frame() ([]tcell.SimCell, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for y := 0; c.w > 0 && y < len(c.last)/c.w; y++ {
		var b strings.Builder
		for _, cell := range c.last[y*c.w : (y+1)*c.w] {
			if len(cell.Runes) == 0 {
				b.WriteRune(' ')
			} else {
				b.WriteRune(cell.Runes[0])
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return c.last, out
}

// text is the last frame shown as one string.
func (c *countScreen) text() string {
	_, rows := c.frame()
	return strings.Join(rows, "\n")
}

// runView runs a Viewer on a counted simulation screen in the background.
func runView(t *testing.T, v *Viewer, src Source) (*countScreen, <-chan error) {
	t.Helper()
	s := &countScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	done := make(chan error, 1)
	go func() { done <- v.Run(context.Background(), s, src) }()
	waitFor(t, "the first frame", func() bool { return s.shows.Load() > 0 })
	return s, done
}

// waitFor and waitRun wait long: -race on a loaded two-core machine has
// taken more than 5 s to draw a frame. Passing tests do not wait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func waitRun(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

// Keys step the engine from inside the view; q returns with the screen
// finalised.
func TestViewerKeysAct(t *testing.T) {
	src := &fakeSource{snap: modelOf(stateRead3(t)).Snap}
	s, done := runView(t, &Viewer{}, src)
	go func() {
		for _, r := range "sncfC" {
			s.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		}
		// Keys typed during an action are queued, and q drops the queue
		// (it waits only for the running one): quit once all five ran.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			src.mu.Lock()
			n := len(src.acts)
			src.mu.Unlock()
			if n >= 5 {
				break
			}
		}
		s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	}()
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
	want := []Action{ActStep, ActNext, ActContinue, ActFinish, ActComplete}
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.acts) != len(want) {
		t.Fatalf("actions %v, want %v", src.acts, want)
	}
	for i := range want {
		if src.acts[i] != want[i] {
			t.Fatalf("actions %v, want %v", src.acts, want)
		}
	}
	if w, h := s.Size(); w != 0 || h != 0 {
		t.Errorf("screen %dx%d after Run: not finalised", w, h)
	}
}

// A read-only source's refusal shows in the status line. The key and the
// refusal may come in one frame (the loop drains what is queued before
// drawing), so the test waits for the words, not for a count of frames.
func TestViewerReadOnlyStatus(t *testing.T) {
	src := &fakeSource{actErr: ErrReadOnly}
	s, done := runView(t, &Viewer{}, src)
	_, rows := s.frame()
	if len(rows) == 0 {
		t.Fatal("runView returned before the first frame was drawn")
	}
	if strings.Contains(rows[len(rows)-1], "read-only") {
		t.Fatalf("status row %q says read-only before any key", rows[len(rows)-1])
	}
	s.InjectKey(tcell.KeyRune, 's', tcell.ModNone)
	waitFor(t, "the refusal", func() bool {
		_, rows := s.frame()
		return len(rows) > 0 && strings.Contains(rows[len(rows)-1], "read-only")
	})
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	waitRun(t, done)
}

// Wake-ups that bring nothing new draw nothing; a change draws once.
func TestViewerNoRedrawWithoutChange(t *testing.T) {
	src := &fakeSource{snap: modelOf(stateRead3(t)).Snap}
	s, done := runView(t, &Viewer{}, src)
	if n := s.shows.Load(); n != 1 {
		t.Fatalf("%d frames at start, want 1", n)
	}
	reads := src.reads.Load()
	for i := int32(1); i <= 5; i++ {
		src.w.Notify()
		waitFor(t, "the view to read the source", func() bool { return src.reads.Load() >= reads+i })
	}
	time.Sleep(20 * time.Millisecond)
	if n := s.shows.Load(); n != 1 {
		t.Fatalf("%d frames after 5 wake-ups with nothing new, want 1", n)
	}
	src.mu.Lock()
	src.snap.SQ.Avail--
	src.mu.Unlock()
	src.w.Notify()
	waitFor(t, "a frame for the change", func() bool { return s.shows.Load() == 2 })
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
	if n := s.shows.Load(); n != 2 {
		t.Errorf("%d frames, want 2", n)
	}
}

// Layout keys, zoom, help, Tab and a click change the view state.
func TestViewerViewKeys(t *testing.T) {
	m := NewModel(0)
	l := &loop{m: m, th: NewTheme(256)}
	l.placed = arrange(m.View, Rect{0, 1, 80, 22})
	key := func(r rune) { l.key(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone)) }
	key('4')
	if m.View.Layout != LayoutPositions || m.View.Selected != PanePositions {
		t.Fatalf("after 4: layout %v selected %d", m.View.Layout, m.View.Selected)
	}
	key('w')
	if m.View.Layout != LayoutWrite || m.View.Selected != PaneChain {
		t.Fatalf("after w: layout %v selected %d", m.View.Layout, m.View.Selected)
	}
	key('z')
	key('?')
	if !m.View.Zoomed || !m.View.Help {
		t.Fatal("z and ? did not zoom and show help")
	}
	l.key(tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone))
	l.key(tcell.NewEventKey(tcell.KeyEscape, 0, tcell.ModNone))
	if m.View.Zoomed || m.View.Help {
		t.Fatal("Esc did not close help and unzoom")
	}
	l.placed = arrange(m.View, Rect{0, 1, 80, 22})
	l.key(tcell.NewEventKey(tcell.KeyTab, 0, tcell.ModNone))
	if m.View.Selected == PaneChain {
		t.Fatal("Tab did not move the selection")
	}
	target := l.placed[len(l.placed)-1]
	l.mouse(tcell.NewEventMouse(target.Rect.X+1, target.Rect.Y+1, tcell.Button1, tcell.ModNone))
	if m.View.Selected != target.Pane {
		t.Fatalf("click selected %d, want %d", m.View.Selected, target.Pane)
	}
}

// A panic in the source ends Run with an error and the screen finalised.
func TestViewerRecoversPanics(t *testing.T) {
	for _, where := range []string{"snapshot", "act"} {
		t.Run(where, func(t *testing.T) {
			src := &fakeSource{}
			s := tcell.NewSimulationScreen("UTF-8")
			done := make(chan error, 1)
			if where == "snapshot" {
				src.panicOn = where
				go func() { done <- (&Viewer{}).Run(context.Background(), s, src) }()
			} else {
				cs, d := runView(t, &Viewer{}, src)
				s, done = cs.SimulationScreen, nil
				src.mu.Lock()
				src.panicOn = where
				src.mu.Unlock()
				cs.InjectKey(tcell.KeyRune, 's', tcell.ModNone)
				err := waitRun(t, d)
				if err == nil || !strings.Contains(err.Error(), "panicked") {
					t.Fatalf("Run returned %v, want a panic error", err)
				}
			}
			if done != nil {
				err := waitRun(t, done)
				if err == nil || !strings.Contains(err.Error(), "panicked") {
					t.Fatalf("Run returned %v, want a panic error", err)
				}
			}
			if w, h := s.Size(); w != 0 || h != 0 {
				t.Errorf("screen %dx%d after a panic: not finalised", w, h)
			}
		})
	}
}

// Cancelling the context ends the view too.
func TestViewerContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := tcell.NewSimulationScreen("UTF-8")
	done := make(chan error, 1)
	go func() { done <- (&Viewer{}).Run(ctx, s, &fakeSource{}) }()
	cancel()
	if err := waitRun(t, done); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

// NO_COLOR reaches the running view: nothing on screen has a colour.
func TestViewerNoColorEnv(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	src := &fakeSource{snap: modelOf(stateRace(t)).Snap}
	s, done := runView(t, &Viewer{}, src)
	cells, _ := s.frame()
	for i, c := range cells {
		if c.Style.Foreground(tcell.ColorDefault).Background(tcell.ColorDefault) != c.Style {
			t.Fatalf("cell %d has a colour with NO_COLOR set", i)
		}
	}
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	waitRun(t, done)
}

// The view drives a real Lab through a LabSource: s steps one event.
func TestViewerDrivesLab(t *testing.T) {
	l := newLab(t, nil)
	must[any](t)(l.Write(10000, engine.ChunkOpts{Segments: 3}))
	src := live(l)
	s, done := runView(t, &Viewer{}, src)
	before := len(l.History())
	s.InjectKey(tcell.KeyRune, 'C', tcell.ModNone)
	waitFor(t, "the completion", func() bool { return len(src.Events(1000)) > before && strings.Contains(s.text(), "complete:") })
	s.InjectKey(tcell.KeyRune, 'c', tcell.ModNone)
	waitFor(t, "the reads to be posted", func() bool { return len(src.Snapshot().Chains) == 1 })
	waitFor(t, "the frame", func() bool { return strings.Contains(s.text(), "◆") })
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
}

// putCounter counts the cells written to the screen.
type putCounter struct {
	tcell.SimulationScreen
	puts int
}

func (p *putCounter) Put(x, y int, str string, st tcell.Style) (string, int) {
	p.puts++
	return p.SimulationScreen.Put(x, y, str, st)
}

// A frame writes only the cells that changed: none when nothing did.
func TestRenderTouchesOnlyChangedCells(t *testing.T) {
	s := &putCounter{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(200, 60)
	m := modelOf(stateRead3(t))
	var r renderer
	r.draw(s, m, NewTheme(256))
	if s.puts == 0 {
		t.Fatal("the first frame wrote nothing")
	}
	s.puts = 0
	r.draw(s, m, NewTheme(256))
	if s.puts != 0 {
		t.Errorf("an unchanged frame wrote %d cells", s.puts)
	}
	m.Snap.SQ.Avail = 1606
	r.draw(s, m, NewTheme(256))
	if s.puts == 0 || s.puts > 100 {
		t.Errorf("changing sc_sq_avail wrote %d cells", s.puts)
	}
}

// A resize redraws the whole picture at the new size.
func TestViewerResize(t *testing.T) {
	src := &fakeSource{snap: modelOf(stateRead3(t)).Snap}
	s, done := runView(t, &Viewer{}, src)
	s.SetSize(120, 30)
	if err := s.PostEvent(tcell.NewEventResize(120, 30)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a 120x30 frame", func() bool {
		_, rows := s.frame()
		return len(rows) == 30 && strings.Contains(rows[0], "rdmalab") && strings.Contains(rows[29], "quit")
	})
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	waitRun(t, done)
}
