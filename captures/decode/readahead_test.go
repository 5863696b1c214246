package decode

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// aheadOutputs decodes data with decodeAll or decodeAhead, stopping with
// stop at frame stopAt (0: never), and returns every packet's line, tree
// and JSON, the error, and the analysis' notes.
func aheadOutputs(t *testing.T, data []byte, opt analysis.Options, ahead bool, stopAt int) (string, error) {
	pr, err := pcapfile.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	var lc lineCache
	var tw treeWriter
	var jw jsonw
	stop := errors.New("stop")
	fn := func(p *analysis.Packet) error {
		if p.Frame == stopAt {
			return stop
		}
		out = lc.appendLine(out, p)
		out = tw.appendTree(out, p)
		jw.reset()
		appendJSON(&jw, p)
		out = append(out, jw.b...)
		return nil
	}
	decode := decodeAll
	if ahead {
		decode = decodeAhead
	}
	an, err := decode(pr, "test.pcap", opt, fn)
	for _, n := range an.Notes() {
		out = fmt.Appendf(out, "note %v %s\n", n.Kind, n.Text)
	}
	return string(out), err
}

// Read ahead, the decode is the same: every output of every packet, the
// notes, where a damaged file stops and what it says, and a stop asked
// for midway (decode -c), over a capture of many batches.
func TestDecodeAheadIsDecodeAll(t *testing.T) {
	// More than three of the read-ahead's batches (1024 records or 256 KiB
	// each, package frame), and a stop inside the second.
	const batchRecords, batchBytes = 1024, 256 << 10
	data := repeatedCapture(t, "nfs3-rdma.pcap", 3*batchRecords+100)
	if len(data) < 2*batchBytes {
		t.Fatalf("the capture is %d bytes: it must span batches", len(data))
	}
	cases := []struct {
		name   string
		data   []byte
		opt    analysis.Options
		stopAt int
	}{
		{"whole", data, analysis.Options{}, 0},
		{"streaming", data, streaming, 0},
		{"no CRCs", data, analysis.Options{SkipCRCs: true}, 0},
		{"truncated", data[:len(data)*2/3], streaming, 0},
		{"stopped", data, streaming, batchRecords + 7},
	}
	for _, c := range cases {
		want, werr := aheadOutputs(t, c.data, c.opt, false, c.stopAt)
		got, gerr := aheadOutputs(t, c.data, c.opt, true, c.stopAt)
		if got != want {
			t.Errorf("%s: read ahead, the output differs (%d bytes, %d without)", c.name, len(got), len(want))
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("%s: read ahead, the error is %v; without, %v", c.name, gerr, werr)
		}
	}
}
