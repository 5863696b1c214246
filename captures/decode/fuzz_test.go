package decode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// everyOutput renders p in every output format and checks the JSON.
func everyOutput(t *testing.T, p *analysis.Packet) {
	var w jsonw
	appendJSON(&w, p)
	if !json.Valid(w.b) {
		t.Fatalf("frame %d: invalid JSON %s", p.Frame, w.b)
	}
	appendLine(nil, p)
	var tw treeWriter
	if got, want := string(tw.appendTree(nil, p)), treeText(Tree(p)); got != want {
		t.Fatalf("frame %d: -V wrote\n%s\nTree says\n%s", p.Frame, got, want)
	}
	// The short forms select what their terms did before they compiled.
	for _, words := range [][]string{{"qp=1,xid=1"}, {"opcode=4|17", "rpcs", "anomalies"}} {
		sel, err := fields.CompileSelection(strings.Join(words, " "))
		if err != nil {
			t.Fatal(err)
		}
		ref := refOf(t, words)
		ref.anomFrames = ownAnomaly(p)
		if got, want := sel.Match(p), ref.match(p); got != want {
			t.Fatalf("frame %d: %q (%s) selects %v, before %v", p.Frame, words, sel.Expr, got, want)
		}
	}
}

// sameLine checks that the line cache writes p's line as appendLine does.
func sameLine(t *testing.T, lc *lineCache, p *analysis.Packet) {
	t.Helper()
	if got, want := lc.appendLine(nil, p), appendLine(nil, p); !bytes.Equal(got, want) {
		t.Fatalf("frame %d: the line cache wrote\n%s\nappendLine\n%s", p.Frame, got, want)
	}
}

// packetText is everything the outputs print of p, its line, tree and
// JSON object, and the layers decoded.
func packetText(p *analysis.Packet) string {
	b := fmt.Appendf(nil, "%v truncated=%v err=%v\n", p.Layers, p.Truncated, p.Err)
	b = appendLine(b, p)
	var tw treeWriter
	b = tw.appendTree(b, p)
	var w jsonw
	appendJSON(&w, p)
	return string(append(b, w.b...))
}

// finishOutputs renders what comes after the packets.
func finishOutputs(t *testing.T, an *analysis.Analyzer) {
	an.Finish()
	writeRPCTable(io.Discard, an.RPCs())
	writeCheck(io.Discard, an.Notes())
	for _, r := range an.RPCs() {
		var w jsonw
		appendRPCJSON(&w, r)
		if !json.Valid(w.b) {
			t.Fatalf("invalid RPC JSON %s", w.b)
		}
		r.CallBytes()
		r.ReplyBytes()
	}
}

var fuzzLinks = []pcapfile.LinkType{pcapfile.LinkTypeEthernet, pcapfile.LinkTypeERF,
	pcapfile.LinkTypeInfiniBand, pcapfile.LinkTypeLinuxSLL2, pcapfile.LinkTypeLinuxSLL, pcapfile.LinkTypeRaw}

