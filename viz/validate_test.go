package viz

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// Every state a session really reaches passes the checks: each step of a
// chained 200-page WRITE, a 16 MiB WRITE on 64 KiB pages, the golden
// states, and every step of a replayed capture.
func TestRealSnapshotsValidate(t *testing.T) {
	check := func(name string, s snap.Snapshot, evs []trace.Event) {
		t.Helper()
		f := Frame{Snapshot: s, Events: evs}
		if err := validateFrame(&f, "snapshot."); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeSnapshot(data); err != nil {
			t.Fatalf("%s: saved and loaded: %v", name, err)
		}
	}
	for _, st := range []struct {
		name string
		lab  func(testing.TB) *engine.Lab
	}{{"read3", stateRead3}, {"starved", stateStarved}, {"race", stateRace}, {"racelate", stateRaceLate}, {"write2", stateWrite2}} {
		l := st.lab(t)
		check(st.name, l.Snapshot(), l.History())
	}
	l := newLab(t, nil)
	must[any](t)(l.Write(200*4096, engine.ChunkOpts{}))
	must[int](t)(l.Complete(1, nil))
	for i := 0; i < 5000; i++ {
		if i%40 == 0 {
			check(fmt.Sprintf("chained step %d", i), l.Snapshot(), l.History())
		}
		if !l.Step() {
			if _, err := l.Complete(-1, nil); err != nil {
				break
			}
		}
	}
	big := newLab(t, func(s *engine.Settings) { s.PageSize = 65536 })
	must[any](t)(big.Write(16<<20, engine.ChunkOpts{Segments: 4}))
	must[int](t)(big.Complete(1, nil))
	big.Continue()
	check("16 MiB on 64 KiB pages", big.Snapshot(), big.History())

	src := NewReplaySource(loadReplay(t))
	for i := 0; i < src.p.Timeline().NumSteps(); i += 5 {
		src.Seek(i)
		check(fmt.Sprintf("replay step %d", i), src.Snapshot(), src.Events(maxFrameEvents))
	}
}

// realFrame is a saved frame of a session with pages, SGLs, a chain and
// positions, as a JSON tree to spoil.
func realFrame(t *testing.T) map[string]any {
	t.Helper()
	l := stateRead3(t)
	s := l.Snapshot()
	s.Positions.Replies = append(s.Positions.Replies, snap.Reply{XID: "0x1", Pos: 1})
	s.Chains = append(s.Chains, snap.Chain{Owner: "x", SQECount: 1, WRs: []snap.WR{{Opcode: "SEND", SGEs: []snap.SGE{{Page: "p", Len: 8}}}}})
	s.Threads[0].Pages = append(s.Threads[0].Pages, snap.Page{Index: 3, Name: "pgX", Extents: []snap.Extent{{Off: 0, Len: 10}}})
	data, err := json.Marshal(Frame{Snapshot: s, Events: l.History()})
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	return tree
}

// set puts v at the JSON path p (keys and [i] indexes) of tree.
func set(t *testing.T, tree map[string]any, p string, v any) {
	t.Helper()
	var cur any = tree
	parts := strings.Split(strings.ReplaceAll(p, "[", ".["), ".")
	for i, k := range parts {
		last := i == len(parts)-1
		if strings.HasPrefix(k, "[") {
			var n int
			fmt.Sscanf(k, "[%d]", &n)
			a := cur.([]any)
			if n < 0 {
				n = len(a) + n
			}
			if last {
				a[n] = v
				return
			}
			cur = a[n]
			continue
		}
		m := cur.(map[string]any)
		if last {
			m[k] = v
			return
		}
		cur = m[k]
	}
}

