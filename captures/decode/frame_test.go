package decode

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// TestFastPathDecodesAsParser: every frame of the kernel and public
// captures, of a sim capture and of a damaged copy of one (flipped bytes:
// bad lengths, versions, ports and CRCs), decodes through the RoCEv2 fast
// path exactly as through gopacket's parser alone, and the fast path does
// take the usual frames.
func TestFastPathDecodesAsParser(t *testing.T) {
	files := map[string][]byte{}
	for _, path := range append(testutil.AllCaptures(t), testutil.Capture(t, "sim-nfs3.pcap")) {
		files[filepath.Base(path)] = testutil.ReadFile(t, path)
	}
	damaged := bytes.Clone(files["nfs3-rdma.pcap"])
	for i := 24 + 16 + 12; i < len(damaged); i += 61 {
		damaged[i] ^= 0x41
	}
	files["damaged"] = damaged
	for name, data := range files {
		r, err := pcapfile.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fast, slow := NewDecoder(), NewDecoder()
		slow.fd.noFast = true
		took := 0
		var rec pcapfile.Record
		for r.Next(&rec) == nil {
			got := packetText(fast.Decode(&rec))
			if fast.fd.fast(rec.Data) {
				took++
			}
			if want := packetText(slow.Decode(&rec)); got != want {
				t.Fatalf("%s frame %d: the fast path decoded\n%s\nthe parser\n%s", name, rec.Frame, got, want)
			}
		}
		if name == "sim-nfs3.pcap" && took == 0 {
			t.Errorf("%s: the fast path took none of its RoCEv2 frames", name)
		}
		t.Logf("%s: %d frames by the fast path", name, took)
	}
}
