package viz

import (
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// keyPress is a key as the table names it: a rune (Key KeyRune) or a
// special key (Rune 0). Modifiers are not part of it.
type keyPress struct {
	Key  tcell.Key
	Rune rune
}

// pressOf is ev as the table names keys.
func pressOf(ev *tcell.EventKey) keyPress {
	if ev.Key() == tcell.KeyRune {
		return keyPress{tcell.KeyRune, ev.Rune()}
	}
	return keyPress{Key: ev.Key()}
}

// runes is one keyPress per rune of s.
func runes(s string) []keyPress {
	var out []keyPress
	for _, r := range s {
		out = append(out, keyPress{tcell.KeyRune, r})
	}
	return out
}

// specials is one keyPress per special key.
func specials(keys ...tcell.Key) []keyPress {
	out := make([]keyPress, len(keys))
	for i, k := range keys {
		out[i] = keyPress{Key: k}
	}
	return out
}

// keyGroup is a section of the help; the Packets group's keys work only
// with that pane selected (and the help down).
type keyGroup int

const (
	groupStep    keyGroup = iota // what the source does: stepping, going back
	groupView                    // layouts, panes, scrolling, the help, quitting
	groupPackets                 // the Packets pane's own keys
)

// binding is one row of the key table: the keys, what they do in words,
// which views have them, and what runs. Dispatch, the help box and the
// status bar's hints all read the table, so a key runs only where the
// help lists it.
type binding struct {
	keys  []keyPress
	label string // the keys as the help writes them ("s step", "x X")
	words string // what they do
	group keyGroup
	// when says whether the view has the row (nil: every view); a
	// Packets row needs a capture in the pane besides.
	when func(*Model) bool
	// why is the status line's answer to a key of the row pressed where
	// the view lacks it; "" ignores the key there.
	why  string
	hint string // the status bar's word for the row ("" none)
	rank int    // the hint's place in the status bar, most useful first
	do   func(*loop, keyPress)
}

// The status line's answers for keys the view lacks.
const (
	whyReadOnly = "nothing to step: this view only watches (? lists its keys)"
	whyRewind   = "only a replay goes back"
)

// The predicates over a view: what its source does (Model.Can) and what
// the Packets pane holds.
func steps(m *Model) bool   { return m.Can.Step }
func replays(m *Model) bool { return m.Can.Replay }
func rewinds(m *Model) bool { return m.Can.Rewind }
func seeks(m *Model) bool   { return m.Can.Seek }

func hasPackets(m *Model) bool { return m.Packets != nil && m.Packets.Len() > 0 }

func links(m *Model) bool {
	_, ok := m.Packets.(LinkSource)
	return ok
}

// layoutLetters are the letter keys of the layouts, in layout order
// (the digits are 1-5). Packets is P: j and k move in a list, as in vim
// and termshark.
const layoutLetters = "orwpP"

// scrollKeys are the keys that scroll; scrollLabel is the help's name
// for them. vimKeys are the same moves as vim and termshark have them.
func scrollKeys() []keyPress {
	return specials(tcell.KeyUp, tcell.KeyDown, tcell.KeyPgUp, tcell.KeyPgDn, tcell.KeyHome, tcell.KeyEnd)
}

const scrollLabel = "↑ ↓ PgUp PgDn Home End"

func vimKeys() []keyPress { return runes("jkgG") }

const vimLabel = "j k g G"

// scrollStep is how far a scrolling key moves, in lines (page: a page of
// them), and which way: down positive.
func scrollStep(k keyPress) (lines int, page bool) {
	switch {
	case k.Key == tcell.KeyUp || k.Rune == 'k':
		return -1, false
	case k.Key == tcell.KeyDown || k.Rune == 'j':
		return 1, false
	case k.Key == tcell.KeyPgUp:
		return -1, true
	case k.Key == tcell.KeyPgDn:
		return 1, true
	case k.Key == tcell.KeyHome || k.Rune == 'g':
		return -1 << 20, false
	}
	return 1 << 20, false // End, G
}

// bindings is the key table, in the help's order.
func bindings() []binding {
	act := func(a Action) func(*loop, keyPress) { return func(l *loop, _ keyPress) { l.act(a) } }
	return []binding{
		// A live lab: the REPL's stepping commands.
		{keys: runes("s"), label: "s step", words: "run to the next event", group: groupStep, when: steps, why: whyReadOnly, hint: "step", rank: 3, do: act(ActStep)},
		{keys: runes("n"), label: "n next", words: "step over a function", group: groupStep, when: steps, why: whyReadOnly, hint: "next", rank: 4, do: act(ActNext)},
		{keys: runes("f"), label: "f finish", words: "run out of this function", group: groupStep, when: steps, why: whyReadOnly, do: act(ActFinish)},
		{keys: runes("c"), label: "c continue", words: "run until nothing can run", group: groupStep, when: steps, why: whyReadOnly, hint: "cont", rank: 6, do: act(ActContinue)},
		{keys: runes("C"), label: "C complete", words: "deliver a completion", group: groupStep, when: steps, why: whyReadOnly, hint: "compl", rank: 7, do: act(ActComplete)},
		// A replay: the same keys move through the capture.
		{keys: runes("s"), label: "s step", words: "on to the next step", group: groupStep, when: replays, hint: "step", rank: 3, do: act(ActStep)},
		{keys: runes("n"), label: "n next", words: "the next RPC's first step", group: groupStep, when: replays, hint: "next", rank: 5, do: act(ActNext)},
		{keys: runes("f"), label: "f finish", words: "the end of this RPC", group: groupStep, when: replays, do: act(ActFinish)},
		{keys: runes("c"), label: "c continue", words: "the end of the capture", group: groupStep, when: replays, do: act(ActContinue)},
		{keys: runes("C"), label: "C complete", words: "the next completion", group: groupStep, when: replays, hint: "compl", rank: 7, do: act(ActComplete)},
		{keys: runes("b"), label: "b back", words: "one step back", group: groupStep, when: rewinds, why: whyRewind, hint: "back", rank: 4, do: act(ActBack)},
		{keys: runes("B"), label: "B back RPC", words: "the previous RPC's start", group: groupStep, when: rewinds, why: whyRewind, do: act(ActBackRPC)},
		{keys: runes("t"), label: "t xprt", words: "next transport, then all", group: groupStep, when: replays, do: act(ActTransport)},

		{keys: append(runes("12345"), runes(layoutLetters)...), label: "1-5 o r w p P", words: "overview, read path, write path, positions, packets", group: groupView, do: (*loop).layoutKey},
		{keys: scrollKeys(), label: scrollLabel, words: "scroll the selected pane (wheel too; click selects)", group: groupView, do: (*loop).scrollKey},
		{keys: vimKeys(), label: vimLabel, words: "down, up, top, bottom (as in vim)", group: groupView, do: (*loop).scrollKey},
		{keys: specials(tcell.KeyTab, tcell.KeyBacktab), label: "Tab Shift-Tab", words: "next, previous pane", group: groupView, do: (*loop).cycleKey},
		{keys: runes("z"), label: "z", words: "zoom, unzoom the pane", group: groupView, hint: "zoom", rank: 9, do: (*loop).zoom},
		{keys: specials(tcell.KeyEscape), label: "Esc", words: "close help, or unzoom", group: groupView, do: (*loop).escape},
		{keys: specials(tcell.KeyCtrlL), label: "Ctrl-L", words: "redraw the screen", group: groupView, do: func(l *loop, _ keyPress) { l.sync = true }},
		{keys: runes("/"), label: "/", words: "filter the packets (Wireshark's display filters)", group: groupView, when: filters, hint: "filter", rank: 8, do: (*loop).openBar},
		{keys: runes("?"), label: "?", words: "show, hide this help", group: groupView, hint: "help", rank: 1, do: (*loop).toggleHelp},
		{keys: append(runes("q"), specials(tcell.KeyCtrlC)...), label: "q Ctrl-C", words: "back to the prompt", group: groupView, when: steps, hint: "quit", rank: 2, do: (*loop).quitKey},
		{keys: append(runes("q"), specials(tcell.KeyCtrlC)...), label: "q Ctrl-C", words: "quit", group: groupView, when: func(m *Model) bool { return !m.Can.Step }, hint: "quit", rank: 2, do: (*loop).quitKey},

		{keys: scrollKeys(), label: scrollLabel, words: "move in the list, or the tree", group: groupPackets, do: (*loop).packetsScroll},
		{keys: vimKeys(), label: vimLabel, words: "down, up, first, last (as in termshark)", group: groupPackets, do: (*loop).packetsScroll},
		{keys: specials(tcell.KeyEnter, tcell.KeyRight, tcell.KeyLeft), label: "Enter → ←", words: "tree or list; sideways, [+] [-]", group: groupPackets, do: (*loop).treeKey},
		{keys: runes("xX"), label: "x X", words: "its RPC's call, reply", group: groupPackets, when: links, do: (*loop).linkKey},
		{keys: runes("[]"), label: "[ ]", words: "its chunk: previous, next", group: groupPackets, when: links, do: (*loop).linkKey},
		{keys: runes("{}"), label: "{ }", words: "its RPC: previous, next", group: groupPackets, when: links, do: (*loop).linkKey},
		{keys: specials(tcell.KeyBackspace, tcell.KeyBackspace2), label: "⌫", words: "back from the last jump", group: groupPackets, when: links, do: (*loop).jumpBack},
		{keys: runes("@"), label: "@", words: "the replay to this packet", group: groupPackets, when: seeks, do: (*loop).seekKey},
	}
}

// has reports whether m's view has b: its source does what b needs, and
// a Packets row has a capture to work on.
func (b *binding) has(m *Model) bool {
	if b.group == groupPackets && !hasPackets(m) {
		return false
	}
	return b.when == nil || b.when(m)
}

// binds reports whether k is one of b's keys.
func (b *binding) binds(k keyPress) bool {
	for _, bk := range b.keys {
		if bk == k {
			return true
		}
	}
	return false
}

// viewBindings are the rows of m's view, in the table's order: what the
// help lists.
func viewBindings(m *Model) []binding {
	var out []binding
	for _, b := range bindings() {
		if b.has(m) {
			out = append(out, b)
		}
	}
	return out
}

// lookup finds what k does in m's view now: the Packets pane's row when
// that pane is selected, else the view's. Without one, why is the
// answer of a row the view lacks, or "".
func lookup(m *Model, k keyPress) (b *binding, why string) {
	table := bindings()
	paneSelected := m.View.Selected == PanePackets && !m.View.Help
	for _, paneRows := range []bool{true, false} {
		if paneRows && !paneSelected {
			continue
		}
		for i := range table {
			b := &table[i]
			if (b.group == groupPackets) != paneRows || !b.binds(k) {
				continue
			}
			if b.has(m) {
				return b, ""
			}
			if why == "" {
				why = b.why
			}
		}
	}
	return nil, why
}

// handle applies one terminal event to the view.
func (l *loop) handle(ev tcell.Event) {
	switch ev := ev.(type) {
	case *tcell.EventResize:
		l.sync, l.dirty = true, true
	case *tcell.EventKey:
		l.key(ev)
	case *tcell.EventPaste:
		l.paste(ev)
	case *tcell.EventMouse:
		l.mouse(ev)
	}
}

// key runs the key table's row for ev, or says why the view lacks it.
func (l *loop) key(ev *tcell.EventKey) {
	if l.m.View.Filter.Bar != nil {
		l.dirty = true
		l.barKey(ev)
		return
	}
	if l.pasting {
		return // a paste is text, not keys: it goes into the filter bar only
	}
	k := pressOf(ev)
	b, why := lookup(l.m, k)
	switch {
	case b != nil:
		l.dirty = true
		b.do(l, k)
	case why != "":
		l.dirty = true
		l.m.Status, l.m.StatusErr = why, true
	}
}

// keyHints are the status bar's reminders for m's view, most useful
// first: a narrow bar drops them from the end.
func keyHints(m *Model) [][2]string {
	if m.View.Filter.Bar != nil {
		return filterBarHints()
	}
	var hinted []binding
	for _, b := range viewBindings(m) {
		if b.hint != "" {
			hinted = append(hinted, b)
		}
	}
	slices.SortStableFunc(hinted, func(a, b binding) int { return a.rank - b.rank })
	out := make([][2]string, len(hinted))
	for i, b := range hinted {
		out[i] = [2]string{strings.Fields(b.label)[0], b.hint}
	}
	return out
}

// layoutKey switches to the layout of the digit or letter k.
func (l *loop) layoutKey(k keyPress) {
	lay, ok := layoutOf(k.Rune)
	if !ok {
		return
	}
	v := &l.m.View
	v.Layout, v.Zoomed = lay, false
	if !l.inLayout(v.Selected) {
		v.Selected = layouts(lay)[0].cells[0].pane
	}
}

// layoutOf maps 1-5 and their letters to layouts.
func layoutOf(r rune) (Layout, bool) {
	if r >= '1' && r < '1'+rune(numLayouts) {
		return Layout(r - '1'), true
	}
	for i, c := range layoutLetters {
		if c == r {
			return Layout(i), true
		}
	}
	return 0, false
}

func (l *loop) cycleKey(k keyPress) {
	if k.Key == tcell.KeyBacktab {
		l.cycle(-1)
	} else {
		l.cycle(1)
	}
}

// scrollDelta is how far a scrolling key moves the selected pane.
func (l *loop) scrollDelta(k keyPress) int {
	n, page := scrollStep(k)
	if page {
		return n * l.page()
	}
	return n
}

func (l *loop) scrollKey(k keyPress) { l.scroll(l.m.View.Selected, l.scrollDelta(k)) }

func (l *loop) zoom(keyPress) { l.m.View.Zoomed = !l.m.View.Zoomed }

func (l *loop) toggleHelp(keyPress) { l.m.View.Help = !l.m.View.Help }

// escape closes the help, or else unzooms.
func (l *loop) escape(keyPress) {
	if v := &l.m.View; v.Help {
		v.Help = false
	} else {
		v.Zoomed = false
	}
}

// quitKey ends the view once the running action, if any, has.
func (l *loop) quitKey(keyPress) {
	l.quitting = true
	if l.busy {
		l.m.Status, l.m.StatusErr = "quitting once this action ends", false
	}
}

// inLayout reports whether the current layout has pane p.
func (l *loop) inLayout(p PaneID) bool {
	for _, r := range layouts(l.m.View.Layout) {
		for _, c := range r.cells {
			if c.pane == p {
				return true
			}
		}
	}
	return false
}

// cycle selects the next (or previous) pane on screen.
func (l *loop) cycle(dir int) {
	if len(l.placed) == 0 {
		return
	}
	at := 0
	for i, p := range l.placed {
		if p.Pane == l.m.View.Selected {
			at = i
		}
	}
	n := len(l.placed)
	l.m.View.Selected = l.placed[((at+dir)%n+n)%n].Pane
}

// page is the height of the selected pane's body, for PgUp and PgDn.
func (l *loop) page() int {
	for _, p := range l.placed {
		if p.Pane == l.m.View.Selected {
			return max(1, p.Rect.H-2)
		}
	}
	return 10
}

// scroll moves pane p by delta lines, down positive. The Events pane
// counts back from the newest event, so down brings newer ones; in the
// Packets pane it moves the selected packet.
func (l *loop) scroll(p PaneID, delta int) {
	v := &l.m.View
	if p == PanePackets && v.Filter.On != nil && l.m.Packets != nil {
		l.filterScroll(delta)
		return
	}
	limit := 1 << 16
	switch p {
	case PaneEvents:
		delta, limit = -delta, l.m.EventCount()
	case PanePackets:
		limit = 0
		if l.m.Packets != nil {
			limit = max(0, l.m.Packets.Len()-1)
		}
	}
	v.Scroll[p] = min(max(v.Scroll[p]+delta, 0), limit)
}

// mouse selects the pane a click lands in and scrolls the one under the
// wheel; only a new press counts, not a held button.
func (l *loop) mouse(ev *tcell.EventMouse) {
	x, y := ev.Position()
	btn := ev.Buttons()
	pressed := btn &^ l.lastBtn
	l.lastBtn = btn
	for _, p := range l.placed {
		if !p.Rect.Contains(x, y) {
			continue
		}
		switch {
		case pressed&tcell.Button1 != 0:
			l.m.View.Selected, l.m.View.Help, l.dirty = p.Pane, false, true
			if p.Pane == PanePackets {
				l.packetsClick(p.Rect, x, y)
			}
		case btn&tcell.WheelUp != 0:
			l.scroll(p.Pane, -3)
			l.dirty = true
		case btn&tcell.WheelDown != 0:
			l.scroll(p.Pane, 3)
			l.dirty = true
		}
		return
	}
}