// A number used as a size, an index, a repeat count or a loop bound, a
// string or a list out of bounds: the file is refused with the field's
// JSON path, in bounded time and memory, before anything is drawn.
func TestLoadSnapshotRefusesClaims(t *testing.T) {
	base := realFrame(t)
	lastEv := len(base["events"].([]any)) - 1
	lastPage := len(base["snapshot"].(map[string]any)["threads"].([]any)[0].(map[string]any)["pages"].([]any)) - 1
	long := strings.Repeat("x", maxString+1)
	many := make([]any, maxList+1)
	for i := range many {
		many[i] = "s"
	}
	for _, tc := range []struct {
		path string
		v    any
		want string
	}{
		{"events[-1].depth", float64(1 << 40), fmt.Sprintf("field events[%d].depth: 1099511627776 is out of range (0..255)", lastEv)},
		{"events[-1].depth", float64(1 << 53), fmt.Sprintf("field events[%d].depth: 9007199254740992 is out of range", lastEv)},
		{"events[-1].depth", float64(math.MaxInt32), fmt.Sprintf("field events[%d].depth: 2147483647 is out of range", lastEv)},
		{"events[0].depth", float64(-1), "field events[0].depth: -1 is out of range"},
		{"snapshot.last_event.depth", float64(1 << 40), "field snapshot.last_event.depth: 1099511627776"},
		{"snapshot.settings.page_size", float64(1 << 40), "field snapshot.settings.page_size: 1099511627776 is out of range (0..1048576)"},
		{"snapshot.settings.page_size", float64(-4096), "field snapshot.settings.page_size: -4096"},
		{"snapshot.reads[0].rc_curpage", float64(1 << 40), "field snapshot.reads[0].rc_curpage"},
		{"snapshot.reads[0].rc_pageoff", float64(1 << 40), "field snapshot.reads[0].rc_pageoff"},
		{"snapshot.reads[0].rc_page_count", float64(-1), "field snapshot.reads[0].rc_page_count"},
		{"snapshot.reads[0].cc_sqecount", float64(1 << 40), "field snapshot.reads[0].cc_sqecount"},
		{"snapshot.reads[0].rw_ctxts[0].nents", float64(1 << 40), "field snapshot.reads[0].rw_ctxts[0].nents: 1099511627776 is out of range (0..16384)"},
		{"snapshot.reads[0].rw_ctxts[0].first_sgl_nents", float64(-2), "field snapshot.reads[0].rw_ctxts[0].first_sgl_nents"},
		{"snapshot.reads[0].rw_ctxts[0].sgl[0].off", float64(1 << 40), "field snapshot.reads[0].rw_ctxts[0].sgl[0].off"},
		{"snapshot.reads[0].rw_ctxts[0].sgl[0].len", float64(-1), "field snapshot.reads[0].rw_ctxts[0].sgl[0].len"},
		{"snapshot.threads[0].pages[-1].index", float64(1 << 40), fmt.Sprintf("field snapshot.threads[0].pages[%d].index", lastPage)},
		{"snapshot.threads[0].pages[-1].extents[0]." + extentLen, float64(1 << 40), fmt.Sprintf("field snapshot.threads[0].pages[%d].extents[0].%s", lastPage, extentLen)},
		{"snapshot.chains[-1].sqecount", float64(1 << 40), "field snapshot.chains[1].sqecount"},
		{"snapshot.chains[-1].wrs[0].sges[0].len", float64(1 << 40), "field snapshot.chains[1].wrs[0].sges[0].len"},
		{"snapshot.sq.sc_sq_depth", float64(1 << 40), "field snapshot.sq.sc_sq_depth"},
		{"snapshot.sq.sc_sq_avail", float64(-(1 << 40)), "field snapshot.sq.sc_sq_avail"},
		{"snapshot.positions.sc_post_seq", float64(1 << 63), "field snapshot.positions.sc_post_seq: 9223372036854776000 is out of range"},
		{"snapshot.positions.xpt_acked_pos", float64(1 << 50), "field snapshot.positions.xpt_acked_pos"},
		{"snapshot.positions.replies[0].pos", float64(1 << 50), "field snapshot.positions.replies[0].pos"},
		{"snapshot.threads[0].name", long, "field snapshot.threads[0].name: 65537 bytes"},
		{"events[3].text", long, "field events[3].text: 65537 bytes"},
		{"snapshot.pending", many, "field snapshot.pending: 16385 elements"},
		{"narration", strings.Repeat("n", maxNarration+1), "field narration: 1048577 bytes"},
		{"events[2].kind", "jump", `unknown event kind "jump"`}, // trace.Kind's UnmarshalText: no field path
	} {
		t.Run(tc.path, func(t *testing.T) {
			var tree map[string]any
			data, _ := json.Marshal(base)
			json.Unmarshal(data, &tree)
			set(t, tree, tc.path, tc.v)
			data, err := json.Marshal(tree)
			if err != nil {
				t.Fatal(err)
			}
			path := writeFile(t, "bad.json", data)
			_, err = LoadSnapshot(path)
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant %s: …%s…", err, path, tc.want)
			}
		})
	}
	// The same claims in a bare snapshot are named without "snapshot.".
	tree := realFrame(t)["snapshot"].(map[string]any)
	set(t, tree, "sq.sc_sq_depth", float64(1<<40))
	data, _ := json.Marshal(tree)
	if _, err := decodeSnapshot(data); err == nil || !strings.HasPrefix(err.Error(), "field sq.sc_sq_depth: ") {
		t.Errorf("bare snapshot: %v", err)
	}
	// Many lists, each within its bound, still add up to a bound.
	tree = realFrame(t)
	threads := make([]any, 64)
	for i := range threads {
		threads[i] = map[string]any{"name": "t", "frames": many[:maxList]}
	}
	set(t, tree, "snapshot.threads", threads)
	data, _ = json.Marshal(tree)
	if _, err := decodeSnapshot(data); err == nil || !strings.Contains(err.Error(), "list elements in all") {
		t.Errorf("64 threads of 16384 frames: %v", err)
	}
}

