package rpcrdma

import "testing"

// withBody appends an inline RPC body of 200 bytes to a header.
func withBody(h []byte) []byte { return append(append([]byte(nil), h...), make([]byte, 200)...) }

// benchHeaders are the shapes the benchmarks decode, each followed by a
// 200-byte inline body: the real headers of nfs3-rdma.pcap and a busy
// synthetic one.
var benchHeaders = map[string][]byte{
	"min":         withBody((&Header{XID: 1, Vers: 1, Credit: 128, Proc: ProcMsg}).AppendTo(nil)),
	"read-list":   withBody(frame86),
	"write-list":  withBody(frame69),
	"reply-chunk": withBody(frame40),
	"busy": withBody((&Header{XID: 3, Vers: 1, Credit: 1, Proc: ProcMsg,
		ReadList: []ReadSegment{
			{Position: 120, Segment: Segment{7, 65536, 0xffff_ffff_0000}},
			{Position: 120, Segment: Segment{8, 65536, 0xffff_ffff_0001}},
			{Position: 131200, Segment: Segment{9, 12, 0}},
		},
		WriteList: []WriteChunk{
			{Segments: []Segment{{10, 8192, 1}, {11, 8192, 2}}},
			{Segments: []Segment{{12, 1, 3}}},
		},
		ReplyChunk: &WriteChunk{Segments: []Segment{{13, 1024, 4}}}}).AppendTo(nil)),
}

func BenchmarkDecode(b *testing.B) {
	opt := KernelOptions(259, 4096, true)
	for _, name := range []string{"min", "read-list", "write-list", "reply-chunk", "busy"} {
		in := benchHeaders[name]
		b.Run(name, func(b *testing.B) {
			var h Header
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Decode(in, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeMixed decodes headers of every shape in turn into one
// Header, as a capture decoder does.
func BenchmarkDecodeMixed(b *testing.B) {
	ins := [][]byte{benchHeaders["read-list"], benchHeaders["write-list"], benchHeaders["reply-chunk"],
		benchHeaders["busy"], benchHeaders["min"]}
	var h Header
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range ins {
			if _, err := h.Decode(in, DecodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkAppendTo(b *testing.B) {
	var h Header
	if _, err := h.Decode(benchHeaders["busy"], DecodeOptions{}); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = h.AppendTo(buf[:0])
	}
}

// TestDecodeReusedAllocatesNothing pins the benchmarks' goal: decoding into
// a reused Header allocates nothing once its storage has grown, whatever
// the order of the shapes.
func TestDecodeReusedAllocatesNothing(t *testing.T) {
	ins := [][]byte{benchHeaders["busy"], benchHeaders["read-list"], benchHeaders["write-list"],
		benchHeaders["reply-chunk"], benchHeaders["min"]}
	opt := KernelOptions(259, 4096, true)
	var h Header
	for _, in := range ins { // grow
		if _, err := h.Decode(in, opt); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		for _, in := range ins {
			h.Decode(in, opt)
		}
	})
	if allocs != 0 {
		t.Fatalf("Decode into a reused Header allocates %v times per round", allocs)
	}
}
