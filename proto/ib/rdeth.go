package ib

// Reliable Datagram Extended Transport Header (IBTA Vol 1 9.3.1, Figure
// 129): the end-to-end context of every RD packet.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   Reserved    |               EE-Context (EECnxt)             |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// RDETHLen is the length of an RDETH in bytes.
const RDETHLen = 4

// RDETH is the Reliable Datagram Extended Transport Header.
type RDETH struct {
	layers.BaseLayer
	Reserved uint8
	EECnxt   uint32 // infiniband.rdeth.eecnxt, 24 bits
}

// LayerType returns LayerTypeRDETH.
func (r *RDETH) LayerType() gopacket.LayerType { return LayerTypeRDETH }

// CanDecode returns LayerTypeRDETH.
func (r *RDETH) CanDecode() gopacket.LayerClass { return LayerTypeRDETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (r *RDETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an RDETH from the start of data.
func (r *RDETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < RDETHLen {
		*r = RDETH{}
		return errShort(df, "RDETH", RDETHLen, len(data))
	}
	r.decode(data)
	return nil
}

func (r *RDETH) decode(data []byte) {
	w := binary.BigEndian.Uint32(data)
	*r = RDETH{
		BaseLayer: layers.BaseLayer{Contents: data[:RDETHLen], Payload: data[RDETHLen:]},
		Reserved:  uint8(w >> 24),
		EECnxt:    w & 0xffffff,
	}
}

// SerializeTo prepends the RDETH to b.
func (r *RDETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(RDETHLen)
	if err != nil {
		return err
	}
	r.put(buf)
	return nil
}

func (r *RDETH) put(buf []byte) {
	binary.BigEndian.PutUint32(buf, uint32(r.Reserved)<<24|r.EECnxt&0xffffff)
}
