// Package frame decodes one captured frame: the gopacket layers of
// proto/ib (and package netlayer's Linux SLL, ARP and IPv6 beside them)
// into a Packet (layers, addresses, encapsulation, where decoding stopped),
// with its ICRC and VCRC checked. It knows nothing of flows, RPCs or
// outputs: package analysis reads its packets, and package decode writes
// them.
//
// The usual RoCEv2 frame takes a fast path (frame.go) that calls each
// layer's DecodeFromBytes as gopacket's parser would, without its lookups;
// any other frame goes through the parser. A large capture whose CRCs are
// checked is read ahead on a second goroutine, which also computes each
// RoCEv2 ICRC (readahead.go, Decoder.ReadAhead).
package frame
