package ib

// RDMA Extended Transport Header (IBTA Vol 1 9.3.3, Figure 131). It starts
// an RDMA WRITE (First, Only), an RDMA READ Request, a FLUSH and an ATOMIC
// WRITE: the remote buffer and the length of the whole operation.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 Virtual Address (VA), 64 bits                 |  0
//	+                                                               +
//	|                                                               |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                       Remote Key (R_Key)                      |  8
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      DMA Length (bytes)                       | 12
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// RETHLen is the length of a RETH in bytes.
const RETHLen = 16

// RETH is the RDMA Extended Transport Header.
type RETH struct {
	layers.BaseLayer
	VA     uint64 // infiniband.reth.va
	RKey   uint32 // infiniband.reth.r_key
	DMALen uint32 // infiniband.reth.dmalen
}

// LayerType returns LayerTypeRETH.
func (r *RETH) LayerType() gopacket.LayerType { return LayerTypeRETH }

// CanDecode returns LayerTypeRETH.
func (r *RETH) CanDecode() gopacket.LayerClass { return LayerTypeRETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (r *RETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes a RETH from the start of data.
func (r *RETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < RETHLen {
		*r = RETH{}
		return errShort(df, "RETH", RETHLen, len(data))
	}
	r.decode(data)
	return nil
}

func (r *RETH) decode(data []byte) {
	*r = RETH{
		BaseLayer: layers.BaseLayer{Contents: data[:RETHLen], Payload: data[RETHLen:]},
		VA:        binary.BigEndian.Uint64(data),
		RKey:      binary.BigEndian.Uint32(data[8:]),
		DMALen:    binary.BigEndian.Uint32(data[12:]),
	}
}

// SerializeTo prepends the RETH to b.
func (r *RETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(RETHLen)
	if err != nil {
		return err
	}
	r.put(buf)
	return nil
}

func (r *RETH) put(buf []byte) {
	binary.BigEndian.PutUint64(buf, r.VA)
	binary.BigEndian.PutUint32(buf[8:], r.RKey)
	binary.BigEndian.PutUint32(buf[12:], r.DMALen)
}
