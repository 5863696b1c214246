package engine

import (
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/engine/xprt"
)

// benchLab is a quiet lab with automatic completion: the events are still
// emitted (so the scheduling is the same) but not formatted, and the wire
// is not recorded. Like the REPL's, its client recycles the chunk buffers
// of old calls: the benchmarks keep no call but the last.
func benchLab(b *testing.B) *Lab {
	l := newLab(b, func(s *Settings) { s.AutoComplete = true })
	l.Sched.Quiet = true
	l.SetCapture(false)
	l.Client.Recycle = true
	return l
}

// copyTime is how long iters plain copies of n bytes take: the yardstick
// the lab's throughput is reported against, measured in the same run.
func copyTime(n, iters int) time.Duration {
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	start := time.Now()
	for i := 0; i < iters; i++ {
		copy(dst, src)
	}
	return time.Since(start)
}

// benchCalls runs call b.N times to completion and reports bytes/s, and
// x-memcpy: the lab's bytes/s over a plain copy's.
func benchCalls(b *testing.B, l *Lab, n int, call func() (*xprt.Call, error)) {
	b.SetBytes(int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var last *xprt.Call
	for i := 0; i < b.N; i++ {
		k, err := call()
		if err != nil {
			b.Fatal(err)
		}
		l.Continue()
		last = k
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if elapsed > 0 {
		b.ReportMetric(float64(copyTime(n, b.N))/float64(elapsed), "x-memcpy")
	}
	if last != nil && !last.Done {
		b.Fatal("the last call was not answered")
	}
}

// BenchmarkWrite1MiB: an NFS WRITE whose 1 MiB payload the server pulls
// with RDMA Read, end to end.
func BenchmarkWrite1MiB(b *testing.B) {
	const n = 1 << 20
	l := benchLab(b)
	benchCalls(b, l, n, func() (*xprt.Call, error) { return l.Write(n, ChunkOpts{}) })
}

// BenchmarkRead1MiB: an NFS READ whose 1 MiB reply the server pushes with
// RDMA Write into the client's Write chunk.
func BenchmarkRead1MiB(b *testing.B) {
	const n = 1 << 20
	l := benchLab(b)
	if _, err := l.Write(n, ChunkOpts{}); err != nil {
		b.Fatal(err)
	}
	l.Continue()
	benchCalls(b, l, n, func() (*xprt.Call, error) { return l.Read(n, ChunkOpts{}) })
}

// BenchmarkTwoCopies1MiB is the ceiling of the two benchmarks above: the
// two copies of the payload the model makes (client buffer to the 4 KiB
// pages, pages to the file; or file to pages, pages to the client), laid
// out as the lab lays them, with nothing else, against the same yardstick.
func BenchmarkTwoCopies1MiB(b *testing.B) {
	const n, ps = 1 << 20, 4096
	src, file := make([]byte, n), make([]byte, n)
	pages := make([][]byte, n/ps)
	for i := range pages {
		pages[i] = make([]byte, ps)
	}
	b.SetBytes(n)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for j, p := range pages {
			copy(p, src[j*ps:])
		}
		for j, p := range pages {
			copy(file[j*ps:], p)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if elapsed > 0 {
		b.ReportMetric(float64(copyTime(n, b.N))/float64(elapsed), "x-memcpy")
	}
}
