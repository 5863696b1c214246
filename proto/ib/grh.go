package ib

// Global Route Header (IBTA Vol 1 8.3, Figure 119): the routing header of
// InfiniBand packets that leave their subnet, and the network header of
// RoCEv1 (Annex A16.4). It is laid out as an IPv6 header; the GIDs are
// IPv6 addresses. PayLen counts the bytes after the GRH up to and
// including the ICRC.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| IPVer |    TClass     |             Flow Label                |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|         Payload Length        |    NxtHdr     |    HopLmt     |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 Source GID (SGID), 128 bits                   |  8
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|              Destination GID (DGID), 128 bits                 | 24
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	NxtHdr 0x1B: IBA transport (a BTH follows)

import (
	"encoding/binary"
	"net/netip"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// GRHLen is the length of a GRH in bytes.
const GRHLen = 40

// NxtHdrIBA is the GRH next header of IBA transport.
const NxtHdrIBA = 0x1b

// GID is a 128-bit global identifier.
type GID [16]byte

// String returns g in IPv6 notation ("fe80::8c0:eb03:ea:512e"), or as an
// IPv4 address when g is IPv4-mapped (RoCEv2 GIDs).
func (g GID) String() string { return netip.AddrFrom16(g).Unmap().String() }

// GRH is the Global Route Header.
type GRH struct {
	layers.BaseLayer
	IPVer     uint8  // infiniband.grh.ipver
	TClass    uint8  // infiniband.grh.tclass
	FlowLabel uint32 // infiniband.grh.flowlabel, 20 bits
	PayLen    uint16 // infiniband.grh.paylen
	NxtHdr    uint8  // infiniband.grh.nxthdr
	HopLmt    uint8  // infiniband.grh.hoplmt
	SGID      GID    // infiniband.grh.sgid
	DGID      GID    // infiniband.grh.dgid
}

// LayerType returns LayerTypeGRH.
func (g *GRH) LayerType() gopacket.LayerType { return LayerTypeGRH }

// CanDecode returns LayerTypeGRH.
func (g *GRH) CanDecode() gopacket.LayerClass { return LayerTypeGRH }

// NextLayerType returns LayerTypeBTH for IBA transport.
func (g *GRH) NextLayerType() gopacket.LayerType {
	if g.NxtHdr == NxtHdrIBA {
		return LayerTypeBTH
	}
	return gopacket.LayerTypePayload
}

// DecodeFromBytes decodes a GRH. Payload stops after PayLen bytes; a
// shorter packet is truncated and Payload holds what there is.
func (g *GRH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*g = GRH{}
	if len(data) < GRHLen {
		return errShort(df, "GRH", GRHLen, len(data))
	}
	w := binary.BigEndian.Uint32(data)
	g.IPVer = uint8(w >> 28)
	g.TClass = uint8(w >> 20)
	g.FlowLabel = w & 0xfffff
	g.PayLen = binary.BigEndian.Uint16(data[4:])
	g.NxtHdr = data[6]
	g.HopLmt = data[7]
	copy(g.SGID[:], data[8:24])
	copy(g.DGID[:], data[24:40])
	g.Contents = data[:GRHLen]
	end := GRHLen + int(g.PayLen)
	if end > len(data) {
		df.SetTruncated()
		end = len(data)
	}
	g.Payload = data[GRHLen:end]
	return nil
}

// SerializeTo prepends the GRH to b. With FixLengths, PayLen is the length
// of what b held.
func (g *GRH) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	if opts.FixLengths {
		g.PayLen = uint16(len(b.Bytes()))
	}
	buf, err := b.PrependBytes(GRHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(buf, uint32(g.IPVer)<<28|uint32(g.TClass)<<20|g.FlowLabel&0xfffff)
	binary.BigEndian.PutUint16(buf[4:], g.PayLen)
	buf[6] = g.NxtHdr
	buf[7] = g.HopLmt
	copy(buf[8:24], g.SGID[:])
	copy(buf[24:40], g.DGID[:])
	return nil
}

// NetworkFlow returns the flow from SGID to DGID.
func (g *GRH) NetworkFlow() gopacket.Flow {
	return gopacket.NewFlow(layers.EndpointIPv6, g.SGID[:], g.DGID[:])
}

func decodeGRH(data []byte, p gopacket.PacketBuilder) error {
	g := &GRH{}
	if err := g.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(g)
	p.SetNetworkLayer(g)
	return p.NextDecoder(g.NextLayerType())
}
