package ib

// Datagram Extended Transport Header (IBTA Vol 1 9.3.2, Figure 130): the
// Q_Key and source QP of every UD and RD request.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                         Queue Key (Q_Key)                     |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   Reserved    |            Source QP (SrcQP)                  |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// DETHLen is the length of a DETH in bytes.
const DETHLen = 8

// DETH is the Datagram Extended Transport Header.
type DETH struct {
	layers.BaseLayer
	QKey     uint32 // infiniband.deth.q_key
	Reserved uint8
	SrcQP    uint32 // infiniband.deth.srcqp, 24 bits
}

// LayerType returns LayerTypeDETH.
func (d *DETH) LayerType() gopacket.LayerType { return LayerTypeDETH }

// CanDecode returns LayerTypeDETH.
func (d *DETH) CanDecode() gopacket.LayerClass { return LayerTypeDETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (d *DETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes a DETH from the start of data.
func (d *DETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < DETHLen {
		*d = DETH{}
		return errShort(df, "DETH", DETHLen, len(data))
	}
	d.decode(data)
	return nil
}

func (d *DETH) decode(data []byte) {
	w := binary.BigEndian.Uint32(data[4:])
	*d = DETH{
		BaseLayer: layers.BaseLayer{Contents: data[:DETHLen], Payload: data[DETHLen:]},
		QKey:      binary.BigEndian.Uint32(data),
		Reserved:  uint8(w >> 24),
		SrcQP:     w & 0xffffff,
	}
}

// SerializeTo prepends the DETH to b.
func (d *DETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(DETHLen)
	if err != nil {
		return err
	}
	d.put(buf)
	return nil
}

func (d *DETH) put(buf []byte) {
	binary.BigEndian.PutUint32(buf, d.QKey)
	binary.BigEndian.PutUint32(buf[4:], uint32(d.Reserved)<<24|d.SrcQP&0xffffff)
}
