package viz

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// hostileSources cycle so that every byte range differs from its
// neighbour: each is a change of source the byte map has to show.
var hostileSources = []string{"inline", "read chunk 1 seg 0", "reply", "call chunk", "write chunk 0"}

// worstFrame is a frame at the limits validation allows, of one shape, with
// n the size of its lists (at most maxList). Each shape aims at one pane.
func worstFrame(shape string, n int) Frame {
	var f Frame
	s := &f.Snapshot
	s.Settings.PageSize = maxPageSize
	src := func(i int) string { return hostileSources[i%len(hostileSources)] }
	switch shape {
	case "extents": // issue 32 item 9: one page of n one-byte extents
		ext := make([]snap.Extent, n)
		for i := range ext {
			ext[i] = snap.Extent{Off: 2 * i, Len: 1, Source: src(i)}
		}
		s.Threads = []snap.Thread{{Name: "nfsd0", Pages: []snap.Page{{Index: 0, Name: "pg0", Extents: ext}}}}
	case "overlap": // n extents out of order, overlapping, spread over the page
		ext := make([]snap.Extent, n)
		for i := range ext {
			off := (n - i) * (maxPageSize / (n + 1))
			ext[i] = snap.Extent{Off: off, Len: maxPageSize - off, Source: src(i)}
		}
		s.Threads = []snap.Thread{{Name: "nfsd0", Pages: []snap.Page{{Index: 0, Name: "pg0", Extents: ext}}}}
	case "pages": // threads of n pages, each page split in two sources
		for t := 0; t < maxItems/(4*n) && t < 64; t++ {
			th := snap.Thread{Name: fmt.Sprintf("nfsd%d", t)}
			for i := range n {
				th.Pages = append(th.Pages, snap.Page{Index: i, Name: fmt.Sprintf("t%dp%d", t, i), Extents: []snap.Extent{
					{Off: 0, Len: 100, Source: src(i)}, {Off: 100, Len: maxPageSize - 100, Source: src(i + 1)}}})
			}
			s.Threads = append(s.Threads, th)
		}
	case "reads": // a Read of n pages, with contexts whose SGLs point into them
		rd := snap.Read{XID: "0x1", CurPage: n / 2, PageOff: maxPageSize, PageCount: n, SQECount: maxWQEs}
		for i := range n {
			rd.Pages = append(rd.Pages, snap.Page{Index: i, Name: fmt.Sprintf("p%d", i), Extents: []snap.Extent{{Off: 0, Len: 1, Source: src(i)}}})
		}
		for c := 0; c < 8; c++ {
			ctx := snap.RWCtxt{ID: c, Type: "MULTI_WR", NEnts: maxEntries, FirstSGLNents: 2, Chained: true, Where: "read cc"}
			for i := 0; i < n/8; i++ {
				ctx.SGL = append(ctx.SGL, snap.SGE{Page: fmt.Sprintf("p%d", c*(n/8)+i), Off: 1, Len: maxPageSize - 1, Source: src(i)})
			}
			rd.RWCtxts = append(rd.RWCtxts, ctx)
		}
		s.Reads = []snap.Read{rd}
	case "ctxts": // n contexts in use, each with an SGL
		for i := range n {
			c := snap.RWCtxt{ID: i, Type: "SINGLE", NEnts: maxEntries, FirstSGLNents: 2, Where: fmt.Sprintf("write chunk %d", i%4)}
			for j := 0; j < 8; j++ {
				c.SGL = append(c.SGL, snap.SGE{Page: fmt.Sprintf("w%d", i*8+j), Off: j, Len: 1, Source: src(j)})
			}
			s.RWCtxts.InUse = append(s.RWCtxts.InUse, c)
			s.RWCtxts.Cached = append(s.RWCtxts.Cached, i)
		}
	case "chains": // chains of n WRs, each with SGEs
		for c := 0; c < maxItems/(4*n) && c < 64; c++ {
			ch := snap.Chain{Owner: "reply", Task: "nfsd0", SQECount: maxWQEs, Pos: maxPosition}
			for i := range n {
				ch.WRs = append(ch.WRs, snap.WR{Opcode: "RDMA_WRITE", Bytes: i, Signaled: i%2 == 0, CQE: "svc_rdma_wc_write",
					SGEs: []snap.SGE{{Page: "p", Len: 1}}})
			}
			s.Chains = append(s.Chains, ch)
		}
		s.SQ = snap.SQ{Depth: maxWQEs, Avail: -maxWQEs}
	case "positions": // n replies at the largest positions, all queued
		s.Positions = snap.Positions{Enabled: true, PostSeq: maxPosition, AckedPos: maxPosition}
		for i := range n {
			s.Positions.Replies = append(s.Positions.Replies, snap.Reply{XID: fmt.Sprint(i), Pos: maxPosition - uint64(i), Acked: true})
			s.Chains = append(s.Chains, snap.Chain{Owner: "reply", Pos: maxPosition - uint64(i)})
		}
	case "queue": // n waiters, n completions, n events
		for i := range n {
			s.SQ.Waiters = append(s.SQ.Waiters, fmt.Sprintf("nfsd%d: svc_rdma_send", i))
			s.CQ = append(s.CQ, snap.Completion{Seq: uint64(i), Side: "server", Queue: "sq", Opcode: "SEND", Status: "SUCCESS"})
			f.Events = append(f.Events, trace.Event{Seq: uint64(i + 1), Task: fmt.Sprintf("nfsd%d", i), Kind: trace.Call,
				Func: "svcrdma_sq_full", Depth: maxEventDepth})
		}
		s.SQ.Depth, s.SQ.Avail = maxWQEs, 0
	case "strings": // names and text at their longest
		long := strings.Repeat("x", maxString)
		for i := range min(n, 64) {
			s.Threads = append(s.Threads, snap.Thread{Name: long, Pages: []snap.Page{{Index: i, Name: long,
				Extents: []snap.Extent{{Off: 0, Len: 1, Source: long}, {Off: 1, Len: 1, Source: "inline"}}}}})
			s.Chains = append(s.Chains, snap.Chain{Owner: long, Task: long, WRs: []snap.WR{{Opcode: long, CQE: long, Signaled: true}}})
		}
		f.Narration = strings.Repeat("y", maxNarration/2) + strings.Repeat("\n", maxNarration/2)
	default:
		panic("no shape " + shape)
	}
	return f
}

