package decode

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// TestLineCache: the default output's line cache writes every packet of
// every capture as appendLine does, and takes most of a message's packets
// from the cache.
func TestLineCache(t *testing.T) {
	for _, path := range append(testutil.AllCaptures(t), testutil.Capture(t, "sim-nfs3.pcap")) {
		var lc lineCache
		hits, packets := 0, 0
		_, err := ReadFile(path, func(p *Packet) error {
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
		if name == "nfs3-rdma.pcap" && hits < packets/2 {
			t.Errorf("%s: only %d of %d lines from the cache", name, hits, packets)
		}
	}
}

// TestLineCacheKey: a packet that differs from a cached one in any part
// of the prefix (address, length, opcode, QP) gets its own line.
func TestLineCacheKey(t *testing.T) {
	tried := false
	_, err := ReadFile(testutil.Capture(t, "nfs3-rdma.pcap"), func(base *Packet) error {
		if tried || base.BTH == nil || base.Analysis.RPC != nil || base.CM != nil || base.MAD != nil {
			return nil
		}
		tried = true
		var lc lineCache
		bth := *base.BTH
		variants := []func(p *Packet){
			func(p *Packet) {},
			func(p *Packet) { p.Src, p.Dst = p.Dst, p.Src },
			func(p *Packet) { p.WireLen += 100000 },
			func(p *Packet) { b := bth; b.DestQP ^= 0x123; p.BTH = &b },
			func(p *Packet) { b := bth; b.Opcode ^= 1; p.BTH = &b },
			func(p *Packet) { b := bth; b.PSN++; p.BTH = &b },
			func(p *Packet) {},
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
