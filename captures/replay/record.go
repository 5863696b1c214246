package replay

import (
	"iter"
	"slices"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// record is what the replay keeps of one frame: only what the builder
// reads, since a capture of a million packets keeps a million of them
// until the steps are built. The decoder reuses its Packet, so the
// packet's own fields are copied; what its Analysis points to stays.
type record struct {
	frame   int
	rel     time.Duration
	psn     uint32
	payload int32     // InfiniBand payload bytes
	opcode  ib.Opcode // the BTH opcode
	an      analysis
	// What few frames have. Never nil (noRecExtra when the frame has none
	// of it), so that its fields read as the record's own.
	*recExtra
}

type recExtra struct {
	cm  string // the CM message ("REQ", "REP", …) of a CM MAD
	bad string // why the frame did not decode, if it did not
}

// analysis is the part of decode.Analysis the builder reads, under the
// same names.
type analysis struct {
	Flow     *decode.Flow
	Msg      *decode.Message
	MsgIndex int
	Ack      *decode.AckInfo
	Chunk    decode.ChunkRef
	PSN      struct{ Status decode.PSNStatus }
	// What few packets have (a call or reply, a CM message, notes): never
	// nil, as recExtra.
	*anExtra
}

type anExtra struct {
	RPC    *decode.RPCMessage
	NotRPC string
	Short  bool
	CM     *decode.CMConn
	Notes  []decode.Note
}

// The extras of the frames that have none: shared, and never written.
var (
	noRecExtra = &recExtra{}
	noAnExtra  = &anExtra{}
)

func compact(a *decode.Analysis) analysis {
	an := analysis{Flow: a.Flow, Msg: a.Msg, MsgIndex: a.MsgIndex, Ack: a.Ack, Chunk: a.Chunk, anExtra: noAnExtra}
	an.PSN.Status = a.PSN.Status
	if a.RPC != nil || a.NotRPC != "" || a.Short || a.CM != nil || len(a.Notes) > 0 {
		// The decoder reuses the notes' array for the next packet.
		an.anExtra = &anExtra{RPC: a.RPC, NotRPC: a.NotRPC, Short: a.Short, CM: a.CM, Notes: slices.Clone(a.Notes)}
	}
	return an
}

// recBlock is how many records a block of the collector holds: blocks,
// not one growing slice, so that keeping N records never copies them or
// holds twice their room while growing.
const recBlock = 4096

// collector keeps the records of the frames a replay may turn into steps:
// InfiniBand transport and CM messages.
type collector struct {
	frames int
	blocks [][]record
	n      int
}

func (c *collector) packet(p *decode.Packet) error {
	c.frames = p.Frame
	if !p.HasBTH() {
		return nil
	}
	r := record{frame: p.Frame, rel: p.Rel, opcode: p.BTH.Opcode, psn: p.BTH.PSN,
		payload: int32(len(p.Payload())), an: compact(&p.Analysis), recExtra: noRecExtra}
	var x recExtra
	if p.Err != nil {
		x.bad = p.Err.Error()
	}
	switch p.CM.(type) {
	case *ib.CMReq:
		x.cm = "REQ"
	case *ib.CMRep:
		x.cm = "REP"
	case *ib.CMRtu:
		x.cm = "RTU"
	case *ib.CMRej:
		x.cm = "REJ"
	case *ib.CMDreq:
		x.cm = "DREQ"
	case *ib.CMDrep:
		x.cm = "DREP"
	}
	if x != (recExtra{}) {
		r.recExtra = &x
	}
	if c.n%recBlock == 0 {
		// The first block grows as a small capture needs it; the others
		// are made whole.
		n := recBlock
		if len(c.blocks) == 0 {
			n = 16
		}
		c.blocks = append(c.blocks, make([]record, 0, n))
	}
	last := &c.blocks[len(c.blocks)-1]
	*last = append(*last, r)
	c.n++
	return nil
}

// all yields the records in capture order.
func (c *collector) all() iter.Seq[*record] {
	return func(yield func(*record) bool) {
		for _, b := range c.blocks {
			for i := range b {
				if !yield(&b[i]) {
					return
				}
			}
		}
	}
}

// drain yields the records in capture order and lets each block go once
// its records are yielded: the steps grow as the records go.
func (c *collector) drain() iter.Seq[*record] {
	return func(yield func(*record) bool) {
		for k, b := range c.blocks {
			c.blocks[k] = nil
			for i := range b {
				if !yield(&b[i]) {
					return
				}
			}
		}
		c.blocks, c.n = nil, 0
	}
}