var hostileShapes = []string{"extents", "overlap", "pages", "reads", "ctxts", "chains", "positions", "queue", "strings"}

// TestHostileSnapshotsValidate: every hostile shape is one the loader
// accepts, so the benchmark below measures what a file may really make
// the view do.
func TestHostileSnapshotsValidate(t *testing.T) {
	for _, shape := range hostileShapes {
		f := worstFrame(shape, maxList)
		if err := validateFrame(&f, ""); err != nil {
			t.Errorf("%s: %v", shape, err)
		}
	}
}

// drawAllViews draws every layout and every pane zoomed, at w×h.
func drawAllViews(tb testing.TB, m *Model, w, h int) int {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		tb.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(w, h)
	th := NewTheme(256)
	var r renderer
	frames := 0
	for l := range numLayouts {
		m.View.Layout, m.View.Zoomed = l, false
		r.draw(s, m, th)
		frames++
	}
	for p := range numPanes {
		m.View.Selected, m.View.Zoomed = p, true
		r.draw(s, m, th)
		frames++
	}
	m.View.Zoomed = false
	return frames
}

// BenchmarkDrawWorstSnapshot draws the hostile shapes as their lists grow
// to the limit at 200x60: first is a snapshot's first frame, the Pages
// pane zoomed (what is worked out once a snapshot included), warm every
// layout and every pane zoomed after it. The time per frame must not grow with n.
func BenchmarkDrawWorstSnapshot(b *testing.B) {
	for _, shape := range hostileShapes {
		for _, n := range []int{256, 2048, maxList} {
			f := worstFrame(shape, n)
			model := func() *Model {
				m := NewModel(len(f.Events))
				m.Update(f.Snapshot, f.Events)
				m.Narration = f.Narration
				return m
			}
			b.Run(fmt.Sprintf("%s/n=%d/first", shape, n), func(b *testing.B) {
				s := tcell.NewSimulationScreen("UTF-8")
				if err := s.Init(); err != nil {
					b.Fatal(err)
				}
				defer s.Fini()
				s.SetSize(200, 60)
				for b.Loop() {
					m := model()
					m.View.Selected, m.View.Zoomed = PanePages, true // all it works out once, at the first frame
					Draw(s, m, NewTheme(256))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
			})
			b.Run(fmt.Sprintf("%s/n=%d/warm", shape, n), func(b *testing.B) {
				m := model()
				drawAllViews(b, m, 200, 60)
				frames := 0
				for b.Loop() {
					frames += drawAllViews(b, m, 200, 60)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames)/1e6, "ms/frame")
			})
		}
	}
}

