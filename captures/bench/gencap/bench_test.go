package main

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
)

// benchPackets is the size of the sim-written capture the decode
// benchmarks read: big enough for the steady state (many connections),
// small enough to write in a second.
const benchPackets = 100_000

var benchFile struct {
	once sync.Once
	path string
	n    int
	err  error
}

// simCapture writes the benchmarks' capture once per test binary.
func simCapture(b *testing.B) (string, int) {
	b.Helper()
	benchFile.once.Do(func() {
		dir, err := os.MkdirTemp("", "gencap-bench")
		if err != nil {
			benchFile.err = err
			return
		}
		benchFile.path = filepath.Join(dir, "sim.pcap")
		st, err := generate(config{packets: benchPackets, out: benchFile.path, seed: 1, threads: 4, mtu: 1024, calls: 100})
		benchFile.n, benchFile.err = st.packets, err
	})
	if benchFile.err != nil {
		b.Fatal(benchFile.err)
	}
	return benchFile.path, benchFile.n
}

// BenchmarkDecode is `rdmalab decode` in each output over a sim-written
// capture (what captures/bench/compare.sh times on a million packets),
// output discarded: packets/s.
func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct {
		name string
		o    decode.Output
	}{
		{"lines", decode.Output{}},
		{"tree", decode.Output{Tree: true}},
		{"json", decode.Output{JSON: true}},
		{"rpc", decode.Output{RPCs: true}},
		{"rpcjson", decode.Output{RPCs: true, JSON: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			path, n := simCapture(b)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := decode.Write(io.Discard, path, c.o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "packets/s")
		})
	}
}

// BenchmarkDecodeFilter is `rdmalab decode -Y` over the sim-written
// capture, lines discarded, for plain tests and the general path.
func BenchmarkDecodeFilter(b *testing.B) {
	for _, c := range []struct{ name, expr string }{
		{"cmp", "infiniband.bth.opcode == 4 || infiniband.bth.psn < 100"},
		{"set", "infiniband.bth.opcode in {4, 17, 6..8} && ip.src == 192.0.2.0/24"},
		{"slice", "eth.src[0:3] == 52:54:00 && infiniband.bth[0] == 04"},
		{"arith", "frame.len - 4 > 1000 || infiniband.bth.opcode & 0x10"},
	} {
		df, err := decode.CompileDisplayFilter(c.expr)
		if err != nil {
			continue // not read by this version
		}
		b.Run(c.name, func(b *testing.B) {
			path, n := simCapture(b)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := decode.Write(io.Discard, path, decode.Output{Display: df}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "packets/s")
		})
	}
}
