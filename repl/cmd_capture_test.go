package repl

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/viz"
)

// captureSession is a session whose directory holds the kernel's NFSv3
// capture.
func captureSession(t *testing.T) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "nfs3-rdma.pcap"), testutil.ReadCapture(t, "nfs3-rdma.pcap"))
	s, err := NewSession(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, dir
}

func exec(t *testing.T, s *Session, line string) string {
	t.Helper()
	var out bytes.Buffer
	if err := s.Exec(line, Pos{}, &out); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out.String())
	}
	return out.String()
}

// The view draws the capture loaded, and nothing (a nil interface, not a
// nil pointer in one) before.
func TestCapturePacketSource(t *testing.T) {
	s, _ := captureSession(t)
	if src := s.packetSource(); src != nil {
		t.Fatalf("packet source %v before capture open", src)
	}
	exec(t, s, "capture open nfs3-rdma.pcap")
	src := s.packetSource()
	if src == nil || src.Len() != 752 {
		t.Fatalf("packet source %v", src)
	}
	if d, ok := src.(viz.Describer); !ok || d.Describe() != "nfs3-rdma.pcap" {
		t.Errorf("the pane's title would not name the file")
	}
	first := s.capture.index
	exec(t, s, "capture open nfs3-rdma.pcap")
	if s.capture.index == first {
		t.Error("a second open kept the first index")
	}
	exec(t, s, "capture close")
	if s.packetSource() != nil {
		t.Error("capture close left the pane a source")
	}
}

