package viz

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
)

// The filter the issue asks about: the replies the server sent late in
// the connection.
const replyFilter = "infiniband.bth.psn >= 100 && ip.src == 192.0.2.1 && rpcordma"

// decodeFrames is what `rdmalab decode -Y expr` lists of path: the frame
// numbers, packet indexes here (frame-1).
func decodeFrames(t testing.TB, path, expr string) []int {
	t.Helper()
	df, err := fields.CompileDisplayFilter(expr)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := decode.Write(&out, path, decode.Output{Display: df}); err != nil {
		t.Fatal(err)
	}
	var frames []int
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			n, err := strconv.Atoi(f[0])
			if err != nil {
				t.Fatalf("decode -Y line %q", l)
			}
			frames = append(frames, n-1)
		}
	}
	return frames
}

// barLoop is `view --capture` on the kernel capture with packet sel
// selected, not running: keys go through l.key as the terminal's would.
func barLoop(t *testing.T, sel int) *loop {
	t.Helper()
	s := keyScreen(t)
	k := viewKind{src: StaticSource(Frame{}, "capture nfs3-rdma.pcap"), packets: openCapture(t, nfs3Capture), layout: LayoutPackets, zoomed: true}
	l := keyLoop(s, k, func(m *Model) { m.View.Scroll[PanePackets] = sel })
	t.Cleanup(l.m.View.Filter.clear)
	return l
}

func typeText(l *loop, text string) {
	for _, r := range text {
		press(l, tcell.KeyRune, r)
	}
}

