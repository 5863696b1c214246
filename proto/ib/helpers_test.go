package ib_test

import (
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

type frame struct {
	n    int
	link pcapfile.LinkType
	data []byte
}

func readFrames(t testing.TB, path string) []frame {
	t.Helper()
	r, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []frame
	var rec pcapfile.Record
	for {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, frame{rec.Frame, rec.LinkType, append([]byte(nil), rec.Data...)})
	}
}

// unhex turns a tshark -x style dump (offsets and ASCII ignored) into bytes.
func unhex(t testing.TB, dump string) []byte {
	t.Helper()
	var sb strings.Builder
	for _, line := range strings.Split(dump, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		for _, w := range f[1:] {
			if len(w) != 2 {
				break
			}
			sb.WriteString(w)
		}
	}
	b, err := hex.DecodeString(sb.String())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stack is one preallocated set of layers for a DecodingLayerParser.
type stack struct {
	eth   layers.Ethernet
	ip4   layers.IPv4
	ip6   layers.IPv6
	udp   layers.UDP
	erf   ib.ERF
	lrh   ib.LRH
	grh   ib.GRH
	bth   ib.BTH
	mad   ib.MAD
	req   ib.CMReq
	rep   ib.CMRep
	rtu   ib.CMRtu
	rej   ib.CMRej
	dreq  ib.CMDreq
	drep  ib.CMDrep
	ipoib ib.IPoIB
	pay   gopacket.Payload
}

func (s *stack) parser(first gopacket.LayerType) *gopacket.DecodingLayerParser {
	p := gopacket.NewDecodingLayerParser(first, &s.eth, &s.ip4, &s.ip6, &s.udp, &s.erf, &s.lrh, &s.grh,
		&s.bth, &s.mad, &s.req, &s.rep, &s.rtu, &s.rej, &s.dreq, &s.drep, &s.ipoib, &s.pay)
	p.IgnoreUnsupported = true
	return p
}

func (s *stack) layer(t gopacket.LayerType) gopacket.SerializableLayer {
	m := map[gopacket.LayerType]gopacket.SerializableLayer{
		layers.LayerTypeEthernet: &s.eth, layers.LayerTypeIPv4: &s.ip4, layers.LayerTypeIPv6: &s.ip6,
		layers.LayerTypeUDP: &s.udp, ib.LayerTypeERF: &s.erf, ib.LayerTypeLRH: &s.lrh, ib.LayerTypeGRH: &s.grh,
		ib.LayerTypeBTH: &s.bth, ib.LayerTypeMAD: &s.mad, ib.LayerTypeCMReq: &s.req, ib.LayerTypeCMRep: &s.rep,
		ib.LayerTypeCMRtu: &s.rtu, ib.LayerTypeCMRej: &s.rej, ib.LayerTypeCMDreq: &s.dreq,
		ib.LayerTypeCMDrep: &s.drep, ib.LayerTypeIPoIB: &s.ipoib,
	}
	return m[t]
}

func firstLayer(t testing.TB, f frame) gopacket.LayerType {
	lt, err := pcapfile.FirstLayer(f.link, f.data)
	if err != nil {
		t.Fatal(err)
	}
	return lt
}
