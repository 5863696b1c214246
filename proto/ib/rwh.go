package ib

// Raw Header (IBTA Vol 1 5.3, raw packets with LNH 0): an EtherType says
// what the raw packet carries. Raw packets have no ICRC, only the VCRC.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|          Reserved             |          EtherType            |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// RWHLen is the length of an RWH in bytes.
const RWHLen = 4

// RWH is the Raw Header.
type RWH struct {
	layers.BaseLayer
	Reserved  uint16
	EtherType layers.EthernetType // infiniband.rwh.etype
}

// LayerType returns LayerTypeRWH.
func (r *RWH) LayerType() gopacket.LayerType { return LayerTypeRWH }

// CanDecode returns LayerTypeRWH.
func (r *RWH) CanDecode() gopacket.LayerClass { return LayerTypeRWH }

// NextLayerType follows the EtherType.
func (r *RWH) NextLayerType() gopacket.LayerType { return r.EtherType.LayerType() }

// DecodeFromBytes decodes an RWH.
func (r *RWH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = RWH{}
	if len(data) < RWHLen {
		return errShort(df, "RWH", RWHLen, len(data))
	}
	r.Reserved = binary.BigEndian.Uint16(data)
	r.EtherType = layers.EthernetType(binary.BigEndian.Uint16(data[2:]))
	r.BaseLayer = layers.BaseLayer{Contents: data[:RWHLen], Payload: data[RWHLen:]}
	return nil
}

// SerializeTo prepends the RWH to b.
func (r *RWH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(RWHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(buf, r.Reserved)
	binary.BigEndian.PutUint16(buf[2:], uint16(r.EtherType))
	return nil
}

func decodeRWH(data []byte, p gopacket.PacketBuilder) error {
	return decodeLayer[RWH](data, p)
}
