package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
)

// heapWatch is the output of `rdmalab decode`: it counts the lines and
// takes the live heap when the count passes each mark.
type heapWatch struct {
	lines int
	marks []int
	heap  []uint64
}

func (w *heapWatch) Write(b []byte) (int, error) {
	w.lines += bytes.Count(b, []byte{'\n'})
	if len(w.heap) < len(w.marks) && w.lines >= w.marks[len(w.heap)] {
		w.heap = append(w.heap, heapInUse())
	}
	return len(b), nil
}

// TestDecodeStreams decodes a capture of many connections, one after
// another as gencap writes them, the way `rdmalab decode` does, and checks
// that the heap stays flat: a connection that has ended keeps nothing.
// Each one used to keep its last messages and, through them, their RPCs:
// about 33 bytes a frame on this capture, growing to the end.
func TestDecodeStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 300 MB capture")
	}
	path := filepath.Join(t.TempDir(), "sim.pcap")
	st, err := generate(config{packets: 300_000, out: path, seed: 1, threads: 4, mtu: 1024, calls: 100})
	if err != nil {
		t.Fatal(err)
	}
	if st.conns < 10 {
		t.Fatalf("%d connections: the test wants many", st.conns)
	}
	w := &heapWatch{marks: []int{100_000, 290_000}}
	if _, err := decode.Write(w, path, decode.Output{}); err != nil {
		t.Fatal(err)
	}
	if len(w.heap) != 2 {
		t.Fatalf("%d lines written", w.lines)
	}
	grew := float64(w.heap[1]) - float64(w.heap[0])
	t.Logf("%d connections: heap %.1f MB at line %d, %.1f MB at line %d",
		st.conns, float64(w.heap[0])/(1<<20), w.marks[0], float64(w.heap[1])/(1<<20), w.marks[1])
	if limit := 2.0 * (1 << 20); grew > limit {
		t.Errorf("the heap grew by %.1f MB over 190,000 packets, more than %.0f MB", grew/(1<<20), limit/(1<<20))
	}
}
