package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// The kernel's NFS captures in captures/testdata.
const (
	nfs3  = "nfs3-rdma.pcap"
	nfs41 = "nfs4.1-rdma.pcap"
)

// load replays the capture name of captures/testdata.
func load(t testing.TB, name string) *Timeline {
	t.Helper()
	path := testutil.Capture(t, name)
	tl, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Err != nil {
		t.Fatalf("%s: %v", path, tl.Err)
	}
	return tl
}

// The transcript of the kernel's NFSv3 capture, one line a step.
func TestGoldenTranscript(t *testing.T) {
	tl := load(t, nfs3)
	tl.File = "nfs3-rdma.pcap"
	var b bytes.Buffer
	if err := tl.WriteTranscript(&b, Options{}); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "nfs3-rdma.golden"), b.String())
}

// The events of the steps that show each part of the server's work: a
// call with a Read list, the chain of READs, the last response, the reply
// Send, its ACK, a reply chain with a Write chunk.
func TestGoldenEvents(t *testing.T) {
	tl := load(t, nfs3)
	var b strings.Builder
	for _, frame := range []int{2, 86, 88, 95, 222, 223, 224, 249, 251, 379, 387} {
		i := stepAtFrame(t, tl, frame)
		fmt.Fprintf(&b, "%d  %s\n", frame, tl.Text(i))
		for _, e := range tl.StepEvents(i) {
			fmt.Fprintf(&b, "    %s\n", e)
		}
	}
	testutil.Golden(t, filepath.Join("testdata", "nfs3-rdma-events.golden"), b.String())
}

func stepAtFrame(t *testing.T, tl *Timeline, frame int) int {
	t.Helper()
	for i, s := range tl.Steps() {
		if s.Frame == frame {
			return i
		}
	}
	t.Fatalf("no step at frame %d", frame)
	return -1
}

// Properties every replay keeps, on every capture of RPC-over-RDMA in
// captures/testdata (the kernel's, and the simulator's own traffic).
func TestProperties(t *testing.T) {
	paths, err := filepath.Glob(testutil.Capture(t, "*.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tl, err := ReadFile(path)
			if errors.Is(err, ErrNoRPC) {
				return // perftest, rping: nothing to replay (TestNoRPC)
			}
			if err != nil || tl.Err != nil {
				t.Fatalf("%v %v", err, tl.Err)
			}
			replayed++
			name := filepath.Base(path)
			checkProperties(t, tl, testutil.ReadFile(t, path), name == nfs3 || name == nfs41)
			p := tl.Player()
			p.End()
			snap := p.Snapshot()
			if n := len(snap.Chains); n != 0 {
				t.Errorf("%d chains still posted at the end of a complete capture: %+v", n, snap.Chains)
			}
			if got, want := snap.Positions.AckedPos, snap.Positions.PostSeq; got != want || want == 0 {
				t.Errorf("at the end xpt_acked_pos %d, sc_post_seq %d: every reply was acknowledged", got, want)
			}
			for _, r := range tl.RPCs {
				if r.First < 0 || r.Last < r.First {
					t.Errorf("RPC %d: steps %d..%d", r.ID, r.First, r.Last)
				}
				if k := tl.Step(r.Last).Kind; k != KindAck {
					t.Errorf("RPC %d (xid 0x%08x) ends with a %v step, not the ACK of its reply", r.ID, r.XID, k)
				}
			}
		})
	}
	if replayed < 2 {
		t.Errorf("%d captures replayed, want the two kernel captures at least", replayed)
	}
}

