package decode

import (
	"testing"

	"github.com/google/gopacket"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
)

// decodeAll decodes a capture and keeps a copy of what the tests look at.
type decoded struct {
	an      *analysis.Analyzer
	packets []analysis.Packet // shallow copies: the layer pointers are not valid, the analysis is
	lines   []string
}

func decodeFile(t testing.TB, path string) decoded {
	t.Helper()
	var d decoded
	an, err := ReadFile(path, func(p *analysis.Packet) error {
		c := *p
		c.Layers = append([]gopacket.LayerType(nil), p.Layers...)
		c.Analysis.Notes = append([]analysis.Note(nil), p.Analysis.Notes...)
		c.Eth, c.IPv4, c.IPv6, c.UDP, c.ERF, c.LRH, c.GRH, c.MAD, c.CM, c.IPoIB, c.TCP = nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil
		if p.BTH != nil {
			b := *p.BTH
			c.BTH = &b
		}
		d.packets = append(d.packets, c)
		d.lines = append(d.lines, string(appendLine(nil, p)))
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	d.an = an
	return d
}
