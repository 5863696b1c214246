// Package decode is rdmalab's capture decoder: it reads a pcap or pcapng
// file (gzip-compressed or not) of RoCEv1, RoCEv2 or native InfiniBand
// traffic, decodes every frame with the gopacket layers of proto/ib (and,
// for the frames beside them, package netlayer's Linux SLL, ARP and IPv6),
// checks the ICRC and VCRC, and analyses the transport:
//
//	file ──► pcapfile.Reader ──► Decoder.Decode ──► Packet (frame.go: layers,
//	                                     │            CRC checks)
//	                                     ▼
//	                                  Analyzer
//	  flow.go      per QP direction (per EE context for Reliable Datagram):
//	               PSN sequence (gaps, duplicates, retransmissions, late
//	               packets, RD RESYNC), messages reassembled from
//	               FIRST/MIDDLE/LAST/ONLY
//	  response.go  ACKs and AETH MSNs turned into acknowledged messages,
//	               NAKs and RNR NAKs, RDMA READ responses paired with their
//	               requests, ATOMIC Acknowledges with their CmpSwap or
//	               FetchAdd
//	  cm.go        connections learnt from CM REQ/REP (or inferred)
//	  rpc.go       every complete SEND that validates as RFC 8166 (or RFC
//	               5666's RDMA_MSGP) is an RPC call or reply, matched by
//	               XID, credits counted
//	  chunks.go    every RDMA READ and WRITE matched to the segment a call
//	               advertised (rkey and address range)
//	  rebuild.go   calls rebuilt with their Read chunks, replies with their
//	               Write chunks or from their Reply chunk
//	  notes.go     anomalies, and what a capture that starts mid-stream
//	               cannot tell
//
// Write prints what "rdmalab decode" shows (its command line is the root
// package's): one line per packet (line.go), a detail tree (tree.go, -V),
// JSON objects with Wireshark's field names (json.go, --json), the values of
// chosen fields (fieldsout.go, -T fields) from the field registry (fields.go,
// which display filters, -Y, read through package dfilter), a table per
// RPC (rpctable.go, --rpc), and the anomalies (check.go, --check).
// CompileSelection (filter.go) turns the short forms of --filter, the
// REPL's packets and the view's / bar (qp=, opcode=, xid=, rpcs,
// anomalies) into the display filter they mean, for all three.
//
// A capture is hostile until shown otherwise. Strings from it (file names,
// machine names, NFSv4 tags) reach the text outputs escaped (package safe,
// at the NFS summaries that show them), --json carries them exactly under
// Wireshark's field names, and what a chunk rebuild makes is bounded by
// the bytes the capture holds, never by the lengths its headers claim.
//
// Options say what the analysis keeps once its packets are gone: Write
// keeps only what it prints, so that every output streams a capture of any
// size in bounded memory, --rpc printing each RPC once it is answered and
// acknowledged (captures/bench/compare.sh measures it). The text outputs
// are appended into buffers reused from packet to packet, without fmt on
// the common lines (package appendtext). A large capture whose CRCs are checked
// is read ahead on a second goroutine, which also computes the ICRCs
// (frame/readahead.go); the decoding, analysis and output stay on one.
package decode