// checkProperties walks tl: frames increase, the acknowledged position
// never goes back nor passes the posted one, the WQEs in flight are the
// posted chains', and each Read list of capture (tl's file) lands whole.
func checkProperties(t *testing.T, tl *Timeline, capture []byte, reads bool) {
	t.Helper()
	p := tl.Player()
	lastFrame, lastAcked := 0, uint64(0)
	for p.Forward() {
		s := p.Step()
		if s.Frame <= lastFrame {
			t.Fatalf("step %d: frame %d after frame %d", s.Index, s.Frame, lastFrame)
		}
		lastFrame = s.Frame
		snap := p.Snapshot()
		pos := snap.Positions
		if pos.AckedPos < lastAcked {
			t.Fatalf("frame %d: xpt_acked_pos went back from %d to %d", s.Frame, lastAcked, pos.AckedPos)
		}
		if pos.AckedPos > pos.PostSeq {
			t.Fatalf("frame %d: xpt_acked_pos %d passes sc_post_seq %d", s.Frame, pos.AckedPos, pos.PostSeq)
		}
		lastAcked = pos.AckedPos
		for _, r := range pos.Replies {
			if r.Acked != (r.Pos <= pos.AckedPos) {
				t.Fatalf("frame %d: reply at %d acked=%v with xpt_acked_pos %d", s.Frame, r.Pos, r.Acked, pos.AckedPos)
			}
		}
		if s.Kind == KindReadDone {
			for _, rd := range snap.Reads {
				if rs := p.st.readOf(s.RPC); rs == nil || rs.landed != rd.ReadBytes {
					t.Fatalf("frame %d: the Read list of %s completed with %v of %d bytes landed", s.Frame, rd.XID, rs, rd.ReadBytes)
				}
				for _, pg := range rd.Pages {
					n := 0
					for _, e := range pg.Extents {
						n += e.Len
					}
					if want := min(4096, rd.ReadBytes-pg.Index*4096); n != want {
						t.Fatalf("frame %d: %s holds %d bytes, want %d: %+v", s.Frame, pg.Name, n, want, pg.Extents)
					}
				}
			}
		}
		if n := len(tl.StepEvents(s.Index)); n == 0 {
			t.Fatalf("frame %d: a step without events", s.Frame)
		}
	}
	if n := checkReadCoverage(t, capture); reads && n == 0 {
		t.Error("no call with a Read list in the capture")
	}
}

// checkReadCoverage: the RDMA READs of each call's Read chunk segments
// cover each segment exactly, in order.
func checkReadCoverage(t *testing.T, capture []byte) int {
	t.Helper()
	calls := 0
	for _, r := range rpcsWithReads(capture) {
		calls++
		next := map[segKey]uint64{}
		for _, m := range r.Reads {
			k := segKey{m.Chunk.Chunk, m.Chunk.Segment}
			if m.Chunk.Offset != next[k] {
				t.Errorf("xid 0x%08x: read chunk %d segment %d pulled at +%d, expected +%d", r.XID, k.chunk, k.seg, m.Chunk.Offset, next[k])
			}
			next[k] = m.Chunk.Offset + uint64(m.DMALen)
		}
		for i, c := range r.ReadChunks {
			for j, s := range c.Segments {
				if got := next[segKey{i, j}]; got != uint64(s.Length) {
					t.Errorf("xid 0x%08x: read chunk %d segment %d: %d of %d bytes pulled", r.XID, i, j, got, s.Length)
				}
			}
		}
	}
	return calls
}

// Going back gives the same picture as going forward: the checkpoints and
// the clones share nothing that a step changes.
func TestSeekBackMatchesForward(t *testing.T) {
	tl := load(t, nfs3)
	fwd := tl.Player()
	var snaps []any
	for fwd.Forward() {
		snaps = append(snaps, fwd.Snapshot())
	}
	p := tl.Player()
	p.End()
	for _, i := range []int{tl.NumSteps() - 2, 600, 511, 256, 255, 130, 100, 0} {
		p.Seek(i)
		if got := p.Snapshot(); !reflect.DeepEqual(got, snaps[i]) {
			t.Fatalf("step %d after going back differs from going forward:\n got %+v\nwant %+v", i, got, snaps[i])
		}
	}
	p.Seek(-1)
	if p.At() != -1 || len(p.Snapshot().Chains) != 0 || len(p.Events(100)) != len(tl.Unknown) {
		t.Errorf("before the first step: at %d, %d events", p.At(), len(p.Events(100)))
	}
}

// Stepping by RPC stops where each RPC starts and ends.
func TestStepByRPC(t *testing.T) {
	tl := load(t, nfs3)
	p := tl.Player()
	seen := 0
	for p.NextRPC() {
		seen++
		s := p.Step()
		if s.Kind != KindCall || s.RPC != seen {
			t.Fatalf("NextRPC stop %d: step %d (%v, RPC %d)", seen, s.Index, s.Kind, s.RPC)
		}
		if !p.FinishRPC() || p.Step().Kind != KindAck || p.tl.RPCOf(p.At()).ID != seen {
			t.Fatalf("FinishRPC from RPC %d stopped at %v", seen, p.Step())
		}
		p.Seek(tl.RPCs[seen-1].First)
	}
	if seen != len(tl.RPCs) {
		t.Errorf("NextRPC stopped at %d RPCs of %d", seen, len(tl.RPCs))
	}
	if !p.PrevRPC() || p.tl.RPCOf(p.At()).ID != seen-1 {
		t.Errorf("PrevRPC from the last RPC went to step %d", p.At())
	}
	p.Seek(-1)
	if !p.NextCompletion() || p.Step().Frame != 7 {
		t.Errorf("the first completion is the ACK of the first reply (frame 7), got %+v", p.Step())
	}
	if p.Back(); p.At() != stepAtFrame(t, tl, 6) {
		t.Errorf("Back from frame 7 went to step %d", p.At())
	}
}

