package viz

import (
	"strings"
	"testing"
)

// With a capture, the Packets pane lists packets around the selected one,
// its detail tree and its bytes; asking only for the rows it shows.
func TestPacketsPane(t *testing.T) {
	m := NewModel(0)
	m.Packets = manyPackets(100_000)
	m.View = ViewState{Layout: LayoutPackets, Selected: PanePackets}
	m.View.Scroll[PanePackets] = 41_999
	_, rows := render(t, m, NewTheme(256), 80, 24)
	text := strings.Join(rows, "\n")
	for _, want := range []string{"Packets · 42000 of 100000", " 42000 RoCEv2 RC RDMA_READ_RESPONSE_MIDDLE psn 41999", "UDP 4791", "0000 00 00 00"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	l := &loop{m: m}
	l.scroll(PanePackets, 1<<20)
	if m.View.Scroll[PanePackets] != 99_999 {
		t.Errorf("End selects packet %d, want the last", m.View.Scroll[PanePackets])
	}
}
