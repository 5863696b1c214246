package decode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// render decodes path keeping what opt says and returns, per packet, its
// line, detail tree and JSON object as the decoder printed them then.
func render(t *testing.T, path string, opt Options) ([]string, *Analyzer) {
	t.Helper()
	var out []string
	var w jsonw
	var tw treeWriter
	an, err := ReadFileWith(path, opt, func(p *Packet) error {
		w.reset()
		appendJSON(&w, p)
		out = append(out, string(appendLine(nil, p))+string(tw.appendTree(nil, p))+string(w.b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, an
}

// TestStreamingOptions checks that what Write drops to stream a capture in
// bounded memory (Options with everything dropped) changes nothing it
// prints per packet: every line, tree and JSON object is the same as when
// everything is kept. Only the whole-capture lists shrink: no notes kept,
// only the unanswered calls listed.
func TestStreamingOptions(t *testing.T) {
	for _, path := range testutil.AllCaptures(t) {
		all, keep := render(t, path, Options{})
		some, drop := render(t, path, Options{DropRPCs: true, DropNotes: true, DropChunkData: true})
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
		var open []*RPC
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
	path := mutate(t, func(fs []capFrame) []capFrame { return drop(fs, 6, 69, 100) }, 0)
	var alone, withRPC bytes.Buffer
	Write(&alone, path, Output{Check: true})
	Write(&withRPC, path, Output{Check: true, RPCs: true})
	checks := withRPC.String()[strings.Index(withRPC.String(), " RPCs\n")+len(" RPCs\n"):]
	if alone.String() != checks || !strings.Contains(checks, "call never answered") {
		t.Errorf("--check alone:\n%s\n--check --rpc:\n%s", alone.String(), checks)
	}
}