// A capture cut in the middle of a record replays up to the cut, and its
// last step names the frame and byte offset.
func TestTruncatedCapture(t *testing.T) {
	data := testutil.ReadCapture(t, nfs3)
	cut := data[:len(data)*2/5+7]
	tl, err := Read(bytes.NewReader(cut), "cut.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var pe *pcapfile.Error
	if !errors.As(tl.Err, &pe) || pe.Frame == 0 {
		t.Fatalf("the timeline's error %v does not say where the file broke", tl.Err)
	}
	last := tl.Step(tl.NumSteps() - 1)
	if last.Kind != KindBreak || last.Frame != pe.Frame {
		t.Fatalf("last step %+v, want the break at frame %d", last, pe.Frame)
	}
	for _, want := range []string{fmt.Sprintf("frame %d", pe.Frame), fmt.Sprintf("byte offset %d", pe.Offset), "cut.pcap"} {
		if text := tl.Text(last.Index); !strings.Contains(text, want) {
			t.Errorf("the break step %q does not say %q", text, want)
		}
	}
	if tl.NumSteps() < 100 {
		t.Errorf("only %d steps before the break", tl.NumSteps())
	}
	checkProperties(t, tl, cut, true)
	found := false
	for _, u := range tl.Unknown {
		found = found || strings.Contains(u, "damaged")
	}
	if !found {
		t.Errorf("the unknowns do not say the file is damaged: %q", tl.Unknown)
	}
}

// A capture that starts mid-stream (here: in the middle of a Read list's
// responses) says so, replays what it can, and counts positions from the
// first reply it sees.
func TestMidStream(t *testing.T) {
	path := cutCapture(t, testutil.Capture(t, nfs3), 150)
	tl, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !containsAny(tl.Unknown, "mid-stream") {
		t.Errorf("unknowns do not say the capture starts mid-stream: %q", tl.Unknown)
	}
	s := tl.Step(0)
	if s.Kind != KindOther || !strings.Contains(tl.Text(0), "did not show") {
		t.Errorf("first step: %v %q", s.Kind, tl.Text(0))
	}
	p := tl.Player()
	p.Seek(stepAtFrame(t, tl, 223-149))
	if pos := p.Snapshot().Positions; pos.PostSeq != 1 || pos.Replies[0].XID != "0x4bdbd665" {
		t.Errorf("the first reply of the capture is position %d (%+v), want 1", pos.PostSeq, pos.Replies)
	}
	if r := tl.RPCOf(p.At()); r == nil || !strings.Contains(r.Label, "its call is not in the capture") {
		t.Errorf("the reply's RPC is %+v", r)
	}
	checkProperties(t, tl, testutil.ReadFile(t, path), false)
}

// cutCapture writes the frames of path from frame on into a new capture.
func cutCapture(t *testing.T, path string, from int) string {
	t.Helper()
	r, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := filepath.Join(t.TempDir(), "cut.pcap")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	var w *pcapfile.Writer
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		if w == nil {
			if w, err = pcapfile.NewWriter(bw, rec.LinkType, 65535); err != nil {
				t.Fatal(err)
			}
		}
		if rec.Frame >= from {
			if err := w.WritePacket(rec.Info, rec.Data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return out
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// A capture without RPC-over-RDMA has nothing to replay.
func TestNoRPC(t *testing.T) {
	_, err := ReadFile(testutil.Capture(t, "perftest-ib-read-bw.pcap"))
	if !errors.Is(err, ErrNoRPC) || !strings.Contains(err.Error(), "perftest-ib-read-bw.pcap") {
		t.Errorf("got %v, want ErrNoRPC naming the file", err)
	}
	if _, err := ReadFile("nosuch.pcap"); err == nil || !strings.Contains(err.Error(), "nosuch.pcap") {
		t.Errorf("a missing file: %v", err)
	}
}

// The JSON transcript: one object a step, in order, with the positions.
func TestJSONTranscript(t *testing.T) {
	tl := load(t, nfs41)
	var b bytes.Buffer
	if err := tl.WriteTranscript(&b, Options{JSON: true}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&b)
	sc.Buffer(nil, 1<<20)
	n, acked := 0, uint64(0)
	kinds := map[string]int{}
	for sc.Scan() {
		var s struct {
			Step   int           `json:"step"`
			Frame  int           `json:"frame"`
			Kind   string        `json:"kind"`
			Events []trace.Event `json:"events"`
			State  jsonState     `json:"state"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		if s.Step != n || s.Frame != tl.Step(n-1).Frame || len(s.Events) == 0 || s.State.AckedPos < acked {
			t.Fatalf("line %d: %+v", n, s)
		}
		acked = s.State.AckedPos
		kinds[s.Kind]++
	}
	if n != tl.NumSteps() {
		t.Errorf("%d objects for %d steps", n, tl.NumSteps())
	}
	for _, k := range []string{"connect", "call", "read-post", "read", "read-data", "read-done", "reply-post", "write", "send", "ack"} {
		if kinds[k] == 0 {
			t.Errorf("no %q step in the NFSv4.1 capture: %v", k, kinds)
		}
	}
}

// The events name the kernel functions the model uses, so a learner can
// find them in the simulator.
func TestKernelNames(t *testing.T) {
	tl := load(t, nfs3)
	have := map[string]bool{}
	for _, e := range tl.Events() {
		have[e.Func] = true
	}
	for _, fn := range []string{"svc_rdma_wc_receive", "svc_rdma_recvfrom", "svcrdma_decode_rqst", "svc_rdma_process_read_list",
		"svc_rdma_read_data_item", "svc_rdma_build_read_chunk", "svc_rdma_build_read_segment", "svc_rdma_post_chunk_ctxt",
		"ib_post_send", "svc_rdma_wc_read_done", "svc_rdma_read_complete", "svc_rdma_sendto", "svc_rdma_send_write_chunk",
		"svc_rdma_prepare_reply_chunk", "svc_rdma_build_writes", "svc_rdma_send_reply_msg", "svc_rdma_post_send", "sc_post_seq",
		"svc_rdma_wc_send", "svc_xprt_advance_acked"} {
		if !have[fn] {
			t.Errorf("no %s event", fn)
		}
	}
}

// rpcsWithReads are the calls of a capture that had a Read list, as the
// decoder finds them (as far as a damaged capture goes): a timeline lets
// go of its decode.RPCs once built.
func rpcsWithReads(capture []byte) []*analysis.RPC {
	an, _ := decode.Read(bytes.NewReader(capture), "capture", func(*analysis.Packet) error { return nil })
	var out []*analysis.RPC
	if an == nil {
		return nil
	}
	for _, r := range an.RPCs() {
		if len(r.ReadChunks) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// SeekFrame goes to a frame's step, or to the step before a frame that is
// none.
func TestSeekFrame(t *testing.T) {
	tl := load(t, nfs3)
	p := tl.Player()
	isStep := map[int]bool{}
	for _, s := range tl.Steps() {
		isStep[s.Frame] = true
	}
	for frame := 0; frame <= tl.Frames+1; frame++ {
		i, exact := p.SeekFrame(frame)
		want := -1
		for k, s := range tl.Steps() {
			if s.Frame <= frame {
				want = k
			}
		}
		if i != want || p.At() != want || exact != isStep[frame] {
			t.Fatalf("frame %d: step %d (at %d), exact %v; want step %d, exact %v", frame, i, p.At(), exact, want, isStep[frame])
		}
	}
}

// A transcript goes out in writes of what a pipe holds (writeChunk), the
// last excepted: not in bufio's 4 KiB ones, sixteen system calls for one.
func TestTranscriptWritesPipeSizedChunks(t *testing.T) {
	var w testutil.WriteSizes
	if _, err := Transcribe(testutil.Capture(t, nfs3), ReadOptions{}, &w, Options{Events: true}); err != nil {
		t.Fatal(err)
	}
	if len(w.Sizes) < 3 {
		t.Fatalf("%d writes of %d bytes: the test needs a transcript of several chunks", len(w.Sizes), w.Len())
	}
	for i, n := range w.Sizes[:len(w.Sizes)-1] {
		if n != writeChunk {
			t.Fatalf("write %d of %d is %d bytes, want %d", i+1, len(w.Sizes), n, writeChunk)
		}
	}
	if !strings.Contains(w.String(), "end of the replay: 752 frames") {
		t.Errorf("not a transcript:\n%.300s", w.String())
	}
}
