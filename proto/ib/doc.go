// Package ib holds gopacket layers for InfiniBand and RDMA over Converged
// Ethernet (RoCE), and for the two capture encapsulations gopacket v1.1.19
// lacks that InfiniBand traffic arrives in (ERF and Linux SLL2).
//
// Where the layers sit (IBTA Vol 1 chapter 9, Annex A16 for RoCEv1,
// Annex A17 for RoCEv2):
//
//	native InfiniBand (LINKTYPE_INFINIBAND, or ERF type 21):
//	  LRH | [GRH] | BTH | ext headers | payload | pad | ICRC | VCRC
//	RoCEv1 (EtherType 0x8915):
//	  Ethernet | GRH | BTH | ext headers | payload | pad | ICRC
//	RoCEv2 (UDP destination port 4791, any source port):
//	  Ethernet | IPv4 or IPv6 | UDP | BTH | ext headers | payload | pad | ICRC
//
// The BTH opcode alone decides which extension headers follow it (IBTA
// 9.2.1 and Table 38), so BTH decodes them too, into its RDETH, DETH,
// RETH, ... fields, and its Payload is what follows them (without pad and
// ICRC). This is the shape of gopacket's IPv6 and its Hop-by-Hop header:
// with gopacket.NewPacket each extension header is also added as a layer
// of its own; with a DecodingLayerParser the BTH layer carries them. Each
// extension header type also decodes and serializes on its own.
//
// The Invariant CRC is checked with the functions of icrc.go over the bytes
// a layer cannot see (the IP and UDP headers of RoCEv2, the LRH of native
// InfiniBand); serializing leaves room for it and SetICRC fills it in over
// the finished buffer.
//
// Layer types are numbered from 1000 (see layertypes.go) and registered,
// with UDP port 4791, EtherType 0x8915 and link types 197, 247 and 276, in
// one init function.
package ib
