package viz

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/captures/replay"
)

func loadReplay(t testing.TB) *replay.Timeline {
	t.Helper()
	tl, err := replay.ReadFile("../captures/testdata/nfs3-rdma.pcap")
	if err != nil {
		t.Fatal(err)
	}
	tl.File = "nfs3-rdma.pcap"
	return tl
}

// replayModel is the model the view draws at the step of frame.
func replayModel(t testing.TB, tl *replay.Timeline, frame int) *Model {
	t.Helper()
	src := NewReplaySource(tl)
	at := -1
	for i, s := range tl.Steps() {
		if s.Frame == frame {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no step at frame %d", frame)
	}
	src.Seek(at)
	m := NewModel(0)
	m.Update(src.Snapshot(), src.Events(DefaultEvents))
	m.Narration, m.Origin = src.Narration(), src.Describe()
	m.Can = abilitiesOf(src)
	return m
}

// The view drawing a replay, unchanged panes: a Read list half landed in
// rc_pages with its chain of READs; a reply chain filling a Write chunk;
// the positions advanced by the ACKs.
func TestGoldenReplay(t *testing.T) {
	tl := loadReplay(t)
	for _, tc := range []struct {
		frame  int
		layout Layout
		w, h   int
	}{
		{150, LayoutRead, 120, 40},
		{300, LayoutWrite, 120, 40},
		{387, LayoutPositions, 80, 24},
	} {
		name := fmt.Sprintf("replay_%d_%s_%dx%d", tc.frame, strings.ReplaceAll(tc.layout.String(), " ", "_"), tc.w, tc.h)
		t.Run(name, func(t *testing.T) {
			m := replayModel(t, tl, tc.frame)
			m.View.Layout, m.View.Selected = tc.layout, layouts(tc.layout)[0].cells[0].pane
			_, got := render(t, m, NewTheme(256), tc.w, tc.h)
			checkGolden(t, name, got)
		})
	}
}

// What the panes must show, whatever the layout details.
func TestReplayPanes(t *testing.T) {
	tl := loadReplay(t)
	m := replayModel(t, tl, 150)
	m.View.Layout = LayoutRead
	th := NewTheme(256)
	sim, rows := render(t, m, th, 160, 50)
	screen := strings.Join(rows, "\n")
	// Landed bytes are filled, bytes a posted READ has yet to bring are
	// not: rc_pages 0-13 have landed, 14-31 not yet.
	read := byteSource{kind: srcRead}
	cells, w, _ := sim.GetContents()
	glyph := func(y, x int) rune {
		if c := cells[y*w+x]; len(c.Runes) > 0 {
			return c.Runes[0]
		}
		return ' '
	}
	boxes := 0
	for y := range rows {
		for x := 0; x+5 < w; x++ {
			// A page box: [ and four cells of read chunk 0's glyph, or
			// the pending shade while its Read has not landed, then ].
			cells4 := string([]rune{glyph(y, x+1), glyph(y, x+2), glyph(y, x+3), glyph(y, x+4)})
			if glyph(y, x) != '[' || glyph(y, x+5) != ']' || cells4 != "0000" && cells4 != "░░░░" {
				continue
			}
			if landed := boxes <= 13; (cells4 == "0000") != landed {
				t.Errorf("rc_page %d (row %d): %q, landed %v", boxes, y, cells4, landed)
			}
			if got, want := cells[y*w+x+1].Style, th.bytes(read, boxes <= 13); got != want {
				t.Errorf("rc_page %d (row %d): style %v, want %v", boxes, y, got, want)
			}
			boxes++
		}
	}
	if boxes != 32 {
		t.Errorf("%d rc_pages drawn, want 32", boxes)
	}
	for _, want := range []string{
		"replay frame 150/752 · RPC 18/38",              // where, in the title bar
		"rc_pages · xid 0x4bdbd665 · 131072 B · 7 WQEs", // the Read list in rc_pages
		"7 RDMA_READ       2    8192",                   // its chain, the last READ signaled
		"◆ svc_rdma_wc_read_done",
		"Send Queue · 7 WQEs in flight, depth unknown", // no sc_sq_depth on the wire
		"sc_sq_depth unknown (not on the wire)",
		"57344 of 131072 B landed",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	m = replayModel(t, tl, 387)
	m.View.Layout, m.View.Selected, m.View.Zoomed = LayoutPositions, PanePositions, true
	_, rows = render(t, m, NewTheme(256), 120, 40)
	screen = strings.Join(rows, "\n")
	for _, want := range []string{"sc_post_seq 25 · xpt_acked_pos 25", " 25 0x52dbd665 READ     ● delivered"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the positions lack %q:\n%s", want, screen)
		}
	}
}

// The actions move through the replay; at the ends they say why not.
func TestReplayActs(t *testing.T) {
	tl := loadReplay(t)
	src := NewReplaySource(tl)
	if d := src.Describe(); d != "replay of nfs3-rdma.pcap · frame 0 of 752" {
		t.Errorf("before the first step: %q", d)
	}
	if err := src.Act(ActBack); err == nil {
		t.Error("back before the first step did not fail")
	}
	steps := []struct {
		a    Action
		want string
	}{
		{ActStep, "frame 1 of 752"},
		{ActNext, "frame 4 of 752 · RPC 1 of 38"},
		{ActFinish, "frame 7 of 752 · RPC 1 of 38"},
		{ActNext, "frame 8 of 752 · RPC 2 of 38"},
		{ActBackRPC, "frame 4 of 752 · RPC 1 of 38"},
		{ActComplete, "frame 7 of 752 · RPC 1 of 38"},
		{ActBack, "frame 6 of 752 · RPC 1 of 38"},
		{ActContinue, "frame 752 of 752 · RPC 38 of 38"},
	}
	for _, s := range steps {
		if err := src.Act(s.a); err != nil {
			t.Fatalf("%v: %v", s.a, err)
		}
		if d := src.Describe(); !strings.HasSuffix(d, s.want) {
			t.Fatalf("after %v: %q, want … %q", s.a, d, s.want)
		}
	}
	for _, a := range []Action{ActStep, ActNext, ActContinue, ActComplete} {
		if err := src.Act(a); err == nil {
			t.Errorf("%v at the end did not fail", a)
		}
	}
	if ev := src.Events(1); len(ev) != 1 || ev[0].Func != "frame 752" {
		t.Errorf("the newest event at the end: %+v", ev)
	}
	if err := src.Act(ActTransport); err == nil || !strings.Contains(err.Error(), "one transport") {
		t.Errorf("t with one transport: %v", err)
	}
}

// t follows each transport alone in turn, then all again; a capture of
// two connections between the same hosts (the kernel's NFSv3 and NFSv4.1
// captures replayed one after the other, as mergecap -a makes it).
func TestReplayTransports(t *testing.T) {
	var two bytes.Buffer
	for i, name := range []string{"nfs3-rdma.pcap", "nfs4.1-rdma.pcap"} {
		b, err := os.ReadFile("../captures/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b = b[24:] // the same link type and snap length: one header
		}
		two.Write(b)
	}
	tl, err := replay.Read(&two, "two.pcap")
	if err != nil {
		t.Fatal(err)
	}
	src := NewReplaySource(tl)
	src.Seek(tl.NumSteps() - 1)
	for _, want := range []string{"xprt 1 of 2 (alone)", "xprt 2 of 2 (alone)", "xprt 2 of 2 · frame"} {
		if err := src.Act(ActTransport); err != nil {
			t.Fatal(err)
		}
		if d := src.Describe(); !strings.Contains(d, want) {
			t.Errorf("after t: %q, want %q", d, want)
		}
	}
	// Alone, steps stay on the transport followed, and its picture shows.
	src.Act(ActTransport)
	src.Seek(-1)
	for range 5 {
		if err := src.Act(ActNext); err != nil {
			t.Fatal(err)
		}
	}
	if d := src.Describe(); !strings.Contains(d, "xprt 1 of 2 (alone)") || !strings.Contains(d, "RPC 5 of 88") {
		t.Errorf("xprt 1, 5th RPC: %q", d)
	}
	if pos := src.Snapshot().Positions; pos.PostSeq != 4 {
		t.Errorf("xprt 1 at its 5th call: sc_post_seq %d, want 4", pos.PostSeq)
	}
}

// The view's keys drive a replay: s steps, b goes back; on a source that
// cannot go back, b says so.
func TestReplayKeys(t *testing.T) {
	tl := loadReplay(t)
	src := NewReplaySource(tl)
	s, done := runView(t, &Viewer{}, src)
	at := func(want string) func() bool {
		return func() bool { return strings.HasSuffix(src.Describe(), want) }
	}
	for _, r := range "sss" {
		s.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		time.Sleep(20 * time.Millisecond) // one action runs at a time
	}
	waitFor(t, "frame 3", at("frame 3 of 752"))
	s.InjectKey(tcell.KeyRune, 'b', tcell.ModNone)
	waitFor(t, "frame 2", at("frame 2 of 752"))
	before := s.shows.Load()
	s.InjectKey(tcell.KeyRune, 'n', tcell.ModNone)
	waitFor(t, "RPC 1", at("frame 4 of 752 · RPC 1 of 38"))
	// The title row follows once the view has drawn the move: wait for
	// that draw, not for a fixed time (a loaded machine under -race took
	// longer than 50 ms).
	waitFor(t, "the title row to say where the replay is", func() bool {
		if s.shows.Load() <= before {
			return false
		}
		_, rows := s.frame()
		return strings.Contains(rows[0], "replay frame 4/752 · RPC 1/38")
	})
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}

	// A live lab cannot go back: b says so.
	fs := &fakeSource{}
	cs, done := runView(t, &Viewer{}, fs)
	before = cs.shows.Load()
	cs.InjectKey(tcell.KeyRune, 'b', tcell.ModNone)
	waitFor(t, "the refusal", func() bool { return cs.shows.Load() > before })
	if _, rows := cs.frame(); !strings.Contains(rows[len(rows)-1], "only a replay goes back") || len(fs.acts) != 0 {
		t.Errorf("b on a live source: status %q, actions %v", rows[len(rows)-1], fs.acts)
	}
	cs.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
}

