package viz

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/internal/cli"
)

// The Packets pane's display filter, as termshark's /: a one-line bar at
// the bottom of the pane edits an expression in Wireshark's syntax (the
// language of decode -Y), Enter applies it and the list shows only the
// packets it passes, found in the background by a Selection.

// filterMistake is a filter's error that knows where in the expression
// the mistake is (a display filter's *dfilter.Error): the bar puts the
// cursor there and underlines it.
type filterMistake interface {
	error
	Column() int // from 1, in characters
	Width() int  // characters, at least 1
}

// FilterView is the display filter of the Packets pane: the bar while it
// is open, and the filter applied.
type FilterView struct {
	Bar     *FilterBar // the bar being edited; nil when closed
	On      *Selection // the filter applied; nil shows every packet
	History []string   // the filters applied, oldest first: Up recalls them
	// Near is the packet selected when the filter was applied: the
	// selection moves to the match nearest it once the search knows it
	// (-1: settled, or moved by hand since).
	Near int
	// Told: the status line has said how many packets the filter passed.
	Told bool
	// Seen is what the search had found when the selection last settled:
	// a frame draws from it alone, so its title, list and selection agree.
	Seen SelectionState
}

// FilterBar is the filter being typed.
type FilterBar struct {
	Text   []rune
	Cursor int    // in runes, 0 to len(Text)
	Hist   int    // the History entry shown; len(History) is Draft
	Draft  []rune // what was typed before Up went into the history
	Err    error  // why Enter refused ErrFor; shown while Text is ErrFor
	ErrFor string
	Paste  bool // inside a bracketed paste: Enter and Tab are blanks

	checked  string // the text check last compiled, and its mistake
	checkErr error
	hasCheck bool
}

// Bounds of the bar: a filter is a line, not a file, and the history
// a handful of them.
const (
	maxFilterLen  = 4096
	maxFilterHist = 64
)

func filters(m *Model) bool {
	_, ok := m.Packets.(Filterer)
	return ok && hasPackets(m)
}

// openBar opens the filter bar with the filter applied, the Packets pane
// selected (the packets layout if the pane is not on screen).
func (l *loop) openBar(keyPress) {
	v := &l.m.View
	if !l.inLayout(PanePackets) {
		v.Layout, v.Zoomed = LayoutPackets, false
	} else if v.Selected != PanePackets {
		v.Zoomed = false
	}
	v.Selected, v.Help = PanePackets, false
	fv := &v.Filter
	text := []rune(fv.applied())
	fv.Bar = &FilterBar{Text: text, Cursor: len(text), Hist: len(fv.History)}
}

// applied is the expression of the filter applied, or "".
func (fv *FilterView) applied() string {
	if fv.On == nil {
		return ""
	}
	return fv.On.Expr()
}

