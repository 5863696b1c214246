package ib

// CM ConnectRequest (REQ, IBTA Vol 1 12.6.5, Table 99): the active side
// asks to connect its QP (LocalQPN) to a service, proposing the PSN the
// passive side starts sending with and the path. Offsets are in the MAD
// class data (after the 24-byte MAD header).
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 Local Communication ID                        |  0
//	|                 Reserved                                      |  4
//	|                 ServiceID, 64 bits                            |  8
//	|                 Local CA GUID, 64 bits                        | 16
//	|                 Reserved                                      | 24
//	|                 Local Q_Key                                   | 28
//	|           Local QPN                           | Resp. Resour. | 32
//	|           Local EECN                          | Init. Depth   | 36
//	|           Remote EECN                         |RespTO |TS |E| 40
//	|           Starting PSN                        |LocalTO|Retry| 44
//	|         Partition Key         |  MTU  |R|RNR  |MaxRt|S|ExtT | 48
//	|  Primary path (44 bytes, CMPath)                              | 52
//	|  Alternate path (44 bytes)                                    | 96
//	|  Private data (92 bytes; RDMA-CM puts the IP addresses here)  |140
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// CMPath (Table 99, bytes 52–95):
//
//	|      Local Port LID           |      Remote Port LID          |  0
//	|      Local Port GID, 128 bits                                 |  4
//	|      Remote Port GID, 128 bits                                | 20
//	|      Flow Label                       | Rsv6      | PacketRate| 36
//	| Traffic Class |   Hop Limit   |  SL   |S| Rsv | AckTO   | Rsv | 40

import (
	"encoding/binary"
	"net/netip"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// cmReqFields is the length of the REQ fields before the private data.
const cmReqFields = 140

// CMPath is a path of a REQ.
type CMPath struct {
	LocalLID        uint16 // infiniband.cm.req.prim_locallid
	RemoteLID       uint16 // infiniband.cm.req.prim_remotelid
	LocalGID        GID    // infiniband.cm.req.prim_localgid
	RemoteGID       GID    // infiniband.cm.req.prim_remotegid
	FlowLabel       uint32 // 20 bits
	Reserved0       uint8  // 6 bits
	PacketRate      uint8  // 6 bits
	TrafficClass    uint8
	HopLimit        uint8
	SL              uint8 // 4 bits
	SubnetLocal     bool
	Reserved1       uint8 // 3 bits
	LocalACKTimeout uint8 // 5 bits
	Reserved2       uint8 // 3 bits
}

func (p *CMPath) decode(d []byte) {
	w := binary.BigEndian.Uint32(d[36:])
	*p = CMPath{
		LocalLID:        binary.BigEndian.Uint16(d),
		RemoteLID:       binary.BigEndian.Uint16(d[2:]),
		FlowLabel:       w >> 12,
		Reserved0:       uint8(w>>6) & 0x3f,
		PacketRate:      uint8(w) & 0x3f,
		TrafficClass:    d[40],
		HopLimit:        d[41],
		SL:              d[42] >> 4,
		SubnetLocal:     d[42]&8 != 0,
		Reserved1:       d[42] & 7,
		LocalACKTimeout: d[43] >> 3,
		Reserved2:       d[43] & 7,
	}
	copy(p.LocalGID[:], d[4:20])
	copy(p.RemoteGID[:], d[20:36])
}

func (p *CMPath) put(d []byte) {
	binary.BigEndian.PutUint16(d, p.LocalLID)
	binary.BigEndian.PutUint16(d[2:], p.RemoteLID)
	copy(d[4:20], p.LocalGID[:])
	copy(d[20:36], p.RemoteGID[:])
	binary.BigEndian.PutUint32(d[36:], (p.FlowLabel&0xfffff)<<12|uint32(p.Reserved0&0x3f)<<6|uint32(p.PacketRate&0x3f))
	d[40] = p.TrafficClass
	d[41] = p.HopLimit
	d[42] = p.SL<<4 | b2u8(p.SubnetLocal)<<3 | p.Reserved1&7
	d[43] = p.LocalACKTimeout<<3 | p.Reserved2&7
}

// CMReq is a CM ConnectRequest.
type CMReq struct {
	layers.BaseLayer
	LocalCommID             uint32 // infiniband.cm.req
	Reserved1               uint32
	ServiceID               uint64 // infiniband.cm.req.serviceid
	LocalCAGUID             uint64 // infiniband.cm.req.localcaguid
	Reserved2               uint32
	LocalQKey               uint32 // infiniband.cm.req.localqkey
	LocalQPN                uint32 // infiniband.cm.req.localqpn, 24 bits
	ResponderResources      uint8  // infiniband.cm.req.responderres
	LocalEECN               uint32 // 24 bits
	InitiatorDepth          uint8  // infiniband.cm.req.initdepth
	RemoteEECN              uint32 // 24 bits
	RemoteCMResponseTimeout uint8  // 5 bits
	TransportServiceType    uint8  // 2 bits: 0 RC, 1 UC, 2 RD
	EndToEndFlowControl     bool
	StartingPSN             uint32 // infiniband.cm.req.startpsn, 24 bits
	LocalCMResponseTimeout  uint8  // 5 bits
	RetryCount              uint8  // 3 bits
	PKey                    uint16 // infiniband.cm.req.pkey
	PathMTU                 uint8  // infiniband.cm.req.pppmtu: 1 = 256 ... 5 = 4096
	RDCExists               bool
	RNRRetryCount           uint8 // 3 bits
	MaxCMRetries            uint8 // 4 bits
	SRQ                     bool
	ExtendedTransport       uint8 // 3 bits
	Primary                 CMPath
	Alternate               CMPath
	PrivateData             []byte // infiniband.cm.req.private; aliases the input
}

// LayerType returns LayerTypeCMReq.
func (r *CMReq) LayerType() gopacket.LayerType { return LayerTypeCMReq }

// CanDecode returns LayerTypeCMReq.
func (r *CMReq) CanDecode() gopacket.LayerClass { return LayerTypeCMReq }

// NextLayerType returns gopacket.LayerTypeZero: the private data is part
// of the message.
func (r *CMReq) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes a REQ from MAD class data.
func (r *CMReq) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*r = CMReq{}
	if err := cmData(data, "CM REQ", cmReqFields, df); err != nil {
		return err
	}
	be := binary.BigEndian
	r.LocalCommID = be.Uint32(data)
	r.Reserved1 = be.Uint32(data[4:])
	r.ServiceID = be.Uint64(data[8:])
	r.LocalCAGUID = be.Uint64(data[16:])
	r.Reserved2 = be.Uint32(data[24:])
	r.LocalQKey = be.Uint32(data[28:])
	r.LocalQPN, r.ResponderResources = split24(be.Uint32(data[32:]))
	r.LocalEECN, r.InitiatorDepth = split24(be.Uint32(data[36:]))
	var low uint8
	r.RemoteEECN, low = split24(be.Uint32(data[40:]))
	r.RemoteCMResponseTimeout, r.TransportServiceType, r.EndToEndFlowControl = low>>3, low>>1&3, low&1 != 0
	r.StartingPSN, low = split24(be.Uint32(data[44:]))
	r.LocalCMResponseTimeout, r.RetryCount = low>>3, low&7
	r.PKey = be.Uint16(data[48:])
	r.PathMTU, r.RDCExists, r.RNRRetryCount = data[50]>>4, data[50]&8 != 0, data[50]&7
	r.MaxCMRetries, r.SRQ, r.ExtendedTransport = data[51]>>4, data[51]&8 != 0, data[51]&7
	r.Primary.decode(data[52:96])
	r.Alternate.decode(data[96:140])
	r.PrivateData = data[cmReqFields:]
	r.Contents = data
	return nil
}

