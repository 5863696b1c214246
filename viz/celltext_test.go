package viz

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// hostile is what a capture or a snapshot can put in any string: a screen
// clear, a cursor move, a terminal query, CR/LF, C1 CSI, a bidi override,
// a byte that is not UTF-8, an OSC title and an unterminated DCS.
const hostile = "\x1b[2J\x1b[H\x1b[6n\r\nX\u009b31m\u202eevil\xff\x1b]0;pwned\x07\x1bP\x07\x7f"

func TestCellText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, é and → stay", "plain text, é and → stay"},
		{`a\b already escaped \x1b`, `a\b already escaped \x1b`},
		{"\x1b[2J", `\x1b[2J`},
		{"a\r\nb\tc", `a\r\nb\tc`},
		{"\u009b", `\u009b`},
		{"\u202eabc", `\u202eabc`},
		{"bad \xff byte", `bad \xff byte`},
		{"\x7f", `\x7f`},
	} {
		got := safe.Display(tc.in)
		if got != tc.want {
			t.Errorf("safe.Display(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if again := safe.Display(got); again != got {
			t.Errorf("cellText is not idempotent on %q: %q", got, again)
		}
		if !safe.IsDisplayable(got) {
			t.Errorf("safe.Display(%q) = %q is not safe", tc.in, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = safe.Display("a safe line of text · 42") }); n != 0 {
		t.Errorf("safe text allocates %.0f times", n)
	}
}

// unsafeCells lists the cells of s that hold a rune a terminal acts on.
func unsafeCells(s tcell.SimulationScreen) []string {
	cells, w, h := s.GetContents()
	var bad []string
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for _, r := range cells[y*w+x].Runes {
				if !safe.IsDisplayable(string(r)) {
					bad = append(bad, fmt.Sprintf("(%d,%d) %U", x, y, r))
				}
			}
			if b := cells[y*w+x].Bytes; !safe.IsDisplayable(string(b)) {
				bad = append(bad, fmt.Sprintf("(%d,%d) bytes %q", x, y, b))
			}
		}
	}
	return bad
}

// poison prefixes every string reachable from v with hostile.
func poison(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			poison(v.Elem())
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(hostile + v.String())
		}
	case reflect.Slice:
		for i := range v.Len() {
			poison(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				poison(v.Field(i))
			}
		}
	}
}

// hostilePackets is a capture whose every string is hostile.
type hostilePackets struct{}

func (hostilePackets) Len() int             { return 3 }
func (hostilePackets) Summary(i int) string { return fmt.Sprintf("%d %s NFS LOOKUP", i, hostile) }
func (hostilePackets) Detail(i int) []DetailLine {
	return []DetailLine{{0, "Frame " + hostile}, {1, "name: " + hostile}, {1 << 40, "deep " + hostile}}
}
func (hostilePackets) Bytes(int) []byte       { return []byte(hostile) }
func (hostilePackets) Fields(int) []ByteRange { return []ByteRange{{0, 4}, {4, 8}, {-5, 1 << 40}} }
func (hostilePackets) Place(int) PacketPlace {
	return PacketPlace{Text: "xid " + hostile, Call: 0, Reply: 2, In: 3}
}
func (hostilePackets) Related(int, bool) []int    { return []int{0, 1, 2} }
func (hostilePackets) Describe() string           { return "file" + hostile + ".pcap" }
func (hostilePackets) Progress() PacketProgress   { return PacketProgress{Fraction: -3, Packets: 3} }
func (hostilePackets) Watch(func()) (stop func()) { return func() {} }

// No cell holds a control rune, whatever the strings of the snapshot, the
// events, the lesson, the status line and the capture say, in every
// layout, every pane zoomed and the help: the guard is where text goes
// into cells, so no pane can forget it.
func TestNoControlRuneReachesACell(t *testing.T) {
	for _, st := range []struct {
		name string
		m    func(testing.TB) *Model
	}{
		{"read3", func(t testing.TB) *Model { return modelOf(stateRead3(t)) }},
		{"write2", func(t testing.TB) *Model { return modelOf(stateWrite2(t)) }},
		{"starved", func(t testing.TB) *Model { return modelOf(stateStarved(t)) }},
		{"race", func(t testing.TB) *Model { return modelOf(stateRace(t)) }},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			base := st.m(t)
			snap := base.Snap
			poison(reflect.ValueOf(&snap))
			evs := []trace.Event{}
			for i := range base.EventCount() {
				e := base.Event(i)
				poison(reflect.ValueOf(&e))
				evs = append(evs, e)
			}
			evs = append(evs, trace.Event{Seq: 1 << 40, Task: hostile, Func: hostile, Text: hostile, Depth: 1 << 40,
				Args: []trace.Arg{{Key: hostile, Val: hostile}}})
			for _, size := range [][2]int{{80, 24}, {200, 60}, {30, 8}} {
				s := tcell.NewSimulationScreen("UTF-8")
				if err := s.Init(); err != nil {
					t.Fatal(err)
				}
				defer s.Fini()
				s.SetSize(size[0], size[1])
				for lay := Layout(0); lay < numLayouts; lay++ {
					for zoom := -1; zoom < int(numPanes); zoom++ {
						m := NewModel(0)
						m.Update(snap, evs)
						m.Packets = hostilePackets{}
						m.Narration, m.Origin, m.Status = hostile, "snapshot "+hostile, hostile
						m.View.Layout = lay
						m.View.Help = zoom == -1
						if zoom >= 0 {
							m.View.Selected, m.View.Zoomed = PaneID(zoom), true
						}
						m.View.Packets.Detail = zoom%2 == 0
						s.Clear()
						Draw(s, m, NewTheme(256))
						s.Show()
						rows := rows(s)
						if bad := unsafeCells(s); len(bad) > 0 {
							t.Fatalf("%dx%d %v zoom %d: control runes in cells %v\n%s", size[0], size[1], lay, zoom, bad[:min(len(bad), 8)], strings.Join(rows, "\n"))
						}
						if size[0] == 200 && zoom < 0 && !strings.Contains(strings.Join(rows, "\n"), `\x1b[2J`) {
							t.Errorf("%v: the hostile text is not shown escaped:\n%s", lay, strings.Join(rows, "\n"))
						}
					}
				}
			}
		})
	}
}

// The setters tcell deprecates still go through the guard.
func TestOffscreenSetters(t *testing.T) {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(40, 5)
	var o offscreen
	o.reset(s, tcell.StyleDefault)
	o.SetContent(0, 0, '\x1b', []rune("[2J"), tcell.StyleDefault)
	o.SetCell(0, 1, tcell.StyleDefault, '\x9b', 'X')
	o.PutStr(0, 2, "\x1b]0;title\x07")
	o.PutStrStyled(0, 3, "ok \x1b[6n", tcell.StyleDefault)
	o.SetTitle("\x1b]0;t\x07")
	o.flush()
	s.Show()
	if bad := unsafeCells(s); len(bad) > 0 {
		t.Fatalf("control runes in cells: %v", bad)
	}
	// A setter of one cell puts the first cell of the escaped text.
	if got := rows(s); got[0] != `\` || got[1] != `\` || got[2] != `\x1b]0;title\a` || got[3] != `ok \x1b[6n` {
		t.Errorf("rows %q", got)
	}
}