// A file too big to be a snapshot is refused before it is read whole;
// /dev/zero is a file too.
func TestLoadSnapshotTooBig(t *testing.T) {
	path := writeFile(t, "big.json", []byte(strings.Repeat(" ", 5<<20+1)))
	if _, err := readSnapshotFile(path, 5<<20); err == nil || err.Error() != path+": more than 5 MiB: not a snapshot" {
		t.Errorf("error %v", err)
	}
	if _, err := readSnapshotFile("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "more than 1 MiB") {
		t.Errorf("/dev/zero: %v", err)
	}
	if data, err := readSnapshotFile(path, 6<<20); err != nil || len(data) != 5<<20+1 {
		t.Errorf("within the limit: %d bytes, %v", len(data), err)
	}
}

// A frame that goes past the checks (a live source is not validated:
// a replayed capture, a lab) still draws in bounded time and memory:
// the panes clamp every count they loop over.
func TestDrawClampsClaims(t *testing.T) {
	l := stateRead3(t)
	s := l.Snapshot()
	s.Settings.PageSize = 1 << 40
	s.Positions = snap.Positions{Enabled: true, PostSeq: math.MaxUint64, AckedPos: 1 << 40,
		Replies: []snap.Reply{{Pos: math.MaxUint64}, {Pos: 1 << 62, Acked: true}, {Pos: 0}}}
	s.Reads[0].CurPage, s.Reads[0].PageOff = math.MaxInt, math.MaxInt
	s.Reads[0].RWCtxts[0].NEnts, s.Reads[0].RWCtxts[0].FirstSGLNents = 1<<40, 2
	s.Reads[0].Pages = append(s.Reads[0].Pages, snap.Page{Index: math.MaxInt, Name: "far"},
		snap.Page{Index: math.MinInt, Name: "neg", Extents: []snap.Extent{{Off: math.MaxInt, Len: math.MaxInt}}})
	s.SQ = snap.SQ{Depth: math.MaxInt, Avail: math.MinInt, Waiters: []string{"nfsd0: x"}}
	s.Chains = []snap.Chain{{SQECount: math.MaxInt, Pos: math.MaxUint64, WRs: []snap.WR{{Opcode: "SEND", Bytes: math.MinInt}}}}
	evs := append(l.History(), trace.Event{Seq: 1 << 62, Task: "nfsd0", Func: "svc_rdma_wc_send", Depth: 1 << 53,
		Args: trace.Fmt("pos", -1, "status", "SUCCESS")})
	narration := strings.Repeat("w", 1<<20) + " " + strings.Repeat("x ", 1<<18)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	scr.SetSize(200, 60)
	// Every layout, and every pane alone.
	for i := 0; i < int(numLayouts)+int(numPanes); i++ {
		m := NewModel(0)
		m.Update(s, evs)
		m.Narration = narration
		if i < int(numLayouts) {
			m.View.Layout = Layout(i)
		} else {
			m.View.Selected, m.View.Zoomed = PaneID(i-int(numLayouts)), true
		}
		Draw(scr, m, NewTheme(256))
		scr.Show()
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<30 {
		t.Errorf("drawing allocated %d MiB", got>>20)
	}
}
