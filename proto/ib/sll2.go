package ib

// Linux cooked capture header version 2 (LINKTYPE_LINUX_SLL2, 276), which
// "tcpdump -i any" writes since libpcap 1.10; gopacket v1.1.19 only has
// version 1 (layers.LinuxSLL). All fields are big-endian.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        Protocol type          |           Reserved            |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                        Interface index                        |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         ARPHRD type           |  Packet type  | Address length|  8
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|            Link-layer address (8 bytes, padded)               | 12
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// LinuxSLL2Len is the length of an SLL2 header.
const LinuxSLL2Len = 20

// LinuxSLL2 is a Linux cooked capture v2 header.
type LinuxSLL2 struct {
	layers.BaseLayer
	ProtocolType   layers.EthernetType // sll.etype
	Reserved       uint16
	InterfaceIndex uint32 // sll.ifindex
	ARPHRDType     uint16 // sll.hatype
	PacketType     uint8  // sll.pkttype (0 to us, 4 outgoing, ...)
	AddrLen        uint8  // sll.halen
	Addr           [8]byte
}

// LayerType returns LayerTypeLinuxSLL2.
func (s *LinuxSLL2) LayerType() gopacket.LayerType { return LayerTypeLinuxSLL2 }

// CanDecode returns LayerTypeLinuxSLL2.
func (s *LinuxSLL2) CanDecode() gopacket.LayerClass { return LayerTypeLinuxSLL2 }

// NextLayerType follows ProtocolType.
func (s *LinuxSLL2) NextLayerType() gopacket.LayerType { return s.ProtocolType.LayerType() }

// DecodeFromBytes decodes an SLL2 header.
func (s *LinuxSLL2) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*s = LinuxSLL2{}
	if len(data) < LinuxSLL2Len {
		return errShort(df, "LinuxSLL2", LinuxSLL2Len, len(data))
	}
	s.ProtocolType = layers.EthernetType(binary.BigEndian.Uint16(data))
	s.Reserved = binary.BigEndian.Uint16(data[2:])
	s.InterfaceIndex = binary.BigEndian.Uint32(data[4:])
	s.ARPHRDType = binary.BigEndian.Uint16(data[8:])
	s.PacketType = data[10]
	s.AddrLen = data[11]
	copy(s.Addr[:], data[12:20])
	s.BaseLayer = layers.BaseLayer{Contents: data[:LinuxSLL2Len], Payload: data[LinuxSLL2Len:]}
	return nil
}

// SerializeTo prepends the SLL2 header to b.
func (s *LinuxSLL2) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(LinuxSLL2Len)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(buf, uint16(s.ProtocolType))
	binary.BigEndian.PutUint16(buf[2:], s.Reserved)
	binary.BigEndian.PutUint32(buf[4:], s.InterfaceIndex)
	binary.BigEndian.PutUint16(buf[8:], s.ARPHRDType)
	buf[10] = s.PacketType
	buf[11] = s.AddrLen
	copy(buf[12:20], s.Addr[:])
	return nil
}

func decodeLinuxSLL2(data []byte, p gopacket.PacketBuilder) error {
	s := &LinuxSLL2{}
	if err := s.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(s)
	return p.NextDecoder(s.NextLayerType())
}
