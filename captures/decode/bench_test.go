package decode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// streaming is what Write keeps for --json alone.
var streaming = analysis.Options{DropRPCs: true, DropNotes: true, DropChunkData: true}

// benchCapture runs fn over every packet of a kernel capture, from memory,
// keeping what opt says, and reports packets per second.
func benchCapture(b *testing.B, name string, opt analysis.Options, fn func(p *analysis.Packet, out *bytes.Buffer)) {
	data := testutil.ReadCapture(b, name)
	var out bytes.Buffer
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	packets := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out.Reset()
		pr, err := pcapfile.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		_, err = decodeAll(pr, name, opt, func(p *analysis.Packet) error {
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
	for _, name := range testutil.KernelCaptures() {
		b.Run(name, func(b *testing.B) {
			var w jsonw
			benchCapture(b, name, streaming, func(p *analysis.Packet, out *bytes.Buffer) {
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
	benchCapture(b, "nfs3-rdma.pcap", streaming, func(p *analysis.Packet, out *bytes.Buffer) {
		buf = appendLine(buf[:0], p)
		out.Write(buf)
	})
}

// BenchmarkDecodeAnalyse decodes and analyses without output, keeping
// everything (as the REPL and replay do).
func BenchmarkDecodeAnalyse(b *testing.B) {
	benchCapture(b, "nfs3-rdma.pcap", analysis.Options{}, func(*analysis.Packet, *bytes.Buffer) {})
}

// BenchmarkLayers is the DecodingLayerParser fast path alone, with the
// ICRC check, over the frames of nfs3-rdma.pcap.
func BenchmarkLayers(b *testing.B) {
	frames := kernelFrames(b, "nfs3-rdma.pcap")
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
}

// kernelFrames reads every frame of a kernel capture into memory.
func kernelFrames(b testing.TB, name string) [][]byte {
	b.Helper()
	r, err := pcapfile.Open(testutil.Capture(b, name))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var frames [][]byte
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		frames = append(frames, append([]byte(nil), rec.Data...))
	}
	return frames
}

// repeatedCapture returns a pcap of n packets: the frames of a kernel
// capture over and over, each round's PSNs moved on by 4096 (ICRCs
// recomputed) so that the analysis sees new traffic, not retransmissions.
func repeatedCapture(b testing.TB, name string, n int) []byte {
	frames := kernelFrames(b, name)
	var out bytes.Buffer
	w, err := pcapfile.NewWriter(&out, pcapfile.LinkTypeEthernet, 65535)
	if err != nil {
		b.Fatal(err)
	}
	t := time.Unix(1700000000, 0)
	var buf []byte
	const bth = 14 + 20 + 8 // Ethernet, IPv4, UDP
	for i := 0; i < n; i++ {
		buf = append(buf[:0], frames[i%len(frames)]...)
		if len(buf) > bth+ib.BTHLen+ib.ICRCLen && binary.BigEndian.Uint16(buf[bth-6:]) == ib.UDPPortRoCEv2 {
			psn := (binary.BigEndian.Uint32(buf[bth+8:]) + uint32(i/len(frames))*4096) & 0xffffff
			binary.BigEndian.PutUint32(buf[bth+8:], uint32(buf[bth+8])<<24|psn)
			if c, err := ib.RoCEv2ICRC(buf[14:]); err == nil {
				binary.BigEndian.PutUint32(buf[len(buf)-ib.ICRCLen:], c)
			}
		}
		t = t.Add(time.Microsecond)
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(buf), Length: len(buf)}, buf); err != nil {
			b.Fatal(err)
		}
	}
	return out.Bytes()
}

// benchRepeated decodes n packets of repeated NFSv3 traffic from memory
// b.N times with decode, which hands each packet to fn, and reports
// packets/s and allocations.
func benchRepeated(b *testing.B, n int, decode func(*pcapfile.Reader, func(*analysis.Packet) error) error, fn func(*analysis.Packet) error) {
	data := repeatedCapture(b, "nfs3-rdma.pcap", n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pr, err := pcapfile.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if err := decode(pr, fn); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "packets/s")
}

// BenchmarkStreamJSON is "rdmalab decode --json" as Write runs it (the
// streaming options, output to a buffered writer) over 100,000 packets of
// repeated NFSv3 traffic: packets/s, and allocations per packet.
func BenchmarkStreamJSON(b *testing.B) {
	out := bufio.NewWriterSize(io.Discard, 1<<16)
	var w jsonw
	benchRepeated(b, 100000, func(pr *pcapfile.Reader, fn func(*analysis.Packet) error) error {
		_, err := decodeAll(pr, "repeated", streaming, fn)
		return err
	}, func(p *analysis.Packet) error {
		w.reset()
		appendJSON(&w, p)
		w.b = append(w.b, '\n')
		_, err := out.Write(w.b)
		return err
	})
}

// BenchmarkAheadLines is "rdmalab decode" on a big file as Write runs it:
// the records read ahead on a second goroutine (decodeAhead), the lines
// written by the first, over 200,000 packets of repeated NFSv3 traffic.
func BenchmarkAheadLines(b *testing.B) {
	keep := Output{}.keep()
	out := bufio.NewWriterSize(io.Discard, 1<<16)
	var lc lineCache
	var buf []byte
	benchRepeated(b, 200000, func(pr *pcapfile.Reader, fn func(*analysis.Packet) error) error {
		_, err := decodeAhead(pr, "repeated", keep, fn)
		return err
	}, func(p *analysis.Packet) error {
		buf = lc.appendLine(buf[:0], p)
		_, err := out.Write(buf)
		return err
	})
}