// In a replay the Packets pane follows the replay's frame, and g moves the
// replay to the packet the pane has selected: to its step, or, for a
// packet that is no step, to the step before it.
func TestReplayPacketsFollow(t *testing.T) {
	tl := loadReplay(t)
	src := NewReplaySource(tl)
	s, done := runView(t, &Viewer{Layout: LayoutPackets, Packets: openCapture(t, nfs3Capture)}, src)
	key := func(k tcell.Key) { s.InjectKey(k, 0, tcell.ModNone) }
	rn := func(r rune) { s.InjectKey(tcell.KeyRune, r, tcell.ModNone) }
	// The pane's title says which packet it has selected: "· 3 of 752".
	selects := func(frame int) func() bool {
		return func() bool { return strings.Contains(s.text(), fmt.Sprintf(" · %d of 752", frame)) }
	}
	at := func(frame int) func() bool {
		return func() bool { return src.Frame() == frame }
	}
	for _, r := range "sss" {
		rn(r)
		time.Sleep(20 * time.Millisecond) // one action runs at a time
	}
	waitFor(t, "the replay at frame 3", at(3))
	waitFor(t, "the pane following to frame 3", selects(3))

	// The user moves the selection; the replay stays until g.
	key(tcell.KeyEnd)
	waitFor(t, "the last packet selected", selects(752))
	if f := src.Frame(); f != 3 {
		t.Fatalf("moving the selection moved the replay to frame %d", f)
	}
	rn('@')
	waitFor(t, "the replay at frame 752", at(752))
	waitFor(t, "the status", func() bool {
		return strings.Contains(s.text(), fmt.Sprintf("frame 752: step %d of %d", tl.NumSteps(), tl.NumSteps()))
	})

	// Stepping back moves the selection with it.
	rn('b')
	prev := tl.Step(tl.NumSteps() - 2).Frame
	waitFor(t, "the replay a step back", at(prev))
	waitFor(t, "the pane following back", selects(prev))

	// A packet that is no step (the server's ACK of a call): g goes to the
	// step before it.
	isStep := map[int]bool{}
	for _, st := range tl.Steps() {
		isStep[st.Frame] = true
	}
	miss := prev - 1
	for isStep[miss] {
		miss--
	}
	before := 0
	for _, st := range tl.Steps() {
		if st.Frame < miss {
			before = st.Frame
		}
	}
	for range prev - miss {
		key(tcell.KeyUp)
	}
	waitFor(t, "a packet that is no step selected", selects(miss))
	rn('@')
	waitFor(t, "the replay at the step before it", at(before))
	waitFor(t, "the pane at that step", selects(before))
	if text := s.text(); !strings.Contains(text, fmt.Sprintf("frame %d changes nothing the server sees", miss)) {
		t.Errorf("the status does not say why the replay is not at frame %d:\n%s", miss, text)
	}
	rn('q')
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
}