// Tab completes the actions, then file names for FILE.
func TestCaptureCompletion(t *testing.T) {
	s, _ := captureSession(t)
	if got := strings.Join(texts(s.Complete("capture ")), " "); !strings.HasPrefix(got, "open close save start stop") {
		t.Errorf("capture: %q", got)
	}
	if got := strings.Join(texts(s.Complete("capture open nf")), " "); got != "nfs3-rdma.pcap" {
		t.Errorf("capture open nf: %q", got)
	}
	if got := texts(s.Complete("packets ")); !contains(got, "rpc") || !contains(got, "xid=") {
		t.Errorf("packets: %q", got)
	}
	exec(t, s, "capture open nfs3-rdma.pcap")
	if got := texts(s.Complete("packets xid=0x43")); !contains(got, "xid=0x43dbd665") {
		t.Errorf("packets xid=0x43: %q", got)
	}
	if got := texts(s.Complete("packet 4")); !contains(got, "40") {
		t.Errorf("packet 4: %q", got)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// A recording runs until capture stop, or until the session closes; the
// file is a capture either way.
func TestCaptureRecording(t *testing.T) {
	s, dir := captureSession(t)
	exec(t, s, "capture start a.pcap")
	var out bytes.Buffer
	if err := s.Exec("capture start b.pcap", Pos{}, &out); err == nil || !strings.Contains(err.Error(), "already recording to a.pcap") {
		t.Errorf("a second start: %v", err)
	}
	exec(t, s, "set auto_complete on")
	exec(t, s, "write 4096")
	exec(t, s, "continue")
	if got := exec(t, s, "capture stop"); !strings.Contains(got, "recorded") || !strings.Contains(got, "capture open a.pcap") {
		t.Errorf("stop: %q", got)
	}
	exec(t, s, "capture start c.pcap")
	exec(t, s, "write 4096")
	exec(t, s, "continue")
	s.Close()
	for _, name := range []string{"a.pcap", "c.pcap"} {
		x, err := decode.OpenIndex(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n, _ := x.Wait(t.Context(), -1); n < 5 || x.Progress().Err != nil {
			t.Errorf("%s: %d packets, %v", name, n, x.Progress().Err)
		}
		x.Close()
	}
}

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""}, {[]int{4}, "4"}, {[]int{4, 5, 6, 7}, "4-7"}, {[]int{40, 41, 43, 45, 46}, "40-41, 43, 45-46"},
	} {
		if got := ranges(tc.in); got != tc.want {
			t.Errorf("ranges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseSelector(t *testing.T) {
	sel, err := parseSelector([]string{"rpc,", "qp=0x11", "opcode=4|17"})
	want := "(infiniband.bth.destqp == 17 || infiniband.deth.srcqp == 17 || rdmalab.peer_qp == 17) && infiniband.bth.opcode in {4, 17} && rdmalab.rpc.role"
	if err != nil || !sel.Short || sel.Expr != want {
		t.Fatalf("%+v, %v; want %s", sel, err, want)
	}
	for _, bad := range [][]string{{"bogus"}, {"qp=x"}, {"size=3"}} {
		if _, err := parseSelector(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// capture open and replay take --max-expand: a gzip capture that expands
// past it stops with the limit named, and the session goes on.
func TestCaptureMaxExpand(t *testing.T) {
	// A pcap of 64k empty records (each counting 256 bytes against the
	// limit): 16 MiB by the reader's count, a few KB compressed.
	var raw bytes.Buffer
	raw.Write([]byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0})
	raw.Write(bytes.Repeat(make([]byte, 16), 64<<10))
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bomb.pcap.gz"), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	err = s.Exec("capture open bomb.pcap.gz --max-expand 1M", Pos{}, &out)
	if err == nil || !strings.Contains(err.Error(), "expands past 1 MiB") || !strings.Contains(err.Error(), "--max-expand") {
		t.Errorf("capture open --max-expand 1M: %v", err)
	}
	if err := s.Exec("capture open bomb.pcap.gz --max-expand 64M", Pos{}, &out); err != nil {
		t.Errorf("capture open --max-expand 64M: %v", err)
	}
	err = s.Exec("replay --text bomb.pcap.gz --max-expand 1M", Pos{}, &out)
	if err == nil || !strings.Contains(err.Error(), "expands past 1 MiB") {
		t.Errorf("replay --max-expand 1M: %v", err)
	}
	if err := s.Exec("capture open bomb.pcap.gz --max-expand lots", Pos{}, &out); err == nil || !strings.Contains(err.Error(), `size "lots"`) {
		t.Errorf("a bad size: %v", err)
	}
}

// packets takes the rest of the line as its display filter: a quoted
// string keeps its blanks (the tokenizer would split "READDIRPLUS Reply"
// in two and drop the quotes), backslashes stay for the filter's own
// escapes, and the options around it are still options. It lists what
// decode -Y lists.
func TestPacketsFilterIsTheRestOfTheLine(t *testing.T) {
	s, dir := captureSession(t)
	exec(t, s, "capture open nfs3-rdma.pcap")
	const expr = `rdmalab.rpc.summary contains "READDIRPLUS Reply" && rdmalab.rpc.summary matches "\\.\\. "`
	df, err := fields.CompileDisplayFilter(expr)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := decode.Write(&want, filepath.Join(dir, "nfs3-rdma.pcap"), decode.Output{Display: df}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(want.String(), "\n"); n != 2 {
		t.Fatalf("decode -Y %s: %d packets:\n%s", expr, n, want.String())
	}
	for _, line := range []string{"packets " + expr, "packets --all " + expr, "packets " + expr + " --from 1", "packets --from 1 " + expr + " --all"} {
		if got := exec(t, s, line); got != want.String() {
			t.Errorf("%s:\n%s\nwant (decode -Y):\n%s", line, got, want.String())
		}
	}
	// Quoted, an option's name is text: here a string no summary holds.
	if got := exec(t, s, `packets rdmalab.rpc.summary contains "--all"`); !strings.Contains(got, `no packet matches`) {
		t.Errorf(`a quoted "--all": %s`, got)
	}
	// A mistake is still pointed at, in the text as typed.
	var out bytes.Buffer
	err = s.Exec(`packets rdmalab.rpc.summary contains "a b" && nfs.nam`, Pos{}, &out)
	if err == nil || !strings.Contains(err.Error(), "column 39") || !strings.Contains(err.Error(), `"a b" && nfs.nam`) {
		t.Errorf("a mistake after a quoted string: %v", err)
	}
}

// While a capture is open the collector runs lean (leanGCPercent); a
// second open keeps it so, and close puts back what was set before.
func TestCaptureLeanGC(t *testing.T) {
	const before = 150
	old := debug.SetGCPercent(before)
	defer debug.SetGCPercent(old)
	gc := func() int { // reads the setting without changing it
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	s, _ := captureSession(t)
	exec(t, s, "capture open nfs3-rdma.pcap")
	if got := gc(); got != leanGCPercent {
		t.Fatalf("GC percent %d with a capture open, want %d", got, leanGCPercent)
	}
	exec(t, s, "capture open nfs3-rdma.pcap")
	if got := gc(); got != leanGCPercent {
		t.Fatalf("GC percent %d after a second open, want %d", got, leanGCPercent)
	}
	exec(t, s, "capture close")
	if got := gc(); got != before {
		t.Fatalf("GC percent %d after close, want %d as before", got, before)
	}
	exec(t, s, "capture open nfs3-rdma.pcap")
	s.closeCaptures() // as the session's Close does
	if got := gc(); got != before {
		t.Fatalf("GC percent %d after the session closed, want %d", got, before)
	}
}

// packets compiles its FILTER with fields.CompileSelection, as decode
// --filter and the view's bar do: a short form lists the packets of the
// display filter it compiles to, the view's bar passes the same ones, and
// a short form nothing passes says that expression. A packets with a
// matcher of its own fails here.
func TestPacketsShortFormsAreDisplayFilters(t *testing.T) {
	s, _ := captureSession(t)
	exec(t, s, "capture open nfs3-rdma.pcap")
	framesOf := func(out string) []string {
		var fs []string
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				fs = append(fs, f[0])
			}
		}
		return fs
	}
	listed := 0
	for _, form := range []string{"qp=0x11 opcode=rdma-read-request", "xid=0x4bdbd665", "rpcs", "opcode=ack,xid=0x4bdbd665|0x3adbd665", "anomalies,rpc", "rpc,qp=17"} {
		sel, err := fields.CompileSelection(form)
		if err != nil || !sel.Short {
			t.Fatalf("%s: %+v, %v", form, sel, err)
		}
		got, want := exec(t, s, "packets --all "+form), exec(t, s, "packets --all "+sel.Expr)
		if strings.HasPrefix(want, "no packet") != strings.HasPrefix(got, "no packet") ||
			!strings.HasPrefix(got, "no packet") && got != want {
			t.Errorf("packets %s:\n%s\npackets %s:\n%s", form, got, sel.Expr, want)
		}
		var fs []string
		if !strings.HasPrefix(got, "no packet") {
			fs = framesOf(got)
		}
		if rows := viewFrames(t, s, form); !slices.Equal(fs, rows) {
			t.Errorf("%s: packets lists %v, the view's bar passes %v", form, fs, rows)
		}
		listed += len(fs)
	}
	if listed < 100 {
		t.Errorf("only %d packets listed", listed)
	}
	out := exec(t, s, "packets qp=0xabc anomalies")
	if want := `no packet matches "qp=0xabc anomalies" ((infiniband.bth.destqp == 2748 || infiniband.deth.srcqp == 2748 || rdmalab.peer_qp == 2748) && rdmalab.anomaly)` + "\n"; out != want {
		t.Errorf("packets qp=0xabc anomalies:\n%s\nwant\n%s", out, want)
	}
}

// viewFrames is the frames the view's bar passes with expr.
func viewFrames(t *testing.T, s *Session, expr string) []string {
	t.Helper()
	view, err := s.capture.src.Select(expr, func() {})
	if err != nil {
		t.Fatalf("the view's bar: %s: %v", expr, err)
	}
	defer view.Stop()
	if err := view.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range view.State().Rows {
		rows = append(rows, strconv.Itoa(int(r)+1))
	}
	return rows
}
