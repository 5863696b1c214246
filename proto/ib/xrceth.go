package ib

// XRC Extended Transport Header (IBTA Vol 1 Annex A14.4.2): the shared
// receive queue an XRC request is for. XRC requests carry it right after
// the BTH; XRC responses do not.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   Reserved    |                 XRC SRQ number                |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// XRCETHLen is the length of an XRCETH in bytes.
const XRCETHLen = 4

// XRCETH is the XRC Extended Transport Header.
type XRCETH struct {
	layers.BaseLayer
	Reserved uint8
	XRCSRQ   uint32 // 24 bits
}

// LayerType returns LayerTypeXRCETH.
func (x *XRCETH) LayerType() gopacket.LayerType { return LayerTypeXRCETH }

// CanDecode returns LayerTypeXRCETH.
func (x *XRCETH) CanDecode() gopacket.LayerClass { return LayerTypeXRCETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (x *XRCETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an XRCETH from the start of data.
func (x *XRCETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < XRCETHLen {
		*x = XRCETH{}
		return errShort(df, "XRCETH", XRCETHLen, len(data))
	}
	x.decode(data)
	return nil
}

func (x *XRCETH) decode(data []byte) {
	w := binary.BigEndian.Uint32(data)
	*x = XRCETH{
		BaseLayer: layers.BaseLayer{Contents: data[:XRCETHLen], Payload: data[XRCETHLen:]},
		Reserved:  uint8(w >> 24),
		XRCSRQ:    w & 0xffffff,
	}
}

// SerializeTo prepends the XRCETH to b.
func (x *XRCETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(XRCETHLen)
	if err != nil {
		return err
	}
	x.put(buf)
	return nil
}

func (x *XRCETH) put(buf []byte) {
	binary.BigEndian.PutUint32(buf, uint32(x.Reserved)<<24|x.XRCSRQ&0xffffff)
}