// barKey edits the filter: every key goes to the bar while it is open.
func (l *loop) barKey(ev *tcell.EventKey) {
	fv := &l.m.View.Filter
	b := fv.Bar
	if ev.Modifiers()&tcell.ModAlt != 0 && !b.Paste {
		// Esc and a key typed at once reach us as Alt and the key: the
		// bar has no Alt keys, so it is Esc, then the key for the view.
		fv.Bar = nil
		l.key(tcell.NewEventKey(ev.Key(), ev.Rune(), ev.Modifiers()&^tcell.ModAlt))
		return
	}
	switch ev.Key() {
	case tcell.KeyRune:
		b.insert(ev.Rune())
	case tcell.KeyEnter, tcell.KeyTab:
		switch {
		case b.Paste:
			b.insert(' ')
		case ev.Key() == tcell.KeyEnter:
			l.applyBar()
		default:
			l.completeField()
		}
	case tcell.KeyEscape, tcell.KeyCtrlC:
		if !b.Paste {
			fv.Bar = nil
		}
	case tcell.KeyBackspace, tcell.KeyBackspace2, tcell.KeyCtrlH:
		if b.Cursor > 0 {
			b.cut(b.Cursor-1, b.Cursor)
		}
	case tcell.KeyDelete, tcell.KeyCtrlD:
		if b.Cursor < len(b.Text) {
			b.cut(b.Cursor, b.Cursor+1)
		}
	case tcell.KeyLeft, tcell.KeyCtrlB:
		b.Cursor = max(b.Cursor-1, 0)
	case tcell.KeyRight, tcell.KeyCtrlF:
		b.Cursor = min(b.Cursor+1, len(b.Text))
	case tcell.KeyHome, tcell.KeyCtrlA:
		b.Cursor = 0
	case tcell.KeyEnd, tcell.KeyCtrlE:
		b.Cursor = len(b.Text)
	case tcell.KeyCtrlU:
		b.cut(0, b.Cursor)
	case tcell.KeyCtrlK:
		b.cut(b.Cursor, len(b.Text))
	case tcell.KeyCtrlW:
		k := b.Cursor
		for k > 0 && unicode.IsSpace(b.Text[k-1]) {
			k--
		}
		for k > 0 && !unicode.IsSpace(b.Text[k-1]) {
			k--
		}
		b.cut(k, b.Cursor)
	case tcell.KeyUp, tcell.KeyDown:
		b.recall(fv.History, map[bool]int{true: -1, false: 1}[ev.Key() == tcell.KeyUp])
	case tcell.KeyCtrlL:
		l.sync = true
	}
}

// insert types r at the cursor; control characters (a paste's line
// ends) become blanks.
func (b *FilterBar) insert(r rune) {
	if len(b.Text) >= maxFilterLen {
		return
	}
	if unicode.IsControl(r) {
		r = ' '
	}
	b.Text = append(b.Text[:b.Cursor], append([]rune{r}, b.Text[b.Cursor:]...)...)
	b.Cursor++
}

// cut removes the runes [i, j) and leaves the cursor at i.
func (b *FilterBar) cut(i, j int) {
	b.Text = append(b.Text[:i], b.Text[j:]...)
	b.Cursor = i
}

// recall shows the history entry dir away (-1 older, +1 newer); past the
// newest is the line typed before.
func (b *FilterBar) recall(hist []string, dir int) {
	k := min(max(b.Hist+dir, 0), len(hist))
	if k == b.Hist {
		return
	}
	if b.Hist == len(hist) {
		b.Draft = append([]rune(nil), b.Text...)
	}
	b.Hist = k
	if k == len(hist) {
		b.Text = b.Draft
	} else {
		b.Text = []rune(hist[k])
	}
	b.Cursor = len(b.Text)
}

// check compiles the text with f, once per text: the bar's ✓ or ✗.
func (b *FilterBar) check(f Filterer) error {
	text := string(b.Text)
	if !b.hasCheck || b.checked != text {
		b.checked, b.checkErr, b.hasCheck = text, nil, true
		if strings.TrimSpace(text) != "" {
			b.checkErr = f.CheckFilter(text)
		}
	}
	return b.checkErr
}

// applyBar is Enter: an empty filter shows every packet again; one that
// compiles replaces the filter applied; a mistake keeps the bar open with
// the cursor at it, and changes nothing else.
func (l *loop) applyBar() {
	m := l.m
	fv := &m.View.Filter
	b := fv.Bar
	f, ok := m.Packets.(Filterer)
	if !ok {
		fv.Bar = nil
		return
	}
	text := string(b.Text)
	expr := strings.TrimSpace(text)
	if expr == "" {
		fv.clear()
		fv.Bar = nil
		m.Status, m.StatusErr = fmt.Sprintf("filter cleared: all %s packets", cli.Thousands(m.Packets.Len())), false
		return
	}
	sel, err := f.Select(text, l.wakePackets)
	if err != nil {
		b.Err, b.ErrFor = err, text
		var e filterMistake
		if errors.As(err, &e) {
			b.Cursor = min(e.Column()-1, len(b.Text))
		}
		return
	}
	fv.clear()
	fv.On, fv.Near, fv.Told = sel, selectedPacket(m), false
	if n := len(fv.History); n == 0 || fv.History[n-1] != expr {
		fv.History = append(fv.History, expr)
		if len(fv.History) > maxFilterHist {
			fv.History = fv.History[1:]
		}
	}
	fv.Bar = nil
	m.Status, m.StatusErr = "filtering: "+expr, false
	if means := sel.Means(); means != "" {
		m.Status += " (" + means + ")"
	}
	settleFilter(m)
}

