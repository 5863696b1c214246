package ib

// Local Route Header (IBTA Vol 1 7.7, Figure 56): the link-level header of
// every native InfiniBand packet, followed at the end of the packet by the
// Variant CRC (7.8.2). PktLen counts 4-byte words from the LRH through the
// ICRC; the 2-byte VCRC follows.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  VL   | LVer  |  SL   |Rsv|LNH|  Destination Local ID (DLID)  |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  Rsv5   |  Packet Length      |    Source Local ID (SLID)     |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	LNH: 0 raw (RWH follows), 1 IPv6 (non-IBA), 2 IBA local (BTH), 3 IBA global (GRH)

import (
	"encoding/binary"
	"strconv"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Sizes in bytes.
const (
	LRHLen  = 8
	VCRCLen = 2
)

// LNH is the Link Next Header field.
type LNH uint8

// Link next headers.
const (
	LNHRaw       LNH = 0 // a raw packet: RWH
	LNHIPv6      LNH = 1 // an IPv6 packet, not IBA transport
	LNHIBALocal  LNH = 2 // IBA transport: BTH
	LNHIBAGlobal LNH = 3 // IBA transport with a GRH
)

var lnhNames = [...]string{LNHRaw: "Raw", LNHIPv6: "IP non-IBA", LNHIBALocal: "IBA local", LNHIBAGlobal: "IBA global"}

// String returns the name Wireshark gives n ("IBA local"). LNH is a 2-bit
// field: only its low two bits count.
func (n LNH) String() string { return lnhNames[n&3] }

// LRH is the Local Route Header. Its Payload stops at PktLen (so it ends
// with the ICRC of an IBA packet); VCRC holds the two bytes after it.
type LRH struct {
	layers.BaseLayer
	VL        uint8  // infiniband.lrh.vl
	LVer      uint8  // infiniband.lrh.lver
	SL        uint8  // infiniband.lrh.sl
	Reserved2 uint8  // infiniband.lrh.reserved2
	LNH       LNH    // infiniband.lrh.lnh
	DLID      uint16 // infiniband.lrh.dlid
	Reserved5 uint8  // infiniband.lrh.reserved5
	PktLen    uint16 // infiniband.lrh.pktlen, in 4-byte words, 11 bits
	SLID      uint16 // infiniband.lrh.slid
	VCRC      uint16 // infiniband.variant.crc
	HasVCRC   bool   // false when the capture stops before the VCRC
}

// LayerType returns LayerTypeLRH.
func (l *LRH) LayerType() gopacket.LayerType { return LayerTypeLRH }

// CanDecode returns LayerTypeLRH.
func (l *LRH) CanDecode() gopacket.LayerClass { return LayerTypeLRH }

// NextLayerType follows LNH.
func (l *LRH) NextLayerType() gopacket.LayerType {
	switch l.LNH {
	case LNHRaw:
		return LayerTypeRWH
	case LNHIPv6:
		return layers.LayerTypeIPv6
	case LNHIBALocal:
		return LayerTypeBTH
	}
	return LayerTypeGRH
}

// DecodeFromBytes decodes an LRH; data is the whole packet, VCRC included.
// A packet shorter than PktLen is truncated: Payload holds what there is.
func (l *LRH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*l = LRH{}
	if len(data) < LRHLen {
		return errShort(df, "LRH", LRHLen, len(data))
	}
	l.VL = data[0] >> 4
	l.LVer = data[0] & 0xf
	l.SL = data[1] >> 4
	l.Reserved2 = data[1] >> 2 & 3
	l.LNH = LNH(data[1] & 3)
	l.DLID = binary.BigEndian.Uint16(data[2:])
	l.Reserved5 = data[4] >> 3
	l.PktLen = binary.BigEndian.Uint16(data[4:]) & 0x7ff
	l.SLID = binary.BigEndian.Uint16(data[6:])
	l.Contents = data[:LRHLen]
	end := int(l.PktLen) * 4
	if end < LRHLen {
		return errAt("LRH", 4, "packet length %d words is shorter than the LRH", l.PktLen)
	}
	if end > len(data) {
		df.SetTruncated()
		l.Payload = data[LRHLen:]
		return nil
	}
	l.Payload = data[LRHLen:end]
	if len(data)-end >= VCRCLen {
		l.VCRC = binary.BigEndian.Uint16(data[end:])
		l.HasVCRC = true
	}
	return nil
}

// SerializeTo prepends the LRH to b and, when HasVCRC, appends the VCRC
// field. With FixLengths, PktLen covers the LRH and what b held, and
// HasVCRC is set. The VCRC is written as l.VCRC; SetNativeCRCs computes it
// over the finished packet.
func (l *LRH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		l.PktLen = uint16((len(b.Bytes())+LRHLen)/4) & 0x7ff
		l.HasVCRC = true
	}
	if l.HasVCRC {
		tail, err := b.AppendBytes(VCRCLen)
		if err != nil {
			return err
		}
		binary.BigEndian.PutUint16(tail, l.VCRC)
	}
	buf, err := b.PrependBytes(LRHLen)
	if err != nil {
		return err
	}
	buf[0] = l.VL<<4 | l.LVer&0xf
	buf[1] = l.SL<<4 | (l.Reserved2&3)<<2 | uint8(l.LNH&3)
	binary.BigEndian.PutUint16(buf[2:], l.DLID)
	binary.BigEndian.PutUint16(buf[4:], uint16(l.Reserved5&0x1f)<<11|l.PktLen&0x7ff)
	binary.BigEndian.PutUint16(buf[6:], l.SLID)
	return nil
}

func decodeLRH(data []byte, p gopacket.PacketBuilder) error {
	l := &LRH{}
	if err := l.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(l)
	p.SetLinkLayer(l)
	return p.NextDecoder(l.NextLayerType())
}

// LinkFlow returns the flow from SLID to DLID.
func (l *LRH) LinkFlow() gopacket.Flow {
	var src, dst [2]byte
	binary.BigEndian.PutUint16(src[:], l.SLID)
	binary.BigEndian.PutUint16(dst[:], l.DLID)
	return gopacket.NewFlow(EndpointLID, src[:], dst[:])
}

func formatLID(b []byte) string { return "LID:" + strconv.Itoa(int(binary.BigEndian.Uint16(b))) }
