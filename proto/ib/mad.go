package ib

// Management Datagram common header (IBTA Vol 1 13.4.2, Figure 146). MADs
// travel in UD SENDs to QP0 (subnet management) and QP1 (general services:
// the Communication Manager, whose messages set up RC connections). A MAD
// is 256 bytes: this 24-byte header and 232 bytes of class data.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|  BaseVersion  |   MgmtClass   | ClassVersion  |R|   Method    |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|            Status             |         ClassSpecific         |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  TransactionID, 64 bits                       |  8
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|          AttributeID          |           Reserved            | 16
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                      AttributeModifier                        | 20
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  class data (232 bytes)                       | 24

import (
	"encoding/binary"
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Sizes in bytes.
const (
	MADHeaderLen = 24
	MADLen       = 256
	MADDataLen   = MADLen - MADHeaderLen
)

// MgmtClass is a MAD management class.
type MgmtClass uint8

// Management classes (Table 124).
const (
	MgmtClassSubnLID      MgmtClass = 0x01
	MgmtClassSubnAdm      MgmtClass = 0x03
	MgmtClassPerf         MgmtClass = 0x04
	MgmtClassBM           MgmtClass = 0x05
	MgmtClassDevMgt       MgmtClass = 0x06
	MgmtClassCM           MgmtClass = 0x07
	MgmtClassSNMP         MgmtClass = 0x08
	MgmtClassSubnDirected MgmtClass = 0x81
)

var mgmtClassNames = map[MgmtClass]string{
	MgmtClassSubnLID: "Subnet Management (LID routed)", MgmtClassSubnAdm: "Subnet Administration",
	MgmtClassPerf: "Performance Management", MgmtClassBM: "Baseboard Management",
	MgmtClassDevMgt: "Device Management", MgmtClassCM: "Communication Management",
	MgmtClassSNMP: "SNMP Tunneling", MgmtClassSubnDirected: "Subnet Management (directed route)",
}

// String returns the name Wireshark gives c ("Communication Management"),
// or "class 0xNN" for a value without one.
func (c MgmtClass) String() string {
	if s, ok := mgmtClassNames[c]; ok {
		return s
	}
	return fmt.Sprintf("class %#02x", uint8(c))
}

// CMAttr is a Communication Management attribute: the CM message type
// (IBTA 16.7, Table 106).
type CMAttr uint16

// CM messages.
const (
	CMAttrREQ     CMAttr = 0x0010
	CMAttrMRA     CMAttr = 0x0011
	CMAttrREJ     CMAttr = 0x0012
	CMAttrREP     CMAttr = 0x0013
	CMAttrRTU     CMAttr = 0x0014
	CMAttrDREQ    CMAttr = 0x0015
	CMAttrDREP    CMAttr = 0x0016
	CMAttrSIDRReq CMAttr = 0x0017
	CMAttrSIDRRep CMAttr = 0x0018
	CMAttrLAP     CMAttr = 0x0019
	CMAttrAPR     CMAttr = 0x001a
)

var cmAttrNames = map[CMAttr]string{
	CMAttrREQ: "ConnectRequest", CMAttrMRA: "MsgRcptAck", CMAttrREJ: "ConnectReject",
	CMAttrREP: "ConnectReply", CMAttrRTU: "ReadyToUse", CMAttrDREQ: "DisconnectRequest",
	CMAttrDREP: "DisconnectReply", CMAttrSIDRReq: "ServiceIDResReq", CMAttrSIDRRep: "ServiceIDResReqResp",
	CMAttrLAP: "LoadAlternatePath", CMAttrAPR: "AlternatePathResponse",
}

// String returns Wireshark's name of a CM message ("ConnectRequest"), or
// "attribute 0xNNNN" for a value without one.
func (a CMAttr) String() string {
	if s, ok := cmAttrNames[a]; ok {
		return s
	}
	return fmt.Sprintf("attribute %#04x", uint16(a))
}

// MAD is the common MAD header; its Payload is the class data.
type MAD struct {
	layers.BaseLayer
	BaseVersion       uint8     // infiniband.mad.baseversion
	MgmtClass         MgmtClass // infiniband.mad.mgmtclass
	ClassVersion      uint8     // infiniband.mad.classversion
	Method            uint8     // infiniband.mad.method (bit 7: response)
	Status            uint16    // infiniband.mad.status
	ClassSpecific     uint16    // infiniband.mad.classspecific
	TransactionID     uint64    // infiniband.mad.transactionid
	AttributeID       uint16    // infiniband.mad.attributeid
	Reserved          uint16
	AttributeModifier uint32 // infiniband.mad.attributemodifier
}

// LayerType returns LayerTypeMAD.
func (m *MAD) LayerType() gopacket.LayerType { return LayerTypeMAD }

// CanDecode returns LayerTypeMAD.
func (m *MAD) CanDecode() gopacket.LayerClass { return LayerTypeMAD }

// NextLayerType returns the layer of a CM message this package decodes,
// and gopacket.LayerTypePayload for everything else.
func (m *MAD) NextLayerType() gopacket.LayerType {
	if m.MgmtClass != MgmtClassCM || m.BaseVersion != 1 {
		return gopacket.LayerTypePayload
	}
	switch CMAttr(m.AttributeID) {
	case CMAttrREQ:
		return LayerTypeCMReq
	case CMAttrREP:
		return LayerTypeCMRep
	case CMAttrRTU:
		return LayerTypeCMRtu
	case CMAttrREJ:
		return LayerTypeCMRej
	case CMAttrDREQ:
		return LayerTypeCMDreq
	case CMAttrDREP:
		return LayerTypeCMDrep
	}
	return gopacket.LayerTypePayload
}

// DecodeFromBytes decodes the common header; Payload is the rest (232
// bytes for a well-formed MAD).
func (m *MAD) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*m = MAD{}
	if len(data) < MADHeaderLen {
		return errShort(df, "MAD", MADHeaderLen, len(data))
	}
	m.BaseVersion = data[0]
	m.MgmtClass = MgmtClass(data[1])
	m.ClassVersion = data[2]
	m.Method = data[3]
	m.Status = binary.BigEndian.Uint16(data[4:])
	m.ClassSpecific = binary.BigEndian.Uint16(data[6:])
	m.TransactionID = binary.BigEndian.Uint64(data[8:])
	m.AttributeID = binary.BigEndian.Uint16(data[16:])
	m.Reserved = binary.BigEndian.Uint16(data[18:])
	m.AttributeModifier = binary.BigEndian.Uint32(data[20:])
	m.BaseLayer = layers.BaseLayer{Contents: data[:MADHeaderLen], Payload: data[MADHeaderLen:]}
	return nil
}

