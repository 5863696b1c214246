package analysis

import (
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Analysis is what the transport analysis found about one packet.
type Analysis struct {
	Flow *Flow // the direction of the queue pair the packet belongs to

	// Msg is the request message the packet belongs to: the SEND or RDMA
	// WRITE it carries a part of, the RDMA READ it requests, or (for a
	// READ response) the READ it answers.
	Msg *Message
	// MsgIndex is the packet's place in Msg (0 for the first).
	MsgIndex int

	PSN PSNCheck

	// Ack is set for packets with an AETH: what they acknowledge.
	Ack *AckInfo

	// Chunk places RDMA READ requests and responses and RDMA WRITE
	// packets in the segment a call advertised (Chunk.RPC is nil when no
	// call did).
	Chunk ChunkRef

	// RPC is set on the packet that completes a SEND carrying an
	// RPC-over-RDMA message.
	RPC *RPCMessage

	// NotRPC says why a complete SEND is not RPC-over-RDMA (empty when
	// it is, or when no check was made).
	NotRPC string
	// Short is set for a SEND too short for an RPC-over-RDMA header.
	Short bool

	// TCP is a TCP segment's numbers relative to its connection's.
	TCP TCPSeq

	// CM is the connection a CM message belongs to.
	CM *CMConn

	Notes []Note // anomalies and unknowns about this packet
	// LateAnomaly: the end of the capture found an anomaly here (a call
	// never answered). Only an Index sets it, once indexing is over.
	LateAnomaly bool
}

func (a *Analysis) reset() {
	notes := a.Notes[:0]
	*a = Analysis{Notes: notes}
}

// PSNStatus classifies a packet's PSN against what its flow expected.
type PSNStatus uint8

// PSN statuses.
const (
	PSNNotChecked     PSNStatus = iota // UD, MADs, CNP, or the first packet of a flow
	PSNOK                              // the expected PSN
	PSNGap                             // later than expected: packets missing
	PSNDuplicate                       // the same packet again, at once
	PSNRetransmission                  // an earlier PSN sent again (go back N)
	PSNOutOfOrder                      // an earlier PSN never seen: arrived late
)

var psnNames = [...]string{"not checked", "ok", "gap", "duplicate", "retransmission", "out of order"}

func (s PSNStatus) String() string { return psnNames[s] }

// PSNCheck is the PSN check of one packet.
type PSNCheck struct {
	Status   PSNStatus
	Expected uint32 // the PSN the flow expected
	Missing  int    // PSNs skipped (PSNGap)
}

// AckInfo says what an ACK (or a READ response, or an ATOMIC Acknowledge)
// acknowledges: the acknowledged position as the wire shows it (PSN and
// MSN), and the request messages of the peer flow it covers for the first
// time.
type AckInfo struct {
	Syndrome    ib.Syndrome
	PSN         uint32 // the last PSN acknowledged (NAKs: the PSN in error)
	MSN         uint32
	ExpectedMSN uint32 // the MSN the requests seen imply
	MSNKnown    bool   // ExpectedMSN is known (the MSN base has been learnt)
	Acked       []*Message
	Old         bool // it acknowledges nothing new (a duplicate or coalesced-away ACK)

	acked [2]*Message // Acked's first storage: most ACKs cover one or two messages
}

// AckedStorage returns Acked's first storage, empty, for an AckInfo
// rebuilt from a record (an Index's): appending to it allocates only past
// two messages.
func (a *AckInfo) AckedStorage() []*Message { return a.acked[:0] }

// ChunkKind is the kind of chunk a segment belongs to.
type ChunkKind uint8

// Chunk kinds.
const (
	ChunkRead  ChunkKind = iota + 1 // Read list: the responder pulls it with RDMA READ
	ChunkWrite                      // Write list: the responder pushes with RDMA WRITE
	ChunkReply                      // Reply chunk: a long reply, pushed with RDMA WRITE
)

var chunkNames = [...]string{"", "read", "write", "reply"}

func (k ChunkKind) String() string { return chunkNames[k] }

// ChunkRef places the data of one packet in the segment of an RPC.
type ChunkRef struct {
	RPC     *RPC
	Kind    ChunkKind
	Past    bool   // the data runs past the end of the segment (beside Kind: no padding)
	Chunk   int    // index of the chunk in its list (Read chunks by position)
	Segment int    // index of the segment in its chunk
	Offset  uint64 // where the packet's data starts in the segment
	Len     int    // bytes of this packet (a READ request: the bytes requested)
}

// Packet is one decoded frame and what the transport analysis found about
// it. The frame's layer pointers and byte slices point into the decoder
// and the reader's buffer: they are valid until the next Decode. The
// analysis results (Analysis) point to records that stay.
type Packet struct {
	frame.Packet
	Analysis Analysis
}
