package ib

// Variant CRC (IBTA Vol 1 7.8.2): a CRC-16 with the polynomial
// x^16 + x^12 + x^3 + x + 1 (0x100B), initial value 0xFFFF, bits taken
// least significant first and the result inverted, over every byte from
// the LRH through the ICRC. Switches recompute it on every hop. It goes on
// the wire least significant byte first; Wireshark reads the two bytes
// big-endian, and so does this package (LRH.VCRC). Checked against the
// ERF captures of ConnectX adapters.

import "math/bits"

// vcrcTable is the byte-wise table of the reflected polynomial.
var vcrcTable = func() (t [256]uint16) {
	const poly = 0xd008 // 0x100B reflected
	for i := range t {
		c := uint16(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// VCRC computes the Variant CRC of pkt, the bytes from the LRH through the
// ICRC, in Wireshark's byte order.
func VCRC(pkt []byte) uint16 {
	c := uint16(0xffff)
	for _, b := range pkt {
		c = c>>8 ^ vcrcTable[byte(c)^b]
	}
	return bits.ReverseBytes16(^c)
}
