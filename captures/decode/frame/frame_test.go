package frame

import (
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// kernelFrames returns the frames of a kernel capture.
func kernelFrames(t testing.TB, name string) [][]byte {
	t.Helper()
	r, err := pcapfile.Open(testutil.Capture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var frames [][]byte
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		frames = append(frames, append([]byte(nil), rec.Data...))
	}
	return frames
}

// The fast path takes the usual RoCEv2 frames of a sim capture (that it
// decodes them as the parser does, the decode package's
// TestFastPathDecodesAsParser checks over every output).
func TestFastPathTakesRoCEv2(t *testing.T) {
	var d Decoder
	took := 0
	frames := kernelFrames(t, "sim-nfs3.pcap")
	for _, f := range frames {
		if d.fast(f) {
			took++
		}
	}
	if took == 0 {
		t.Fatalf("the fast path took none of the %d frames of sim-nfs3.pcap", len(frames))
	}
}

// FuzzICRCHint: whatever the bytes, the read-ahead's ICRC is the
// decoder's where the decoder checked the ICRC over the span the hint is
// for.
func FuzzICRCHint(f *testing.F) {
	for _, fr := range kernelFrames(f, "nfs3-rdma.pcap")[:8] {
		f.Add(fr)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ck ib.Checker
		h := roceV2Hint(&ck, data)
		var d Decoder
		var p Packet
		d.Decode(&pcapfile.Record{Frame: 1, LinkType: pcapfile.LinkTypeEthernet, Data: data}, &p)
		if !h.ok || p.Encap != EncapRoCEv2 || p.IPv4 == nil || p.ICRC.State == CRCAbsent || p.ICRC.State == CRCUnknown {
			return
		}
		start, end := OffsetIn(p.Data, p.IPv4.Contents), OffsetIn(p.Data, p.UDP.Payload)+len(p.UDP.Payload)
		if int(h.start) == start && int(h.end) == end && h.crc != p.ICRC.Computed {
			t.Fatalf("the read-ahead's ICRC 0x%08x, the decoder's 0x%08x", h.crc, p.ICRC.Computed)
		}
	})
}