// FuzzDecodeFrames feeds arbitrary frames, as a sequence, to one decoder:
// nothing panics, every output renders, JSON stays valid. The seeds are
// pairs of frames of a few hundred bytes at most: the fuzzer minimises
// every input it keeps, at a cost that grows with its size.
func FuzzDecodeFrames(f *testing.F) {
	r, err := pcapfile.Open(testutil.Capture(f, "nfs3-rdma.pcap"))
	if err != nil {
		f.Fatal(err)
	}
	var rec pcapfile.Record
	var frames [][]byte
	for r.Next(&rec) == nil && len(frames) < 380 {
		frames = append(frames, append([]byte(nil), rec.Data...))
	}
	r.Close()
	// CM REQ and REP, NULL, READDIRPLUS call, reply chunk write and reply,
	// WRITE call, its RDMA READ requests, READ call, READ reply: each with
	// the frame after it (an ACK, mostly).
	for _, i := range []int{0, 3, 39, 41, 44, 85, 87, 248, 378} {
		f.Add(uint8(0), frames[i], frames[i+1])
	}
	// A READ's responses and an RDMA WRITE, First then Middle, with 64
	// bytes each instead of the capture's 1024.
	f.Add(uint8(0),
		craft.RoCEFrame(f, 2, 1, &ib.BTH{Opcode: ib.OpcodeRCReadResponseFirst, DestQP: 0x11, PSN: 100, AETH: craft.AckAETH(25)}, make([]byte, 64)),
		craft.RoCEFrame(f, 2, 1, &ib.BTH{Opcode: ib.OpcodeRCReadResponseMid, DestQP: 0x11, PSN: 101}, make([]byte, 64)))
	f.Add(uint8(0),
		craft.RoCEFrame(f, 1, 2, &ib.BTH{Opcode: ib.OpcodeRCWriteFirst, DestQP: 0x11, PSN: 200,
			RETH: ib.RETH{VA: 0x52dbd66504732000, RKey: 0x6a8, DMALen: 192}}, make([]byte, 64)),
		craft.RoCEFrame(f, 1, 2, &ib.BTH{Opcode: ib.OpcodeRCWriteMiddle, DestQP: 0x11, PSN: 201}, make([]byte, 64)))
	// An atomic and its acknowledge, Reliable Datagrams, RDMA_MSGP.
	f.Add(uint8(0),
		craft.RoCEFrame(f, 1, 2, &ib.BTH{Opcode: ib.OpcodeRCCompareSwap, DestQP: 0x12, PSN: 7,
			AtomicETH: ib.AtomicETH{VA: 0x1000, RKey: 0x77, SwapDt: 9, CmpDt: 5}}, nil),
		craft.RoCEFrame(f, 2, 1, &ib.BTH{Opcode: ib.OpcodeRCAtomicAcknowledge, DestQP: 0x11, PSN: 7,
			AETH: craft.AckAETH(1), AtomicAckETH: ib.AtomicAckETH{OrigRemDt: 5}}, nil))
	f.Add(uint8(0),
		craft.RoCEFrame(f, 1, 2, &ib.BTH{Opcode: 0x44, DestQP: 0x20, PSN: 10, RDETH: ib.RDETH{EECnxt: 5},
			DETH: ib.DETH{SrcQP: 0x31}}, []byte("datagram")),
		craft.RoCEFrame(f, 2, 1, &ib.BTH{Opcode: 0x51, DestQP: 0x31, PSN: 10, RDETH: ib.RDETH{EECnxt: 9}, AETH: craft.AckAETH(1)}, nil))
	f.Add(uint8(0), toMSGP(append([]byte(nil), frames[3]...), 1024, 4096), toMSGP(append([]byte(nil), frames[5]...), 0, 0))
	f.Fuzz(func(t *testing.T, link uint8, a, b []byte) {
		// slow decodes every frame through gopacket's parser: the fast
		// path must give the same packets.
		d, slow := NewDecoder(), NewDecoder()
		slow.fd.ParserOnly()
		var lc lineCache
		for i, data := range [][]byte{a, b, a, b} {
			rec := pcapfile.Record{Frame: i + 1, LinkType: fuzzLinks[int(link)%len(fuzzLinks)], Data: data,
				Info: gopacket.CaptureInfo{CaptureLength: len(data), Length: len(data)}}
			p := d.Decode(&rec)
			if p.Err != nil && strings.Contains(p.Err.Msg, "panic") {
				// gopacket's parser turns a layer's panic into an error.
				t.Fatalf("frame %d: a layer panicked: %s", i+1, p.Err.Msg)
			}
			everyOutput(t, p)
			sameLine(t, &lc, p)
			got := packetText(p)
			if want := packetText(slow.Decode(&rec)); got != want {
				t.Fatalf("frame %d: the fast path decoded\n%s\nthe parser\n%s", i+1, got, want)
			}
		}
		finishOutputs(t, d.Analyzer())
	})
}

// FuzzCaptureFile decodes arbitrary files: damaged ones decode as far as
// they go, with an error naming the file, frame and offset.
func FuzzCaptureFile(f *testing.F) {
	// Small seeds: the fuzzer minimises every new input it keeps, which
	// takes minutes on a large one. Frames 4-7 of nfs3-rdma.pcap are a
	// call, its ACK, the reply and its ACK.
	b := testutil.ReadCapture(f, "nfs3-rdma.pcap")
	recs := recordOffsets(b)
	f.Add(append(append([]byte(nil), b[:24]...), b[recs[3]:recs[7]]...))
	f.Add(testutil.ReadCapture(f, "rdmacm-rping.pcap")[:24+16+322])
	f.Fuzz(func(t *testing.T, data []byte) {
		var lc lineCache
		an, err := Read(bytes.NewReader(data), "fuzz.pcap", func(p *analysis.Packet) error {
			everyOutput(t, p)
			sameLine(t, &lc, p)
			return nil
		})
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz.pcap: ") {
			t.Fatalf("error does not name the file: %v", err)
		}
		if an != nil {
			finishOutputs(t, an)
		}
	})
}

// recordOffsets returns where each record of a classic little-endian pcap
// file starts.
func recordOffsets(b []byte) []int {
	var offs []int
	for off := 24; off+16 <= len(b); {
		offs = append(offs, off)
		off += 16 + int(uint32(b[off+8])|uint32(b[off+9])<<8|uint32(b[off+10])<<16)
	}
	return offs
}
