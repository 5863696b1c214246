package ib

// Atomic Acknowledge Extended Transport Header (IBTA Vol 1 9.3.6, Figure
// 134): the value the remote location held before the atomic operation.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|              Original Remote Data (OrigRemDt), 64 bits        |  0
//	+                                                               +
//	|                                                               |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// AtomicAckETHLen is the length of an AtomicAckETH in bytes.
const AtomicAckETHLen = 8

// AtomicAckETH is the Atomic Acknowledge Extended Transport Header.
type AtomicAckETH struct {
	layers.BaseLayer
	OrigRemDt uint64 // infiniband.atomicacketh.origremdt
}

// LayerType returns LayerTypeAtomicAckETH.
func (a *AtomicAckETH) LayerType() gopacket.LayerType { return LayerTypeAtomicAckETH }

// CanDecode returns LayerTypeAtomicAckETH.
func (a *AtomicAckETH) CanDecode() gopacket.LayerClass { return LayerTypeAtomicAckETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (a *AtomicAckETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an AtomicAckETH from the start of data.
func (a *AtomicAckETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AtomicAckETHLen {
		*a = AtomicAckETH{}
		return errShort(df, "AtomicAckETH", AtomicAckETHLen, len(data))
	}
	a.decode(data)
	return nil
}

func (a *AtomicAckETH) decode(data []byte) {
	*a = AtomicAckETH{
		BaseLayer: layers.BaseLayer{Contents: data[:AtomicAckETHLen], Payload: data[AtomicAckETHLen:]},
		OrigRemDt: binary.BigEndian.Uint64(data),
	}
}

// SerializeTo prepends the AtomicAckETH to b.
func (a *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(AtomicAckETHLen)
	if err != nil {
		return err
	}
	a.put(buf)
	return nil
}

func (a *AtomicAckETH) put(buf []byte) { binary.BigEndian.PutUint64(buf, a.OrigRemDt) }
