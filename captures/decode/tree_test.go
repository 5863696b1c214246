package decode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// treeRangesGolden holds the bytes of every tree line of every packet of
// the kernel captures, as they were when the ranges were found by matching
// the tree's text against its labels; the tree now sets them where it
// writes each line, and must give exactly the same. RDMALAB_UPDATE_GOLDEN=1
// rewrites it (when the tree gains or loses lines).
var treeRangesGolden = filepath.Join("testdata", "tree-ranges.txt")

// Each line of a packet's tree shows the bytes it showed before: one row
// per packet, "depth:start-end" per line.
func TestTreeRangesGolden(t *testing.T) {
	var got strings.Builder
	trees := map[string][]TreeLine{} // "capture frame": the tree, to explain a difference
	for _, name := range testutil.KernelCaptures() {
		x := openDone(t, testutil.Capture(t, name))
		fmt.Fprintf(&got, "# %s\n", name)
		for i := 0; i < x.Len(); i++ {
			lines := x.Detail(i)
			row := treeRangesRow(i+1, lines)
			trees[name+" "+strings.Fields(row)[0]] = lines
			got.WriteString(row + "\n")
		}
	}
	if os.Getenv("RDMALAB_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(treeRangesGolden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(treeRangesGolden)
	if err != nil {
		t.Fatalf("%v (RDMALAB_UPDATE_GOLDEN=1 writes it)", err)
	}
	gotRows, wantRows := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	capture := ""
	for k := 0; k < max(len(gotRows), len(wantRows)); k++ {
		g, w := row(gotRows, k), row(wantRows, k)
		if name, ok := strings.CutPrefix(w, "# "); ok {
			capture = name
		}
		if g == w {
			continue
		}
		t.Errorf("%s, row %d differs from %s:\n got %s\nwant %s", capture, k+1, treeRangesGolden, g, w)
		if lines := trees[capture+" "+strings.Fields(g + " ?")[0]]; lines != nil {
			for _, l := range lines {
				t.Logf("  %d:%d-%d %s%s", l.Depth, l.Start, l.End, strings.Repeat("  ", l.Depth), l.Text)
			}
		}
		return
	}
}

// treeRangesRow is "frame depth:start-end ..." for one packet's tree.
func treeRangesRow(frame int, lines []TreeLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", frame)
	for _, l := range lines {
		fmt.Fprintf(&b, " %d:%d-%d", l.Depth, l.Start, l.End)
	}
	return b.String()
}

func row(rows []string, k int) string {
	if k < len(rows) {
		return rows[k]
	}
	return "(none)"
}

// treeText is lines as -V prints them: indented four spaces a level, and a
// blank line after.
func treeText(lines []TreeLine) string {
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(strings.Repeat("    ", l.Depth))
		sb.WriteString(l.Text)
		sb.WriteByte('\n')
	}
	sb.WriteByte('\n')
	return sb.String()
}

// -V's writer, reused from packet to packet, writes what Tree returns for
// every packet of every capture: the two forms of a line are one.
func TestTreeWriterIsTree(t *testing.T) {
	for _, path := range testutil.AllCaptures(t) {
		var tw treeWriter
		var buf []byte
		n := 0
		_, err := ReadFile(path, func(p *analysis.Packet) error {
			buf = tw.appendTree(buf[:0], p)
			if want := treeText(Tree(p)); string(buf) != want {
				t.Fatalf("%s frame %d: -V wrote\n%s\nTree says\n%s", path, p.Frame, buf, want)
			}
			n++
			return nil
		})
		if err != nil && n == 0 {
			t.Fatalf("%s: %v", path, err)
		}
	}
}
