package viz

import (
	"strings"
	"testing"
)

func lineText(l line) string {
	var b strings.Builder
	for _, sp := range l {
		b.WriteString(sp.text)
	}
	return b.String()
}

// The seed's B1 (GC-13): chunk 0's tail, then inline bytes that landed 3
// bytes early, a 3-byte hole, chunk 1. Byte by byte the hole shows, with
// letters, not colour alone.
func TestByteMapShowsTheShift(t *testing.T) {
	bx := pageBox{name: "pg2", ranges: []pageRange{
		{off: 0, n: 4, src: parseSource("read chunk 0 seg 0", ""), landed: true},
		{off: 4, n: 97, src: parseSource("inline", ""), landed: true},
		{off: 104, n: 52, src: parseSource("read chunk 1 seg 0", ""), landed: true},
	}}
	got := bx.byteMap(4096, 64, NewTheme(0))
	var rows []string
	for _, l := range got {
		rows = append(rows, lineText(l))
	}
	want := []string{
		"pg2 byte by byte: 0-3 ch0 seg0 · 4-100 inline · 101-103 nothing written · 104-155 ch1 seg0",
		"      0 0000" + strings.Repeat("i", 60),
		"     64 " + strings.Repeat("i", 37) + "···" + strings.Repeat("1", 24),
		"        …",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	// One source and no hole: nothing to add to the box.
	one := pageBox{name: "pg1", ranges: []pageRange{{off: 0, n: 4096, src: parseSource("read chunk 0 seg 0", ""), landed: true}}}
	if m := one.byteMap(4096, 64, NewTheme(0)); m != nil {
		t.Errorf("a one-source page: %v", m)
	}
	// Rows without a change fold; a planned range says it is to come.
	far := pageBox{name: "pg3", ranges: []pageRange{
		{off: 0, n: 1000, src: parseSource("inline", ""), landed: true},
		{off: 1000, n: 3096, src: parseSource("read chunk 0 seg 0", ""), landed: false},
	}}
	m := far.byteMap(4096, 64, NewTheme(0))
	if len(m) != 4 || !strings.Contains(lineText(m[0]), "1000-4095 ch0 seg0 (to come)") || lineText(m[1]) != "        …" ||
		!strings.HasPrefix(lineText(m[2]), "    960 ") || lineText(m[3]) != "        …" {
		for _, l := range m {
			t.Log(lineText(l))
		}
		t.Error("folding or the planned range")
	}
}
