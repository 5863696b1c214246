package replay

import (
	"slices"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
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
	an      recAnalysis
	// What few frames have. Never nil (noRecExtra when the frame has none
	// of it), so that its fields read as the record's own.
	*recExtra
}

type recExtra struct {
	cm  string // the CM message ("REQ", "REP", …) of a CM MAD
	bad string // why the frame did not decode, if it did not
}

// recAnalysis is the part of analysis.Analysis the builder reads, under the
// same names.
type recAnalysis struct {
	Flow     *analysis.Flow
	Msg      *analysis.Message
	MsgIndex int
	Ack      *analysis.AckInfo
	Chunk    analysis.ChunkRef
	PSN      struct{ Status analysis.PSNStatus }
	// What few packets have (a call or reply, a CM message, notes): never
	// nil, as recExtra.
	*anExtra
}

type anExtra struct {
	RPC    *analysis.RPCMessage
	NotRPC string
	Short  bool
	CM     *analysis.CMConn
	Notes  []analysis.Note
}

// The extras of the frames that have none: shared, and never written.
var (
	noRecExtra = &recExtra{}
	noAnExtra  = &anExtra{}
)

func compact(a *analysis.Analysis) recAnalysis {
	an := recAnalysis{Flow: a.Flow, Msg: a.Msg, MsgIndex: a.MsgIndex, Ack: a.Ack, Chunk: a.Chunk, anExtra: noAnExtra}
	an.PSN.Status = a.PSN.Status
	if a.RPC != nil || a.NotRPC != "" || a.Short || a.CM != nil || len(a.Notes) > 0 {
		// The decoder reuses the notes' array for the next packet.
		an.anExtra = &anExtra{RPC: a.RPC, NotRPC: a.NotRPC, Short: a.Short, CM: a.CM, Notes: slices.Clone(a.Notes)}
	}
	return an
}

// collector makes the records of the frames a replay may turn into
// steps: InfiniBand transport and CM messages.
type collector struct {
	frames int
}

// record is the record of the frame b says; false for a frame that is not
// one.
func (c *collector) record(b *decode.Brief) (record, bool) {
	c.frames = b.Frame
	if !b.BTH {
		return record{}, false
	}
	r := record{frame: b.Frame, rel: b.Rel, opcode: b.Opcode, psn: b.PSN,
		payload: int32(b.Payload), an: compact(&b.Analysis), recExtra: noRecExtra}
	if x := (recExtra{cm: b.CM, bad: b.Err}); x != (recExtra{}) {
		r.recExtra = &x
	}
	return r, true
}
