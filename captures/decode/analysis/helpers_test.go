package analysis

import (
	"testing"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// decodeEach decodes and analyses the capture at path, keeping what opt
// says, calling fn for each packet; it returns the finished analysis.
func decodeEach(t testing.TB, path string, opt Options, fn func(*Packet)) *Analyzer {
	t.Helper()
	r, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd, an := frame.NewDecoder(opt.SkipCRCs), NewAnalyzerWith(opt)
	var p Packet
	var rec pcapfile.Record
	for {
		if err := r.Next(&rec); err != nil {
			break
		}
		fd.Decode(&rec, &p.Packet)
		an.Packet(&p)
		fn(&p)
	}
	an.Finish()
	return an
}

// decoded is a capture's analysis and a copy of what the tests look at.
type decoded struct {
	an      *Analyzer
	packets []Packet // shallow copies: the layer pointers are not valid, the analysis is
}

func decodeFile(t testing.TB, path string) decoded {
	t.Helper()
	var d decoded
	d.an = decodeEach(t, path, Options{}, func(p *Packet) {
		c := *p
		c.Layers = append([]gopacket.LayerType(nil), p.Layers...)
		c.Analysis.Notes = append([]Note(nil), p.Analysis.Notes...)
		c.Eth, c.IPv4, c.IPv6, c.UDP, c.ERF, c.LRH, c.GRH, c.MAD, c.CM, c.IPoIB, c.TCP = nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil
		if p.BTH != nil {
			b := *p.BTH
			c.BTH = &b
		}
		d.packets = append(d.packets, c)
	})
	return d
}
