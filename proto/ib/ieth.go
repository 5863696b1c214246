package ib

// Invalidate Extended Transport Header (IBTA Vol 1 9.3.8, Figure 136): the
// R_Key a SEND with Invalidate asks the responder to invalidate (the Linux
// NFS server uses it to retire the client's registration with its reply).
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                           R_Key                               |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// IETHLen is the length of an IETH in bytes.
const IETHLen = 4

// IETH is the Invalidate Extended Transport Header.
type IETH struct {
	layers.BaseLayer
	RKey uint32 // infiniband.ieth
}

// LayerType returns LayerTypeIETH.
func (i *IETH) LayerType() gopacket.LayerType { return LayerTypeIETH }

// CanDecode returns LayerTypeIETH.
func (i *IETH) CanDecode() gopacket.LayerClass { return LayerTypeIETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (i *IETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an IETH from the start of data.
func (i *IETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < IETHLen {
		*i = IETH{}
		return errShort(df, "IETH", IETHLen, len(data))
	}
	i.decode(data)
	return nil
}

func (i *IETH) decode(data []byte) {
	*i = IETH{
		BaseLayer: layers.BaseLayer{Contents: data[:IETHLen], Payload: data[IETHLen:]},
		RKey:      binary.BigEndian.Uint32(data),
	}
}

// SerializeTo prepends the IETH to b.
func (i *IETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(IETHLen)
	if err != nil {
		return err
	}
	i.put(buf)
	return nil
}

func (i *IETH) put(buf []byte) { binary.BigEndian.PutUint32(buf, i.RKey) }
