package replay

import (
	"bytes"
	"fmt"
	"github.com/rdmalab/rdmalab/engine/trace"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// twoXprts is the kernel's NFSv3 and NFSv4.1 captures run at once: two
// transports (QPs 0x11 and 0x13) between the same two hosts.
func twoXprts(t testing.TB) []byte {
	return testutil.MergeCaptures(t, [][]byte{testutil.ReadCapture(t, nfs3), testutil.ReadCapture(t, nfs41)}, []int64{0, -12_500_000})
}

func kinds(tl *Timeline, conn int) []Kind {
	var out []Kind
	for _, s := range tl.Steps() {
		if conn == 0 || s.Conn == conn {
			out = append(out, s.Kind)
		}
	}
	return out
}

// Every transport is replayed, each as it is alone: its steps, its RPCs
// and its picture are those of its capture replayed by itself.
func TestEveryTransport(t *testing.T) {
	tl, err := Read(bytes.NewReader(twoXprts(t)), "two.pcap")
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Conns) != 2 || tl.Conns[0].ServerQP != 0x11 || tl.Conns[1].ServerQP != 0x13 {
		t.Fatalf("transports %+v, want QP 0x11 then 0x13", tl.Conns)
	}
	alone := map[int]*Timeline{1: load(t, nfs3), 2: load(t, nfs41)}
	rpcs := map[int]int{}
	for _, r := range tl.RPCs {
		rpcs[r.Conn]++
	}
	for c, one := range alone {
		if rpcs[c] != len(one.RPCs) {
			t.Errorf("xprt %d: %d RPCs, %d alone", c, rpcs[c], len(one.RPCs))
		}
		if got, want := kinds(tl, c), kinds(one, 0); !slices.Equal(got, want) {
			t.Errorf("xprt %d: %d steps, %d alone, or in another order", c, len(got), len(want))
		}
		// Following it alone ends with its own picture.
		p := tl.Player()
		p.Follow(c)
		n := 0
		for p.Forward() {
			if p.Step().Conn != c {
				t.Fatalf("following xprt %d stopped at a step of xprt %d", c, p.Step().Conn)
			}
			n++
		}
		q := one.Player()
		q.End()
		got, want := p.Snapshot().Positions, q.Snapshot().Positions
		if n != one.NumSteps() || got.PostSeq != want.PostSeq || got.AckedPos != want.AckedPos || len(got.Replies) != len(want.Replies) {
			t.Errorf("xprt %d alone: %d steps, positions %+v; its capture: %d steps, %+v", c, n, got, one.NumSteps(), want)
		}
	}
	// Interleaved, the picture and the events are the current step's
	// transport's.
	connOf := map[string]int{}
	for _, s := range tl.Steps() {
		connOf[fmt.Sprintf("frame %d", s.Frame)] = s.Conn
	}
	p := tl.Player()
	for p.Forward() {
		s := p.Step()
		if s.Conn == 2 && s.Kind == KindAck {
			if pos := p.Snapshot().Positions; pos.PostSeq > 50 {
				t.Fatalf("frame %d (xprt 2): sc_post_seq %d counts the other transport's replies", s.Frame, pos.PostSeq)
			}
		}
		evs := p.Events(300)
		if s.Index > 200 && len(evs) != 300 {
			t.Fatalf("frame %d: %d events, want 300", s.Frame, len(evs))
		}
		for _, e := range evs {
			if c, ok := connOf[e.Func]; ok && e.Task == taskReplay && c != s.Conn {
				t.Fatalf("frame %d (xprt %d): the events show %s of xprt %d", s.Frame, s.Conn, e.Func, c)
			}
		}
	}
	// --qp: one transport, by either end's queue pair.
	one, err := ReadWith(bytes.NewReader(twoXprts(t)), "two.pcap", ReadOptions{QP: 0x13})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Conns) != 1 || len(one.RPCs) != len(alone[2].RPCs) || !slices.Equal(kinds(one, 0), kinds(alone[2], 0)) || one.others == 0 {
		t.Errorf("--qp 0x13: %d transports, %d RPCs, %d steps, %d frames left out", len(one.Conns), len(one.RPCs), one.NumSteps(), one.others)
	}
	// A --qp that matches nothing is told the queue pairs there are.
	if _, err := ReadWith(bytes.NewReader(twoXprts(t)), "two.pcap", ReadOptions{QP: 0x99}); err == nil ||
		!strings.Contains(err.Error(), "no transport has queue pair 0x000099; the capture's have 0x000011; 0x000013") {
		t.Errorf("--qp 0x99: %v", err)
	}
}

