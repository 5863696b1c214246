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

// pagedCopies are the copies the model makes of n bytes, laid out as
// the lab lays them, with nothing else: copies 1 is a READ's (the file's
// pages, spliced into the reply, to the client's buffer), 2 a WRITE's
// (the client's buffer to the 4 KiB pages, the pages to the file). The
// lab can come near their time, never past it.
type pagedCopies struct {
	src, dst []byte
	pages    [][]byte
	copies   int
}

func newPagedCopies(n, copies int) *pagedCopies {
	const ps = 4096
	c := &pagedCopies{src: make([]byte, n), dst: make([]byte, n), pages: make([][]byte, n/ps), copies: copies}
	for i := range c.pages {
		c.pages[i] = make([]byte, ps)
	}
	return c
}

// time is how long iters rounds of the copies take.
func (c *pagedCopies) time(iters int) time.Duration {
	start := time.Now()
	for i := 0; i < iters; i++ {
		if c.copies > 1 {
			for j, p := range c.pages {
				copy(p, c.src[j*len(p):])
			}
		}
		for j, p := range c.pages {
			copy(c.dst[j*len(p):], p)
		}
	}
	return time.Since(start)
}

// benchCalls runs call b.N times to completion and reports bytes/s,
// x-memcpy: the lab's bytes/s over a plain copy's, and x-copies: over the
// same copies the model makes alone (pagedCopies), what is left to the
// model's bookkeeping.
func benchCalls(b *testing.B, l *Lab, n, copies int, call func() (*xprt.Call, error)) {
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
		b.ReportMetric(float64(newPagedCopies(n, copies).time(b.N))/float64(elapsed), "x-copies")
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
	benchCalls(b, l, n, 2, func() (*xprt.Call, error) { return l.Write(n, ChunkOpts{}) })
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
	benchCalls(b, l, n, 1, func() (*xprt.Call, error) { return l.Read(n, ChunkOpts{}) })
}

// BenchmarkTwoCopies1MiB is the ceiling of BenchmarkWrite1MiB (its
// x-copies is the lab's share of it): the two copies of the payload the
// model makes, with nothing else, against the same yardstick.
func BenchmarkTwoCopies1MiB(b *testing.B) {
	const n = 1 << 20
	c := newPagedCopies(n, 2)
	b.SetBytes(n)
	b.ResetTimer()
	elapsed := c.time(b.N)
	b.StopTimer()
	if elapsed > 0 {
		b.ReportMetric(float64(copyTime(n, b.N))/float64(elapsed), "x-memcpy")
	}
}
