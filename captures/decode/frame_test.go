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
// path exactly as through gopacket's parser alone (that the fast path
// does take the usual frames, frame.TestFastPathTakesRoCEv2 checks).
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
		slow.fd.ParserOnly()
		var rec pcapfile.Record
		for r.Next(&rec) == nil {
			got := packetText(fast.Decode(&rec))
			if want := packetText(slow.Decode(&rec)); got != want {
				t.Fatalf("%s frame %d: the fast path decoded\n%s\nthe parser\n%s", name, rec.Frame, got, want)
			}
		}
	}
}
