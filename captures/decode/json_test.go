package decode

import (
	"bytes"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// TestJSONNetworkCache: the network fields copied from the connections
// seen last are what writing them afresh gives, on captures of several
// connections both ways (more than the cache holds) and on a damaged one.
func TestJSONNetworkCache(t *testing.T) {
	merged := testutil.MergeCaptures(t, [][]byte{testutil.ReadCapture(t, "nfs3-rdma.pcap"),
		testutil.ReadCapture(t, "rdmacm-rping.pcap"), testutil.ReadCapture(t, "verbs-rc-pingpong.pcap")}, []int64{0, 0, 0})
	damaged := bytes.Clone(testutil.ReadCapture(t, "nfs4.1-rdma.pcap"))
	for i := 24 + 16 + 22; i < len(damaged); i += 89 {
		damaged[i] ^= 0x10 // TTLs, addresses, ports
	}
	for name, data := range map[string][]byte{"merged": merged, "damaged": damaged} {
		r, err := pcapfile.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoder()
		var cached jsonw
		hits := 0
		var rec pcapfile.Record
		for r.Next(&rec) == nil {
			p := d.Decode(&rec)
			var fresh jsonw
			appendJSON(&fresh, p)
			cached.reset()
			before := cached.nextNet
			appendJSON(&cached, p)
			if cached.nextNet == before && p.UDP != nil {
				hits++
			}
			if !bytes.Equal(cached.b, fresh.b) {
				t.Fatalf("%s frame %d: with the cache\n%s\nwritten afresh\n%s", name, p.Frame, cached.b, fresh.b)
			}
		}
		if hits == 0 {
			t.Errorf("%s: the cache was never used", name)
		}
	}
}
