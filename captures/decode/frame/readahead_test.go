package frame

import (
	"bytes"
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
		d := NewDecoder(false)
		var p Packet
		var rec pcapfile.Record
		for pr.Next(&rec) == nil {
			d.Decode(&rec, &p)
			if p.Encap != EncapRoCEv2 || p.ICRC.State == CRCAbsent || p.ICRC.State == CRCUnknown {
				continue
			}
			h := roceV2Hint(&ck, p.Data)
			if !h.ok || h.crc != p.ICRC.Computed || int(h.start) != OffsetIn(p.Data, p.IPv4.Contents) ||
				int(h.end) != OffsetIn(p.Data, p.UDP.Payload)+len(p.UDP.Payload) {
				t.Fatalf("%s frame %d: hint %+v, the decoder computed 0x%08x", name, p.Frame, h, p.ICRC.Computed)
			}
			hinted++
		}
	}
	if hinted == 0 {
		t.Fatal("no RoCEv2 packet in the kernel captures")
	}
}

// The decoder takes a hint for its span instead of computing the ICRC
// again (a hint with a wrong value shows which it did), and only for that
// frame.
func TestDecoderTakesTheHint(t *testing.T) {
	frames := kernelFrames(t, "nfs3-rdma.pcap")
	var ck ib.Checker
	d := NewDecoder(false)
	var p Packet
	for i, f := range frames {
		h := roceV2Hint(&ck, f)
		if !h.ok {
			continue
		}
		h.crc ^= 1
		d.hint = h
		d.Decode(&pcapfile.Record{Frame: i + 1, Data: f, LinkType: pcapfile.LinkTypeEthernet}, &p)
		if p.ICRC.Computed != h.crc {
			t.Fatalf("frame %d: the ICRC computed is 0x%08x, the hint said 0x%08x", i+1, p.ICRC.Computed, h.crc)
		}
		d.hint.start++ // another span: computed again
		d.Decode(&pcapfile.Record{Frame: i + 1, Data: f, LinkType: pcapfile.LinkTypeEthernet}, &p)
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
