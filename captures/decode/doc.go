// Package decode is rdmalab's capture decoder: it reads a pcap or pcapng
// file (gzip-compressed or not) of RoCEv1, RoCEv2 or native InfiniBand
// traffic, decodes and analyses every frame, and writes what "rdmalab
// decode" shows. Its parts are packages of their own, each importing only
// those below it (layers_test.go keeps it so):
//
//	file ──► pcapfile.Reader ──► frame.Decoder ──► frame.Packet
//	           (proto/pcapfile)   package frame:   layers, addresses,
//	                              frame.go, addr.go, CRC checks; the
//	                              readahead.go     read-ahead goroutine
//	                                   │
//	                                   ▼
//	                              analysis.Analyzer ──► analysis.Packet
//	                              package analysis:     frame.Packet and
//	                              flows, PSNs, ACKs,    its Analysis
//	                              messages, CM, RPCs,
//	                              chunks, rebuilds, notes
//	                                   │
//	                                   ▼
//	                              package fields: the field registry
//	                              (display filters, -T fields, --json
//	                              names), CompileSelection (short forms)
//	                                   │
//	                                   ▼
//	                              package decode (here): the outputs,
//	                              the Decoder and Read* that run frame
//	                              and analysis together, and the Index
//
// Write prints what "rdmalab decode" shows (its command line is the root
// package's): one line per packet (line.go, other.go for the frames
// beside the RDMA traffic), a detail tree (tree.go, -V), JSON objects with
// Wireshark's field names (json.go, --json), the values of chosen fields
// (fieldsout.go, -T fields) from the field registry (package fields, which
// display filters, -Y, read through package dfilter), a table per RPC
// (rpctable.go, --rpc), and the anomalies (check.go, --check). WriteStream
// writes a capture read from a pipe as it comes. An Index (index*.go,
// place.go, columns.go) reads a capture once, keeps a compact record per
// frame, and decodes any packet again on demand with the same outputs:
// the REPL, the view and the replay builder read captures through it.
//
// A capture is hostile until shown otherwise. Strings from it (file names,
// machine names, NFSv4 tags) reach the text outputs escaped (package safe,
// at the NFS summaries that show them), --json carries them exactly under
// Wireshark's field names, and what a chunk rebuild makes is bounded by
// the bytes the capture holds, never by the lengths its headers claim.
//
// analysis.Options say what the analysis keeps once its packets are gone:
// Write keeps only what it prints, so that every output streams a capture
// of any size in bounded memory, --rpc printing each RPC once it is
// answered and acknowledged (captures/bench/compare.sh measures it). The
// text outputs are appended into buffers reused from packet to packet,
// without fmt on the common lines (package appendtext). A large capture
// whose CRCs are checked is read ahead on a second goroutine, which also
// computes the ICRCs (frame/readahead.go); the decoding, analysis and
// output stay on one.
package decode