// waitFilter waits for the filter applied to have looked at every packet,
// then lets the view take the news, as the loop does on a wake.
func waitFilter(t *testing.T, l *loop) SelectionState {
	t.Helper()
	on := l.m.View.Filter.On
	if on == nil {
		t.Fatal("no filter applied")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := on.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	settleFilter(l.m)
	return on.State()
}

func barText(l *loop) (string, int) {
	b := l.m.View.Filter.Bar
	if b == nil {
		return "<closed>", -1
	}
	return string(b.Text), b.Cursor
}

// The bar edits a line as a shell does: typing at the cursor, Backspace
// and Delete, the arrows, Home and End, Ctrl-U, Ctrl-K and Ctrl-W; a
// bracketed paste is text even where it holds a line end; Esc closes the
// bar and keeps no trace of it.
func TestFilterBarEditing(t *testing.T) {
	l := barLoop(t, 42)
	before := l.m.View
	press(l, tcell.KeyRune, '/')
	if txt, cur := barText(l); txt != "" || cur != 0 {
		t.Fatalf("/ opened %q at %d", txt, cur)
	}
	typeText(l, "ip.src == 192.0.2.1")
	steps := []struct {
		key  tcell.Key
		r    rune
		text string
		cur  int
	}{
		{tcell.KeyHome, 0, "ip.src == 192.0.2.1", 0},
		{tcell.KeyRune, '!', "!ip.src == 192.0.2.1", 1},
		{tcell.KeyDelete, 0, "!p.src == 192.0.2.1", 1},
		{tcell.KeyBackspace2, 0, "p.src == 192.0.2.1", 0},
		{tcell.KeyRune, 'i', "ip.src == 192.0.2.1", 1},
		{tcell.KeyEnd, 0, "ip.src == 192.0.2.1", 19},
		{tcell.KeyLeft, 0, "ip.src == 192.0.2.1", 18},
		{tcell.KeyBackspace, 0, "ip.src == 192.0.21", 17},
		{tcell.KeyRune, '.', "ip.src == 192.0.2.1", 18},
		{tcell.KeyRight, 0, "ip.src == 192.0.2.1", 19},
		{tcell.KeyRight, 0, "ip.src == 192.0.2.1", 19},
		{tcell.KeyCtrlW, 0, "ip.src == ", 10},
		{tcell.KeyLeft, 0, "ip.src == ", 9},
		{tcell.KeyLeft, 0, "ip.src == ", 8},
		{tcell.KeyCtrlK, 0, "ip.src =", 8},
		{tcell.KeyCtrlU, 0, "", 0},
	}
	for _, s := range steps {
		press(l, s.key, s.r)
		if txt, cur := barText(l); txt != s.text || cur != s.cur {
			t.Fatalf("after %s: %q at %d, want %q at %d", tcell.NewEventKey(s.key, s.r, 0).Name(), txt, cur, s.text, s.cur)
		}
	}

	// A paste arrives as keys between two paste events: its Enter is a
	// blank, not an apply, and the view's keys (q) are text.
	l.handle(tcell.NewEventPaste(true))
	typeText(l, "rpc")
	press(l, tcell.KeyEnter, 0)
	typeText(l, "|| quit")
	l.handle(tcell.NewEventPaste(false))
	if txt, _ := barText(l); txt != "rpc || quit" || l.m.View.Filter.On != nil || l.quitting {
		t.Fatalf("after a paste: %q, filter %v, quitting %v", txt, l.m.View.Filter.On, l.quitting)
	}
	if hints := keyHints(l.m); hints[0] != [2]string{"Enter", "apply"} {
		t.Errorf("the status line hints %v with the bar open", hints)
	}
	// A paste with the bar closed runs none of its keys.
	press(l, tcell.KeyEscape, 0)
	l.handle(tcell.NewEventPaste(true))
	typeText(l, "5q")
	l.handle(tcell.NewEventPaste(false))
	if l.quitting || l.m.View.Layout != LayoutPackets {
		t.Errorf("a paste outside the bar ran its keys: quitting %v, layout %v", l.quitting, l.m.View.Layout)
	}

	after := l.m.View
	if !reflect.DeepEqual(after, before) {
		t.Errorf("Esc left the view changed:\n%+v\n%+v", before, after)
	}
	// Esc and Down typed at once come as Alt-Down: the bar closes and the
	// list moves.
	press(l, tcell.KeyRune, '/')
	typeText(l, "rpc")
	l.key(tcell.NewEventKey(tcell.KeyDown, 0, tcell.ModAlt))
	if l.m.View.Filter.Bar != nil || selectedPacket(l.m) != 43 {
		t.Errorf("Alt-Down in the bar: bar %v, packet %d", l.m.View.Filter.Bar, selectedPacket(l.m))
	}
	l.m.View.Scroll[PanePackets] = 42
	// The bar holds a line: a paste of a megabyte is cut.
	press(l, tcell.KeyRune, '/')
	typeText(l, strings.Repeat("x", maxFilterLen+10))
	if txt, _ := barText(l); len(txt) != maxFilterLen {
		t.Errorf("the bar holds %d runes", len(txt))
	}
}

// Enter applies the filter: the list shows only the packets decode -Y
// passes, numbered as in the capture, the title says how many, the
// selection goes to the nearest match and the arrows move through the
// matches; Esc on a new text keeps the filter; Up recalls it; an empty
// filter shows every packet again.
func TestFilterBarApply(t *testing.T) {
	want := decodeFrames(t, nfs3Capture, replyFilter)
	if len(want) < 20 {
		t.Fatalf("decode -Y %s: %d frames", replyFilter, len(want))
	}
	l := barLoop(t, 200) // frame 201; the nearest match is frame 223 (index 222)
	press(l, tcell.KeyRune, '/')
	typeText(l, replyFilter)
	press(l, tcell.KeyEnter, 0)
	if l.m.View.Filter.Bar != nil {
		t.Fatalf("Enter left the bar open: %v", l.m.View.Filter.Bar.Err)
	}
	st := waitFilter(t, l)
	got := make([]int, len(st.Rows))
	for i, r := range st.Rows {
		got[i] = int(r)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the filter passed %v\ndecode -Y passes %v", got, want)
	}
	k := at(st.Rows, 200)
	near := int(st.Rows[k])
	if k > 0 && 200-int(st.Rows[k-1]) <= near-200 {
		near = int(st.Rows[k-1])
	}
	if sel := selectedPacket(l.m); sel != near {
		t.Errorf("selected packet %d, want the nearest match %d", sel, near)
	}

	// The screen: the title, and list rows only of matches with their
	// own frame numbers.
	l.dirty = true
	l.redraw()
	text := rows(l.s.(tcell.SimulationScreen))
	// At 80 columns the count comes before the filter, which is cut.
	if title := "Packets · 38 of 752 packets · infiniband.bth.psn >= 100"; len(want) != 38 || !strings.Contains(text[1], title) {
		t.Errorf("title %q, want %q", text[1], title)
	}
	wide := fmt.Sprintf("Packets · nfs3-rdma.pcap · frame %d · %s · 38 of 752 packets", near+1, replyFilter)
	if title := (packetsPane{}).Title(l.m, 200); title != wide {
		t.Errorf("title %q, want %q", title, wide)
	}
	if !strings.Contains(l.m.Status, "38 of 752 packets") {
		t.Errorf("status %q", l.m.Status)
	}
	listed := 0
	listRow := regexp.MustCompile(`^ *(\d+) \d+\.\d{6} +(\S+) +(\S+) `)
	for _, row := range text[2:12] {
		f := listRow.FindStringSubmatch(row)
		if f == nil {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		listed++
		if !slices.Contains(want, n-1) {
			t.Errorf("row %q: frame %d does not pass", row, n)
		}
		if f[2] != "192.0.2.1" || f[3] != "192.0.2.2" {
			t.Errorf("row %q is not from the server", row)
		}
	}
	if listed < 5 {
		t.Errorf("%d rows listed:\n%s", listed, strings.Join(text, "\n"))
	}

	// The arrows go from match to match; Home and End to the first and last.
	at0 := slices.Index(want, near)
	press(l, tcell.KeyDown, 0)
	if sel := selectedPacket(l.m); sel != want[at0+1] {
		t.Errorf("Down: packet %d, want %d", sel, want[at0+1])
	}
	press(l, tcell.KeyUp, 0)
	press(l, tcell.KeyUp, 0)
	if sel := selectedPacket(l.m); sel != want[at0-1] {
		t.Errorf("Up Up: packet %d, want %d", sel, want[at0-1])
	}
	press(l, tcell.KeyHome, 0)
	if sel := selectedPacket(l.m); sel != want[0] {
		t.Errorf("Home: packet %d, want %d", sel, want[0])
	}
	press(l, tcell.KeyEnd, 0)
	if sel := selectedPacket(l.m); sel != want[len(want)-1] {
		t.Errorf("End: packet %d, want %d", sel, want[len(want)-1])
	}
	// x follows the link to a call the filter does not pass: it is shown,
	// dimmed, among the matches, and Down goes on to the next match.
	press(l, tcell.KeyHome, 0)
	press(l, tcell.KeyRune, 'x')
	call := selectedPacket(l.m)
	if slices.Contains(want, call) || call != want[0]-2 {
		t.Fatalf("x from frame %d: packet %d", want[0]+1, call)
	}
	if rows, stray := listRows(l.m, 5); stray < 0 || rows[stray] != call || !slices.Contains(rows, want[0]) {
		t.Errorf("list rows %v, stray at %d", rows, stray)
	}
	press(l, tcell.KeyDown, 0)
	if sel := selectedPacket(l.m); sel != want[0] {
		t.Errorf("Down from the call: packet %d, want %d", sel, want[0])
	}

	// / opens on the filter applied; Esc after editing keeps it.
	press(l, tcell.KeyRune, '/')
	if txt, cur := barText(l); txt != replyFilter || cur != len(replyFilter) {
		t.Errorf("/ opened on %q at %d", txt, cur)
	}
	press(l, tcell.KeyCtrlU, 0)
	typeText(l, "rpc")
	press(l, tcell.KeyEscape, 0)
	if on := l.m.View.Filter.On; l.m.View.Filter.Bar != nil || on == nil || on.Expr() != replyFilter {
		t.Fatalf("Esc: bar %v, filter %v", l.m.View.Filter.Bar, on)
	}
	// A second filter; Up recalls the first, Down comes back to what was typed.
	press(l, tcell.KeyRune, '/')
	press(l, tcell.KeyCtrlU, 0)
	typeText(l, "rpc.msgtyp == 0")
	press(l, tcell.KeyEnter, 0)
	calls := waitFilter(t, l)
	if len(calls.Rows) == 0 || calls.Rows[0] == st.Rows[0] {
		t.Fatalf("rpc.msgtyp == 0: %d packets", len(calls.Rows))
	}
	press(l, tcell.KeyRune, '/')
	press(l, tcell.KeyCtrlU, 0)
	typeText(l, "ip")
	press(l, tcell.KeyUp, 0)
	if txt, _ := barText(l); txt != "rpc.msgtyp == 0" {
		t.Errorf("Up: %q", txt)
	}
	press(l, tcell.KeyUp, 0)
	press(l, tcell.KeyUp, 0)
	if txt, _ := barText(l); txt != replyFilter {
		t.Errorf("Up Up Up: %q", txt)
	}
	press(l, tcell.KeyDown, 0)
	press(l, tcell.KeyDown, 0)
	if txt, _ := barText(l); txt != "ip" {
		t.Errorf("Down Down: %q, want what was typed", txt)
	}
	// Empty clears: every packet again, the selection where it was.
	press(l, tcell.KeyCtrlU, 0)
	typeText(l, "  ")
	sel := selectedPacket(l.m)
	press(l, tcell.KeyEnter, 0)
	if l.m.View.Filter.On != nil || l.m.View.Filter.Bar != nil || selectedPacket(l.m) != sel {
		t.Fatalf("an empty filter: on %v, bar %v, packet %d", l.m.View.Filter.On, l.m.View.Filter.Bar, selectedPacket(l.m))
	}
	press(l, tcell.KeyDown, 0)
	if selectedPacket(l.m) != sel+1 {
		t.Errorf("Down with no filter: packet %d, want %d", selectedPacket(l.m), sel+1)
	}
	l.redraw()
	if text := rows(l.s.(tcell.SimulationScreen)); !strings.Contains(text[1], "of 752") || strings.Contains(text[1], "packets") {
		t.Errorf("title after clearing: %q", text[1])
	}
}

// Enter on a mistake keeps the bar open with the caret under it and the
// message, the cursor at the mistake, and changes nothing else; the mark
// says ✓ or ✗ as the text is typed, in colour or not.
func TestFilterBarError(t *testing.T) {
	l := barLoop(t, 42)
	press(l, tcell.KeyRune, '/')
	typeText(l, "rpc")
	press(l, tcell.KeyEnter, 0)
	waitFilter(t, l)
	press(l, tcell.KeyRune, '/')
	press(l, tcell.KeyCtrlU, 0)
	typeText(l, "infiniband.bth.psn >= 100 && ip.srcc == 192.0.2.1")
	before := l.m.View
	bar := *before.Filter.Bar
	status := l.m.Status
	press(l, tcell.KeyEnter, 0)
	b := l.m.View.Filter.Bar
	if b == nil || b.Err == nil {
		t.Fatal("Enter on a mistake closed the bar")
	}
	if b.Cursor != strings.Index(string(b.Text), "ip.srcc") {
		t.Errorf("cursor at %d, want the mistake's column", b.Cursor)
	}
	after := l.m.View
	after.Filter.Bar = before.Filter.Bar
	if !reflect.DeepEqual(after, before) || l.m.Status != status || l.m.View.Filter.On.Expr() != "rpc" {
		t.Errorf("Enter on a mistake changed the view")
	}
	if string(b.Text) != string(bar.Text) {
		t.Errorf("the text changed: %q", string(b.Text))
	}
	for _, th := range []Theme{NewTheme(256), NewTheme(0)} {
		l.th = th
		l.dirty = true
		l.redraw()
		text := rows(l.s.(tcell.SimulationScreen))
		if !th.Mono {
			checkGolden(t, "filterbar_error_80x24", text)
		}
		// The caret is under ip.srcc, the message under it.
		var exprRow = -1
		for i, r := range text {
			if strings.HasPrefix(r, "/ infiniband.bth.psn") {
				exprRow = i
			}
		}
		if exprRow < 0 || exprRow+2 >= len(text) {
			t.Fatalf("no bar:\n%s", strings.Join(text, "\n"))
		}
		col := strings.Index(text[exprRow], "ip.srcc")
		caret := text[exprRow+1]
		if strings.Index(caret, "^") != col || !strings.HasPrefix(caret[col:], "^~~~~~") {
			t.Errorf("caret\n%s\n%s", text[exprRow], caret)
		}
		if !strings.Contains(text[exprRow], "✗ col 30") || !strings.Contains(strings.Join(text[exprRow+2:], " "), "ip.srcc") {
			t.Errorf("mark or message missing:\n%s", strings.Join(text[exprRow:], "\n"))
		}
	}
	// Fixing it: the caret goes, the mark says ✓.
	press(l, tcell.KeyRight, 0)
	press(l, tcell.KeyRight, 0)
	press(l, tcell.KeyRight, 0)
	press(l, tcell.KeyRight, 0)
	press(l, tcell.KeyRight, 0)
	press(l, tcell.KeyRight, 0)
	press(l, tcell.KeyBackspace2, 0)
	l.th = NewTheme(0)
	l.dirty = true
	l.redraw()
	text := strings.Join(rows(l.s.(tcell.SimulationScreen)), "\n")
	if !strings.Contains(text, "ip.src == 192.0.2.1") || !strings.Contains(text, "✓") || strings.Contains(text, "^~") {
		t.Errorf("fixed:\n%s", text)
	}
}

// The filter is applied through the index while it is still being
// built: the search waits for the packets to come and ends with what
// decode -Y passes of the whole file.
func TestFilterWhileIndexing(t *testing.T) {
	path := bigCapture(t, 60_000)
	x, err := decode.OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	src := NewCaptureSource(x, "")
	woke := make(chan struct{}, 1)
	sel, err := src.Select(replyFilter, func() {
		select {
		case woke <- struct{}{}:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sel.Stop()
	early := x.Progress()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := sel.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if early.Done {
		t.Logf("the index was done before the search started: this run did not test waiting")
	}
	st := sel.State()
	if !st.Done || st.Err != nil || st.Scanned != x.Len() {
		t.Fatalf("state %+v of %d packets", st, x.Len())
	}
	want := decodeFrames(t, path, replyFilter)
	if len(st.Rows) != len(want) {
		t.Fatalf("%d rows, decode -Y %d", len(st.Rows), len(want))
	}
	for i := range want {
		if int(st.Rows[i]) != want[i] {
			t.Fatalf("row %d: packet %d, decode -Y %d", i, st.Rows[i], want[i])
		}
	}
	select {
	case <-woke:
	default:
		t.Error("the search never woke the view")
	}
}

// nearest and step on a few rows, the search over or not.
func TestFilterNearestAndStep(t *testing.T) {
	rows := []int32{10, 20, 40}
	for _, c := range []struct {
		sel, scanned int
		done         bool
		want         int
		known        bool
	}{
		{20, 41, false, 20, true},
		{14, 41, false, 10, true},
		{15, 41, false, 10, true}, // a tie: the earlier
		{16, 41, false, 20, true},
		{50, 55, false, 0, false}, // 60 could be found: 10 from 50, as 40 is
		{50, 61, false, 40, true},
		{50, 52, true, 40, true},
		{5, 41, false, 10, true},
	} {
		p, known := nearest(SelectionState{Rows: rows, Scanned: c.scanned, Done: c.done}, c.sel)
		if known != c.known || (known && p != c.want) {
			t.Errorf("nearest %d (scanned %d, done %v): %d %v, want %d %v", c.sel, c.scanned, c.done, p, known, c.want, c.known)
		}
	}
	if _, known := nearest(SelectionState{Scanned: 100}, 5); known {
		t.Error("no match yet, search going on: settled")
	}
	for _, c := range []struct{ sel, delta, want int }{
		{20, 1, 40}, {20, -1, 10}, {15, 1, 20}, {15, -1, 10}, {5, 1, 10}, {50, -1, 40},
		{20, 1 << 20, 40}, {20, -1 << 20, 10}, {40, 1, 40},
	} {
		if got, _ := step(rows, c.sel, c.delta); got != c.want {
			t.Errorf("step %d by %d: %d, want %d", c.sel, c.delta, got, c.want)
		}
	}
}

// BenchmarkFilterSelect is the display filter applied to a capture of a
// million packets, already indexed: packets/s is how fast the search goes
// through it, and ui-max-ms the longest the view waited meanwhile for a
// row of the list (the search lets it in between batches).
func BenchmarkFilterSelect(b *testing.B) {
	path := bigCapture(b, 1_000_000)
	x, err := decode.OpenIndex(path)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Wait(context.Background(), -1); err != nil {
		b.Fatal(err)
	}
	src := NewCaptureSource(x, "")
	var worst time.Duration
	b.ResetTimer()
	for b.Loop() {
		sel, err := src.Select(replyFilter, func() {})
		if err != nil {
			b.Fatal(err)
		}
		for !sel.State().Done {
			start := time.Now()
			src.Summary(12345)
			worst = max(worst, time.Since(start))
			time.Sleep(time.Millisecond)
		}
		if n := len(sel.State().Rows); n == 0 {
			b.Fatalf("%d rows", n)
		}
		sel.Stop()
	}
	b.ReportMetric(float64(x.Len())*float64(b.N)/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(worst)/1e6, "ui-max-ms")
}

// A Viewer given a FilterMemory leaves its filters there: the next view
// of the same packets opens with the filter applied and Up recalls the
// filters of the first (the REPL's view, quit and opened again).
func TestFilterMemory(t *testing.T) {
	src := openCapture(t, nfs3Capture)
	mem := &FilterMemory{}
	view := func(keys func(s *countScreen)) string {
		s := &countScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
		done := make(chan error, 1)
		go func() {
			v := Viewer{Layout: LayoutPackets, Packets: src, Zoomed: true, Filters: mem}
			done <- v.Run(context.Background(), s, StaticSource(Frame{}, "capture"))
		}()
		waitFor(t, "the packets", func() bool { return strings.Contains(s.text(), "of 752") })
		keys(s)
		txt := s.text()
		s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
		if err := waitRun(t, done); err != nil {
			t.Fatal(err)
		}
		return txt
	}
	typed := func(s *countScreen, text string) {
		for _, r := range text {
			s.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		}
	}
	view(func(s *countScreen) {
		for _, f := range []string{"rpc", replyFilter} {
			s.InjectKey(tcell.KeyRune, '/', tcell.ModNone)
			s.InjectKey(tcell.KeyCtrlU, 0, tcell.ModCtrl)
			typed(s, f)
			s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		}
		waitFor(t, "the filter applied", func() bool { return strings.Contains(s.text(), "38 of 752 packets") })
	})
	if mem.Applied != replyFilter || !slices.Equal(mem.History, []string{"rpc", replyFilter}) || mem.For != src {
		t.Fatalf("memory %+v", mem)
	}
	txt := view(func(s *countScreen) {
		waitFor(t, "the filter applied again", func() bool { return strings.Contains(s.text(), "38 of 752 packets") })
		s.InjectKey(tcell.KeyRune, '/', tcell.ModNone)
		s.InjectKey(tcell.KeyUp, 0, tcell.ModNone)
		s.InjectKey(tcell.KeyUp, 0, tcell.ModNone)
		waitFor(t, "the first filter recalled", func() bool { return strings.Contains(s.text(), "\n/ rpc ") })
		s.InjectKey(tcell.KeyEscape, 0, tcell.ModNone)
		s.InjectKey(tcell.KeyRune, '/', tcell.ModNone)
		s.InjectKey(tcell.KeyCtrlU, 0, tcell.ModCtrl)
		s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		waitFor(t, "the filter cleared", func() bool { return strings.Contains(s.text(), "filter cleared") })
	})
	if mem.Applied != "" || len(mem.History) != 2 {
		t.Errorf("memory after clearing %+v\n%s", mem, txt)
	}
	// Another capture: the history stays, the filter is not applied to it.
	mem.Applied, mem.For = "rpc", openCapture(t, nfs3Capture)
	view(func(s *countScreen) {
		time.Sleep(50 * time.Millisecond)
		if txt := s.text(); strings.Contains(txt, "of 752 packets") {
			t.Errorf("another capture's filter applied:\n%s", txt)
		}
	})
}

// The bar at every size down to 1×1, a long expression with a mistake
// near its end: nothing panics, nothing leaves the pane, and where the
// caret shows it is under the mistake, however the text is scrolled.
func TestFilterBarAnySize(t *testing.T) {
	l := barLoop(t, 42)
	press(l, tcell.KeyRune, '/')
	long := strings.Repeat("infiniband.bth.psn >= 1 && ", 6) + "ip.srcc == 192.0.2.1"
	typeText(l, long)
	press(l, tcell.KeyEnter, 0)
	if l.m.View.Filter.Bar == nil || l.m.View.Filter.Bar.Err == nil {
		t.Fatal("no error")
	}
	mistake := strings.Index(long, "ip.srcc")
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	carets := 0
	for _, cursor := range []int{mistake, 0, len(long)} {
		l.m.View.Filter.Bar.Cursor = cursor
		for w := 1; w <= 121; w += 6 {
			for h := 1; h <= 31; h += 3 {
				s.SetSize(w, h)
				checkPlacements(t, Draw(s, l.m, NewTheme(256)), w, h)
				s.Show()
				text := rows(s)
				for y := 1; y < len(text); y++ {
					col := strings.Index(text[y], "^~")
					if col < 0 || !strings.HasPrefix(text[y-1], "/ ") {
						continue
					}
					carets++
					above := []rune(text[y-1])
					if col >= len(above) || above[col] != 'i' || !strings.HasPrefix(string(above[col:]), "ip.src") {
						t.Errorf("%dx%d, cursor %d: the caret is not under the mistake:\n%s\n%s", w, h, cursor, text[y-1], text[y])
					}
				}
			}
		}
	}
	if carets < 50 {
		t.Errorf("the caret showed %d times", carets)
	}
}

// The bar's search and decode -Y agree on every capture in
// captures/testdata, over expressions of each kind (decode's parity test
// holds decode -Y to tshark -Y on the same ones): the view reads packets
// back from its index, decode streams them.
func TestFilterMatchesDecode(t *testing.T) {
	exprs := []string{
		"frame.number <= 10 || frame.number in {40..45, 100}",
		replyFilter,
		"ip.src == 192.0.2.0/31 and not infiniband.bth.psn ge 100",
		"infiniband.bth.opcode in {4, 17}",
		"infiniband.reth.dmalen > 4096",
		"infiniband.aeth.syndrome != 0 and infiniband.aeth",
		"rpcordma.xid == 0x47dbd665",
		"rpcordma.rdma_length in {4, 120} and rpcordma.reads_count >= 1",
		"nfs.status3 == 0 && nfs.count3 >= 4096",
		"frame.time_relative > 0.5 && frame.len < 100",
		"rdmalab.psn_status != \"ok\"",
		"rdmalab.rpc.summary contains \"Reply\"",
	}
	paths, _ := filepath.Glob("../captures/testdata/*.pcap")
	if len(paths) < 5 {
		t.Fatalf("captures: %v", paths)
	}
	matched := 0
	for _, path := range paths {
		src := openCapture(t, path)
		for _, expr := range exprs {
			sel, err := src.Select(expr, func() {})
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = sel.Wait(ctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, r := range sel.State().Rows {
				got = append(got, int(r))
			}
			sel.Stop()
			want := decodeFrames(t, path, expr)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s:\n view     %v\n decode -Y %v", filepath.Base(path), expr, got, want)
			}
			matched += len(got)
		}
	}
	if matched < 100 {
		t.Errorf("only %d packets matched in all", matched)
	}
}

// Tab completes the field name before the cursor as far as the names
// agree, lists them in the status line, and says when none starts so.
func TestFilterBarTab(t *testing.T) {
	l := barLoop(t, 42)
	press(l, tcell.KeyRune, '/')
	typeText(l, "infiniband.bth.ps")
	press(l, tcell.KeyTab, 0)
	if txt, cur := barText(l); txt != "infiniband.bth.psn" || cur != len(txt) {
		t.Errorf("Tab: %q at %d", txt, cur)
	}
	typeText(l, " >= 100 && rpcord")
	press(l, tcell.KeyTab, 0)
	if txt, _ := barText(l); txt != "infiniband.bth.psn >= 100 && rpcordma" || !strings.Contains(l.m.Status, "rpcordma.errcode") || !strings.Contains(l.m.Status, "fields") {
		t.Errorf("Tab on rpcord: %q, status %q", txt, l.m.Status)
	}
	// In the middle of the text, before a name already complete.
	press(l, tcell.KeyHome, 0)
	typeText(l, "udp.d")
	press(l, tcell.KeyTab, 0)
	if txt, cur := barText(l); txt != "udp.dstportinfiniband.bth.psn >= 100 && rpcordma" || cur != 11 || l.m.Status != "udp.dstport" {
		t.Errorf("Tab at the start: %q at %d", txt, cur)
	}
	press(l, tcell.KeyCtrlU, 0)
	typeText(l, "nosuch")
	press(l, tcell.KeyTab, 0)
	if txt, _ := barText(l); !strings.HasPrefix(txt, "nosuch") || !l.m.StatusErr || !strings.Contains(l.m.Status, `no field starts with "nosuch"`) {
		t.Errorf("Tab on nosuch: %q, status %q", txt, l.m.Status)
	}
}

// The bar takes the short forms decode --filter and the REPL's packets
// take, through fields.CompileSelection: it passes the packets the
// display filter they compile to passes, and the status says that
// expression. A bar with a matcher of its own, or none, fails here.
func TestFilterBarShortForms(t *testing.T) {
	src := openCapture(t, nfs3Capture)
	rowsOf := func(expr string) []int32 {
		t.Helper()
		sel, err := src.Select(expr, func() {})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		defer sel.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := sel.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		return sel.State().Rows
	}
	matched := 0
	for _, form := range []string{"qp=0x11", "opcode=ack", "xid=0x4bdbd665", "rpcs,opcode=send-only|ack", "anomalies", "qp=0xabc", "qp=17 opcode=RC Acknowledge"} {
		want, err := fields.CompileSelection(form)
		if err != nil || !want.Short {
			t.Fatalf("%s: %+v, %v", form, want, err)
		}
		got := rowsOf(form)
		if exp := rowsOf(want.Expr); !slices.Equal(got, exp) {
			t.Errorf("%s: the bar passes %v\n%s passes %v", form, got, want.Expr, exp)
		}
		if err := src.CheckFilter(form); err != nil {
			t.Errorf("%s: the bar's check says %v", form, err)
		}
		matched += len(got)
	}
	if matched < 800 {
		t.Errorf("only %d packets matched in all", matched)
	}

	l := barLoop(t, 0)
	press(l, tcell.KeyRune, '/')
	typeText(l, "xid=0x4bdbd665")
	press(l, tcell.KeyEnter, 0)
	const means = "rdmalab.xid == 0x4bdbd665"
	if on := l.m.View.Filter.On; on == nil || on.Means() != means || !strings.Contains(l.m.Status, "xid=0x4bdbd665 ("+means+")") {
		t.Fatalf("status %q, filter %+v", l.m.Status, on)
	}
	waitFilter(t, l)
	if !strings.Contains(l.m.Status, "filter xid=0x4bdbd665 ("+means+"): ") {
		t.Errorf("status %q", l.m.Status)
	}
}
