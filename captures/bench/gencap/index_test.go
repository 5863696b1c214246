package main

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
)

// maxIndexPerFrame bounds what an Index of a sim capture keeps per frame
// once done: 16-byte frame records, and the messages, RPCs and ACKs its
// analysis keeps (about 62 bytes a frame, 66 while it kept Reply chunk
// bytes and padded Messages; 150 when a frame's record held pointers to
// its message and a copy of its analysis).
const maxIndexPerFrame = 80

// indexRetained indexes the capture at path to its end and returns the
// frames and the heap the index keeps per frame.
func indexRetained(tb testing.TB, path string) (int, float64) {
	before := heapInUse()
	x, err := decode.OpenIndex(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer x.Close()
	n, err := x.Wait(context.Background(), -1)
	if err != nil {
		tb.Fatal(err)
	}
	after := heapInUse()
	runtime.KeepAlive(x)
	return n, float64(after-min(after, before)) / float64(n)
}

// TestIndexRetained indexes a 200,000-packet capture, as view --capture
// does, and checks the heap the index keeps per frame.
func TestIndexRetained(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MB capture")
	}
	path := filepath.Join(t.TempDir(), "sim.pcap")
	if _, err := generate(config{packets: 200_000, out: path, seed: 1, threads: 4, mtu: 1024, calls: 100}); err != nil {
		t.Fatal(err)
	}
	n, per := indexRetained(t, path)
	if n < 200_000 {
		t.Fatalf("%d frames indexed", n)
	}
	t.Logf("%d frames: %.1f MB kept, %.1f bytes a frame", n, per*float64(n)/(1<<20), per)
	if per > maxIndexPerFrame {
		t.Errorf("an index keeps %.1f bytes a frame, more than %d", per, maxIndexPerFrame)
	}
}

// BenchmarkIndexRetained reports the heap an Index keeps per frame of the
// benchmarks' sim capture (B/frame), and how long indexing it takes.
func BenchmarkIndexRetained(b *testing.B) {
	path, _ := simCapture(b)
	var per float64
	for b.Loop() {
		_, per = indexRetained(b, path)
	}
	b.ReportMetric(per, "B/frame")
}
