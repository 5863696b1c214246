package ib

// FLUSH Extended Transport Header (IBTA Vol 1 Memory Placement Extensions,
// 2021; Linux include/rdma/ib_pack.h, rxe_hdr.h): which persistence and
// visibility a FLUSH asks for. A RETH follows it.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                    Reserved                   |SEL|   PLT   |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	SEL: selectivity level (0 memory region range, 1 whole region)
//	PLT: placement type bits (1 global visibility, 2 persistence)

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// FETHLen is the length of a FETH in bytes.
const FETHLen = 4

// FETH is the FLUSH Extended Transport Header.
type FETH struct {
	layers.BaseLayer
	Reserved    uint32 // 26 bits
	Selectivity uint8  // 2 bits
	Placement   uint8  // 4 bits
}

// LayerType returns LayerTypeFETH.
func (f *FETH) LayerType() gopacket.LayerType { return LayerTypeFETH }

// CanDecode returns LayerTypeFETH.
func (f *FETH) CanDecode() gopacket.LayerClass { return LayerTypeFETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (f *FETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes a FETH from the start of data.
func (f *FETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < FETHLen {
		*f = FETH{}
		return errShort(df, "FETH", FETHLen, len(data))
	}
	f.decode(data)
	return nil
}

func (f *FETH) decode(data []byte) {
	w := binary.BigEndian.Uint32(data)
	*f = FETH{
		BaseLayer:   layers.BaseLayer{Contents: data[:FETHLen], Payload: data[FETHLen:]},
		Reserved:    w >> 6,
		Selectivity: uint8(w>>4) & 3,
		Placement:   uint8(w) & 0xf,
	}
}

// SerializeTo prepends the FETH to b.
func (f *FETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(FETHLen)
	if err != nil {
		return err
	}
	f.put(buf)
	return nil
}

func (f *FETH) put(buf []byte) {
	binary.BigEndian.PutUint32(buf, f.Reserved<<6|uint32(f.Selectivity&3)<<4|uint32(f.Placement&0xf))
}
