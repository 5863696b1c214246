package decode

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// render decodes path keeping what opt says and returns, per packet, its
// line, detail tree and JSON object as the decoder printed them then.
func render(t *testing.T, path string, opt analysis.Options) ([]string, *analysis.Analyzer) {
	t.Helper()
	var out []string
	var pr packetRenderer
	an, err := ReadFileWith(path, opt, func(p *analysis.Packet) error {
		out = append(out, pr.render(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, an
}

// packetRenderer prints a packet's line, detail tree and JSON object.
type packetRenderer struct {
	w  jsonw
	tw treeWriter
}

func (r *packetRenderer) render(p *analysis.Packet) string {
	r.w.reset()
	appendJSON(&r.w, p)
	return string(appendLine(nil, p)) + string(r.tw.appendTree(nil, p)) + string(r.w.b)
}

// TestStreamingOptions checks that what Write drops to stream a capture in
// bounded memory (Options with everything dropped) changes nothing it
// prints per packet: every line, tree and JSON object is the same as when
// everything is kept. Only the whole-capture lists shrink: no notes kept,
// only the unanswered calls listed.
func TestStreamingOptions(t *testing.T) {
	for _, path := range testutil.AllCaptures(t) {
		all, keep := render(t, path, analysis.Options{})
		some, drop := render(t, path, analysis.Options{DropRPCs: true, DropNotes: true, DropChunkData: true, ForgetIdle: true})
		if len(all) != len(some) {
			t.Fatalf("%s: %d packets, then %d", path, len(all), len(some))
		}
		for i := range all {
			if all[i] != some[i] {
				t.Errorf("%s frame %d differs when streaming:\n%s\n---\n%s", path, i+1, all[i], some[i])
				break
			}
		}
		if len(drop.Notes()) != 0 {
			t.Errorf("%s: %d notes kept with DropNotes", path, len(drop.Notes()))
		}
		var open []*analysis.RPC
		for _, r := range keep.RPCs() {
			if r.Call != nil && r.Reply == nil {
				open = append(open, r)
			}
		}
		got := drop.RPCs()
		if len(got) != len(open) {
			t.Errorf("%s: %d RPCs listed with DropRPCs, %d unanswered", path, len(got), len(open))
		}
		for i := range min(len(got), len(open)) {
			if got[i].ID != open[i].ID || got[i].XID != open[i].XID {
				t.Errorf("%s: unanswered RPC %d is %d/0x%08x, want %d/0x%08x", path, i, got[i].ID, got[i].XID, open[i].ID, open[i].XID)
			}
		}
	}
}

// TestStreamingCheck checks that --check finds the same anomalies whether
// or not --rpc keeps the RPCs.
func TestStreamingCheck(t *testing.T) {
	path := craft.Mutate(t, func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 6, 69, 100) }, 0)
	var alone, withRPC bytes.Buffer
	Write(&alone, path, Output{Check: true})
	Write(&withRPC, path, Output{Check: true, RPCs: true})
	checks := withRPC.String()[strings.Index(withRPC.String(), " RPCs\n")+len(" RPCs\n"):]
	if alone.String() != checks || !strings.Contains(checks, "call never answered") {
		t.Errorf("--check alone:\n%s\n--check --rpc:\n%s", alone.String(), checks)
	}
}

// TestForgetIdle decodes a kernel capture with a pause of analysis.IdleFrames in
// the middle (frame numbers jump): with Options.ForgetIdle the flows
// forget their messages in the pause, and every packet after it is
// analysed as without: message numbers, ACKs, MSNs, RPCs, in every
// output.
func TestForgetIdle(t *testing.T) {
	path := filepath.Join("..", "testdata", "nfs3-rdma.pcap")
	run := func(opt analysis.Options) (lines []string, an *analysis.Analyzer, dropped int) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := pcapfile.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoderWith(opt)
		var pr packetRenderer
		var rec pcapfile.Record
		for r.Next(&rec) == nil {
			if rec.Frame > 40 {
				rec.Frame += analysis.IdleFrames
			}
			p := d.Decode(&rec)
			lines = append(lines, pr.render(p))
			if rec.Frame == 41+analysis.IdleFrames {
				for _, f := range d.an.Flows {
					dropped += f.Dropped
				}
			}
		}
		d.Finish()
		return lines, d.an, dropped
	}
	want, kept, _ := run(analysis.Options{})
	got, forgot, dropped := run(analysis.Options{ForgetIdle: true})
	if dropped == 0 {
		t.Fatal("no message forgotten in the pause")
	}
	if len(got) != len(want) {
		t.Fatalf("%d packets, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("packet %d differs after forgetting:\n%s\n---\n%s", i+1, got[i], want[i])
			break
		}
	}
	if len(forgot.RPCs()) != len(kept.RPCs()) || len(forgot.Notes()) != len(kept.Notes()) {
		t.Errorf("%d RPCs, %d notes; want %d, %d", len(forgot.RPCs()), len(forgot.Notes()), len(kept.RPCs()), len(kept.Notes()))
	}
}
