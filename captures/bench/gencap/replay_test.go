package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rdmalab/rdmalab/captures/replay"
)

// maxRetainedPerStep is what a replay played to its end (the view's c)
// may keep per step: its steps and events are compressed and, past a few
// MB, in a spill file; its checkpoints are bounded in number. Keeping
// each step's picture change as a closure took about 300 bytes a step
// (560 MB for a million-packet capture in the view).
const maxRetainedPerStep = 64

// maxBuildingPerFrame is what a replay may keep per frame read while it
// is being built: the decoder's state, the steps so far, and the plans of
// the RPCs not yet let go. Keeping each RPC's plans until 262,144 frames
// after its reply took about 140 bytes a frame at 150,000 frames (and 10
// MB more of the million-packet capture in the view); letting them go
// soon after the ACK of the reply, about 109.
const maxBuildingPerFrame = 120

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestReplayRetained plays a replay of a 200,000-packet capture to its end
// as the view does (c), then back, and checks the heap it keeps, and
// what it kept on the way.
func TestReplayRetained(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MB capture")
	}
	path := filepath.Join(t.TempDir(), "sim.pcap")
	if _, err := generate(config{packets: 200_000, out: path, seed: 1, threads: 4, mtu: 1024, calls: 100}); err != nil {
		t.Fatal(err)
	}
	before := heapInUse()
	tl, err := replay.OpenFile(path, replay.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	p := tl.Player()
	for tl.Frames < 150_000 && p.Forward() {
	}
	building := heapInUse()
	frames := tl.Frames
	perFrame := float64(building-min(building, before)) / float64(frames)
	t.Logf("%d frames read: %.1f MB live while building, %.1f bytes a frame", frames, float64(building-min(building, before))/(1<<20), perFrame)
	if tl.Done() || frames < 150_000 {
		t.Fatalf("the replay is done at %d frames", frames)
	}
	if perFrame > maxBuildingPerFrame {
		t.Errorf("a replay being built keeps %.1f bytes a frame read, more than %d", perFrame, maxBuildingPerFrame)
	}
	if !p.End() {
		t.Fatal("no end")
	}
	for range 10 {
		p.Back()
	}
	after := heapInUse()
	steps := tl.NumSteps()
	runtime.KeepAlive(p)
	if steps < 150_000 {
		t.Fatalf("%d steps", steps)
	}
	per := float64(after-min(after, before)) / float64(steps)
	t.Logf("%d steps: %.1f MB retained, %.1f bytes a step", steps, float64(after-min(after, before))/(1<<20), per)
	if per > maxRetainedPerStep {
		t.Errorf("a replay played to its end keeps %.1f bytes a step, more than %d", per, maxRetainedPerStep)
	}
}

// BenchmarkReplayBack is b held down in the view at the end of a big
// capture: each step back is rebuilt from the nearest checkpoint before
// it. RDMALAB_REPLAY_CAPTURE names the capture (the million-packet file of
// compare.sh), else a 200,000-packet one is written.
func BenchmarkReplayBack(b *testing.B) {
	path := os.Getenv("RDMALAB_REPLAY_CAPTURE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "sim.pcap")
		if _, err := generate(config{packets: 200_000, out: path, seed: 1, threads: 4, mtu: 1024, calls: 100}); err != nil {
			b.Fatal(err)
		}
	}
	tl, err := replay.OpenFile(path, replay.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer tl.Close()
	p := tl.Player()
	p.End()
	b.ResetTimer()
	for b.Loop() {
		if !p.Back() {
			p.End()
		}
	}
}

// BenchmarkTranscribe is `rdmalab replay --text` over the sim-written
// capture BenchmarkDecode reads (and over nfs3's shape), output
// discarded: packets/s, to set beside decode's.
func BenchmarkTranscribe(b *testing.B) {
	sim, n := simCapture(b)
	for _, c := range []struct {
		name, path string
		n          int
	}{{"sim", sim, n}, {"nfs3", shapes(b)["nfs3"], shapePackets}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := replay.Transcribe(c.path, replay.ReadOptions{}, io.Discard, replay.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.n*b.N)/b.Elapsed().Seconds(), "packets/s")
		})
	}
}
