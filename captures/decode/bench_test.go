package decode

import (
	"bytes"
	"io"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/captures/ib"
	"github.com/rdmalab/rdmalab/captures/pcapfile"
)

// benchCapture runs fn over every packet of a kernel capture, from memory,
// and reports packets per second.
func benchCapture(b *testing.B, name string, fn func(p *Packet, out *bytes.Buffer)) {
	data := readFileBytes(b, kernelPath(name))
	var out bytes.Buffer
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	packets := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out.Reset()
		_, err := Read(bytes.NewReader(data), name, func(p *Packet) error {
			packets++
			fn(p, &out)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(packets)/b.Elapsed().Seconds(), "packets/s")
}

// BenchmarkDecodeJSON is "rdmalab decode --json" on the kernel captures.
func BenchmarkDecodeJSON(b *testing.B) {
	for _, name := range kernelCaptures {
		b.Run(name, func(b *testing.B) {
			var w jsonw
			benchCapture(b, name, func(p *Packet, out *bytes.Buffer) {
				w.reset()
				appendJSON(&w, p)
				w.b = append(w.b, '\n')
				out.Write(w.b)
			})
		})
	}
}

// BenchmarkDecodeLines is the default one-line output.
func BenchmarkDecodeLines(b *testing.B) {
	var buf []byte
	benchCapture(b, "nfs3-rdma.pcap", func(p *Packet, out *bytes.Buffer) {
		buf = appendLine(buf[:0], p)
		out.Write(buf)
	})
}

// BenchmarkDecodeAnalyse decodes and analyses without output.
func BenchmarkDecodeAnalyse(b *testing.B) {
	benchCapture(b, "nfs3-rdma.pcap", func(*Packet, *bytes.Buffer) {})
}

// BenchmarkLayers is the DecodingLayerParser fast path alone, with the
// ICRC check, over the frames of nfs3-rdma.pcap.
func BenchmarkLayers(b *testing.B) {
	r, err := pcapfile.Open(kernelPath("nfs3-rdma.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	var frames [][]byte
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		frames = append(frames, append([]byte(nil), rec.Data...))
	}
	r.Close()
	var eth layers.Ethernet
	var ip4 layers.IPv4
	var udp layers.UDP
	var bth ib.BTH
	var mad ib.MAD
	var pay gopacket.Payload
	p := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &ip4, &udp, &bth, &mad, &pay)
	p.IgnoreUnsupported = true
	var decoded []gopacket.LayerType
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := frames[i%len(frames)]
		if err := p.DecodeLayers(f, &decoded); err != nil {
			b.Fatal(err)
		}
		if c, _ := ib.RoCEv2ICRC(f[14:]); c != bth.ICRC {
			b.Fatal("bad ICRC")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "packets/s")
	_ = io.Discard
}
