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

// The headers are masked into a copy (at most 8 + 40 + 8 + 12 bytes, or
// LRH + GRH + BTH) and the CRC runs over it, then over the rest of the
// packet in place. hash/crc32's fast path (CLMUL) takes only a multiple of
// 16 bytes, at least 64; it does whatever is shorter or left over a byte
// at a time, and its slicing-by-8 loop leaves the last 8 bytes to that
// loop too. Those bytes were most of the ICRC of a small packet, so the
// copy and everything but the fast path's part go through crcTables
// instead, which take 8 and then 4 bytes at a time. hash/crc32 keeps
// what it is given on the heap, so the copy lives in a Checker that a
// decoder reuses.
const maxMasked = 8 + GRHLen + 8 + BTHLen

// crcTables are the slicing-by-8 tables of the reflected IEEE polynomial:
// t[0] is the byte table, t[k][i] is t[k-1][i] run through a zero byte.
type crcTables [8][256]uint32

// ieee is read only, built once: it is what the package's CRCs share.
var ieee = makeCRCTables()

func makeCRCTables() *crcTables {
	t := new(crcTables)
	for i := range t[0] {
		c := uint32(i)
		for range 8 {
			c = c>>1 ^ 0xedb88320&-(c&1)
		}
		t[0][i] = c
	}
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			c := t[k-1][i]
			t[k][i] = t[0][c&0xff] ^ c>>8
		}
	}
	return t
}

// update runs the CRC register reg (the inverted CRC) over p.
func (t *crcTables) update(reg uint32, p []byte) uint32 {
	for len(p) >= 8 {
		reg ^= binary.LittleEndian.Uint32(p)
		reg = t[0][p[7]] ^ t[1][p[6]] ^ t[2][p[5]] ^ t[3][p[4]] ^
			t[4][reg>>24] ^ t[5][reg>>16&0xff] ^ t[6][reg>>8&0xff] ^ t[7][reg&0xff]
		p = p[8:]
	}
	if len(p) >= 4 {
		reg ^= binary.LittleEndian.Uint32(p)
		reg = t[0][reg>>24] ^ t[1][reg>>16&0xff] ^ t[2][reg>>8&0xff] ^ t[3][reg&0xff]
		p = p[4:]
	}
	for _, b := range p {
		reg = t[0][byte(reg)^b] ^ reg>>8
	}
	return reg
}

// updateLong is update that hands hash/crc32's fast path the longest
// multiple of 16 bytes at the end of p, when it is 64 bytes or more.
func (t *crcTables) updateLong(reg uint32, p []byte) uint32 {
	head := len(p) & 15
	if len(p)-head < 64 {
		return t.update(reg, p)
	}
	reg = t.update(reg, p[:head])
	return ^crc32.Update(^reg, crc32.IEEETable, p[head:])
}

// A Checker computes ICRCs (RoCEv2ICRC, RoCEv1ICRC, NativeICRC) in one
// buffer it reuses, without allocating. The zero value is ready; one
// Checker is for one goroutine at a time.
type Checker struct{ m masked }

// RoCEv2ICRC is the package's RoCEv2ICRC.
func (c *Checker) RoCEv2ICRC(pkt []byte) (uint32, error) { return roCEv2ICRC(&c.m, pkt) }

// RoCEv1ICRC is the package's RoCEv1ICRC.
func (c *Checker) RoCEv1ICRC(pkt []byte) (uint32, error) { return roCEv1ICRC(&c.m, pkt) }

// NativeICRC is the package's NativeICRC.
func (c *Checker) NativeICRC(pkt []byte) (uint32, error) { return nativeICRC(&c.m, pkt) }

// masked is a packet's headers with the variant fields set to ones.
type masked struct {
	b [maxMasked]byte
	n int
}

func (m *masked) add(p []byte) { m.n += copy(m.b[m.n:], p) }

func (m *masked) ones(k int) {
	for i := 0; i < k; i++ {
		m.b[m.n+i] = 0xff
	}
	m.n += k
}

// grh adds a GRH or IPv6 header with TClass, FlowLabel and HopLmt masked.
func (m *masked) grh(g []byte) {
	m.add(g[:40])
	h := m.b[m.n-40:]
	h[0] |= 0x0f
	h[1], h[2], h[3] = 0xff, 0xff, 0xff
	h[7] = 0xff
}

