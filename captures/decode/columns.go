package decode

import (
	"strconv"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
)

// Columns is a packet's one-line summary split into tshark's default
// columns, for a list that aligns them under a header row.
type Columns struct {
	Time, Source, Destination, Protocol, Length, Info string
}

// ColumnsOf splits p's summary (as Line writes it) into its columns.
func ColumnsOf(p *analysis.Packet) Columns {
	var src, dst []byte
	if p.Src.IsValid() {
		src, dst = p.Src.AppendTo(nil), p.Dst.AppendTo(nil)
	} else {
		src, dst = linkAddr(nil, p, true), linkAddr(nil, p, false)
	}
	info, proto := appendInfo(nil, p)
	return Columns{Time: string(appendtext.Seconds(nil, p.Rel, 6)), Source: string(src), Destination: string(dst),
		Protocol: proto, Length: strconv.Itoa(p.WireLen), Info: string(info)}
}

// Columns is packet i's summary in columns; a packet that cannot be read
// again says why in Info.
func (x *Index) Columns(i int) Columns {
	x.lock()
	defer x.mu.Unlock()
	p, err := x.load(i)
	if err != nil {
		return Columns{Info: err.Error()}
	}
	return ColumnsOf(p)
}