// clear stops the filter applied.
func (fv *FilterView) clear() {
	if fv.On != nil {
		fv.On.Stop()
	}
	fv.On, fv.Near, fv.Told, fv.Seen = nil, -1, false, SelectionState{}
}

// wakePackets redraws the view from any goroutine: the packets changed.
func (l *loop) wakePackets() {
	l.packets.Store(true)
	if l.s != nil {
		_ = l.s.PostEvent(tcell.NewEventInterrupt(nil))
	}
}

// settleFilter moves the selection to the match nearest the packet
// selected when the filter was applied, once the search knows it, and
// says how many packets passed once the search is over.
func settleFilter(m *Model) {
	fv := &m.View.Filter
	if fv.On == nil || m.Packets == nil {
		return
	}
	st := fv.On.State()
	fv.Seen = st
	if fv.Near >= 0 {
		if selectedPacket(m) != fv.Near {
			fv.Near = -1 // moved by hand meanwhile
		} else if p, ok := nearest(st, fv.Near); ok {
			if len(st.Rows) > 0 {
				m.View.Scroll[PanePackets] = p
			}
			fv.Near = -1
		}
	}
	if st.Done && !fv.Told {
		fv.Told = true
		switch {
		case st.Err != nil:
			m.Status, m.StatusErr = fmt.Sprintf("filter %s: stopped after %s packets: %v", fv.On.said(), cli.Thousands(st.Scanned), st.Err), true
		case len(st.Rows) == 0:
			m.Status, m.StatusErr = fmt.Sprintf("no packet passes %s (/ to change it, empty to clear)", fv.On.said()), true
		default:
			m.Status, m.StatusErr = fmt.Sprintf("filter %s: %s of %s packets", fv.On.said(), cli.Thousands(len(st.Rows)), cli.Thousands(m.Packets.Len())), false
		}
	}
}

// filterScroll moves the selection through the packets the filter
// passes.
func (l *loop) filterScroll(delta int) {
	m := l.m
	st := m.View.Filter.On.State()
	if p, ok := step(st.Rows, selectedPacket(m), delta); ok {
		m.View.Scroll[PanePackets] = p
	}
}

// listRows is the packets the list draws, at most h of them around the
// selected one: every packet, or with a filter the packets it passes.
// A selected packet the filter does not pass (a link followed to it, a
// replay's frame) is drawn among them all the same, at stray (else -1).
func listRows(m *Model, h int) (rows []int, stray int) {
	n, sel := m.Packets.Len(), selectedPacket(m)
	if m.View.Filter.On == nil {
		first := min(max(0, sel-h/2), max(0, n-h))
		for i := first; i < n && len(rows) < h; i++ {
			rows = append(rows, i)
		}
		return rows, -1
	}
	all := m.View.Filter.Seen.Rows
	k := at(all, sel)
	in := k < len(all) && int(all[k]) == sel
	total := len(all)
	if !in {
		total++
	}
	first := min(max(0, k-h/2), max(0, total-h))
	stray = -1
	for j := first; j < total && len(rows) < h; j++ {
		switch {
		case in || j < k:
			rows = append(rows, int(all[j]))
		case j == k:
			stray = len(rows)
			rows = append(rows, sel)
		default:
			rows = append(rows, int(all[j-1]))
		}
	}
	return rows, stray
}

