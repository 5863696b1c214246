package viz

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// helpModel is a view of each kind the help is drawn for, as its Viewer
// opens it: the REPL's lab, a replay with its capture in the Packets
// pane, and `view --capture`.
func helpModels(t *testing.T) map[string]*Model {
	t.Helper()
	lab := modelOf(stateRead3(t))

	tl := loadReplay(t)
	replay := replayModel(t, tl, 387)
	replay.Packets = openCapture(t, nfs3Capture)
	replay.View.Layout, replay.View.Selected = LayoutRead, PanePages

	capture := captureModel(openCapture(t, nfs3Capture), 42)
	capture.Can = abilitiesOf(StaticSource(Frame{}, "capture nfs3-rdma.pcap"))
	capture.View.Zoomed = true
	return map[string]*Model{"lab": lab, "replay": replay, "capture": capture}
}

// The help box of each kind of view, at the smallest screen and a wider
// one: it lists the keys that view has, in words that say what they do
// there.
func TestGoldenHelp(t *testing.T) {
	for kind, m := range helpModels(t) {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			name := fmt.Sprintf("help_%s_%dx%d", kind, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				m.View.Help = true
				_, got := render(t, m, NewTheme(256), sz[0], sz[1])
				checkGolden(t, name, got)
			})
		}
	}
}

// viewKind is a source as a Viewer gets it, with what its Packets pane
// holds.
type viewKind struct {
	name    string
	src     Source
	packets PacketSource
	layout  Layout
	zoomed  bool
}

func viewKinds(t *testing.T) []viewKind {
	t.Helper()
	capture := openCapture(t, nfs3Capture)
	return []viewKind{
		{name: "lab", src: &fakeSource{}},
		{name: "lab with a capture", src: &fakeSource{}, packets: capture},
		{name: "replay", src: NewReplaySource(loadReplay(t)), packets: capture, layout: LayoutRead},
		{name: "capture", src: StaticSource(Frame{}, "capture nfs3-rdma.pcap"), packets: capture, layout: LayoutPackets, zoomed: true},
		{name: "snapshot", src: StaticSource(Frame{}, "snapshot FILE")},
	}
}

// keyBases are the states a key is pressed in: as the view opens; the
// Packets pane selected on a packet of a chunk, its list or its tree
// with a jump to come back from, zoomed and scrolled; the help up.
func keyBases() map[string]func(*Model) {
	packets := func(m *Model) {
		m.View.Layout, m.View.Selected, m.View.Zoomed = LayoutPackets, PanePackets, false
		m.View.Scroll[PanePackets] = 42
	}
	return map[string]func(*Model){
		"opened":      func(*Model) {},
		"packet list": packets,
		"packet tree": func(m *Model) {
			packets(m)
			m.View.Zoomed = true
			m.View.Packets = PacketsView{Detail: true, Line: 2, Back: []int{10}}
			for p := range m.View.Scroll {
				m.View.Scroll[p] = max(m.View.Scroll[p], 5)
			}
		},
		"help up": func(m *Model) {
			m.View.Help, m.View.Zoomed, m.View.Selected = true, true, PaneEvents
			m.View.Scroll[PaneEvents] = 5
		},
	}
}

// keyScreen is an 80×24 screen for keyLoop.
func keyScreen(t *testing.T) tcell.Screen {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Fini)
	s.SetSize(80, 24)
	return s
}

// keyLoop is a view of kind k on s in state base, drawn once (Tab and
// the page keys need the panes placed), not running.
func keyLoop(s tcell.Screen, k viewKind, base func(*Model)) *loop {
	v := Viewer{Events: 64, Layout: k.layout, Packets: k.packets, Zoomed: k.zoomed}
	l := v.newLoop(s, k.src)
	l.pull()
	base(l.m)
	l.dirty = true
	l.redraw()
	return l
}

// keyEffect is what a key can change: the view, the status line, an
// action or a seek started, quitting, a redraw from scratch.
type keyEffect struct {
	view                  ViewState
	status                string
	statusErr             bool
	busy, quitting, clear bool
}

func effectOf(l *loop) keyEffect {
	v := l.m.View
	v.Packets.Back = slices.Clone(v.Packets.Back)
	return keyEffect{v, l.m.Status, l.m.StatusErr, l.busy, l.quitting, l.sync}
}

