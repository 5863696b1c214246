package ib

// Invariant CRC (IBTA Vol 1 7.8.1; RoCEv1 Annex A16.8.3; RoCEv2 Annex
// A17.8.2): a CRC-32 (the Ethernet polynomial, IEEE 802.3) over every byte
// of the packet that no router changes, from the first header to the end
// of the pad. Fields that may change in flight are replaced by ones:
//
//	native IB, LNH 2:  LRH with VL = 0xF | BTH ...
//	native IB, LNH 3:  8 bytes of 0xFF (the whole LRH) | GRH* | BTH ...
//	RoCEv1:            8 bytes of 0xFF | GRH* | BTH ...
//	RoCEv2 over IPv4:  8 bytes of 0xFF | IPv4: TOS, TTL, header checksum = 1s
//	                   | UDP: checksum = 1s | BTH ...
//	RoCEv2 over IPv6:  8 bytes of 0xFF | IPv6: traffic class, flow label,
//	                   hop limit = 1s | UDP: checksum = 1s | BTH ...
//	GRH*: TClass, FlowLabel and HopLmt = 1s
//	BTH:  byte 4 (F, B and Resv6a, "resv8a") = 0xFF
//
// The CRC goes on the wire least significant byte first (Linux rxe writes
// the CPU-order value of crc32_le; rxe_icrc.c). Wireshark reads those four
// bytes big-endian; every ICRC value in this package is given that way, as
// BTH.ICRC holds it. The native-IB LNH 3 masking is what the ERF captures
// of ConnectX adapters verify with; the spec text is not public.

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
)

