package decode

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// The read-ahead's ICRC is the decoder's: over the kernel captures, every
// RoCEv2 packet whose ICRC the decoder computes gets a hint for the same
// span with the same value.
func TestRoCEv2HintIsTheDecoders(t *testing.T) {
	var ck ib.Checker
	hinted := 0
	for _, name := range testutil.KernelCaptures() {
		pr, err := pcapfile.NewReader(bytes.NewReader(testutil.ReadCapture(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = decodeAll(pr, name, Options{}, func(p *Packet) error {
			if p.Encap != EncapRoCEv2 || p.ICRC.State == CRCAbsent || p.ICRC.State == CRCUnknown {
				return nil
			}
			h := roceV2Hint(&ck, p.Data)
			if !h.ok || h.crc != p.ICRC.Computed || int(h.start) != offsetIn(p.Data, p.IPv4.Contents) ||
				int(h.end) != offsetIn(p.Data, p.UDP.Payload)+len(p.UDP.Payload) {
				return fmt.Errorf("%s frame %d: hint %+v, the decoder computed 0x%08x", name, p.Frame, h, p.ICRC.Computed)
			}
			hinted++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if hinted == 0 {
		t.Fatal("no RoCEv2 packet in the kernel captures")
	}
}

// aheadOutputs decodes data with decodeAll or decodeAhead, stopping with
// stop at frame stopAt (0: never), and returns every packet's line, tree
// and JSON, the error, and the analysis' notes.
func aheadOutputs(t *testing.T, data []byte, opt Options, ahead bool, stopAt int) (string, error) {
	pr, err := pcapfile.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	var lc lineCache
	var tw treeWriter
	var jw jsonw
	stop := errors.New("stop")
	fn := func(p *Packet) error {
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
	data := repeatedCapture(t, "nfs3-rdma.pcap", 3*batchRecords+100)
	if len(data) < 2*batchBytes {
		t.Fatalf("the capture is %d bytes: it must span batches", len(data))
	}
	cases := []struct {
		name   string
		data   []byte
		opt    Options
		stopAt int
	}{
		{"whole", data, Options{}, 0},
		{"streaming", data, streaming, 0},
		{"no CRCs", data, Options{SkipCRCs: true}, 0},
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

// The decoder takes a hint for its span instead of computing the ICRC
// again (a hint with a wrong value shows which it did), and only for that
// frame.
func TestDecoderTakesTheHint(t *testing.T) {
	frames := kernelFrames(t, "nfs3-rdma.pcap")
	var ck ib.Checker
	d := NewDecoderWith(streaming)
	for i, f := range frames {
		h := roceV2Hint(&ck, f)
		if !h.ok {
			continue
		}
		h.crc ^= 1
		d.fd.hint = h
		p := d.Decode(&pcapfile.Record{Frame: i + 1, Data: f, LinkType: pcapfile.LinkTypeEthernet})
		if p.ICRC.Computed != h.crc {
			t.Fatalf("frame %d: the ICRC computed is 0x%08x, the hint said 0x%08x", i+1, p.ICRC.Computed, h.crc)
		}
		d.fd.hint.start++ // another span: computed again
		p = d.Decode(&pcapfile.Record{Frame: i + 1, Data: f, LinkType: pcapfile.LinkTypeEthernet})
		if p.ICRC.Computed != h.crc^1 {
			t.Fatalf("frame %d: a hint for another span was taken", i+1)
		}
		return
	}
	t.Fatal("no RoCEv2 frame in nfs3-rdma.pcap")
}

// warmHeaders reads bytes 0, 64 and 128 of each record, no further, and
// nothing past a short record's end.
func TestWarmHeaders(t *testing.T) {
	rec := func(n int) pcapfile.Record {
		d := make([]byte, n)
		for i := range d {
			d[i] = byte(i%64 + 1) // 1 at each line's start
		}
		return pcapfile.Record{Data: d[:n:n]}
	}
	recs := []pcapfile.Record{rec(0), rec(1), rec(64), rec(65), rec(129), rec(1000)}
	if got, want := warmHeaders(recs), byte(0+1+1+2+3+3); got != want {
		t.Errorf("warmHeaders = %d, want %d: one per line started, at most three", got, want)
	}
}
