package engine

import (
	"testing"
	"time"
)

// benchLab is a quiet lab with automatic completion: the events are still
// emitted (so the scheduling is the same) but not formatted.
func benchLab(b *testing.B) *Lab {
	l := newLab(b, func(s *Settings) { s.AutoComplete = true })
	l.Sched.Quiet = true
	l.SetCapture(false)
	return l
}

// copyTime is how long b.N plain copies of n bytes take, the yardstick the
// lab's throughput is reported against.
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

func reportVsCopy(b *testing.B, n int, elapsed time.Duration) {
	c := copyTime(n, b.N)
	if elapsed > 0 {
		b.ReportMetric(float64(c)/float64(elapsed), "x-memcpy")
	}
}

// BenchmarkWrite1MiB: an NFS WRITE whose 1 MiB payload the server pulls
// with RDMA Read, end to end. x-memcpy is its bytes/s over a plain copy's.
func BenchmarkWrite1MiB(b *testing.B) {
	const n = 1 << 20
	l := benchLab(b)
	b.SetBytes(n)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := l.Write(n, ChunkOpts{}); err != nil {
			b.Fatal(err)
		}
		l.Continue()
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportVsCopy(b, n, elapsed)
	if calls := l.Client.Calls(); !calls[len(calls)-1].Done {
		b.Fatal("the last WRITE was not answered")
	}
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
	b.SetBytes(n)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := l.Read(n, ChunkOpts{}); err != nil {
			b.Fatal(err)
		}
		l.Continue()
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportVsCopy(b, n, elapsed)
	if calls := l.Client.Calls(); !calls[len(calls)-1].Done {
		b.Fatal("the last READ was not answered")
	}
}
