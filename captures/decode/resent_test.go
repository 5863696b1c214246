package decode

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// A resent RDMA READ request (rxe's retransmission timer under load) is
// the same operation again: it is reported as a duplicate and tied to the
// Read chunk segment its first sending was tied to.
func TestResentReadRequestKeepsItsChunk(t *testing.T) {
	r, err := pcapfile.Open(testutil.Capture(t, "sim-nfs3.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	w, err := pcapfile.NewWriter(&b, r.LinkType(), r.Snaplen())
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; ; n++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		data = append([]byte(nil), data...)
		times := 1
		if n == 6 { // the READ request of XID 0x5eed0010's Read chunk
			times = 2
		}
		for range times {
			if err := w.WritePacket(ci, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "resent.pcap")
	testutil.WriteFile(t, path, b.Bytes())
	d := decodeFile(t, path)
	first, again := d.packets[5], d.packets[6]
	if first.BTH.RETH.VA == 0 || again.BTH.RETH.VA != first.BTH.RETH.VA {
		t.Fatalf("frames 6 and 7 are not the same READ request: %s / %s", d.lines[5], d.lines[6])
	}
	if again.Analysis.PSN.Status != analysis.PSNDuplicate {
		t.Errorf("frame 7 is %v, not a duplicate: %s", again.Analysis.PSN.Status, d.lines[6])
	}
	c, want := again.Analysis.Chunk, first.Analysis.Chunk
	if c.RPC == nil || c.RPC != want.RPC || c.Kind != analysis.ChunkRead || c.Segment != want.Segment || c.Offset != want.Offset || c.Past {
		t.Errorf("the resent READ is tied to %+v, want %+v", c, want)
	}
}
