package ib

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// SerializeLayers is gopacket.SerializeLayers for InfiniBand packets: with
// opts.ComputeChecksums it also computes, over the finished buffer, what
// no layer can compute alone: the ICRC (RoCEv2, RoCEv1, native) and the
// VCRC (native). The UDP checksum of RoCEv2 over IPv4 is left zero, as
// RoCEv2 senders leave it (Annex A17.3.3); over IPv6 it is computed after
// the ICRC, which does not cover it. A UDP layer right after an IP layer
// is given it for its checksum.
func SerializeLayers(buf gopacket.SerializeBuffer, opts gopacket.SerializeOptions, ls ...gopacket.SerializableLayer) error {
	for i := 1; opts.ComputeChecksums && i < len(ls); i++ {
		u, ok := ls[i].(*layers.UDP)
		nl, isNet := ls[i-1].(gopacket.NetworkLayer)
		if ok && isNet {
			if err := u.SetNetworkLayerForChecksum(nl); err != nil {
				return err
			}
		}
	}
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		return err
	}
	if !opts.ComputeChecksums || len(ls) == 0 {
		return nil
	}
	// Find the headers the ICRC starts at by measuring the layers before
	// them: each layer's serialized length is what it added.
	frame := buf.Bytes()
	off := 0
	for i, l := range ls {
		switch l.LayerType() {
		case layers.LayerTypeIPv4, layers.LayerTypeIPv6:
			if i+2 < len(ls) && ls[i+2].LayerType() == LayerTypeBTH {
				return finishRoCEv2(frame[off:], l.LayerType() == layers.LayerTypeIPv6)
			}
		case LayerTypeGRH:
			if i+1 < len(ls) && ls[i+1].LayerType() == LayerTypeBTH {
				return setICRC(frame[off:off+GRHLen+int(binary.BigEndian.Uint16(frame[off+4:]))], RoCEv1ICRC)
			}
		case LayerTypeLRH:
			n := int(binary.BigEndian.Uint16(frame[off+4:])&0x7ff) * 4
			if off+n+VCRCLen > len(frame) {
				return errAt("LRH", off+4, "packet length %d words runs past the %d-byte buffer", n/4, len(frame)-off)
			}
			return SetNativeCRCs(frame[off : off+n+VCRCLen])
		}
		hl, err := headerLen(l, frame[off:])
		if err != nil {
			return err
		}
		off += hl
	}
	return nil
}

// headerLen returns the length of the header l wrote at the start of b.
func headerLen(l gopacket.SerializableLayer, b []byte) (int, error) {
	var d interface {
		gopacket.DecodingLayer
		LayerContents() []byte
	}
	switch l.LayerType() {
	case layers.LayerTypeEthernet:
		d = &layers.Ethernet{}
	case layers.LayerTypeDot1Q:
		d = &layers.Dot1Q{}
	case layers.LayerTypeLinuxSLL:
		d = &layers.LinuxSLL{}
	case LayerTypeLinuxSLL2:
		d = &LinuxSLL2{}
	case LayerTypeERF:
		d = &ERF{}
	default:
		return 0, errAt(l.LayerType().String(), 0, "ib.SerializeLayers cannot find the ICRC's start past a %v layer", l.LayerType())
	}
	if err := d.DecodeFromBytes(b, gopacket.NilDecodeFeedback); err != nil {
		return 0, err
	}
	return len(d.LayerContents()), nil
}

// finishRoCEv2 sets the ICRC of a RoCEv2 packet starting at its IP header,
// and its UDP checksum.
func finishRoCEv2(b []byte, v6 bool) error {
	ipLen, end := 40, 40+int(binary.BigEndian.Uint16(b[4:]))
	if !v6 {
		ipLen, end = int(b[0]&0xf)*4, int(binary.BigEndian.Uint16(b[2:]))
	}
	if end > len(b) || ipLen+8 > end {
		return errAt("ICRC", 0, "IP length %d runs past the %d-byte buffer", end, len(b))
	}
	pkt := b[:end]
	udp := pkt[ipLen:]
	udp[6], udp[7] = 0, 0
	if err := setICRC(pkt, RoCEv2ICRC); err != nil {
		return err
	}
	if v6 {
		binary.BigEndian.PutUint16(udp[6:], udp6Checksum(pkt[:40], udp))
	}
	return nil
}

// udp6Checksum computes a UDP checksum over IPv6 (RFC 8200 §8.1).
func udp6Checksum(ip, udp []byte) uint16 {
	var sum uint32
	add := func(b []byte) {
		for len(b) > 1 {
			sum += uint32(binary.BigEndian.Uint16(b))
			b = b[2:]
		}
		if len(b) == 1 {
			sum += uint32(b[0]) << 8
		}
	}
	add(ip[8:40])
	sum += uint32(len(udp)) + uint32(layers.IPProtocolUDP)
	add(udp)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	c := ^uint16(sum)
	if c == 0 {
		c = 0xffff
	}
	return c
}
