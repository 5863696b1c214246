package ib

// The CM messages that finish, refuse and end a connection (IBTA Vol 1
// 12.6.6 to 12.6.11; Tables 100, 102, 103, 104, 105). Offsets are in the
// MAD class data. Every message starts with the two communication IDs
// that tie it to its REQ: the sender's, then the receiver's.
//
//	REP  ConnectReply                     RTU  ReadyToUse
//	| Local Communication ID        |  0  | Local Communication ID  |  0
//	| Remote Communication ID       |  4  | Remote Communication ID |  4
//	| Local Q_Key                   |  8  | Private data (224)      |  8
//	| Local QPN             | Rsv   | 12
//	| Local EECN            | Rsv   | 16  REJ  ConnectReject
//	| Starting PSN          | Rsv   | 20  | Local Communication ID  |  0
//	|RespRes|InitDep|AckDly FA E|RNR S| 24  | Remote Communication ID |  4
//	| Local CA GUID, 64 bits        | 28  |MR Rsv|InfoLen R| Reason |  8
//	| Private data (196)            | 36  | ARI (72)                | 12
//	                                      | Private data (148)      | 84
//	DREQ  DisconnectRequest               DREP  DisconnectReply
//	| Local Communication ID        |  0  | Local Communication ID  |  0
//	| Remote Communication ID       |  4  | Remote Communication ID |  4
//	| Remote QPN/EECN       | Rsv   |  8  | Private data (224)      |  8
//	| Private data (220)            | 12

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Lengths of the fields before the private data.
const (
	cmRepFields  = 36
	cmRtuFields  = 8
	cmRejFields  = 84
	cmDreqFields = 12
	cmDrepFields = 8
)

// CMRep is a CM ConnectReply: the passive side's QP and starting PSN.
type CMRep struct {
	layers.BaseLayer
	LocalCommID         uint32 // infiniband.cm.rep
	RemoteCommID        uint32 // infiniband.cm.rep.remotecommid
	LocalQKey           uint32 // infiniband.cm.rep.localqkey
	LocalQPN            uint32 // infiniband.cm.rep.localqpn, 24 bits
	Reserved1           uint8
	LocalEECN           uint32 // 24 bits
	Reserved2           uint8
	StartingPSN         uint32 // infiniband.cm.rep.startpsn, 24 bits
	Reserved3           uint8
	ResponderResources  uint8 // infiniband.cm.rep.respres
	InitiatorDepth      uint8 // infiniband.cm.rep.initdepth
	TargetACKDelay      uint8 // 5 bits
	FailoverAccepted    uint8 // 2 bits
	EndToEndFlowControl bool
	RNRRetryCount       uint8 // 3 bits
	SRQ                 bool
	Reserved4           uint8  // 4 bits
	LocalCAGUID         uint64 // infiniband.cm.rep.localcaguid
	PrivateData         []byte // infiniband.cm.rep.private; aliases the input
}

// LayerType returns LayerTypeCMRep.
func (r *CMRep) LayerType() gopacket.LayerType { return LayerTypeCMRep }

// CanDecode returns LayerTypeCMRep.
func (r *CMRep) CanDecode() gopacket.LayerClass { return LayerTypeCMRep }

// NextLayerType returns gopacket.LayerTypeZero.
func (r *CMRep) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a REP from MAD class data.
func (r *CMRep) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = CMRep{}
	if err := cmData(data, "CM REP", cmRepFields, df); err != nil {
		return err
	}
	be := binary.BigEndian
	r.LocalCommID = be.Uint32(data)
	r.RemoteCommID = be.Uint32(data[4:])
	r.LocalQKey = be.Uint32(data[8:])
	r.LocalQPN, r.Reserved1 = split24(be.Uint32(data[12:]))
	r.LocalEECN, r.Reserved2 = split24(be.Uint32(data[16:]))
	r.StartingPSN, r.Reserved3 = split24(be.Uint32(data[20:]))
	r.ResponderResources = data[24]
	r.InitiatorDepth = data[25]
	r.TargetACKDelay, r.FailoverAccepted, r.EndToEndFlowControl = data[26]>>3, data[26]>>1&3, data[26]&1 != 0
	r.RNRRetryCount, r.SRQ, r.Reserved4 = data[27]>>5, data[27]&0x10 != 0, data[27]&0xf
	r.LocalCAGUID = be.Uint64(data[28:])
	r.PrivateData = data[cmRepFields:]
	r.Contents = data
	return nil
}