// bth adds the BTH at pkt[off:] with resv8a masked.
func (m *masked) bth(pkt []byte, off int) {
	m.add(pkt[off : off+BTHLen])
	m.b[m.n-BTHLen+4] = 0xff
}

// icrc returns the CRC of the masked headers followed by rest, in
// Wireshark's byte order.
func (m *masked) icrc(rest []byte) uint32 { return m.icrcAfter(^uint32(0), rest) }

// icrcAfter is icrc for a CRC register that has already run over reg's
// bytes.
func (m *masked) icrcAfter(reg uint32, rest []byte) uint32 {
	reg = ieee.update(reg, m.b[:m.n])
	return bits.ReverseBytes32(^ieee.updateLong(reg, rest))
}

// RoCEv2ICRC computes the ICRC of a RoCEv2 packet. pkt runs from the first
// byte of the IPv4 or IPv6 header to the last byte of the ICRC field (as
// the IP total or payload length bounds it); the ICRC field itself is not
// covered.
func RoCEv2ICRC(pkt []byte) (uint32, error) { return roCEv2ICRC(new(masked), pkt) }

func roCEv2ICRC(m *masked, pkt []byte) (uint32, error) {
	m.n = 0
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
	m.ones(8) // the LRH RoCE does not have
	if ipLen == 40 {
		m.grh(pkt)
	} else {
		// IPv4 options (up to 40 bytes) do not fit the copy: the CRC
		// takes them from the packet.
		h := pkt[:20]
		m.add(h)
		ip := m.b[8:]
		ip[1] = 0xff                // TOS
		ip[8] = 0xff                // TTL
		ip[10], ip[11] = 0xff, 0xff // header checksum
		if ipLen > 20 {
			reg := ieee.update(^uint32(0), m.b[:m.n])
			reg = ieee.update(reg, pkt[20:ipLen])
			m.n = 0
			m.add(pkt[ipLen : ipLen+6])
			m.ones(2)
			m.bth(pkt, ipLen+8)
			return m.icrcAfter(reg, pkt[ipLen+8+BTHLen:len(pkt)-ICRCLen]), nil
		}
	}
	m.add(pkt[ipLen : ipLen+6])
	m.ones(2) // UDP checksum
	m.bth(pkt, ipLen+8)
	return m.icrc(pkt[ipLen+8+BTHLen : len(pkt)-ICRCLen]), nil
}

// RoCEv1ICRC computes the ICRC of a RoCEv1 packet: pkt runs from the GRH
// to the end of the ICRC field.
func RoCEv1ICRC(pkt []byte) (uint32, error) { return roCEv1ICRC(new(masked), pkt) }

func roCEv1ICRC(m *masked, pkt []byte) (uint32, error) {
	m.n = 0
	if len(pkt) < GRHLen+BTHLen+ICRCLen {
		return 0, errAt("ICRC", len(pkt), "need %d bytes for GRH, BTH and ICRC, have %d", GRHLen+BTHLen+ICRCLen, len(pkt))
	}
	m.ones(8)
	m.grh(pkt)
	m.bth(pkt, GRHLen)
	return m.icrc(pkt[GRHLen+BTHLen : len(pkt)-ICRCLen]), nil
}

// NativeICRC computes the ICRC of a native InfiniBand packet: pkt runs
// from the LRH to the end of the ICRC field (the VCRC excluded), as the
// LRH packet length bounds it. Raw packets (LNH 0 and 1) have no ICRC.
func NativeICRC(pkt []byte) (uint32, error) { return nativeICRC(new(masked), pkt) }

func nativeICRC(m *masked, pkt []byte) (uint32, error) {
	m.n = 0
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
	if lnh == LNHIBAGlobal {
		m.ones(8) // the whole LRH
		m.grh(pkt[LRHLen:])
	} else {
		m.add(pkt[:LRHLen])
		m.b[0] |= 0xf0 // VL
	}
	m.bth(pkt, hdr-BTHLen)
	return m.icrc(pkt[hdr : len(pkt)-ICRCLen]), nil
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
