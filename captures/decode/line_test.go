package decode

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// TestLineCache: the default output's line cache writes every packet of
// every capture as appendLine does, and takes most of a message's packets
// from the cache.
func TestLineCache(t *testing.T) {
	for _, path := range append(testutil.AllCaptures(t), testutil.Capture(t, "sim-nfs3.pcap")) {
		var lc lineCache
		hits, packets := 0, 0
		_, err := ReadFile(path, func(p *analysis.Packet) error {
			packets++
			if p.BTH != nil && p.Src.IsValid() && lc.find(lineKeyOf(p)) != nil {
				hits++
			}
			sameLine(t, &lc, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		t.Logf("%s: %d of %d lines from the cache", name, hits, packets)
		// Four slots in turn served 5 of rping's 65 lines and 64 of the
		// verbs capture's 708: each message's First, Middle, Last and the
		// ACKs back are keys of their own.
		switch name {
		case "nfs3-rdma.pcap", "rdmacm-rping.pcap", "magnate3-rocev2-send-first-middle-last.pcap":
		default:
			continue
		}
		if hits < packets/2 {
			t.Errorf("%s: only %d of %d lines from the cache", name, hits, packets)
		}
	}
}

// TestLineCacheKey: a packet that differs from a cached one in any part
// of the prefix (address, length, opcode, QP) gets its own line.
func TestLineCacheKey(t *testing.T) {
	tried := false
	_, err := ReadFile(testutil.Capture(t, "nfs3-rdma.pcap"), func(base *analysis.Packet) error {
		if tried || base.BTH == nil || base.Analysis.RPC != nil || base.CM != nil || base.MAD != nil {
			return nil
		}
		tried = true
		var lc lineCache
		bth := *base.BTH
		variants := []func(p *analysis.Packet){
			func(p *analysis.Packet) {},
			func(p *analysis.Packet) { p.Src, p.Dst = p.Dst, p.Src },
			func(p *analysis.Packet) { p.WireLen += 100000 },
			func(p *analysis.Packet) { b := bth; b.DestQP ^= 0x123; p.BTH = &b },
			func(p *analysis.Packet) { b := bth; b.Opcode ^= 1; p.BTH = &b },
			func(p *analysis.Packet) { b := bth; b.PSN++; p.BTH = &b },
			func(p *analysis.Packet) {},
		}
		for i, change := range variants {
			p := *base
			change(&p)
			if got, want := lc.appendLine(nil, &p), appendLine(nil, &p); !bytes.Equal(got, want) {
				t.Errorf("variant %d: the line cache wrote\n%s\nappendLine\n%s", i, got, want)
			}
		}
		if lc.find(lineKeyOf(base)) == nil {
			t.Error("the packet's prefix is not in the cache")
		}
		return nil
	})
	if err != nil || !tried {
		t.Fatalf("no plain transport packet in nfs3-rdma.pcap (%v)", err)
	}
}

// TestTsharkInfoOfNFSFrames compares our one-line summaries with the Info
// column tshark printed for the frames the analysis files quote. tshark's
// READ replies end in "[Malformed Packet]": ours must start with its text.
func TestTsharkInfoOfNFSFrames(t *testing.T) {
	quotes := map[string]map[int]string{
		"nfs3-rdma.pcap": {
			66: "V3 READ Call, FH: 0xa46d0311 Offset: 0 Len: 4096",
			69: "V3 READ Reply Len: 6",
			40: "V3 READDIRPLUS Call, FH: 0x62d40c52",
			45: "V3 READDIRPLUS Reply . .. small link dir big-256k",
			50: "V3 READLINK Call, FH: 0xcd6bf4f8",
			54: "V3 READLINK Reply Path: big-256k",
		},
		"nfs4.1-rdma.pcap": {
			99:  "V4 Call READ StateID: 0xc20b Offset: 0 Len: 4096",
			8:   "V4 Call EXCHANGE_ID",
			11:  "V4 Reply EXCHANGE_ID",
			286: "V4 Call READ StateID: 0xb0e7 Offset: 0 Len: 131072",
		},
	}
	for name, q := range quotes {
		d := decodeFile(t, testutil.Capture(t, name))
		for frame, want := range q {
			line := d.lines[frame-1]
			if !strings.Contains(line, want) {
				t.Errorf("%s frame %d:\n got %s want %q", name, frame, line, want)
			}
		}
	}
}
