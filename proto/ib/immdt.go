package ib

// Immediate Extended Transport Header (IBTA Vol 1 9.3.7, Figure 135): four
// bytes the requester hands to the responder's completion, carried by the
// last (or only) packet of a SEND or RDMA WRITE "with Immediate".
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      Immediate Data (ImmDt)                   |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// ImmDtLen is the length of an ImmDt in bytes.
const ImmDtLen = 4

// ImmDt is the Immediate Data header.
type ImmDt struct {
	layers.BaseLayer
	Data uint32 // infiniband.immdt (Wireshark shows the four bytes in hex)
}

// LayerType returns LayerTypeImmDt.
func (i *ImmDt) LayerType() gopacket.LayerType { return LayerTypeImmDt }

// CanDecode returns LayerTypeImmDt.
func (i *ImmDt) CanDecode() gopacket.LayerClass { return LayerTypeImmDt }

// NextLayerType returns gopacket.LayerTypePayload.
func (i *ImmDt) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an ImmDt from the start of data.
func (i *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < ImmDtLen {
		*i = ImmDt{}
		return errShort(df, "ImmDt", ImmDtLen, len(data))
	}
	i.decode(data)
	return nil
}

func (i *ImmDt) decode(data []byte) {
	*i = ImmDt{
		BaseLayer: layers.BaseLayer{Contents: data[:ImmDtLen], Payload: data[ImmDtLen:]},
		Data:      binary.BigEndian.Uint32(data),
	}
}

// SerializeTo prepends the ImmDt to b.
func (i *ImmDt) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(ImmDtLen)
	if err != nil {
		return err
	}
	i.put(buf)
	return nil
}

func (i *ImmDt) put(buf []byte) { binary.BigEndian.PutUint32(buf, i.Data) }