// SerializeTo prepends the 232-byte REP to b.
func (r *CMRep) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := prependCM(b, cmRepFields, r.PrivateData)
	if err != nil {
		return err
	}
	be := binary.BigEndian
	be.PutUint32(d, r.LocalCommID)
	be.PutUint32(d[4:], r.RemoteCommID)
	be.PutUint32(d[8:], r.LocalQKey)
	be.PutUint32(d[12:], join24(r.LocalQPN, r.Reserved1))
	be.PutUint32(d[16:], join24(r.LocalEECN, r.Reserved2))
	be.PutUint32(d[20:], join24(r.StartingPSN, r.Reserved3))
	d[24] = r.ResponderResources
	d[25] = r.InitiatorDepth
	d[26] = r.TargetACKDelay<<3 | (r.FailoverAccepted&3)<<1 | b2u8(r.EndToEndFlowControl)
	d[27] = r.RNRRetryCount<<5 | b2u8(r.SRQ)<<4 | r.Reserved4&0xf
	be.PutUint64(d[28:], r.LocalCAGUID)
	return nil
}

// commIDs returns the two communication IDs every CM message but REQ
// starts with: the sender's and the receiver's.
func commIDs(d []byte) (local, remote uint32) {
	return binary.BigEndian.Uint32(d), binary.BigEndian.Uint32(d[4:])
}

func putCommIDs(d []byte, local, remote uint32) {
	binary.BigEndian.PutUint32(d, local)
	binary.BigEndian.PutUint32(d[4:], remote)
}

// CMRtu is a CM ReadyToUse: the active side confirms the connection.
type CMRtu struct {
	layers.BaseLayer
	LocalCommID  uint32 // infiniband.cm.rtu.localcommid
	RemoteCommID uint32 // infiniband.cm.rtu.remotecommid
	PrivateData  []byte // aliases the input
}

// LayerType returns LayerTypeCMRtu.
func (r *CMRtu) LayerType() gopacket.LayerType { return LayerTypeCMRtu }

// CanDecode returns LayerTypeCMRtu.
func (r *CMRtu) CanDecode() gopacket.LayerClass { return LayerTypeCMRtu }

// NextLayerType returns gopacket.LayerTypeZero.
func (r *CMRtu) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes an RTU from MAD class data.
func (r *CMRtu) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = CMRtu{}
	if err := cmData(data, "CM RTU", cmRtuFields, df); err != nil {
		return err
	}
	r.LocalCommID, r.RemoteCommID = commIDs(data)
	r.PrivateData = data[cmRtuFields:]
	r.Contents = data
	return nil
}

// SerializeTo prepends the 232-byte RTU to b.
func (r *CMRtu) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := prependCM(b, cmRtuFields, r.PrivateData)
	if err != nil {
		return err
	}
	putCommIDs(d, r.LocalCommID, r.RemoteCommID)
	return nil
}

// CMRej is a CM ConnectReject.
type CMRej struct {
	layers.BaseLayer
	LocalCommID      uint32 // infiniband.cm.rej.localcommid
	RemoteCommID     uint32 // infiniband.cm.rej.remotecommid
	MessageRejected  uint8  // infiniband.cm.rej.msgrej: 0 REQ, 1 REP, 2 no message
	Reserved0        uint8  // 6 bits
	RejectInfoLength uint8  // 7 bits
	Reserved1        uint8  // 1 bit
	Reason           uint16 // infiniband.cm.rej.reason (Table 103)
	ARI              []byte // 72 bytes of additional reject information; aliases the input
	PrivateData      []byte // aliases the input
}

// LayerType returns LayerTypeCMRej.
func (r *CMRej) LayerType() gopacket.LayerType { return LayerTypeCMRej }

// CanDecode returns LayerTypeCMRej.
func (r *CMRej) CanDecode() gopacket.LayerClass { return LayerTypeCMRej }

