package analysis

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/ib"
)

// MaxSendData bounds the bytes kept of one reassembled SEND.
const MaxSendData = 4 << 20

// maxSendBuf bounds the reassembly buffer a flow keeps for its next SEND.
const maxSendBuf = 256 << 10

// Message is one request message of a flow: a SEND or RDMA WRITE (one or
// more packets), an RDMA READ request with its responses, an atomic with
// its ATOMIC Acknowledge.
type Message struct {
	Flow     *Flow
	Seq      int // 1-based, in its flow
	Kind     ib.Kind
	Opcode   ib.Opcode // of its first packet
	Complete bool      // its last packet was seen, with no hole
	Partial  bool      // the capture missed its start, or a packet inside it
	FirstPSN uint32
	LastPSN  uint32 // a READ: the PSN of its last response packet (once known)
	IndexRef uint32 // 1 + its place in its Index's message table (0: none); placed to fill padding

	FirstFrame, LastFrame int
	Packets               int
	Len                   int // payload bytes (a READ: bytes requested)
	// Data is a SEND's payload while it is reassembled (at most
	// MaxSendData bytes); it is released once the SEND is complete.
	Data []byte

	// RETH of an RDMA WRITE or READ.
	VA     uint64
	RKey   uint32
	DMALen uint32

	Imm    uint32
	IETH   uint32 // SEND with Invalidate: the R_Key invalidated
	HasImm bool
	HasInv bool
	// RespDone: the READ's last response, or the atomic's acknowledge,
	// was seen (with the bools, not below, to save the padding).
	RespDone bool

	// An RDMA READ: its responses. An atomic: its ATOMIC Acknowledge.
	RespFirstFrame, RespLastFrame int
	RespPackets, RespBytes        int

	// An atomic (CmpSwap, FetchAdd; VA and RKey above): its operands
	// from the AtomicETH and, once answered, the original remote value
	// from the AtomicAckETH.
	SwapAdd uint64 // CmpSwap: the swap value; FetchAdd: the value added
	Compare uint64 // CmpSwap: the compare value
	Orig    uint64 // the value at VA before the operation

	AckFrame int // the frame that acknowledged it (0: not seen)

	Chunk *ChunkRef   // where an RDMA WRITE or READ lands, if a call advertised it
	RPC   *RPCMessage // the RPC-over-RDMA message a SEND carried
}

// Name describes m in a few words ("SEND #3", "RDMA WRITE #2").
func (m *Message) Name() string { return fmt.Sprintf("%s #%d", m.Kind, m.Seq) }

// Swapped reports whether an answered CmpSwap found its compare value,
// and so swapped.
func (m *Message) Swapped() bool {
	return m.Kind == ib.KindAtomic && m.Opcode.Operation() == ib.OpCompareSwap && m.RespDone && m.Orig == m.Compare
}

// contains reports whether psn is one of the PSNs m used.
func (m *Message) contains(psn uint32) bool {
	return PSNDiff(psn, m.FirstPSN) >= 0 && PSNDiff(psn, m.LastPSN) <= 0
}