// The masked copy of the headers is never built: the CRC is fed the
// packet's own bytes with the masked ones taken from these read-only
// tables, so nothing escapes to the heap.
var (
	ones8 = [8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	// lowOnes[b] is b with its low nibble set, highOnes[b] with its high one.
	lowOnes, highOnes = nibbleTables()
)

func nibbleTables() (lo, hi [256]byte) {
	for i := range lo {
		lo[i], hi[i] = byte(i)|0x0f, byte(i)|0xf0
	}
	return lo, hi
}

// crcAcc accumulates a CRC-32 (IEEE).
type crcAcc uint32

func (c *crcAcc) add(p []byte)   { *c = crcAcc(crc32.Update(uint32(*c), crc32.IEEETable, p)) }
func (c *crcAcc) ones(n int)     { c.add(ones8[:n]) }
func (c *crcAcc) lowOnes(b byte) { c.add(lowOnes[b : int(b)+1]) }

// icrc returns the accumulated CRC in Wireshark's byte order.
func (c crcAcc) icrc() uint32 { return bits.ReverseBytes32(uint32(c)) }

// grh feeds a GRH or IPv6 header with TClass, FlowLabel and HopLmt masked.
func (c *crcAcc) grh(g []byte) {
	c.lowOnes(g[0])
	c.ones(3)
	c.add(g[4:7])
	c.ones(1)
	c.add(g[8:40])
}

// bthRest feeds the BTH with resv8a masked, then everything after it up to
// the ICRC (pkt ends with the ICRC).
func (c *crcAcc) bthRest(pkt []byte, off int) {
	c.add(pkt[off : off+4])
	c.ones(1)
	c.add(pkt[off+5 : len(pkt)-ICRCLen])
}

// RoCEv2ICRC computes the ICRC of a RoCEv2 packet. pkt runs from the first
// byte of the IPv4 or IPv6 header to the last byte of the ICRC field (as
// the IP total or payload length bounds it); the ICRC field itself is not
// covered.
func RoCEv2ICRC(pkt []byte) (uint32, error) {
	if len(pkt) < 1 {
		return 0, errAt("ICRC", 0, "empty packet")
	}
	var ipLen int
	switch pkt[0] >> 4 {
	case 4:
		ipLen = int(pkt[0]&0xf) * 4
		if ipLen < 20 {
			return 0, errAt("ICRC", 0, "IPv4 header length %d is less than 20", ipLen)
		}
	case 6:
		ipLen = 40
	default:
		return 0, errAt("ICRC", 0, "IP version %d is neither 4 nor 6", pkt[0]>>4)
	}
	if hdr := ipLen + 8 + BTHLen; len(pkt) < hdr+ICRCLen {
		return 0, errAt("ICRC", len(pkt), "need %d bytes for IP, UDP, BTH and ICRC, have %d", hdr+ICRCLen, len(pkt))
	}
	var c crcAcc
	c.ones(8) // the LRH RoCE does not have
	if ipLen == 40 {
		c.grh(pkt)
	} else {
		c.add(pkt[0:1])
		c.ones(1) // TOS
		c.add(pkt[2:8])
		c.ones(1) // TTL
		c.add(pkt[9:10])
		c.ones(2) // header checksum
		c.add(pkt[12:ipLen])
	}
	c.add(pkt[ipLen : ipLen+6])
	c.ones(2) // UDP checksum
	c.bthRest(pkt, ipLen+8)
	return c.icrc(), nil
}

// RoCEv1ICRC computes the ICRC of a RoCEv1 packet: pkt runs from the GRH
// to the end of the ICRC field.
func RoCEv1ICRC(pkt []byte) (uint32, error) {
	if len(pkt) < GRHLen+BTHLen+ICRCLen {
		return 0, errAt("ICRC", len(pkt), "need %d bytes for GRH, BTH and ICRC, have %d", GRHLen+BTHLen+ICRCLen, len(pkt))
	}
	var c crcAcc
	c.ones(8)
	c.grh(pkt)
	c.bthRest(pkt, GRHLen)
	return c.icrc(), nil
}

// NativeICRC computes the ICRC of a native InfiniBand packet: pkt runs
// from the LRH to the end of the ICRC field (the VCRC excluded), as the
// LRH packet length bounds it. Raw packets (LNH 0 and 1) have no ICRC.
func NativeICRC(pkt []byte) (uint32, error) {
	if len(pkt) < LRHLen {
		return 0, errAt("ICRC", len(pkt), "need %d bytes for the LRH, have %d", LRHLen, len(pkt))
	}
	hdr := LRHLen + BTHLen
	lnh := LNH(pkt[1] & 3)
	switch lnh {
	case LNHIBALocal:
	case LNHIBAGlobal:
		hdr += GRHLen
	default:
		return 0, errAt("ICRC", 1, "link next header %d is not IBA transport: no ICRC", pkt[1]&3)
	}
	if len(pkt) < hdr+ICRCLen {
		return 0, errAt("ICRC", len(pkt), "need %d bytes for headers and ICRC, have %d", hdr+ICRCLen, len(pkt))
	}
	var c crcAcc
	if lnh == LNHIBAGlobal {
		c.ones(8) // the whole LRH
		c.grh(pkt[LRHLen:])
	} else {
		c.add(highOnes[pkt[0] : int(pkt[0])+1]) // VL
		c.add(pkt[1:LRHLen])
	}
	c.bthRest(pkt, hdr-BTHLen)
	return c.icrc(), nil
}

// ICRCAt returns the ICRC field at the end of pkt, in Wireshark's order.
func ICRCAt(pkt []byte) uint32 { return binary.BigEndian.Uint32(pkt[len(pkt)-ICRCLen:]) }

// SetRoCEv2ICRC computes the ICRC of pkt (see RoCEv2ICRC) and writes it
// into its last four bytes: call it after serializing the IP, UDP and BTH
// layers. RoCEv2 senders leave the UDP checksum zero; a non-zero one does
// not cover the ICRC it was computed before.
func SetRoCEv2ICRC(pkt []byte) error { return setICRC(pkt, RoCEv2ICRC) }

// SetRoCEv1ICRC is SetRoCEv2ICRC for a RoCEv1 packet from its GRH.
func SetRoCEv1ICRC(pkt []byte) error { return setICRC(pkt, RoCEv1ICRC) }

// SetNativeCRCs writes the ICRC and then the VCRC of a native InfiniBand
// packet: pkt runs from the LRH through the VCRC.
func SetNativeCRCs(pkt []byte) error {
	if len(pkt) < LRHLen+VCRCLen {
		return errAt("ICRC", len(pkt), "need %d bytes for LRH and VCRC, have %d", LRHLen+VCRCLen, len(pkt))
	}
	body := pkt[:len(pkt)-VCRCLen]
	if lnh := LNH(pkt[1] & 3); lnh == LNHIBALocal || lnh == LNHIBAGlobal {
		if err := setICRC(body, NativeICRC); err != nil {
			return err
		}
	}
	binary.BigEndian.PutUint16(pkt[len(body):], VCRC(body))
	return nil
}

func setICRC(pkt []byte, f func([]byte) (uint32, error)) error {
	c, err := f(pkt)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(pkt[len(pkt)-ICRCLen:], c)
	return nil
}
