package ib

// Atomic Extended Transport Header (IBTA Vol 1 9.3.4, Figure 132): the
// operands of CmpSwap and FetchAdd.
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
//	|                Swap (or Add) Data (SwapDt), 64 bits           | 12
//	+                                                               +
//	|                                                               | 16
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                   Compare Data (CmpDt), 64 bits               | 20
//	+                                                               +
//	|                                                               | 24
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// AtomicETHLen is the length of an AtomicETH in bytes.
const AtomicETHLen = 28

// AtomicETH is the Atomic Extended Transport Header.
type AtomicETH struct {
	layers.BaseLayer
	VA     uint64 // infiniband.atomiceth.va
	RKey   uint32 // infiniband.atomiceth.r_key
	SwapDt uint64 // infiniband.atomiceth.swapdt
	CmpDt  uint64 // infiniband.atomiceth.cmpdt
}

// LayerType returns LayerTypeAtomicETH.
func (a *AtomicETH) LayerType() gopacket.LayerType { return LayerTypeAtomicETH }

// CanDecode returns LayerTypeAtomicETH.
func (a *AtomicETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (a *AtomicETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an AtomicETH from the start of data.
func (a *AtomicETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AtomicETHLen {
		*a = AtomicETH{}
		return errShort(df, "AtomicETH", AtomicETHLen, len(data))
	}
	a.decode(data)
	return nil
}

func (a *AtomicETH) decode(data []byte) {
	*a = AtomicETH{
		BaseLayer: layers.BaseLayer{Contents: data[:AtomicETHLen], Payload: data[AtomicETHLen:]},
		VA:        binary.BigEndian.Uint64(data),
		RKey:      binary.BigEndian.Uint32(data[8:]),
		SwapDt:    binary.BigEndian.Uint64(data[12:]),
		CmpDt:     binary.BigEndian.Uint64(data[20:]),
	}
}

// SerializeTo prepends the AtomicETH to b.
func (a *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(AtomicETHLen)
	if err != nil {
		return err
	}
	a.put(buf)
	return nil
}

func (a *AtomicETH) put(buf []byte) {
	binary.BigEndian.PutUint64(buf, a.VA)
	binary.BigEndian.PutUint32(buf[8:], a.RKey)
	binary.BigEndian.PutUint64(buf[12:], a.SwapDt)
	binary.BigEndian.PutUint64(buf[20:], a.CmpDt)
}