// NextLayerType returns gopacket.LayerTypeZero.
func (r *CMRej) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a REJ from MAD class data.
func (r *CMRej) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = CMRej{}
	if err := cmData(data, "CM REJ", cmRejFields, df); err != nil {
		return err
	}
	r.LocalCommID, r.RemoteCommID = commIDs(data)
	r.MessageRejected, r.Reserved0 = data[8]>>6, data[8]&0x3f
	r.RejectInfoLength, r.Reserved1 = data[9]>>1, data[9]&1
	r.Reason = binary.BigEndian.Uint16(data[10:])
	r.ARI = data[12:cmRejFields]
	r.PrivateData = data[cmRejFields:]
	r.Contents = data
	return nil
}

// SerializeTo prepends the 232-byte REJ to b.
func (r *CMRej) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := prependCM(b, cmRejFields, r.PrivateData)
	if err != nil {
		return err
	}
	putCommIDs(d, r.LocalCommID, r.RemoteCommID)
	d[8] = r.MessageRejected<<6 | r.Reserved0&0x3f
	d[9] = r.RejectInfoLength<<1 | r.Reserved1&1
	binary.BigEndian.PutUint16(d[10:], r.Reason)
	copy(d[12:cmRejFields], r.ARI)
	return nil
}

// CMDreq is a CM DisconnectRequest.
type CMDreq struct {
	layers.BaseLayer
	LocalCommID  uint32 // infiniband.cm.dreq.localcommid
	RemoteCommID uint32 // infiniband.cm.dreq.remotecommid
	RemoteQPN    uint32 // infiniband.cm.req.remoteqpneecn, 24 bits
	Reserved     uint8
	PrivateData  []byte // aliases the input
}

// LayerType returns LayerTypeCMDreq.
func (r *CMDreq) LayerType() gopacket.LayerType { return LayerTypeCMDreq }

// CanDecode returns LayerTypeCMDreq.
func (r *CMDreq) CanDecode() gopacket.LayerClass { return LayerTypeCMDreq }

// NextLayerType returns gopacket.LayerTypeZero.
func (r *CMDreq) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a DREQ from MAD class data.
func (r *CMDreq) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = CMDreq{}
	if err := cmData(data, "CM DREQ", cmDreqFields, df); err != nil {
		return err
	}
	r.LocalCommID, r.RemoteCommID = commIDs(data)
	r.RemoteQPN, r.Reserved = split24(binary.BigEndian.Uint32(data[8:]))
	r.PrivateData = data[cmDreqFields:]
	r.Contents = data
	return nil
}

// SerializeTo prepends the 232-byte DREQ to b.
func (r *CMDreq) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := prependCM(b, cmDreqFields, r.PrivateData)
	if err != nil {
		return err
	}
	putCommIDs(d, r.LocalCommID, r.RemoteCommID)
	binary.BigEndian.PutUint32(d[8:], join24(r.RemoteQPN, r.Reserved))
	return nil
}

// CMDrep is a CM DisconnectReply.
type CMDrep struct {
	layers.BaseLayer
	LocalCommID  uint32 // infiniband.cm.drsp.localcommid
	RemoteCommID uint32 // infiniband.cm.drsp.remotecommid
	PrivateData  []byte // aliases the input
}

// LayerType returns LayerTypeCMDrep.
func (r *CMDrep) LayerType() gopacket.LayerType { return LayerTypeCMDrep }

// CanDecode returns LayerTypeCMDrep.
func (r *CMDrep) CanDecode() gopacket.LayerClass { return LayerTypeCMDrep }

// NextLayerType returns gopacket.LayerTypeZero.
func (r *CMDrep) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a DREP from MAD class data.
func (r *CMDrep) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = CMDrep{}
	if err := cmData(data, "CM DREP", cmDrepFields, df); err != nil {
		return err
	}
	r.LocalCommID, r.RemoteCommID = commIDs(data)
	r.PrivateData = data[cmDrepFields:]
	r.Contents = data
	return nil
}

// SerializeTo prepends the 232-byte DREP to b.
func (r *CMDrep) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := prependCM(b, cmDrepFields, r.PrivateData)
	if err != nil {
		return err
	}
	putCommIDs(d, r.LocalCommID, r.RemoteCommID)
	return nil
}
