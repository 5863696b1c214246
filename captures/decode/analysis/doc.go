// Package analysis is the transport analysis of one capture: fed the
// frames package frame decodes, in capture order, it finds each queue
// pair's flows and messages, what ACKs acknowledge, the RPCs that ride on
// them and the chunks their RDMA READs and WRITEs move. Its Packet is the
// frame's Packet with what it found (Analysis).
//
//	flow.go      per QP direction (per EE context for Reliable Datagram):
//	             PSN sequence (gaps, duplicates, retransmissions, late
//	             packets, RD RESYNC), messages reassembled from
//	             FIRST/MIDDLE/LAST/ONLY
//	response.go  ACKs and AETH MSNs turned into acknowledged messages,
//	             NAKs and RNR NAKs, RDMA READ responses paired with their
//	             requests, ATOMIC Acknowledges with their CmpSwap or
//	             FetchAdd
//	cm.go        connections learnt from CM REQ/REP (or inferred)
//	rpc.go       every complete SEND that validates as RFC 8166 (or RFC
//	             5666's RDMA_MSGP) is an RPC call or reply, matched by
//	             XID, credits counted
//	chunks.go    every RDMA READ and WRITE matched to the segment a call
//	             advertised (rkey and address range)
//	rebuild.go   calls rebuilt with their Read chunks, replies with their
//	             Write chunks or from their Reply chunk
//	tcp.go       TCP sequence numbers relative to each direction's first
//	notes.go     anomalies, and what a capture that starts mid-stream
//	             cannot tell
//
// Options say what the analysis keeps once its packets are gone, so that
// a consumer that prints as it goes streams a capture of any size in
// bounded memory. What a chunk rebuild makes is bounded by the bytes the
// capture holds, never by the lengths its headers claim. It knows no
// field name and prints nothing: package fields and package decode do.
package analysis