// SerializeTo prepends the 232-byte REQ to b, its private data padded with
// zeros.
func (r *CMReq) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	d, err := prependCM(b, cmReqFields, r.PrivateData)
	if err != nil {
		return err
	}
	be := binary.BigEndian
	be.PutUint32(d, r.LocalCommID)
	be.PutUint32(d[4:], r.Reserved1)
	be.PutUint64(d[8:], r.ServiceID)
	be.PutUint64(d[16:], r.LocalCAGUID)
	be.PutUint32(d[24:], r.Reserved2)
	be.PutUint32(d[28:], r.LocalQKey)
	be.PutUint32(d[32:], join24(r.LocalQPN, r.ResponderResources))
	be.PutUint32(d[36:], join24(r.LocalEECN, r.InitiatorDepth))
	be.PutUint32(d[40:], join24(r.RemoteEECN, r.RemoteCMResponseTimeout<<3|(r.TransportServiceType&3)<<1|b2u8(r.EndToEndFlowControl)))
	be.PutUint32(d[44:], join24(r.StartingPSN, r.LocalCMResponseTimeout<<3|r.RetryCount&7))
	be.PutUint16(d[48:], r.PKey)
	d[50] = r.PathMTU<<4 | b2u8(r.RDCExists)<<3 | r.RNRRetryCount&7
	d[51] = r.MaxCMRetries<<4 | b2u8(r.SRQ)<<3 | r.ExtendedTransport&7
	r.Primary.put(d[52:96])
	r.Alternate.put(d[96:140])
	return nil
}

// MTUBytes returns the path MTU a PathMTU code stands for (0 if unknown).
func MTUBytes(code uint8) int {
	if code >= 1 && code <= 5 {
		return 128 << code
	}
	return 0
}

// IPCM is the RDMA-CM header in the private data of a REQ whose ServiceID
// is an IP service (prefix 0x0000000001): the IP addresses and port the
// connection is for (Wireshark: infiniband.cm.req.ip_cm).
type IPCM struct {
	Version  uint8 // infiniband.cm.req.ip_cm.majv/minv
	IPVer    uint8 // 4 or 6
	SrcPort  uint16
	Src, Dst netip.Addr
}

// IPServicePrefix is the top 40 bits of an RDMA-CM ServiceID.
const IPServicePrefix = 0x0000000001

// IPCM decodes the RDMA-CM header of the private data; ok is false when
// the ServiceID is not an IP service or the header is not there.
func (r *CMReq) IPCM() (h IPCM, ok bool) {
	p := r.PrivateData
	if r.ServiceID>>24 != IPServicePrefix || len(p) < 36 {
		return h, false
	}
	h = IPCM{Version: p[0], IPVer: p[1] >> 4, SrcPort: binary.BigEndian.Uint16(p[2:])}
	switch h.IPVer {
	case 4:
		h.Src = netip.AddrFrom4([4]byte(p[16:20]))
		h.Dst = netip.AddrFrom4([4]byte(p[32:36]))
	case 6:
		h.Src = netip.AddrFrom16([16]byte(p[4:20]))
		h.Dst = netip.AddrFrom16([16]byte(p[20:36]))
	default:
		return h, false
	}
	return h, true
}

// ServicePort returns the port of an IP service ID (RDMA-CM puts the
// destination port in its low 16 bits).
func (r *CMReq) ServicePort() uint16 { return uint16(r.ServiceID) }

func split24(w uint32) (uint32, uint8)  { return w >> 8, uint8(w) }
func join24(hi uint32, lo uint8) uint32 { return (hi&0xffffff)<<8 | uint32(lo) }

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
