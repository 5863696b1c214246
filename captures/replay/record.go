package replay

import (
	"time"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/ib"
)

// record is what the replay keeps of one frame. The decoder reuses its
// Packet, so the packet's own fields are copied; what its Analysis points
// to stays.
type record struct {
	frame    int
	rel      time.Duration
	src, dst decode.Addr
	opcode   ib.Opcode
	psn      uint32
	destQP   uint32
	payload  int    // InfiniBand payload bytes
	cm       string // the CM message ("REQ", "REP", …) of a CM MAD
	bad      string // why the frame did not decode, if it did not
	an       decode.Analysis
}

// collector keeps the records of the frames a replay may turn into steps:
// InfiniBand transport and CM messages.
type collector struct {
	frames int
	recs   []record
}

func (c *collector) packet(p *decode.Packet) error {
	c.frames = p.Frame
	if !p.HasBTH() {
		return nil
	}
	r := record{frame: p.Frame, rel: p.Rel, src: p.Src, dst: p.Dst, opcode: p.BTH.Opcode, psn: p.BTH.PSN,
		destQP: p.BTH.DestQP, payload: len(p.Payload()), an: p.Analysis}
	if p.Err != nil {
		r.bad = p.Err.Error()
	}
	switch p.CM.(type) {
	case *ib.CMReq:
		r.cm = "REQ"
	case *ib.CMRep:
		r.cm = "REP"
	case *ib.CMRtu:
		r.cm = "RTU"
	case *ib.CMRej:
		r.cm = "REJ"
	case *ib.CMDreq:
		r.cm = "DREQ"
	case *ib.CMDrep:
		r.cm = "DREP"
	}
	c.recs = append(c.recs, r)
	return nil
}
