package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// framesOf is the frame numbers at the start of lines as `decode` and
// tshark -T fields -e frame.number print them.
func framesOf(t *testing.T, out string) []int {
	t.Helper()
	var frames []int
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("not a frame line: %q", l)
		}
		frames = append(frames, n)
	}
	return frames
}

// listRow is a row of the Packets pane's list: the frame number, then the
// time as decode prints it.
var listRow = regexp.MustCompile(`(?m)^ *(\d+) \d+\.\d{6} `)

// TestTmuxViewFilterBar: `view --capture` on the kernel capture, / and a
// Wireshark expression typed, Enter: the list holds exactly the frames
// decode -Y (and tshark -Y, when installed) passes, the title counts
// them; an expression with a mistake keeps the bar open with the caret
// under the mistake.
func TestTmuxViewFilterBar(t *testing.T) {
	needTmux(t)
	pcap := testutil.Capture(t, "nfs3-rdma.pcap")
	const expr = "infiniband.bth.psn >= 100 && ip.src == 192.0.2.1 && rpcordma"
	var out, errb bytes.Buffer
	if code := run([]string{"decode", "-Y", expr, pcap}, nil, &out, &errb); code != exitOK {
		t.Fatalf("decode -Y: exit %d: %s", code, errb.String())
	}
	want := framesOf(t, out.String())
	if len(want) < 20 {
		t.Fatalf("decode -Y passes %d frames", len(want))
	}
	if _, err := exec.LookPath("tshark"); err == nil || testutil.RequireTools() {
		ts := framesOf(t, testutil.RunTshark(t, "-r", pcap, "-Y", expr, "-T", "fields", "-e", "frame.number"))
		if !slices.Equal(ts, want) {
			t.Fatalf("tshark -Y passes %v\ndecode -Y passes %v", ts, want)
		}
	}

	// Tall enough for the list to hold every frame that passes.
	ts := startTmuxCmd(t, 160, 120, nil, []string{"view", "--capture", pcap})
	ts.waitFor(`nfs3-rdma\.pcap · 1 of 752`)
	ts.keys("/")
	ts.text(expr)
	scr := ts.waitFor(`(?m)^/ ` + regexp.QuoteMeta(expr) + ` +✓ *$`)
	t.Logf("the bar open:\n%s", scr)
	ts.keys("Enter")
	ts.waitFor(regexp.QuoteMeta(expr) + ` · ` + strconv.Itoa(len(want)) + ` of 752 packets`)
	// capture-pane may catch the terminal halfway through a frame: look
	// again until the list settles.
	var shown []int
	for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(50 * time.Millisecond) {
		scr = ts.screen(false)
		shown = shown[:0]
		for _, m := range listRow.FindAllStringSubmatch(scr, -1) {
			n, _ := strconv.Atoi(m[1])
			shown = append(shown, n)
		}
		if slices.Equal(shown, want) {
			break
		}
	}
	t.Logf("filtered:\n%s", scr)
	if !slices.Equal(shown, want) {
		t.Errorf("the list shows frames %v\ndecode -Y passes %v", shown, want)
	}
	// The selection went from frame 1 to the nearest that passes.
	if !strings.Contains(scr, "Packets · nfs3-rdma.pcap · frame "+strconv.Itoa(want[0])+" · ") {
		t.Errorf("the title does not name frame %d:\n%s", want[0], scr)
	}

	// A mistake: the bar stays, the caret under it, the filter as it was.
	ts.keys("/")
	ts.keys("C-u")
	bad := "infiniband.bth.psn >= 100 && ip.srcc == 192.0.2.1"
	ts.text(bad)
	ts.waitFor(`✗ col 30`)
	ts.keys("Enter")
	scr = ts.waitFor(`unknown field "ip\.srcc"`)
	t.Logf("an error:\n%s", scr)
	lines := strings.Split(scr, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "/ "+bad) {
			continue
		}
		col := utf8.RuneCountInString(l[:strings.Index(l, "ip.srcc")])
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], strings.Repeat(" ", col)+"^~~~~~~") {
			t.Errorf("no caret under column %d:\n%s", col+1, strings.Join(lines[i:], "\n"))
		}
	}
	if !strings.Contains(scr, expr+" · "+strconv.Itoa(len(want))+" of 752 packets") {
		t.Errorf("the mistake changed the filter applied:\n%s", scr)
	}
	ts.keys("Escape")
	ts.waitFor(`/ filter`)
	ts.keys("q")
	ts.waitFor(`EXITED 0`)
}