// manyXprts is the two-transport capture again and again (the same queue
// pairs connected anew): enough packets that a replay is built as it reads.
func manyXprts(t testing.TB, times int) string {
	t.Helper()
	two := twoXprts(t)
	files, shifts := make([][]byte, times), make([]int64, times)
	for k := range files {
		files[k], shifts[k] = two, int64(k)*5_000_000
	}
	path := filepath.Join(t.TempDir(), "many.pcap")
	if err := os.WriteFile(path, testutil.MergeCaptures(t, files, shifts), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A Timeline from OpenFile is built as the player goes, and ends as the
// one built at once; the streamed transcript prints the same steps.
func TestBuiltAsRead(t *testing.T) {
	path := manyXprts(t, 8)
	whole, err := ReadFile(path)
	if err != nil || whole.Err != nil {
		t.Fatal(err, whole.Err)
	}
	if len(whole.Conns) != 2 {
		t.Errorf("%d transports, want 2", len(whole.Conns))
	}
	tl, err := OpenFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	if tl.Done() || tl.NumSteps() == 0 || tl.NumSteps() >= whole.NumSteps()/2 {
		t.Fatalf("after OpenFile: done %v, %d steps of %d", tl.Done(), tl.NumSteps(), whole.NumSteps())
	}
	p := tl.Player()
	p.Seek(whole.NumSteps() / 3)
	mid := p.Snapshot()
	if !p.End() || !tl.Done() || !slices.Equal(kinds(tl, 0), kinds(whole, 0)) || len(tl.RPCs) != len(whole.RPCs) {
		t.Fatalf("at the end: done %v, %d steps, %d RPCs; built at once %d, %d", tl.Done(), tl.NumSteps(), len(tl.RPCs), whole.NumSteps(), len(whole.RPCs))
	}
	// Back from the end through the checkpoints: the same picture.
	p.Seek(whole.NumSteps() / 3)
	if got := p.Snapshot(); got.Positions.PostSeq != mid.Positions.PostSeq || !slices.Equal(got.Positions.Replies, mid.Positions.Replies) || len(got.Chains) != len(mid.Chains) {
		t.Errorf("going back: %+v, want %+v", got.Positions, mid.Positions)
	}
	var full, streamed bytes.Buffer
	if err := whole.WriteTranscript(&full, Options{ByRPC: true}); err != nil {
		t.Fatal(err)
	}
	st, err := Transcribe(path, ReadOptions{}, &streamed, Options{ByRPC: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.NumSteps() != 0 || st.nsteps != whole.NumSteps() {
		t.Errorf("Transcribe kept %d steps, built %d", st.NumSteps(), st.nsteps)
	}
	stepLines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, " ") {
				out = append(out, l)
			}
		}
		return out
	}
	if a, b := stepLines(full.String()), stepLines(streamed.String()); !slices.Equal(a, b) || len(a) != whole.NumSteps() {
		t.Errorf("streamed transcript: %d step lines, built at once %d", len(b), len(a))
	}
	// Streamed JSON names each step's transport from the first step on.
	var js bytes.Buffer
	if _, err := Transcribe(path, ReadOptions{}, &js, Options{JSON: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	for i, l := range lines {
		if !strings.Contains(l, `"xprt":`) {
			t.Fatalf("JSON step %d names no transport: %.80s", i+1, l)
		}
	}
	if len(lines) != whole.NumSteps() {
		t.Errorf("%d JSON steps, want %d", len(lines), whole.NumSteps())
	}
}

// BenchmarkFirstStep is the time to the first step of a large capture:
// RDMALAB_REPLAY_CAPTURE names one (the million-packet file of
// captures/bench/compare.sh), else the kernel's captures repeated.
func BenchmarkFirstStep(b *testing.B) {
	path := os.Getenv("RDMALAB_REPLAY_CAPTURE")
	if path == "" {
		path = manyXprts(b, 40)
	}
	for b.Loop() {
		tl, err := OpenFile(path, ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if tl.NumSteps() == 0 {
			b.Fatal("no first step")
		}
		tl.Close()
	}
}

// Going back gives exactly the picture going forward gave, across the
// checkpoints and across the blocks of the step and event logs, with the
// blocks read back from the spill file.
func TestBackMatchesForwardSpilled(t *testing.T) {
	path := manyXprts(t, 12)
	tl, err := OpenFile(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	tl.store.limit = 1 // every block from now on goes to the file

	// What the view reads of a place.
	type place struct {
		snap       any
		events     []trace.Event
		narr, desc string
	}
	at := func(p *Player) place {
		return place{p.Snapshot(), p.Events(40), p.Narration(), p.Describe()}
	}
	// The places around each checkpoint and block boundary, going forward.
	tl.All()
	n := tl.NumSteps()
	if n < 2*logBlock+10 {
		t.Fatalf("%d steps: too few to cross two blocks", n)
	}
	near := func(i int) bool {
		k := i % tl.ckEvery
		b := i % logBlock
		return k <= 1 || k >= tl.ckEvery-2 || b <= 1 || b >= logBlock-2
	}
	want := map[int]place{}
	fwd := tl.Player()
	for fwd.Forward() {
		if near(fwd.At()) {
			want[fwd.At()] = at(fwd)
		}
	}
	spilled := 0
	for _, r := range tl.steps.sealed {
		if r.mem == nil {
			spilled++
		}
	}
	if tl.store.f == nil || spilled == 0 {
		t.Fatalf("no block went to the spill file (%d of %d steps' blocks)", spilled, len(tl.steps.sealed))
	}

	// Back one step at a time from the end, and by seeks from far off.
	back := tl.Player()
	back.End()
	checked := 0
	for back.Back() {
		w, ok := want[back.At()]
		if !ok {
			continue
		}
		checked++
		if got := at(back); !reflect.DeepEqual(got, w) {
			t.Fatalf("step %d going back differs from going forward:\n got %+v\nwant %+v", back.At(), got, w)
		}
	}
	if checked < len(want)-1 {
		t.Errorf("%d places checked going back, of %d", checked, len(want))
	}
	for _, i := range []int{2*logBlock + 1, logBlock - 1, tl.ckEvery, tl.ckEvery - 1, logBlock, n - 1} {
		back.Seek(n - 1)
		back.Seek(i)
		if w, ok := want[i]; ok && !reflect.DeepEqual(at(back), w) {
			t.Errorf("step %d sought from the end differs from going forward", i)
		}
	}
}