// press hands ev to l and waits for the action it started, if any; it
// returns the effect the key had before the action ended.
func pressKey(t *testing.T, l *loop, ev *tcell.EventKey) keyEffect {
	t.Helper()
	l.key(ev)
	e := effectOf(l)
	if l.busy {
		select {
		case r := <-l.done:
			l.finished(r)
		case <-time.After(5 * time.Second):
			t.Fatal("the action did not end")
		}
	}
	return e
}

// keyUniverse is every key a terminal can send that the tests try: the
// printable runes and the special keys.
func keyUniverse() []*tcell.EventKey {
	var out []*tcell.EventKey
	for r := rune(' '); r <= '~'; r++ {
		out = append(out, tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
	out = append(out, tcell.NewEventKey(tcell.KeyRune, '⌫', tcell.ModNone), tcell.NewEventKey(tcell.KeyRune, 'é', tcell.ModNone))
	for _, k := range []tcell.Key{tcell.KeyEnter, tcell.KeyEscape, tcell.KeyTab, tcell.KeyBacktab, tcell.KeyUp, tcell.KeyDown,
		tcell.KeyLeft, tcell.KeyRight, tcell.KeyPgUp, tcell.KeyPgDn, tcell.KeyHome, tcell.KeyEnd, tcell.KeyBackspace,
		tcell.KeyBackspace2, tcell.KeyDelete, tcell.KeyInsert, tcell.KeyF1, tcell.KeyF5} {
		out = append(out, tcell.NewEventKey(k, 0, tcell.ModNone))
	}
	for k := tcell.KeyCtrlA; k <= tcell.KeyCtrlZ; k++ {
		out = append(out, tcell.NewEventKey(k, 0, tcell.ModCtrl))
	}
	return out
}

// For every kind of view, every key its help lists does something there
// (changes the view, starts an action, or says why not), and a key the
// help does not list changes nothing: at most the status line says why
// the view lacks it.
func TestKeysListedAreTheKeysHandled(t *testing.T) {
	bases := keyBases()
	for _, k := range viewKinds(t) {
		t.Run(k.name, func(t *testing.T) {
			s := keyScreen(t)
			listed := map[keyPress]bool{}
			rows := viewBindings(keyLoop(s, k, bases["opened"]).m)
			for _, b := range rows {
				for _, kp := range b.keys {
					listed[kp] = true
				}
			}
			// Listed: some state of this view has the key do something.
			for _, b := range rows {
				for _, kp := range b.keys {
					ev := tcell.NewEventKey(kp.Key, kp.Rune, tcell.ModNone)
					did := false
					for name, base := range bases {
						if b.group == groupPackets && (name == "opened" || name == "help up") {
							continue // the pane's keys need the pane selected
						}
						l := keyLoop(s, k, base)
						if before := effectOf(l); !reflect.DeepEqual(pressKey(t, l, ev), before) {
							did = true
							break
						}
					}
					if !did {
						t.Errorf("%s (%q, %s) is listed but does nothing in any state", ev.Name(), b.label, b.words)
					}
				}
			}
			// Not listed: nothing changes, or the status says why not.
			for _, ev := range keyUniverse() {
				kp := pressOf(ev)
				if listed[kp] {
					continue
				}
				for name, base := range bases {
					l := keyLoop(s, k, base)
					before := effectOf(l)
					after := pressKey(t, l, ev)
					if after.status != before.status && (after.status == whyReadOnly || after.status == whyRewind) {
						after.status, after.statusErr = before.status, before.statusErr
					}
					if !reflect.DeepEqual(after, before) {
						t.Errorf("%s, not listed, changed the view %s: %+v → %+v", ev.Name(), name, before, after)
					}
				}
			}
		})
	}
}

// Each view lists its own keys: a lab its stepping keys, a replay what
// the same keys do in a capture and b, B and @ besides, `view --capture`
// and a snapshot no stepping key at all; every view moves with j k g G.
// The help box shows every row whole at 80×24, and the status line hints
// only at keys the help lists.
func TestHelpListsTheViewsKeys(t *testing.T) {
	want := map[string]struct{ has, lacks string }{
		"lab":                {has: "snfcCjkgGP", lacks: "bB@"},
		"lab with a capture": {has: "snfcCxX[]{}jkgG", lacks: "bB@"},
		"replay":             {has: "snfcCbB@xX[]{}jkgG", lacks: ""},
		"capture":            {has: "xX[]{}jkgG", lacks: "snfcCbB@"},
		"snapshot":           {has: "jkgG", lacks: "snfcCbB@xX[]{}"},
	}
	s := keyScreen(t)
	for _, k := range viewKinds(t) {
		t.Run(k.name, func(t *testing.T) {
			m := keyLoop(s, k, func(*Model) {}).m
			rows := viewBindings(m)
			listed := map[keyPress]string{}
			for _, b := range rows {
				for _, kp := range b.keys {
					listed[kp] = b.words
				}
			}
			for _, r := range want[k.name].has {
				if _, ok := listed[keyPress{tcell.KeyRune, r}]; !ok {
					t.Errorf("%c is not listed", r)
				}
			}
			for _, r := range want[k.name].lacks {
				if w, ok := listed[keyPress{tcell.KeyRune, r}]; ok {
					t.Errorf("%c is listed (%s)", r, w)
				}
			}
			if k.name == "replay" && listed[keyPress{tcell.KeyRune, 'n'}] == "step over a function" {
				t.Error("n in a replay says what it does in a lab")
			}

			m.View.Help = true
			_, text := render(t, m, NewTheme(256), 80, 24)
			for _, b := range rows {
				found := false
				for _, line := range text {
					if i := strings.Index(line, b.label+" "); i >= 0 && strings.Contains(line[i:], b.words) {
						found = true
					}
				}
				if !found {
					t.Errorf("the help box at 80x24 does not show %q %q:\n%s", b.label, b.words, strings.Join(text, "\n"))
				}
			}
			for _, h := range keyHints(m) {
				if _, ok := listed[keyPress{tcell.KeyRune, []rune(h[0])[0]}]; !ok {
					t.Errorf("the status line hints at %s, which the help does not list", h[0])
				}
			}
		})
	}
	if a := abilitiesOf(&attached{}); a != (Abilities{}) {
		t.Errorf("an attached view can %+v: it only watches", a)
	}
}

// The keys a vim or termshark user tries first: j and k move down and up,
// g and G to the top and the bottom, in the Packets list and in any pane;
// P (and 5) is the packets layout, as k was before.
func TestVimKeys(t *testing.T) {
	s := keyScreen(t)
	capture := openCapture(t, nfs3Capture)
	k := viewKind{name: "capture", src: StaticSource(Frame{}, "capture nfs3-rdma.pcap"), packets: capture, layout: LayoutPackets}
	l := keyLoop(s, k, func(m *Model) { m.View.Selected = PanePackets })
	press := func(r rune) int {
		l.key(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
		return l.m.View.Scroll[PanePackets]
	}
	if got := press('j'); got != 1 {
		t.Errorf("j: packet %d, want 1", got)
	}
	if got := press('j'); got != 2 {
		t.Errorf("j j: packet %d, want 2", got)
	}
	if got := press('k'); got != 1 {
		t.Errorf("k: packet %d, want 1", got)
	}
	if got := press('G'); got != capture.Len()-1 {
		t.Errorf("G: packet %d, want the last, %d", got, capture.Len()-1)
	}
	if got := press('g'); got != 0 {
		t.Errorf("g: packet %d, want 0", got)
	}
	if l.m.View.Layout != LayoutPackets {
		t.Errorf("k switched the layout to %v", l.m.View.Layout)
	}

	l = keyLoop(s, viewKind{name: "lab", src: &fakeSource{}}, func(m *Model) {})
	l.key(tcell.NewEventKey(tcell.KeyRune, 'P', tcell.ModNone))
	if l.m.View.Layout != LayoutPackets {
		t.Errorf("P: layout %v, want packets", l.m.View.Layout)
	}
	l.m.View.Layout, l.m.View.Selected = LayoutOverview, PaneEvents
	l.key(tcell.NewEventKey(tcell.KeyRune, 'k', tcell.ModNone))
	if l.m.View.Layout != LayoutOverview || l.m.View.Scroll[PaneEvents] != 0 {
		t.Errorf("k in the Events pane: layout %v, scroll %d", l.m.View.Layout, l.m.View.Scroll[PaneEvents])
	}
}
