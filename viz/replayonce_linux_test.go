package viz

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/captures/replay"
)

// readBytes is what this process has read so far (rchar: every read,
// from the page cache or not).
func readBytes(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no rchar in /proc/self/io")
	return 0
}

// The replay view reads its capture once: the replay played to its end
// (c) and the Packets pane shown (5) and indexed to its end read the
// file's bytes once between them, not once each (the replay's builder
// follows the index's pass).
func TestReplayViewReadsCaptureOnce(t *testing.T) {
	path := bigCapture(t, 20000)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	before := readBytes(t)
	r, err := OpenReplay(path, path, replay.ReadOptions{NoJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := &countScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	done := make(chan error, 1)
	go func() { done <- RunReplay(context.Background(), s, r) }()
	waitFor(t, "the first frame", func() bool { return s.shows.Load() > 0 })
	s.InjectKey(tcell.KeyRune, 'c', tcell.ModNone)
	s.InjectKey(tcell.KeyRune, '5', tcell.ModNone)
	if _, err := r.x.Wait(context.Background(), -1); err != nil {
		t.Fatal(err)
	}
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone) // after c: q waits for it
	if err := waitRun(t, done); err != nil {
		t.Fatal(err)
	}
	if !r.Timeline.Done() || r.Timeline.Frames != 20000 {
		t.Fatalf("the replay read %d frames, done %v; want all 20000", r.Timeline.Frames, r.Timeline.Done())
	}
	read := readBytes(t) - before
	t.Logf("read %d bytes of a %d-byte capture: %.2f times", read, st.Size(), float64(read)/float64(st.Size()))
	if read > st.Size()*11/10 {
		t.Errorf("the replay view read %d bytes of a %d-byte capture: %.2f passes, want one", read, st.Size(), float64(read)/float64(st.Size()))
	}
}