// filterTitle is what the Packets pane's title says of the filter:
// "EXPR · 40 of 752 packets", with how far the search has got while it
// goes on, and for a narrow pane the count first, the expression after it
// to be cut; "" without a filter.
func filterTitle(m *Model) (long, short string) {
	fv := &m.View.Filter
	if fv.On == nil {
		return "", ""
	}
	st := fv.Seen
	n := m.Packets.Len()
	more := ""
	switch {
	case st.Err != nil:
		more = " (stopped)"
	case !st.Done:
		more = fmt.Sprintf(" (filtering %d%%)", 100*st.Scanned/max(n, 1))
	}
	count := fmt.Sprintf("%s of %s packets%s", cli.Thousands(len(st.Rows)), cli.Thousands(n), more)
	return fv.On.Expr() + " · " + count, count + " · " + fv.On.Expr()
}

// filterBarHints are the status bar's reminders while the bar is open.
func filterBarHints() [][2]string {
	return [][2]string{{"Enter", "apply"}, {"Esc", "cancel"}, {"Tab", "field"}, {"↑↓", "history"}, {"^U", "erase"}}
}

// drawFilterBar draws the bar, when it is open, in the last rows of r
// (the Packets pane's body) and returns the rows above it.
func drawFilterBar(s tcell.Screen, r Rect, m *Model, th Theme) Rect {
	b := m.View.Filter.Bar
	f, ok := m.Packets.(Filterer)
	if b == nil || !ok || r.Empty() {
		return r
	}
	lines := barLines(b, f, r.W, th)
	h := barHeight(m, r.W, r.H)
	for i := 0; i < h; i++ {
		y := r.Bottom() - h + i
		fill(s, Rect{r.X, y, r.W, 1}, th.Base)
		lines[i].draw(s, r.X, y, r.Right())
	}
	return Rect{r.X, r.Y, r.W, r.H - h}
}

// barHeight is the rows drawFilterBar takes of a body h rows high and w
// wide.
func barHeight(m *Model, w, h int) int {
	b := m.View.Filter.Bar
	f, ok := m.Packets.(Filterer)
	if b == nil || !ok || w <= 0 || h <= 0 {
		return 0
	}
	return min(len(barLines(b, f, w, Theme{})), h)
}

// barLines is the bar in w columns: "/ " and the text, scrolled so the
// cursor shows, with ✓ or ✗ on the right; after an Enter refused, the
// caret under the mistake and the message.
func barLines(b *FilterBar, f Filterer, w int, th Theme) []line {
	text := string(b.Text)
	var mark line
	err := b.check(f)
	switch {
	case strings.TrimSpace(text) == "":
		mark = line{}.add(" Enter: every packet", th.Dim)
	case err == nil:
		mark = line{}.add(" ✓", th.Good)
	default:
		col := ""
		var e filterMistake
		if errors.As(err, &e) {
			col = fmt.Sprintf(" col %d", e.Column())
		}
		mark = line{}.add(" ✗"+col, th.Alarm)
	}
	const prefix = "/ "
	room := max(w-len(prefix)-mark.width()-1, 1)
	off := 0
	if b.Cursor >= room {
		off = b.Cursor - room + 1
	}
	shown := b.Text[off:min(len(b.Text), off+room)]
	cur := b.Cursor - off
	l := line{}.add(prefix, th.HeaderSel)
	for i := 0; i <= len(shown) && i <= room; i++ {
		ch, st := " ", th.Base
		if i < len(shown) {
			ch = string(shown[i])
		}
		if i == cur {
			st = th.Base.Reverse(true)
		} else if i == len(shown) {
			break
		}
		l = l.add(ch, st)
	}
	if pad := w - l.width() - mark.width(); pad > 0 {
		l = l.add(strings.Repeat(" ", pad), th.Base)
	}
	out := []line{l.add(mark[0].text, mark[0].st)}

	if b.Err == nil || b.ErrFor != text {
		return out
	}
	msg := b.Err.Error()
	var e filterMistake
	if errors.As(b.Err, &e) {
		start := e.Column() - 1 - off
		n := e.Width()
		if start >= 0 && start < room {
			n = min(n, room-start)
			out = append(out, line{}.add(strings.Repeat(" ", len(prefix)+start), th.Base).add("^"+strings.Repeat("~", n-1), th.Alarm))
		}
	}
	for _, m := range wrapWords("✗ "+msg, w, 2) {
		out = append(out, line{}.add(m, th.Alarm))
	}
	return out
}