// Keys typed while an action runs are kept and run in order, as a
// terminal keeps them: five quick n land on the fifth RPC.
func TestTypeAheadRunsInOrder(t *testing.T) {
	tl := loadReplay(t)
	src := NewReplaySource(tl)
	s, _ := runView(t, &Viewer{}, src)
	for range 5 {
		s.InjectKey(tcell.KeyRune, 'n', tcell.ModNone)
	}
	want := tl.Step(tl.RPCs[4].First).Frame
	waitFor(t, fmt.Sprintf("the replay at RPC 5 (frame %d)", want), func() bool { return src.Frame() == want })
	time.Sleep(50 * time.Millisecond)
	if f := src.Frame(); f != want {
		t.Fatalf("after five n the replay went on to frame %d, want %d", f, want)
	}
}

// b gives the view exactly what s gave it at each step, across the
// replay's checkpoints (every 256 steps on this capture): the picture,
// the events, the narration and the title.
func TestReplayBackDrawsAsForward(t *testing.T) {
	tl := loadReplay(t)
	type drawn struct {
		snap        any
		events      any
		narr, title string
	}
	draw := func(src *ReplaySource) drawn {
		return drawn{src.Snapshot(), src.Events(DefaultEvents), src.Narration(), src.Describe()}
	}
	near := func(i int) bool { return i%256 <= 3 || i%256 >= 252 }
	fwd, want := NewReplaySource(tl), map[int]drawn{}
	for i := 0; fwd.Act(ActStep) == nil; i++ {
		if near(i) {
			want[i] = draw(fwd)
		}
	}
	back := NewReplaySource(tl)
	if err := back.Act(ActContinue); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i := tl.NumSteps() - 2; back.Act(ActBack) == nil && i >= 0; i-- {
		if w, ok := want[i]; ok {
			checked++
			if got := draw(back); !reflect.DeepEqual(got, w) {
				t.Fatalf("step %d after b differs from after s:\n got %+v\nwant %+v", i, got, w)
			}
		}
	}
	if checked < 16 {
		t.Errorf("%d steps compared", checked)
	}
}

// The replay view's Packets pane lists the capture the replay reads, from
// the index whose pass the replay follows (OpenReplay).
func TestRunReplayPackets(t *testing.T) {
	r, err := OpenReplay(nfs3Capture, "nfs3-rdma.pcap", replay.ReadOptions{NoJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := &countScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	done := make(chan error, 1)
	go func() { done <- RunReplay(context.Background(), s, r) }()
	waitFor(t, "the first frame", func() bool { return s.shows.Load() > 0 })
	s.InjectKey(tcell.KeyRune, 's', tcell.ModNone)
	waitFor(t, "the first step", func() bool { return strings.Contains(s.text(), "frame 1") })
	s.InjectKey(tcell.KeyRune, '5', tcell.ModNone)
	waitFor(t, "the packets listed", func() bool { return strings.Contains(s.text(), "1 of 752") })
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
}