// SerializeTo prepends the common header to b.
func (m *MAD) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(MADHeaderLen)
	if err != nil {
		return err
	}
	buf[0] = m.BaseVersion
	buf[1] = uint8(m.MgmtClass)
	buf[2] = m.ClassVersion
	buf[3] = m.Method
	binary.BigEndian.PutUint16(buf[4:], m.Status)
	binary.BigEndian.PutUint16(buf[6:], m.ClassSpecific)
	binary.BigEndian.PutUint64(buf[8:], m.TransactionID)
	binary.BigEndian.PutUint16(buf[16:], m.AttributeID)
	binary.BigEndian.PutUint16(buf[18:], m.Reserved)
	binary.BigEndian.PutUint32(buf[20:], m.AttributeModifier)
	return nil
}

func decodeMAD(data []byte, p gopacket.PacketBuilder) error {
	return decodeLayer[MAD](data, p)
}

// cmData returns the class data of a CM message, which must hold n bytes
// of fields; the rest is private data.
func cmData(data []byte, layer string, n int, df gopacket.DecodeFeedback) error {
	if len(data) < n {
		return errShort(df, layer, n, len(data))
	}
	return nil
}

// prependCM prepends a CM message of MADDataLen bytes whose fields take n
// bytes and whose private data follows; the private data is written and
// padded with zeros.
func prependCM(b gopacket.SerializeBuffer, n int, private []byte) ([]byte, error) {
	buf, err := b.PrependBytes(MADDataLen)
	if err != nil {
		return nil, err
	}
	clear(buf)
	copy(buf[n:], private)
	return buf, nil
}