// TestHostileSnapshotQuits (issue 32 item 9): a snapshot at the limits
// the loader allows, one page of the largest size holding 16 000 one-byte
// extents, is drawn in every layout and every pane zoomed, and q ends the
// view: a frame for each key, nothing more. The old Pages pane rebuilt a
// byte-by-byte map of the page each frame and never drew the first.
func TestHostileSnapshotQuits(t *testing.T) {
	for _, shape := range []string{"extents", "overlap"} {
		t.Run(shape, func(t *testing.T) {
			f := worstFrame(shape, 16000)
			data, err := json.Marshal(f.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "hostile.json")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			loaded, err := LoadSnapshot(path)
			if err != nil {
				t.Fatalf("the loader refuses it: %v", err)
			}
			s, done := runView(t, &Viewer{}, StaticSource(loaded, "snapshot "+path))
			keys := []rune{'z'} // the Pages pane zoomed, the byte map drawn
			for l := range numLayouts {
				keys = append(keys, rune('1'+l))
			}
			for i, k := range keys {
				s.InjectKey(tcell.KeyRune, k, tcell.ModNone)
				waitFor(t, fmt.Sprintf("the frame for %q", k), func() bool { return s.shows.Load() >= int32(i+2) })
			}
			s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
			if err := waitRun(t, done); err != nil {
				t.Fatal(err)
			}
			if n, want := s.shows.Load(), int32(len(keys)+1); n != want {
				t.Errorf("%d frames for %d keys and q, want %d", n, len(keys), want)
			}
		})
	}
}

// compactWidth counts what compactItem draws, for items of every form.
func TestCompactWidth(t *testing.T) {
	th := NewTheme(0)
	for _, it := range []sgItem{
		{first: 3, last: 3, firstPage: "pg1", lastPage: "pg1", off: 0, n: 4096},
		{first: 0, last: 9, firstPage: "pg10", lastPage: "pg19", off: 0, n: 4096, brk: true},
		{first: 1, last: 1, firstPage: "страница", off: 12345, n: 1, brk: true},
		{first: 2, last: 130, firstPage: "", lastPage: "z", off: 0, n: 0},
	} {
		if got, want := compactWidth(it), compactItem(it, th).width(); got != want {
			t.Errorf("%+v: compactWidth %d, drawn %d", it, got, want)
		}
	}
}

// BenchmarkValidateWorst checks the hostile shapes as their lists grow:
// the time per element must stay flat (paths are written for an error
// only).
func BenchmarkValidateWorst(b *testing.B) {
	for _, shape := range []string{"extents", "pages", "ctxts", "chains"} {
		for _, n := range []int{256, 2048, maxList} {
			f := worstFrame(shape, n)
			b.Run(fmt.Sprintf("%s/n=%d", shape, n), func(b *testing.B) {
				for b.Loop() {
					if err := validateFrame(&f, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// runsOf agrees with a byte-by-byte reading of the rule (the first landed
// range over a byte, else the first range over it) on ranges of every
// shape: overlapping, out of order, empty, past the page, planned.
func TestRunsOfMatchesBytes(t *testing.T) {
	src := func(i int) byteSource { return parseSource(hostileSources[i%len(hostileSources)], "") }
	cases := [][]pageRange{
		{{off: 10, n: 0, src: src(0), landed: true}},
		{{off: 5, n: 10, src: src(0), landed: true}},
		{{off: 0, n: 100, src: src(1)}, {off: 20, n: 10, src: src(2), landed: true}, {off: 25, n: 50, src: src(3), landed: true}},
		{{off: 90, n: 50, src: src(0), landed: true}, {off: 0, n: 30, src: src(1), landed: true}, {off: 10, n: 10, src: src(0), landed: true}},
		{{off: 40, n: 5, src: src(2)}, {off: 40, n: 5, src: src(3)}, {off: 0, n: 3, src: src(1), landed: true}, {off: -5, n: 2, src: src(4)}},
	}
	const ps = 128
	for ci, ranges := range cases {
		runs, end := runsOf(ranges, ps)
		for b := 0; b < end; b++ {
			var want pageRange
			found := false
			for _, r := range ranges {
				if b >= r.off && b < r.off+r.n && (!found || r.landed && !want.landed) {
					want, found = r, true
				}
			}
			i, _ := slices.BinarySearchFunc(runs, b, func(r byteRun, b int) int { return cmp.Compare(r.end-1, b) })
			got := runs[i]
			if got.ok != found || found && (got.r.src.glyph() != want.src.glyph() || got.r.landed != want.landed) {
				t.Errorf("case %d byte %d: run %+v, want ok %v %+v", ci, b, got, found, want)
				break
			}
		}
		for i := 1; i < len(runs); i++ {
			if runs[i].start != runs[i-1].end || runs[i].same(runs[i-1]) {
				t.Errorf("case %d: runs %d and %d do not abut or should be one: %+v", ci, i-1, i, runs)
			}
		}
	}
}
