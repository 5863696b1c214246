package viz

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

const nfs3Capture = "../captures/testdata/nfs3-rdma.pcap"

// openCapture indexes path to its end and returns the pane's source.
func openCapture(t testing.TB, path string) *CaptureSource {
	t.Helper()
	x, err := decode.OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := x.Wait(ctx, -1); err != nil {
		t.Fatal(err)
	}
	return NewCaptureSource(x, "")
}

// captureModel shows src in the packets layout with packet sel selected.
func captureModel(src PacketSource, sel int) *Model {
	m := NewModel(0)
	m.Packets = src
	m.View = ViewState{Layout: LayoutPackets, Selected: PanePackets}
	m.View.Scroll[PanePackets] = sel
	return m
}

// press hands the loop a key, as the terminal would.
func press(l *loop, k tcell.Key, r rune) {
	l.key(tcell.NewEventKey(k, r, tcell.ModNone))
}

func TestCaptureSourceLines(t *testing.T) {
	src := openCapture(t, nfs3Capture)
	if src.Len() != 752 {
		t.Fatalf("%d packets", src.Len())
	}
	// The pane numbers the rows itself: the summary starts at the time.
	if got := src.Summary(42); !strings.HasPrefix(got, "0.514404 192.0.2.1 → 192.0.2.2 RRoCE 826 RC RDMA Write Only") || !strings.Contains(got, "reply chunk 0 segment 1 +0") {
		t.Errorf("summary %q", got)
	}
	d, f := src.Detail(42), src.Fields(42)
	if len(d) != len(f) || len(d) < 10 {
		t.Fatalf("%d lines, %d ranges", len(d), len(f))
	}
	if src.Describe() != "nfs3-rdma.pcap" {
		t.Errorf("name %q", src.Describe())
	}
	pl := src.Place(42)
	if pl.Call != 39 || pl.Reply != 44 || !pl.InChunk || !strings.Contains(pl.Text, "reply chunk 0 segment 1") {
		t.Errorf("place %+v", pl)
	}
	if pl := src.Place(0); pl.Text != "" || pl.Call != -1 {
		t.Errorf("a CM packet's place %+v", pl)
	}
}

// The pane with a capture: the place line, the list, the tree with its
// selected line and the hex dump with that line's bytes highlighted.
func TestGoldenCapture(t *testing.T) {
	src := openCapture(t, nfs3Capture)
	for _, tc := range []struct {
		name   string
		w, h   int
		sel    int
		label  string // the detail line selected
		detail bool
	}{
		{"capture_list_80x24", 80, 24, 42, "", false},
		{"capture_reth_120x40", 120, 40, 42, "RETH - RDMA", true},
		{"capture_rpc_160x50", 160, 50, 39, "Remote Procedure Call", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := captureModel(src, tc.sel)
			if tc.label != "" {
				for k, d := range src.Detail(tc.sel) {
					if strings.HasPrefix(d.Text, tc.label) {
						m.View.Packets.Line, m.View.Packets.Label = k, lineLabel(d)
					}
				}
			}
			m.View.Packets.Detail = tc.detail
			s, got := render(t, m, NewTheme(256), tc.w, tc.h)
			checkGolden(t, tc.name, got)
			if tc.label == "" {
				return
			}
			// The highlighted cells of the dump are the field's bytes.
			k := m.View.Packets.Line
			r := src.Fields(tc.sel)[k]
			b := src.Bytes(tc.sel)
			hl := highlightedHex(s, NewTheme(256))
			want := fmt.Sprintf("%x", b[r.Start:r.End])
			if hl != want {
				t.Errorf("highlighted %q, want %q (bytes %d-%d)", hl, want, r.Start, r.End)
			}
		})
	}
}

// highlightedHex reads back the hex digits drawn in the highlight style.
func highlightedHex(s tcell.SimulationScreen, th Theme) string {
	cells, w, h := s.GetContents()
	var b strings.Builder
	for y := 0; y < h; y++ {
		row := ""
		for x := 0; x < w; x++ {
			if len(cells[y*w+x].Runes) > 0 {
				row += string(cells[y*w+x].Runes[0])
			} else {
				row += " "
			}
		}
		// A hex row: "0040 00 11 ...": offset, then 16 bytes in 49 columns.
		if len(row) < 5 || !isHexRow(row) {
			continue
		}
		for x := 5; x < 5+49 && x < w; x++ {
			c := cells[y*w+x]
			if c.Style == th.HeaderSel && len(c.Runes) > 0 && c.Runes[0] != ' ' {
				b.WriteRune(c.Runes[0])
			}
		}
	}
	return b.String()
}

func isHexRow(row string) bool {
	for _, c := range row[:4] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return row[4] == ' ' && row[7] == ' '
}

