package ib

// IP over InfiniBand encapsulation header (RFC 4391 §6): UD packets that
// carry IP or ARP start with it. Wireshark shows it as "IBA Payload -
// appears to be EtherType encapsulated".
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|             Type              |           Reserved            |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// IPoIBLen is the length of the IPoIB header in bytes.
const IPoIBLen = 4

// IPoIB is the IP over InfiniBand encapsulation header.
type IPoIB struct {
	layers.BaseLayer
	Type     layers.EthernetType
	Reserved uint16
}

// LayerType returns LayerTypeIPoIB.
func (i *IPoIB) LayerType() gopacket.LayerType { return LayerTypeIPoIB }

// CanDecode returns LayerTypeIPoIB.
func (i *IPoIB) CanDecode() gopacket.LayerClass { return LayerTypeIPoIB }

// NextLayerType follows Type.
func (i *IPoIB) NextLayerType() gopacket.LayerType { return i.Type.LayerType() }

// DecodeFromBytes decodes an IPoIB header.
func (i *IPoIB) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*i = IPoIB{}
	if len(data) < IPoIBLen {
		return errShort(df, "IPoIB", IPoIBLen, len(data))
	}
	i.Type = layers.EthernetType(binary.BigEndian.Uint16(data))
	i.Reserved = binary.BigEndian.Uint16(data[2:])
	i.BaseLayer = layers.BaseLayer{Contents: data[:IPoIBLen], Payload: data[IPoIBLen:]}
	return nil
}

// SerializeTo prepends the IPoIB header to b.
func (i *IPoIB) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(IPoIBLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(buf, uint16(i.Type))
	binary.BigEndian.PutUint16(buf[2:], i.Reserved)
	return nil
}

// looksLikeIPoIB is Wireshark's test for "EtherType encapsulated" UD
// payloads: a known EtherType and a zero reserved field.
func looksLikeIPoIB(p []byte) bool {
	if len(p) < IPoIBLen || p[2] != 0 || p[3] != 0 {
		return false
	}
	switch layers.EthernetType(binary.BigEndian.Uint16(p)) {
	case layers.EthernetTypeIPv4, layers.EthernetTypeIPv6, layers.EthernetTypeARP:
		return true
	}
	return false
}

func decodeIPoIB(data []byte, p gopacket.PacketBuilder) error {
	return decodeLayer[IPoIB](data, p)
}
