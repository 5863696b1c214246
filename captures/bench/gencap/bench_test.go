package main

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rdmalab/rdmalab/captures/bench/fresh"
	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/internal/testutil"
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

// shapePackets is the size each shape's capture is repeated to.
const shapePackets = 100_000

// shapes are the traffic people capture, as BenchmarkDecodeShapes and
// compare.sh time it: the kernel's NFSv3 and rping over Soft-RoCE, and
// 1 KB verbs SENDs from a public capture (beside the checkout, when it is
// there), each repeated as fresh flows.
func shapes(b *testing.B) map[string]string {
	b.Helper()
	root := testutil.ModuleRoot(b)
	srcs := map[string]string{
		"nfs3":  filepath.Join(root, "captures", "testdata", "nfs3-rdma.pcap"),
		"rping": filepath.Join(root, "captures", "testdata", "rdmacm-rping.pcap"),
	}
	if p := filepath.Join(testutil.PublicDir(b), "magnate3-rocev2-send-first-middle-last.pcap"); fileExists(p) {
		srcs["verbs-1k"] = p
	}
	shapeFiles.once.Do(func() {
		dir, err := os.MkdirTemp("", "gencap-shapes")
		if err != nil {
			shapeFiles.err = err
			return
		}
		shapeFiles.paths = map[string]string{}
		for name, src := range srcs {
			out := filepath.Join(dir, name+".pcap")
			if _, err := fresh.RepeatFile(out, src, shapePackets); err != nil {
				shapeFiles.err = err
				return
			}
			shapeFiles.paths[name] = out
		}
	})
	if shapeFiles.err != nil {
		b.Fatal(shapeFiles.err)
	}
	return shapeFiles.paths
}

var shapeFiles struct {
	once  sync.Once
	paths map[string]string
	err   error
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// BenchmarkDecodeShapes is `rdmalab decode` over each shape: lines, -Y, -T
// fields of five fields and --rpc; packets/s.
func BenchmarkDecodeShapes(b *testing.B) {
	y, err := fields.CompileDisplayFilter("infiniband.bth.opcode == 4 || rpcordma")
	if err != nil {
		b.Fatal(err)
	}
	five, err := decode.NewFieldsOutput([]string{"frame.number", "infiniband.bth.opcode", "infiniband.bth.psn",
		"infiniband.bth.destqp", "rpcordma.xid"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	paths := shapes(b)
	for _, name := range slices.Sorted(maps.Keys(paths)) {
		for _, c := range []struct {
			name string
			o    decode.Output
		}{
			{"lines", decode.Output{}},
			{"Y", decode.Output{Display: y}},
			{"fields5", decode.Output{Fields: five}},
			{"rpc", decode.Output{RPCs: true}},
		} {
			b.Run(name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := decode.Write(io.Discard, paths[name], c.o); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(shapePackets*b.N)/b.Elapsed().Seconds(), "packets/s")
			})
		}
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
		df, err := fields.CompileDisplayFilter(c.expr)
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