// The pane's keys: the detail tree takes the arrows, x and X follow the
// links to the call and the reply, [ ] and { } walk the chunk and the
// RPC, Backspace comes back.
func TestCaptureKeys(t *testing.T) {
	src := openCapture(t, nfs3Capture)
	m := captureModel(src, 42)
	l := &loop{m: m}
	sel := func() int { return m.View.Scroll[PanePackets] }

	press(l, tcell.KeyDown, 0)
	if sel() != 43 || m.View.Packets.Line != 0 {
		t.Fatalf("Down in the list: packet %d, line %d", sel(), m.View.Packets.Line)
	}
	press(l, tcell.KeyUp, 0)
	press(l, tcell.KeyEnter, 0)
	press(l, tcell.KeyDown, 0)
	press(l, tcell.KeyDown, 0)
	if sel() != 42 || !m.View.Packets.Detail || m.View.Packets.Line != 2 {
		t.Fatalf("Down in the tree: packet %d, detail %v, line %d", sel(), m.View.Packets.Detail, m.View.Packets.Line)
	}
	press(l, tcell.KeyEnd, 0)
	if n := len(src.Detail(42)); m.View.Packets.Line != n-1 {
		t.Errorf("End: line %d of %d", m.View.Packets.Line, n)
	}
	press(l, tcell.KeyEnter, 0)

	press(l, tcell.KeyRune, 'x')
	if sel() != 39 || !strings.Contains(m.Status, "the call: packet 40") {
		t.Fatalf("x: packet %d, status %q", sel(), m.Status)
	}
	press(l, tcell.KeyRune, 'X')
	if sel() != 44 {
		t.Fatalf("X: packet %d", sel())
	}
	press(l, tcell.KeyBackspace2, 0)
	press(l, tcell.KeyBackspace2, 0)
	if sel() != 42 {
		t.Fatalf("back twice: packet %d", sel())
	}
	// Frame 43 is the first packet of reply chunk 0's segment 1; 42 and
	// 44 are the others of the chunk.
	press(l, tcell.KeyRune, ']')
	if sel() != 43 {
		t.Fatalf("]: packet %d (%s)", sel(), m.Status)
	}
	press(l, tcell.KeyRune, '[')
	press(l, tcell.KeyRune, '[')
	if sel() != 41 || !strings.Contains(m.Status, "previous: packet 1 of 3 of its chunk") {
		t.Fatalf("[ [: packet %d (%s)", sel(), m.Status)
	}
	press(l, tcell.KeyRune, '[')
	if sel() != 41 || !m.StatusErr {
		t.Fatalf("[ at the first: packet %d (%s)", sel(), m.Status)
	}
	// The RPC's packets: the call (40), its ACK (41), the three
	// WRITEs, the reply...
	press(l, tcell.KeyRune, '{')
	if sel() != 40 || !strings.Contains(m.Status, "of its RPC") {
		t.Fatalf("{: packet %d (%s)", sel(), m.Status)
	}
	press(l, tcell.KeyRune, '{')
	press(l, tcell.KeyRune, '}')
	press(l, tcell.KeyRune, '}')
	if sel() != 41 {
		t.Fatalf("{ } }: packet %d (%s)", sel(), m.Status)
	}
	m.View.Scroll[PanePackets] = 0
	press(l, tcell.KeyRune, 'x')
	if sel() != 0 || !m.StatusErr || !strings.Contains(m.Status, "belongs to no RPC") {
		t.Errorf("x on a CM packet: packet %d (%s)", sel(), m.Status)
	}
	// The stepping keys still step: the pane does not take them.
	if b, _ := lookup(m, keyPress{tcell.KeyRune, 's'}); b != nil && b.group == groupPackets {
		t.Error("the pane took s")
	}
}

// The selected detail line follows its label from packet to packet.
func TestDetailLineSticks(t *testing.T) {
	d1 := []DetailLine{{0, "Frame 1"}, {0, "InfiniBand"}, {1, "Base Transport Header"}, {2, "Opcode: x"}}
	d2 := []DetailLine{{0, "Frame 2"}, {0, "Ethernet II"}, {0, "InfiniBand"}, {1, "Base Transport Header"}, {2, "Opcode: y"}}
	pv := &PacketsView{Line: 3, Label: lineLabel(d1[3])}
	if got := detailLine(d2, pv); got != 4 {
		t.Errorf("line %d, want the opcode's 4", got)
	}
	pv = &PacketsView{Line: 9, Label: "9 nothing"}
	if got := detailLine(d2, pv); got != 4 {
		t.Errorf("line %d, want the last", got)
	}
}

// indexingSource is a capture still being read.
type indexingSource struct {
	manyPackets
	pr PacketProgress
}

func (s indexingSource) Progress() PacketProgress { return s.pr }