// wrapWords breaks s into at most n lines of w runes, the last cut with
// "…" when it does not fit.
func wrapWords(s string, w, n int) []string {
	var out []string
	for s != "" && len(out) < n {
		r := []rune(s)
		if len(r) <= w || len(out) == n-1 {
			out = append(out, fit(s, w))
			break
		}
		cut := strings.LastIndex(string(r[:w+1]), " ")
		if cut <= 0 {
			cut = len(string(r[:w]))
		}
		out = append(out, strings.TrimRight(s[:cut], " "))
		s = strings.TrimLeft(s[cut:], " ")
	}
	return out
}

// paste marks a bracketed paste: its keys are text for the bar, and
// outside the bar they are dropped rather than run as keys (a pasted q
// would quit).
func (l *loop) paste(ev *tcell.EventPaste) {
	l.pasting = ev.Start()
	if b := l.m.View.Filter.Bar; b != nil {
		b.Paste = ev.Start()
	} else if ev.Start() {
		l.m.Status, l.m.StatusErr, l.dirty = "a paste goes into the filter bar: / opens it", true, true
	}
}

// FilterMemory is what a view leaves of its display filters for the next
// one: the bar's history, and the filter applied with the packets it was
// applied to, which the next view of the same packets applies again.
type FilterMemory struct {
	History []string
	Applied string
	For     PacketSource
}

// recall takes the filters the last view left.
func (l *loop) recall() {
	mem, m := l.mem, l.m
	if mem == nil {
		return
	}
	fv := &m.View.Filter
	fv.History = slices.Clone(mem.History)
	f, ok := m.Packets.(Filterer)
	if !ok || mem.Applied == "" || mem.For != m.Packets {
		return
	}
	if sel, err := f.Select(mem.Applied, l.wakePackets); err == nil {
		fv.On, fv.Near, fv.Told = sel, selectedPacket(m), true
		m.Status, m.StatusErr = "filter "+mem.Applied+" (/ to change it, empty to clear)", false
	}
}

// remember leaves the filters for the next view.
func (l *loop) remember() {
	if l.mem == nil {
		return
	}
	fv := &l.m.View.Filter
	*l.mem = FilterMemory{History: slices.Clone(fv.History), Applied: fv.applied(), For: l.m.Packets}
}

// maxTabShown bounds the names Tab lists in the status line.
const maxTabShown = 6

// completeField is Tab: the field name before the cursor is completed
// as far as the names that start with it agree, and the status line lists
// them when there are several.
func (l *loop) completeField() {
	b := l.m.View.Filter.Bar
	fn, ok := l.m.Packets.(FieldNamer)
	if !ok {
		return
	}
	start := b.Cursor
	for start > 0 && isFieldRune(b.Text[start-1]) {
		start--
	}
	prefix := string(b.Text[start:b.Cursor])
	var match []string
	for _, n := range fn.FieldNames() {
		if strings.HasPrefix(n, prefix) {
			match = append(match, n)
		}
	}
	if len(match) == 0 {
		l.m.Status, l.m.StatusErr = fmt.Sprintf("no field starts with %q", prefix), true
		return
	}
	common := match[0]
	for _, n := range match[1:] {
		for !strings.HasPrefix(n, common) {
			common = common[:len(common)-1]
		}
	}
	for _, r := range common[len(prefix):] {
		b.insert(r)
	}
	switch {
	case len(match) == 1:
		l.m.Status, l.m.StatusErr = match[0], false
	case len(match) <= maxTabShown:
		l.m.Status, l.m.StatusErr = strings.Join(match, "  "), false
	default:
		l.m.Status, l.m.StatusErr = fmt.Sprintf("%s  … %d fields (rdmalab decode --fields lists them)", strings.Join(match[:maxTabShown], "  "), len(match)), false
	}
}

// isFieldRune reports whether r may be part of a field name.
func isFieldRune(r rune) bool {
	return r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
