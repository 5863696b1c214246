package decode

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// TestJSONCaches: the fields copied from the connections and messages
// seen last (network, transport header, flow and message, chunk) are what
// writing them afresh gives, on every capture, on captures of several
// connections both ways (more than the caches hold) and on a damaged one.
func TestJSONCaches(t *testing.T) {
	merged := testutil.MergeCaptures(t, [][]byte{testutil.ReadCapture(t, "nfs3-rdma.pcap"),
		testutil.ReadCapture(t, "rdmacm-rping.pcap"), testutil.ReadCapture(t, "verbs-rc-pingpong.pcap")}, []int64{0, 0, 0})
	damaged := bytes.Clone(testutil.ReadCapture(t, "nfs4.1-rdma.pcap"))
	for i := 24 + 16 + 22; i < len(damaged); i += 89 {
		damaged[i] ^= 0x10 // TTLs, addresses, ports
	}
	files := map[string][]byte{"merged": merged, "damaged": damaged}
	for _, path := range append(testutil.AllCaptures(t), testutil.Capture(t, "sim-nfs3.pcap")) {
		files[filepath.Base(path)] = testutil.ReadFile(t, path)
	}
	for name, data := range files {
		r, err := pcapfile.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoder()
		var cached jsonw
		hits, bthHits, chunkHits := 0, 0, 0
		var rec pcapfile.Record
		for r.Next(&rec) == nil {
			p := d.Decode(&rec)
			var fresh jsonw
			appendJSON(&fresh, p)
			cached.reset()
			before, bthBefore, chunkBefore := cached.nets.next, cached.bth.next, cached.chunk
			appendJSON(&cached, p)
			if cached.nets.next == before && p.UDP != nil {
				hits++
			}
			if cached.bth.next == bthBefore && p.BTH != nil {
				bthHits++
			}
			if chunkBefore.ok && cached.chunk.key == chunkBefore.key && p.Analysis.Chunk.RPC != nil {
				chunkHits++
			}
			if !bytes.Equal(cached.b, fresh.b) {
				t.Fatalf("%s frame %d: with the cache\n%s\nwritten afresh\n%s", name, p.Frame, cached.b, fresh.b)
			}
		}
		t.Logf("%s: network %d, transport %d, chunk %d from the caches", name, hits, bthHits, chunkHits)
		if (name == "merged" || name == "nfs3-rdma.pcap") && (hits == 0 || bthHits == 0) || name == "nfs3-rdma.pcap" && chunkHits == 0 {
			t.Errorf("%s: a cache was never used: network %d, transport %d, chunk %d", name, hits, bthHits, chunkHits)
		}
	}
}

// jsonFrame writes the frame fields exactly, whatever second the time
// falls in, before or after the last packet's, and the relative times
// written as a float (negative, or a million seconds on).
func TestJSONFrame(t *testing.T) {
	base := time.Unix(1767225599, 999_999_000)
	times := []time.Duration{0, 500, 1000, 999, time.Second, 2 * time.Second, -3 * time.Second,
		1e6 * time.Second, 1e6*time.Second - 1, -1, 42*time.Hour + 17}
	var w jsonw
	for i, d := range times {
		p := &analysis.Packet{Packet: frame.Packet{Frame: i + 1, Time: base.Add(d), Rel: d, WireLen: 60 + i, CapLen: 60, Offset: int64(24 + 100*i)}}
		want := fmt.Sprintf(`{"frame.number":%d,"frame.time_epoch":%d.%09d,"frame.time_relative":%.9f,"frame.len":%d,"frame.cap_len":%d,"rdmalab.frame.offset":%d`,
			p.Frame, p.Time.Unix(), p.Time.Nanosecond(), d.Seconds(), p.WireLen, p.CapLen, p.Offset)
		w.reset()
		jsonFrame(&w, p)
		if string(w.b) != want || !w.comma {
			t.Errorf("%v: jsonFrame wrote\n%s\nnot\n%s", d, w.b, want)
		}
	}
}