func TestPacketsProgress(t *testing.T) {
	m := captureModel(indexingSource{manyPackets(340_112), PacketProgress{Fraction: 0.34, Packets: 340_112}}, 0)
	_, rows := render(t, m, NewTheme(256), 80, 24)
	text := strings.Join(rows, "\n")
	for _, want := range []string{"indexing 34% · 340,112 packets ███", "Packets · 1 of 340112…"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	m.Packets = indexingSource{manyPackets(10), PacketProgress{Fraction: 1, Packets: 10, Done: true,
		Err: fmt.Errorf("cut.pcap: frame 11, offset 5000: truncated")}}
	_, rows = render(t, m, NewTheme(256), 80, 24)
	if text := strings.Join(rows, "\n"); !strings.Contains(text, "stopped after 10 packets: cut.pcap: frame 11") {
		t.Errorf("no error line in\n%s", text)
	}
	m.Packets = indexingSource{manyPackets(0), PacketProgress{}}
	_, rows = render(t, m, NewTheme(256), 80, 24)
	if text := strings.Join(rows, "\n"); !strings.Contains(text, "indexing 0%") || !strings.Contains(text, "reading the capture") {
		t.Errorf("an empty capture being read:\n%s", text)
	}
}

// bigCapture writes a capture of n frames, the kernel's NFS/RDMA frames
// over and over, once per test binary run.
func bigCapture(b testing.TB, n int) string {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("rdmalab-viz-bench-%d.pcap", n))
	if st, err := os.Stat(path); err == nil && st.Size() > int64(n)*50 {
		return path
	}
	r, err := pcapfile.Open(nfs3Capture)
	if err != nil {
		b.Fatal(err)
	}
	type frame struct {
		ci   gopacket.CaptureInfo
		data []byte
	}
	var frames []frame
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		frames = append(frames, frame{rec.Info, append([]byte(nil), rec.Data...)})
	}
	r.Close()
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := pcapfile.NewWriter(bw, pcapfile.LinkTypeEthernet, 65535)
	if err != nil {
		b.Fatal(err)
	}
	start := frames[0].ci.Timestamp
	for i := 0; i < n; i++ {
		fr := frames[i%len(frames)]
		ci := fr.ci
		ci.Timestamp = start.Add(time.Duration(i) * time.Microsecond)
		if err := w.WritePacket(ci, fr.data); err != nil {
			b.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkPacketsFirstScreen is the time from opening a capture of a
// million packets to the Packets pane's first screen drawn with packets in
// it, while the rest is indexed (the goal: under 0.3 s).
func BenchmarkPacketsFirstScreen(b *testing.B) {
	path := bigCapture(b, 1_000_000)
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(160, 50)
	th := NewTheme(256)
	b.ResetTimer()
	for b.Loop() {
		x, err := decode.OpenIndex(path)
		if err != nil {
			b.Fatal(err)
		}
		m := captureModel(NewCaptureSource(x, ""), 0)
		// The view draws at once, then again as the indexer reports; the
		// first screen with packets is the one after its first report.
		Draw(s, m, th)
		if _, err := x.Wait(context.Background(), 50); err != nil {
			b.Fatal(err)
		}
		Draw(s, m, th)
		s.Show()
		b.StopTimer()
		if text := strings.Join(rows(s), "\n"); !strings.Contains(text, "CM: ConnectRequest") || !strings.Contains(text, "indexing") {
			b.Fatalf("the first screen:\n%s", text)
		}
		x.Close()
		b.StartTimer()
	}
}

// BenchmarkCaptureRedraw is one frame of the packets layout on the kernel
// capture, a packet in a chunk selected, its detail tree focused.
func BenchmarkCaptureRedraw(b *testing.B) {
	src := openCapture(b, nfs3Capture)
	m := captureModel(src, 42)
	m.View.Packets.Detail, m.View.Packets.Line = true, 16
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(160, 50)
	th := NewTheme(256)
	var r renderer
	b.ReportAllocs()
	for b.Loop() {
		r.draw(s, m, th)
		s.Show()
	}
}

// RunCapture is `rdmalab view --capture FILE`: the packets layout on the
// file, until q; a file that is no capture is an error, not a screen.
func TestRunCapture(t *testing.T) {
	s := &countScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	done := make(chan error, 1)
	go func() { done <- RunCapture(context.Background(), s, nfs3Capture, 0) }()
	waitFor(t, "the capture's packets", func() bool {
		txt := s.text()
		return strings.Contains(txt, "nfs3-rdma.pcap · 1 of 752") && strings.Contains(txt, "CM: ConnectRequest")
	})
	// With no session the packets fill the screen: no empty Events pane.
	if txt := s.text(); strings.Contains(txt, "Events ·") {
		t.Errorf("view --capture shows the Events pane:\n%s", txt)
	}
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	if err := waitRun(t, done); err != nil {
		t.Fatalf("RunCapture: %v", err)
	}
	if err := RunCapture(context.Background(), tcell.NewSimulationScreen("UTF-8"), "capsource.go", 0); err == nil {
		t.Fatal("RunCapture on a Go file: no error")
	}
}
