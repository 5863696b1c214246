package fields

// The registry's fields, by layer. Wireshark's fields have the widths and
// bases of tshark -G fields (tshark 4.0), which fields_test.go checks.

import (
	"net/netip"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/captures/dfilter"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

func fieldDefs() []FieldDef {
	return []FieldDef{
		// frame
		withRaw(fp("frame", "every frame", func(p *analysis.Packet) bool { return true }), func(p *analysis.Packet) []byte { return p.Data[p.Pseudo:] }),
		fu("frame.number", 32, false, "the frame's number, from 1", func(p *analysis.Packet) (uint64, bool) { return u64(p.Frame), true }),
		fu("frame.len", 32, false, "the frame's length on the wire", func(p *analysis.Packet) (uint64, bool) { return u64(p.WireLen), true }),
		fu("frame.cap_len", 32, false, "the bytes captured", func(p *analysis.Packet) (uint64, bool) { return u64(p.CapLen), true }),
		{Name: "frame.comment", Type: dfilter.TypeString, Desc: "a comment on the frame in a pcapng capture (decode --check -w writes rdmalab's notes as comments)",
			get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
				for _, c := range p.Comments {
					vs = append(vs, dfilter.String(c))
				}
				return vs
			}},
		{Name: "frame.time_epoch", Type: dfilter.TypeFloat, Time: true, Desc: "the time, in seconds since 1970", get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			return append(vs, timeValue(p.Time.UnixNano()))
		}},
		{Name: "frame.time_relative", Type: dfilter.TypeFloat, Time: true, Desc: "the time since the first frame, in seconds", get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			return append(vs, timeValue(int64(p.Rel)))
		}},
		fu("rdmalab.frame.offset", 64, false, "the byte offset of the frame's record in the file", func(p *analysis.Packet) (uint64, bool) { return u64(uint64(p.Offset)), true }),
		// Ethernet, IP, UDP
		withRaw(fp("eth", "Ethernet", func(p *analysis.Packet) bool { return p.Eth != nil }), func(p *analysis.Packet) []byte {
			if p.Eth == nil {
				return nil
			}
			return p.Eth.Contents
		}),
		fm("eth.dst", dfilter.TypeEther, 0, false, "destination MAC address", func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if p.Eth != nil {
				vs = append(vs, dfilter.Ether(p.Eth.DstMAC))
			}
			return vs
		}),
		fm("eth.src", dfilter.TypeEther, 0, false, "source MAC address", func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if p.Eth != nil {
				vs = append(vs, dfilter.Ether(p.Eth.SrcMAC))
			}
			return vs
		}),
		fm("eth.addr", dfilter.TypeEther, 0, false, "destination or source MAC address", func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if p.Eth != nil {
				vs = append(vs, dfilter.Ether(p.Eth.DstMAC), dfilter.Ether(p.Eth.SrcMAC))
			}
			return vs
		}),
		fu("eth.type", 16, true, "EtherType", func(p *analysis.Packet) (uint64, bool) {
			if p.Eth == nil {
				return 0, false
			}
			return u64(uint16(p.Eth.EthernetType)), true
		}),
		withRaw(fp("ip", "IPv4", func(p *analysis.Packet) bool { return p.IPv4 != nil }), func(p *analysis.Packet) []byte {
			if p.IPv4 == nil {
				return nil
			}
			return p.IPv4.Contents
		}),
		fa("ip.src", dfilter.TypeIPv4, "source IPv4 address", func(p *analysis.Packet) (netip.Addr, bool) { return p.Src.IP.Unmap(), p.IPv4 != nil }),
		fa("ip.dst", dfilter.TypeIPv4, "destination IPv4 address", func(p *analysis.Packet) (netip.Addr, bool) { return p.Dst.IP.Unmap(), p.IPv4 != nil }),
		fm("ip.addr", dfilter.TypeIPv4, 0, false, "source or destination IPv4 address", func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if p.IPv4 != nil {
				vs = append(vs, dfilter.Addr(p.Src.IP.Unmap()), dfilter.Addr(p.Dst.IP.Unmap()))
			}
			return vs
		}),
		fu("ip.dsfield", 8, true, "Differentiated Services field", func(p *analysis.Packet) (uint64, bool) {
			if p.IPv4 == nil {
				return 0, false
			}
			return u64(p.IPv4.TOS), true
		}),
		fu("ip.ttl", 8, false, "time to live", func(p *analysis.Packet) (uint64, bool) {
			if p.IPv4 == nil {
				return 0, false
			}
			return u64(p.IPv4.TTL), true
		}),
		fu("ip.proto", 8, false, "the protocol carried (17 UDP)", func(p *analysis.Packet) (uint64, bool) {
			if p.IPv4 == nil {
				return 0, false
			}
			return u64(uint8(p.IPv4.Protocol)), true
		}),
		fu("ip.len", 16, false, "total length", func(p *analysis.Packet) (uint64, bool) {
			if p.IPv4 == nil {
				return 0, false
			}
			return u64(p.IPv4.Length), true
		}),
		fu("ip.id", 16, true, "identification", func(p *analysis.Packet) (uint64, bool) {
			if p.IPv4 == nil {
				return 0, false
			}
			return u64(p.IPv4.Id), true
		}),
		withRaw(fp("ipv6", "IPv6", func(p *analysis.Packet) bool { return p.IPv6 != nil }), func(p *analysis.Packet) []byte {
			if p.IPv6 == nil {
				return nil
			}
			return p.IPv6.Contents
		}),
		fa("ipv6.src", dfilter.TypeIPv6, "source IPv6 address", func(p *analysis.Packet) (netip.Addr, bool) { return p.Src.IP, p.IPv6 != nil }),
		fa("ipv6.dst", dfilter.TypeIPv6, "destination IPv6 address", func(p *analysis.Packet) (netip.Addr, bool) { return p.Dst.IP, p.IPv6 != nil }),
		fm("ipv6.addr", dfilter.TypeIPv6, 0, false, "source or destination IPv6 address", func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if p.IPv6 != nil {
				vs = append(vs, dfilter.Addr(p.Src.IP), dfilter.Addr(p.Dst.IP))
			}
			return vs
		}),
		withRaw(fp("udp", "UDP", func(p *analysis.Packet) bool { return p.UDP != nil }), func(p *analysis.Packet) []byte {
			if p.UDP == nil {
				return nil
			}
			return p.UDP.Contents
		}),
		fu("udp.srcport", 16, false, "source port", func(p *analysis.Packet) (uint64, bool) { return u64(p.SrcPort), p.UDP != nil }),
		fu("udp.dstport", 16, false, "destination port", func(p *analysis.Packet) (uint64, bool) { return u64(p.DstPort), p.UDP != nil }),
		fm("udp.port", dfilter.TypeUint, 16, false, "source or destination port", func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if p.UDP != nil {
				vs = append(vs, dfilter.Uint(u64(p.SrcPort)), dfilter.Uint(u64(p.DstPort)))
			}
			return vs
		}),
		fu("udp.length", 16, false, "length", func(p *analysis.Packet) (uint64, bool) {
			if p.UDP == nil {
				return 0, false
			}
			return u64(p.UDP.Length), true
		}),
		fp("tcp", "TCP", func(p *analysis.Packet) bool { return p.TCP != nil }),
		// InfiniBand
		withRaw(fp("infiniband", "InfiniBand: a BTH, an LRH or a MAD", func(p *analysis.Packet) bool { return p.BTH != nil || p.LRH != nil || p.MAD != nil }), infinibandBytes),
		fs("rdmalab.encap", "how InfiniBand travels: RoCEv2, RoCEv1 or InfiniBand", func(p *analysis.Packet) (string, bool) {
			if p.Encap == frame.EncapNone {
				return "", false
			}
			return p.Encap.Field(), true
		}),
		withRaw(fp("infiniband.lrh", "Local Route Header", func(p *analysis.Packet) bool { return p.LRH != nil }), func(p *analysis.Packet) []byte {
			if p.LRH == nil {
				return nil
			}
			return p.LRH.Contents
		}),
		lrhU("infiniband.lrh.vl", 8, true, "virtual lane", func(l *ib.LRH) uint64 { return u64(l.VL) }),
		lrhU("infiniband.lrh.lver", 8, false, "link version", func(l *ib.LRH) uint64 { return u64(l.LVer) }),
		lrhU("infiniband.lrh.sl", 8, false, "service level", func(l *ib.LRH) uint64 { return u64(l.SL) }),
		lrhU("infiniband.lrh.lnh", 8, true, "link next header", func(l *ib.LRH) uint64 { return u64(l.LNH) }),
		lrhU("infiniband.lrh.dlid", 16, false, "destination LID", func(l *ib.LRH) uint64 { return u64(l.DLID) }),
		lrhU("infiniband.lrh.pktlen", 16, false, "packet length in 4-byte words", func(l *ib.LRH) uint64 { return u64(l.PktLen) }),
		lrhU("infiniband.lrh.slid", 16, false, "source LID", func(l *ib.LRH) uint64 { return u64(l.SLID) }),
		fu("infiniband.variant.crc", 16, true, "VCRC as on the wire", func(p *analysis.Packet) (uint64, bool) {
			if p.LRH == nil || !p.LRH.HasVCRC {
				return 0, false
			}
			return u64(p.LRH.VCRC), true
		}),
		crcOK("rdmalab.vcrc_ok", "the VCRC matches (absent: no VCRC, or not checkable)", func(p *analysis.Packet) frame.CRCState {
			if p.LRH == nil {
				return frame.CRCAbsent
			}
			return p.VCRC.State
		}),
		fp("rdmalab.vcrc_bad", "the VCRC does not match", func(p *analysis.Packet) bool { return p.LRH != nil && p.VCRC.State == frame.CRCBad }),
		withRaw(fp("infiniband.grh", "Global Route Header", func(p *analysis.Packet) bool { return p.GRH != nil }), func(p *analysis.Packet) []byte {
			if p.GRH == nil {
				return nil
			}
			return p.GRH.Contents
		}),
		grhU("infiniband.grh.ipver", 8, "IP version", func(g *ib.GRH) uint64 { return u64(g.IPVer) }),
		grhU("infiniband.grh.tclass", 16, "traffic class", func(g *ib.GRH) uint64 { return u64(g.TClass) }),
		grhU("infiniband.grh.flowlabel", 32, "flow label", func(g *ib.GRH) uint64 { return u64(g.FlowLabel) }),
		grhU("infiniband.grh.paylen", 16, "payload length", func(g *ib.GRH) uint64 { return u64(g.PayLen) }),
		grhU("infiniband.grh.nxthdr", 8, "next header", func(g *ib.GRH) uint64 { return u64(g.NxtHdr) }),
		grhU("infiniband.grh.hoplmt", 8, "hop limit", func(g *ib.GRH) uint64 { return u64(g.HopLmt) }),
		fa("infiniband.grh.sgid", dfilter.TypeIPv6, "source GID", func(p *analysis.Packet) (netip.Addr, bool) {
			if p.GRH == nil {
				return netip.Addr{}, false
			}
			return frame.GIDIPv6(p.GRH.SGID), true
		}),
		fa("infiniband.grh.dgid", dfilter.TypeIPv6, "destination GID", func(p *analysis.Packet) (netip.Addr, bool) {
			if p.GRH == nil {
				return netip.Addr{}, false
			}
			return frame.GIDIPv6(p.GRH.DGID), true
		}),
		withRaw(fp("infiniband.bth", "Base Transport Header", func(p *analysis.Packet) bool { return p.BTH != nil }), func(p *analysis.Packet) []byte {
			if p.BTH == nil {
				return nil
			}
			return p.BTH.Contents
		}),
		bthU("infiniband.bth.opcode", 8, false, "opcode (4 RC SEND Only, 17 RC Acknowledge)", func(b *ib.BTH) uint64 { return u64(b.Opcode) }),
		bthB("infiniband.bth.se", "solicited event", func(b *ib.BTH) bool { return b.SE }),
		bthB("infiniband.bth.m", "migration state", func(b *ib.BTH) bool { return b.M }),
		bthU("infiniband.bth.padcnt", 8, false, "pad count", func(b *ib.BTH) uint64 { return u64(b.PadCnt) }),
		bthU("infiniband.bth.tver", 8, false, "transport header version", func(b *ib.BTH) uint64 { return u64(b.TVer) }),
		bthU("infiniband.bth.p_key", 16, false, "partition key", func(b *ib.BTH) uint64 { return u64(b.PKey) }),
		bthB("rdmalab.bth.fecn", "forward explicit congestion notification (RoCE: the bit Wireshark counts in reserved7)", func(b *ib.BTH) bool { return b.FECN }),
		bthB("rdmalab.bth.becn", "backward explicit congestion notification", func(b *ib.BTH) bool { return b.BECN }),
		bthU("infiniband.bth.destqp", 24, true, "destination QP", func(b *ib.BTH) uint64 { return u64(b.DestQP) }),
		bthB("infiniband.bth.a", "acknowledge request", func(b *ib.BTH) bool { return b.A }),
		bthU("infiniband.bth.reserved7", 8, false, "reserved bits after the A bit", func(b *ib.BTH) uint64 { return u64(b.Reserved7) }),
		bthU("infiniband.bth.psn", 24, false, "packet sequence number", func(b *ib.BTH) uint64 { return u64(b.PSN) }),
		extP("infiniband.rdeth", ib.HasRDETH, "Reliable Datagram ETH", func(b *ib.BTH) []byte { return b.RDETH.Contents }),
		ext("infiniband.rdeth.eecnxt", ib.HasRDETH, 24, false, "EE context", func(b *ib.BTH) uint64 { return u64(b.RDETH.EECnxt) }),
		extP("infiniband.deth", ib.HasDETH, "Datagram ETH", func(b *ib.BTH) []byte { return b.DETH.Contents }),
		ext("infiniband.deth.q_key", ib.HasDETH, 64, true, "queue key", func(b *ib.BTH) uint64 { return u64(b.DETH.QKey) }),
		ext("infiniband.deth.srcqp", ib.HasDETH, 32, true, "source QP", func(b *ib.BTH) uint64 { return u64(b.DETH.SrcQP) }),
		ext("rdmalab.xrceth.xrcsrq", ib.HasXRCETH, 24, false, "XRC shared receive queue (XRCETH; Wireshark 4.0 does not decode it)", func(b *ib.BTH) uint64 { return u64(b.XRCETH.XRCSRQ) }),
		extP("infiniband.reth", ib.HasRETH, "RDMA ETH", func(b *ib.BTH) []byte { return b.RETH.Contents }),
		ext("infiniband.reth.va", ib.HasRETH, 64, true, "virtual address", func(b *ib.BTH) uint64 { return u64(b.RETH.VA) }),
		ext("infiniband.reth.r_key", ib.HasRETH, 32, true, "remote key", func(b *ib.BTH) uint64 { return u64(b.RETH.RKey) }),
		ext("infiniband.reth.dmalen", ib.HasRETH, 32, false, "DMA length", func(b *ib.BTH) uint64 { return u64(b.RETH.DMALen) }),
		extP("infiniband.atomiceth", ib.HasAtomicETH, "Atomic ETH", func(b *ib.BTH) []byte { return b.AtomicETH.Contents }),
		ext("rdmalab.atomiceth.va", ib.HasAtomicETH, 64, true, "AtomicETH virtual address (Wireshark shows it as infiniband.reth.va)", func(b *ib.BTH) uint64 { return u64(b.AtomicETH.VA) }),
		ext("rdmalab.atomiceth.r_key", ib.HasAtomicETH, 32, true, "AtomicETH remote key (Wireshark: infiniband.reth.r_key)", func(b *ib.BTH) uint64 { return u64(b.AtomicETH.RKey) }),
		ext("infiniband.atomiceth.swapdt", ib.HasAtomicETH, 64, false, "swap (or add) data", func(b *ib.BTH) uint64 { return u64(b.AtomicETH.SwapDt) }),
		ext("infiniband.atomiceth.cmpdt", ib.HasAtomicETH, 64, false, "compare data", func(b *ib.BTH) uint64 { return u64(b.AtomicETH.CmpDt) }),
		extP("infiniband.aeth", ib.HasAETH, "ACK ETH", func(b *ib.BTH) []byte { return b.AETH.Contents }),
		ext("infiniband.aeth.syndrome", ib.HasAETH, 8, false, "syndrome", func(b *ib.BTH) uint64 { return u64(b.AETH.Syndrome) }),
		ext("infiniband.aeth.msn", ib.HasAETH, 24, false, "message sequence number", func(b *ib.BTH) uint64 { return u64(b.AETH.MSN) }),
		fs("rdmalab.aeth.syndrome", "the syndrome in words (ACK, RNR NAK, NAK ...)", func(p *analysis.Packet) (string, bool) {
			if p.BTH == nil || p.BTH.Headers&ib.HasAETH == 0 {
				return "", false
			}
			return p.BTH.AETH.Syndrome.String(), true
		}),
		extP("infiniband.atomicacketh", ib.HasAtomicAckETH, "Atomic Acknowledge ETH", func(b *ib.BTH) []byte { return b.AtomicAckETH.Contents }),
		ext("infiniband.atomicacketh.origremdt", ib.HasAtomicAckETH, 64, false, "original remote data", func(b *ib.BTH) uint64 { return u64(b.AtomicAckETH.OrigRemDt) }),
		extBytes("infiniband.immdt", ib.HasImmDt, "immediate data", func(b *ib.BTH) uint32 { return b.ImmDt.Data }),
		extBytes("infiniband.ieth", ib.HasIETH, "invalidate ETH: the R_Key invalidated", func(b *ib.BTH) uint32 { return b.IETH.RKey }),
		fu("rdmalab.payload_len", 32, false, "InfiniBand payload bytes (no pad, no ICRC)", func(p *analysis.Packet) (uint64, bool) {
			if p.BTH == nil {
				return 0, false
			}
			return u64(len(p.BTH.Payload)), true
		}),
		fu("infiniband.invariant.crc", 32, true, "ICRC as on the wire", func(p *analysis.Packet) (uint64, bool) {
			if p.BTH == nil || p.ICRC.State == frame.CRCAbsent {
				return 0, false
			}
			return u64(p.BTH.ICRC), true
		}),
		crcOK("rdmalab.icrc_ok", "the ICRC matches (absent: no ICRC, or not checkable)", func(p *analysis.Packet) frame.CRCState {
			if p.BTH == nil {
				return frame.CRCAbsent
			}
			return p.ICRC.State
		}),
		fp("rdmalab.icrc_bad", "the ICRC does not match", func(p *analysis.Packet) bool { return p.BTH != nil && p.ICRC.State == frame.CRCBad }),
		// MADs and the Communication Manager
		fp("infiniband.mad", "a Management Datagram", func(p *analysis.Packet) bool { return p.MAD != nil }),
		madU("infiniband.mad.baseversion", 8, "base version", func(m *ib.MAD) uint64 { return u64(m.BaseVersion) }),
		madU("infiniband.mad.mgmtclass", 8, "management class", func(m *ib.MAD) uint64 { return u64(m.MgmtClass) }),
		madU("infiniband.mad.classversion", 8, "class version", func(m *ib.MAD) uint64 { return u64(m.ClassVersion) }),
		madU("infiniband.mad.method", 8, "method", func(m *ib.MAD) uint64 { return u64(m.Method) }),
		madU("infiniband.mad.status", 16, "status", func(m *ib.MAD) uint64 { return u64(m.Status) }),
		madU("infiniband.mad.transactionid", 64, "transaction ID", func(m *ib.MAD) uint64 { return u64(m.TransactionID) }),
		madU("infiniband.mad.attributeid", 16, "attribute ID", func(m *ib.MAD) uint64 { return u64(m.AttributeID) }),
		madU("infiniband.mad.attributemodifier", 32, "attribute modifier", func(m *ib.MAD) uint64 { return u64(m.AttributeModifier) }),
		cm[ib.CMReq]("infiniband.cm.req", 32, true, "REQ local communication ID", func(c *ib.CMReq) uint64 { return u64(c.LocalCommID) }),
		cm[ib.CMReq]("infiniband.cm.req.serviceid", 64, true, "REQ service ID", func(c *ib.CMReq) uint64 { return u64(c.ServiceID) }),
		cm[ib.CMReq]("infiniband.cm.req.localcaguid", 64, true, "REQ local CA GUID", func(c *ib.CMReq) uint64 { return u64(c.LocalCAGUID) }),
		cm[ib.CMReq]("infiniband.cm.req.localqkey", 32, true, "REQ local Q_Key", func(c *ib.CMReq) uint64 { return u64(c.LocalQKey) }),
		cm[ib.CMReq]("infiniband.cm.req.localqpn", 24, true, "REQ local QPN", func(c *ib.CMReq) uint64 { return u64(c.LocalQPN) }),
		cm[ib.CMReq]("infiniband.cm.req.responderres", 8, true, "REQ responder resources", func(c *ib.CMReq) uint64 { return u64(c.ResponderResources) }),
		cm[ib.CMReq]("infiniband.cm.req.localeecn", 24, true, "REQ local EECN", func(c *ib.CMReq) uint64 { return u64(c.LocalEECN) }),
		cm[ib.CMReq]("infiniband.cm.req.initdepth", 8, true, "REQ initiator depth", func(c *ib.CMReq) uint64 { return u64(c.InitiatorDepth) }),
		cm[ib.CMReq]("infiniband.cm.req.remoteeecn", 24, true, "REQ remote EECN", func(c *ib.CMReq) uint64 { return u64(c.RemoteEECN) }),
		cm[ib.CMReq]("infiniband.cm.req.remoteresptout", 8, true, "REQ remote CM response timeout", func(c *ib.CMReq) uint64 { return u64(c.RemoteCMResponseTimeout) }),
		cm[ib.CMReq]("infiniband.cm.req.transpsvctype", 8, true, "REQ transport service type", func(c *ib.CMReq) uint64 { return u64(c.TransportServiceType) }),
		cm[ib.CMReq]("infiniband.cm.req.e2eflowctrl", 8, true, "REQ end-to-end flow control", func(c *ib.CMReq) uint64 { return u64(b2u(c.EndToEndFlowControl)) }),
		cm[ib.CMReq]("infiniband.cm.req.startpsn", 24, true, "REQ starting PSN", func(c *ib.CMReq) uint64 { return u64(c.StartingPSN) }),
		cm[ib.CMReq]("infiniband.cm.req.localresptout", 8, true, "REQ local CM response timeout", func(c *ib.CMReq) uint64 { return u64(c.LocalCMResponseTimeout) }),
		cm[ib.CMReq]("infiniband.cm.req.retrcount", 8, true, "REQ retry count", func(c *ib.CMReq) uint64 { return u64(c.RetryCount) }),
		cm[ib.CMReq]("infiniband.cm.req.pkey", 16, true, "REQ P_Key", func(c *ib.CMReq) uint64 { return u64(c.PKey) }),
		cm[ib.CMReq]("infiniband.cm.req.pppmtu", 8, true, "REQ path MTU", func(c *ib.CMReq) uint64 { return u64(c.PathMTU) }),
		cm[ib.CMReq]("infiniband.cm.req.rdcexist", 8, true, "REQ RDC exists", func(c *ib.CMReq) uint64 { return u64(b2u(c.RDCExists)) }),
		cm[ib.CMReq]("infiniband.cm.req.rnrretrcount", 8, true, "REQ RNR retry count", func(c *ib.CMReq) uint64 { return u64(c.RNRRetryCount) }),
		cm[ib.CMReq]("infiniband.cm.req.maxcmretr", 8, true, "REQ max CM retries", func(c *ib.CMReq) uint64 { return u64(c.MaxCMRetries) }),
		cm[ib.CMReq]("infiniband.cm.req.srq", 8, true, "REQ SRQ", func(c *ib.CMReq) uint64 { return u64(b2u(c.SRQ)) }),
		cm[ib.CMReq]("infiniband.cm.req.ext_transport", 8, true, "REQ extended transport", func(c *ib.CMReq) uint64 { return u64(c.ExtendedTransport) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_locallid", 16, false, "REQ primary path local LID", func(c *ib.CMReq) uint64 { return u64(c.Primary.LocalLID) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_remotelid", 16, false, "REQ primary path remote LID", func(c *ib.CMReq) uint64 { return u64(c.Primary.RemoteLID) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_flowlabel", 32, true, "REQ primary path flow label", func(c *ib.CMReq) uint64 { return u64(c.Primary.FlowLabel) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_pktrate", 32, true, "REQ primary path packet rate", func(c *ib.CMReq) uint64 { return u64(c.Primary.PacketRate) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_tfcclass", 8, true, "REQ primary path traffic class", func(c *ib.CMReq) uint64 { return u64(c.Primary.TrafficClass) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_hoplim", 8, true, "REQ primary path hop limit", func(c *ib.CMReq) uint64 { return u64(c.Primary.HopLimit) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_sl", 8, true, "REQ primary path SL", func(c *ib.CMReq) uint64 { return u64(c.Primary.SL) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_subnetlocal", 8, true, "REQ primary path subnet local", func(c *ib.CMReq) uint64 { return u64(b2u(c.Primary.SubnetLocal)) }),
		cm[ib.CMReq]("infiniband.cm.req.prim_localacktout", 8, true, "REQ primary path local ACK timeout", func(c *ib.CMReq) uint64 { return u64(c.Primary.LocalACKTimeout) }),
		cmGID("infiniband.cm.req.prim_localgid_ipv4", "REQ primary path local GID, IPv4-mapped", func(c *ib.CMReq) ib.GID { return c.Primary.LocalGID }),
		cmGID("infiniband.cm.req.prim_remotegid_ipv4", "REQ primary path remote GID, IPv4-mapped", func(c *ib.CMReq) ib.GID { return c.Primary.RemoteGID }),
		cmGID6("infiniband.cm.req.prim_localgid", "REQ primary path local GID (when not both IPv4-mapped)", func(c *ib.CMReq) ib.GID { return c.Primary.LocalGID }),
		cmGID6("infiniband.cm.req.prim_remotegid", "REQ primary path remote GID (when not both IPv4-mapped)", func(c *ib.CMReq) ib.GID { return c.Primary.RemoteGID }),
		cm[ib.CMReq]("infiniband.cm.req.alt_locallid", 16, false, "REQ alternate path local LID", func(c *ib.CMReq) uint64 { return u64(c.Alternate.LocalLID) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_remotelid", 16, false, "REQ alternate path remote LID", func(c *ib.CMReq) uint64 { return u64(c.Alternate.RemoteLID) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_flowlabel", 32, true, "REQ alternate path flow label", func(c *ib.CMReq) uint64 { return u64(c.Alternate.FlowLabel) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_pktrate", 32, true, "REQ alternate path packet rate", func(c *ib.CMReq) uint64 { return u64(c.Alternate.PacketRate) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_tfcclass", 8, true, "REQ alternate path traffic class", func(c *ib.CMReq) uint64 { return u64(c.Alternate.TrafficClass) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_hoplim", 8, true, "REQ alternate path hop limit", func(c *ib.CMReq) uint64 { return u64(c.Alternate.HopLimit) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_sl", 8, true, "REQ alternate path SL", func(c *ib.CMReq) uint64 { return u64(c.Alternate.SL) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_subnetlocal", 8, true, "REQ alternate path subnet local", func(c *ib.CMReq) uint64 { return u64(b2u(c.Alternate.SubnetLocal)) }),
		cm[ib.CMReq]("infiniband.cm.req.alt_localacktout", 8, true, "REQ alternate path local ACK timeout", func(c *ib.CMReq) uint64 { return u64(c.Alternate.LocalACKTimeout) }),
		ipCMU("infiniband.cm.req.ip_cm.majv", 8, "RDMA-CM IP private data major version", func(ip ib.IPCM) uint64 { return u64(ip.Version >> 4) }),
		ipCMU("infiniband.cm.req.ip_cm.minv", 8, "RDMA-CM IP private data minor version", func(ip ib.IPCM) uint64 { return u64(ip.Version & 0xf) }),
		ipCMU("infiniband.cm.req.ip_cm.ipv", 8, "RDMA-CM IP version", func(ip ib.IPCM) uint64 { return u64(ip.IPVer) }),
		ipCMU("infiniband.cm.req.ip_cm.sport", 16, "RDMA-CM source port", func(ip ib.IPCM) uint64 { return u64(ip.SrcPort) }),
		ipCMAddr("infiniband.cm.req.ip_cm.sip4", 4, "RDMA-CM source IPv4 address", func(ip ib.IPCM) netip.Addr { return ip.Src }),
		ipCMAddr("infiniband.cm.req.ip_cm.dip4", 4, "RDMA-CM destination IPv4 address", func(ip ib.IPCM) netip.Addr { return ip.Dst }),
		ipCMAddr("infiniband.cm.req.ip_cm.sip6", 6, "RDMA-CM source IPv6 address", func(ip ib.IPCM) netip.Addr { return ip.Src }),
		ipCMAddr("infiniband.cm.req.ip_cm.dip6", 6, "RDMA-CM destination IPv6 address", func(ip ib.IPCM) netip.Addr { return ip.Dst }),
		cm[ib.CMRep]("infiniband.cm.rep", 32, true, "REP local communication ID", func(c *ib.CMRep) uint64 { return u64(c.LocalCommID) }),
		cm[ib.CMRep]("infiniband.cm.rep.remotecommid", 32, true, "REP remote communication ID", func(c *ib.CMRep) uint64 { return u64(c.RemoteCommID) }),
		cm[ib.CMRep]("infiniband.cm.rep.localqkey", 32, true, "REP local Q_Key", func(c *ib.CMRep) uint64 { return u64(c.LocalQKey) }),
		cm[ib.CMRep]("infiniband.cm.rep.localqpn", 24, true, "REP local QPN", func(c *ib.CMRep) uint64 { return u64(c.LocalQPN) }),
		cm[ib.CMRep]("infiniband.cm.rep.localeecn", 24, true, "REP local EECN", func(c *ib.CMRep) uint64 { return u64(c.LocalEECN) }),
		cm[ib.CMRep]("infiniband.cm.rep.startpsn", 24, true, "REP starting PSN", func(c *ib.CMRep) uint64 { return u64(c.StartingPSN) }),
		cm[ib.CMRep]("infiniband.cm.rep.respres", 8, true, "REP responder resources", func(c *ib.CMRep) uint64 { return u64(c.ResponderResources) }),
		cm[ib.CMRep]("infiniband.cm.rep.initdepth", 8, true, "REP initiator depth", func(c *ib.CMRep) uint64 { return u64(c.InitiatorDepth) }),
		cm[ib.CMRep]("infiniband.cm.rep.tgtackdelay", 8, true, "REP target ACK delay", func(c *ib.CMRep) uint64 { return u64(c.TargetACKDelay) }),
		cm[ib.CMRep]("infiniband.cm.rep.failoveracc", 8, true, "REP failover accepted", func(c *ib.CMRep) uint64 { return u64(c.FailoverAccepted) }),
		cm[ib.CMRep]("infiniband.cm.rep.e2eflowctrl", 8, true, "REP end-to-end flow control", func(c *ib.CMRep) uint64 { return u64(b2u(c.EndToEndFlowControl)) }),
		cm[ib.CMRep]("infiniband.cm.rep.rnrretrcount", 8, true, "REP RNR retry count", func(c *ib.CMRep) uint64 { return u64(c.RNRRetryCount) }),
		cm[ib.CMRep]("infiniband.cm.rep.srq", 8, true, "REP SRQ", func(c *ib.CMRep) uint64 { return u64(b2u(c.SRQ)) }),
		cm[ib.CMRep]("infiniband.cm.rep.localcaguid", 64, true, "REP local CA GUID", func(c *ib.CMRep) uint64 { return u64(c.LocalCAGUID) }),
		cm[ib.CMRtu]("infiniband.cm.rtu.localcommid", 32, true, "RTU local communication ID", func(c *ib.CMRtu) uint64 { return u64(c.LocalCommID) }),
		cm[ib.CMRtu]("infiniband.cm.rtu.remotecommid", 32, true, "RTU remote communication ID", func(c *ib.CMRtu) uint64 { return u64(c.RemoteCommID) }),
		cm[ib.CMRej]("infiniband.cm.rej.localcommid", 32, true, "REJ local communication ID", func(c *ib.CMRej) uint64 { return u64(c.LocalCommID) }),
		cm[ib.CMRej]("infiniband.cm.rej.remotecommid", 32, true, "REJ remote communication ID", func(c *ib.CMRej) uint64 { return u64(c.RemoteCommID) }),
		cm[ib.CMRej]("infiniband.cm.rej.msgrej", 8, true, "REJ message rejected", func(c *ib.CMRej) uint64 { return u64(c.MessageRejected) }),
		cm[ib.CMRej]("infiniband.cm.rej.rejinfolen", 8, true, "REJ reject info length", func(c *ib.CMRej) uint64 { return u64(c.RejectInfoLength) }),
		cm[ib.CMRej]("infiniband.cm.rej.reason", 16, true, "REJ reason", func(c *ib.CMRej) uint64 { return u64(c.Reason) }),
		cm[ib.CMDreq]("infiniband.cm.dreq.localcommid", 32, true, "DREQ local communication ID", func(c *ib.CMDreq) uint64 { return u64(c.LocalCommID) }),
		cm[ib.CMDreq]("infiniband.cm.dreq.remotecommid", 32, true, "DREQ remote communication ID", func(c *ib.CMDreq) uint64 { return u64(c.RemoteCommID) }),
		cm[ib.CMDreq]("infiniband.cm.req.remoteqpneecn", 24, true, "DREQ remote QPN (Wireshark's name)", func(c *ib.CMDreq) uint64 { return u64(c.RemoteQPN) }),
		cm[ib.CMDrep]("infiniband.cm.drsp.localcommid", 32, true, "DREP local communication ID", func(c *ib.CMDrep) uint64 { return u64(c.LocalCommID) }),
		cm[ib.CMDrep]("infiniband.cm.drsp.remotecommid", 32, true, "DREP remote communication ID", func(c *ib.CMDrep) uint64 { return u64(c.RemoteCommID) }),
		// RPC-over-RDMA
		fp("rpcordma", "an RPC-over-RDMA header", func(p *analysis.Packet) bool { return p.Analysis.RPC != nil }),
		rdmaU("rpcordma.xid", 32, true, "transaction ID", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.XID), true }),
		rdmaU("rpcordma.version", 32, false, "version", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.Vers), true }),
		rdmaU("rpcordma.flow_control", 32, false, "credits", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.Credit), true }),
		rdmaU("rpcordma.msg_type", 32, false, "message type (0 RDMA_MSG, 1 RDMA_NOMSG, 4 RDMA_ERROR)", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.Proc), true }),
		rdmaU("rpcordma.errcode", 32, false, "RDMA_ERROR code", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.Err), h.Proc == rpcrdma.ProcError }),
		rdmaU("rpcordma.vers_low", 32, false, "ERR_VERS lowest version", func(h *rpcrdma.Header) (uint64, bool) {
			return u64(h.VersLow), h.Proc == rpcrdma.ProcError && h.Err == rpcrdma.ErrCodeVers
		}),
		rdmaU("rpcordma.vers_high", 32, false, "ERR_VERS highest version", func(h *rpcrdma.Header) (uint64, bool) {
			return u64(h.VersHigh), h.Proc == rpcrdma.ProcError && h.Err == rpcrdma.ErrCodeVers
		}),
		rdmaU("rpcordma.rdma_align", 32, false, "RDMA_MSGP alignment", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.Align), h.Proc == rpcrdma.ProcMsgp }),
		rdmaU("rpcordma.rdma_thresh", 32, false, "RDMA_MSGP threshold", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.Thresh), h.Proc == rpcrdma.ProcMsgp }),
		rdmaU("rpcordma.reads_count", 32, false, "Read list entries", func(h *rpcrdma.Header) (uint64, bool) { return u64(len(h.ReadList)), hasChunkLists(h) }),
		rdmaU("rpcordma.writes_count", 32, false, "Write list chunks", func(h *rpcrdma.Header) (uint64, bool) { return u64(len(h.WriteList)), hasChunkLists(h) }),
		rdmaU("rpcordma.reply_count", 32, false, "Reply chunks (0 or 1)", func(h *rpcrdma.Header) (uint64, bool) { return b2u(h.ReplyChunk != nil), hasChunkLists(h) }),
		fm("rpcordma.position", dfilter.TypeUint, 32, false, "Read segment positions", func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			if m, ok := rpcMsg(p); ok && hasChunkLists(&m.Header) {
				for _, s := range m.Header.ReadList {
					vs = append(vs, dfilter.Uint(u64(s.Position)))
				}
			}
			return vs
		}),
		fm("rpcordma.segment_count", dfilter.TypeUint, 32, false, "segments of each Write chunk and the Reply chunk", segmentCounts),
		wireSegs("rpcordma.rdma_handle", 32, true, "segment handle (R_Key)", func(s rpcrdma.Segment) uint64 { return u64(s.Handle) }),
		wireSegs("rpcordma.rdma_length", 32, false, "segment length", func(s rpcrdma.Segment) uint64 { return u64(s.Length) }),
		wireSegs("rpcordma.rdma_offset", 64, true, "segment offset (address)", func(s rpcrdma.Segment) uint64 { return u64(s.Offset) }),
		// ONC RPC and NFS
		fp("rpc", "an ONC RPC call or reply", func(p *analysis.Packet) bool { _, _, ok := oncRPC(p); return ok }),
		rpcU("rpc.xid", true, "transaction ID", false, func(m *analysis.RPCMessage, r *analysis.RPC) uint64 { return u64(r.XID) }),
		rpcU("rpc.msgtyp", false, "message type (0 call, 1 reply)", false, func(m *analysis.RPCMessage, r *analysis.RPC) uint64 { return u64(b2u(!m.Call)) }),
		rpcU("rpc.program", false, "program (100003 NFS)", true, func(m *analysis.RPCMessage, r *analysis.RPC) uint64 { return u64(r.Prog) }),
		rpcU("rpc.programversion", false, "program version", true, func(m *analysis.RPCMessage, r *analysis.RPC) uint64 { return u64(r.Vers) }),
		rpcU("rpc.procedure", false, "procedure", true, func(m *analysis.RPCMessage, r *analysis.RPC) uint64 { return u64(r.Proc) }),
		authSysS("rpc.auth.machinename", "AUTH_UNIX machine name", func(a *oncrpc.AuthSysParams) dfilter.Value { return dfilter.String(a.MachineName) }, dfilter.TypeString, 0),
		authSysS("rpc.auth.uid", "AUTH_UNIX UID", func(a *oncrpc.AuthSysParams) dfilter.Value { return dfilter.Uint(u64(a.UID)) }, dfilter.TypeUint, 32),
		authSysS("rpc.auth.gid", "AUTH_UNIX GID", func(a *oncrpc.AuthSysParams) dfilter.Value { return dfilter.Uint(u64(a.GID)) }, dfilter.TypeUint, 32),
		fp("nfs", "an NFS call or reply", func(p *analysis.Packet) bool { _, _, ok := nfsFields(p); return ok }),
		nfsU("nfs.procedure_v3", 32, "NFSv3 procedure (6 READ, 7 WRITE)", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.Proc), f.Vers == 3 }),
		nfsU("nfs.procedure_v4", 32, "NFSv4 procedure (1 COMPOUND)", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.Proc), f.Vers != 3 }),
		nfsEach("nfs.opcode", "NFSv4 operations", func(f *nfs.Fields, vs []dfilter.Value) []dfilter.Value {
			if f.Vers != 3 {
				for _, op := range f.Ops {
					vs = append(vs, dfilter.Uint(u64(op)))
				}
			}
			return vs
		}),
		nfsEach("nfs.main_opcode", "NFSv4 operations the Info column names", func(f *nfs.Fields, vs []dfilter.Value) []dfilter.Value {
			if f.Vers != 3 {
				for _, op := range f.MainOps {
					vs = append(vs, dfilter.Uint(u64(op)))
				}
			}
			return vs
		}),
		nfsU("nfs.status3", 32, "NFSv3 status", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.Status), f.Vers == 3 && f.HasStatus }),
		nfsEach("nfs.status", "status: NFSv3's, or the COMPOUND's then each operation's", nfsStatus),
		nfsU("nfs.offset3", 64, "NFSv3 offset", func(f *nfs.Fields, call bool) (uint64, bool) { return f.Offset, f.Vers == 3 && f.HasOffset }),
		nfsU("nfs.offset4", 64, "NFSv4 offset", func(f *nfs.Fields, call bool) (uint64, bool) { return f.Offset, f.Vers != 3 && f.HasOffset }),
		nfsU("nfs.count3", 32, "NFSv3 count", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.Count), f.Vers == 3 && f.HasCount }),
		nfsU("nfs.count4", 32, "NFSv4 count", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.Count), f.Vers != 3 && f.HasCount }),
		nfsU("nfs.stable_how4", 32, "NFSv4 WRITE stable_how", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.Stable), f.Vers != 3 && f.HasStable }),
		nfsU("nfs.write.stable", 32, "NFSv3 WRITE stable", func(f *nfs.Fields, call bool) (uint64, bool) {
			return u64(f.Stable), f.Vers == 3 && f.HasStable && call
		}),
		nfsU("nfs.write.committed", 32, "NFSv3 WRITE reply committed", func(f *nfs.Fields, call bool) (uint64, bool) {
			return u64(f.Stable), f.Vers == 3 && f.HasStable && !call
		}),
		nfsU("nfs.write.data_length", 32, "WRITE data length", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.DataLen), f.HasDataLen && call }),
		nfsU("nfs.read.data_length", 32, "READ reply data length", func(f *nfs.Fields, call bool) (uint64, bool) { return u64(f.DataLen), f.HasDataLen && !call }),
		fb("nfs.read.eof", "NFSv3 READ reply EOF", func(p *analysis.Packet) (bool, bool) {
			f, _, ok := nfsFields(p)
			if !ok || f.Vers != 3 || !f.HasEOF {
				return false, false
			}
			return f.EOF, true
		}),
		nfsU("nfs.eof", 32, "NFSv4 READ reply EOF", func(f *nfs.Fields, call bool) (uint64, bool) { return b2u(f.EOF), f.Vers != 3 && f.HasEOF }),
		nfsStr("nfs.name", "file name"),
		nfsStr("nfs.symlink.to", "SYMLINK target"),
		nfsStr("nfs.readlink.data", "READLINK target"),
		nfsStr("nfs.readdir.entry3.name", "READDIR entry name"),
		nfsStr("nfs.readdirplus.entry.name", "READDIRPLUS entry name"),
		nfsStr("nfs.pathname.component", "NFSv4 path component"),
		nfsStr("nfs.symlink.linktext", "NFSv4 link text"),
		nfsStr("nfs.entry_name", "NFSv4 READDIR entry name"),
		nfsStr("nfs.tag", "NFSv4 COMPOUND tag"),
		// rdmalab's analysis
		fu("rdmalab.flow", 32, false, "the QP direction (flow) the packet belongs to", func(p *analysis.Packet) (uint64, bool) {
			if f := p.Analysis.Flow; f != nil {
				return u64(f.ID), true
			}
			return 0, false
		}),
		fu("rdmalab.ee_context", 24, false, "Reliable Datagram: the EE context", func(p *analysis.Packet) (uint64, bool) {
			if f := p.Analysis.Flow; f != nil && f.Key.EE {
				return u64(f.Key.QP), true
			}
			return 0, false
		}),
		fu("rdmalab.peer_qp", 24, false, "the QP of the flow's other direction, when known (qp= matches it)", func(p *analysis.Packet) (uint64, bool) {
			if f := p.Analysis.Flow; p.BTH != nil && f != nil && f.Peer != nil && !f.Peer.Key.EE {
				return u64(f.Peer.Key.QP), true
			}
			return 0, false
		}),
		fm("rdmalab.xid", dfilter.TypeUint, 32, true, "the XID of each RPC the packet belongs to: its call or reply, the chunk it moves, the messages it acknowledges (xid= matches it)", xidsOf),
		fp("rdmalab.anomaly", "the packet has an anomaly (in the REPL and the view, once the capture is read, those its end found too)", hasAnomaly),
		fp("rdmalab.msg", "the packet belongs to a request message", func(p *analysis.Packet) bool { return p.Analysis.Msg != nil }),
		fs("rdmalab.msg.kind", "the message's kind (SEND, RDMA WRITE, RDMA READ Request, ATOMIC ...; a READ's responses carry its request's)", func(p *analysis.Packet) (string, bool) {
			if m, ok := msgOf(p); ok {
				return m.Kind.String(), true
			}
			return "", false
		}),
		msgU("rdmalab.msg.seq", "the message's number in its flow, from 1", func(p *analysis.Packet, m *analysis.Message) uint64 { return u64(m.Seq) }),
		msgU("rdmalab.msg.index", "the packet's place in the message, from 0", func(p *analysis.Packet, m *analysis.Message) uint64 { return u64(p.Analysis.MsgIndex) }),
		msgU("rdmalab.msg.first_frame", "the frame of the message's first packet", func(p *analysis.Packet, m *analysis.Message) uint64 { return u64(m.FirstFrame) }),
		fb("rdmalab.msg.complete", "the message's last packet was seen, with no hole", func(p *analysis.Packet) (bool, bool) {
			if m, ok := msgOf(p); ok {
				return m.Complete, true
			}
			return false, false
		}),
		fp("rdmalab.atomic", "the packet belongs to an atomic", func(p *analysis.Packet) bool { _, ok := atomicMsg(p); return ok }),
		fs("rdmalab.atomic.op", "CmpSwap or FetchAdd", func(p *analysis.Packet) (string, bool) {
			m, ok := atomicMsg(p)
			if !ok {
				return "", false
			}
			if m.Opcode.Operation() == ib.OpCompareSwap {
				return "CmpSwap", true
			}
			return "FetchAdd", true
		}),
		atomicU("rdmalab.atomic.request_frame", 32, false, "the atomic's request frame", func(m *analysis.Message) (uint64, bool) { return u64(m.FirstFrame), true }),
		atomicU("rdmalab.atomic.va", 64, true, "the atomic's virtual address", func(m *analysis.Message) (uint64, bool) { return m.VA, true }),
		atomicU("rdmalab.atomic.r_key", 32, true, "the atomic's remote key", func(m *analysis.Message) (uint64, bool) { return u64(m.RKey), true }),
		atomicU("rdmalab.atomic.compare", 64, true, "CmpSwap compare value", func(m *analysis.Message) (uint64, bool) { return m.Compare, m.Opcode.Operation() == ib.OpCompareSwap }),
		atomicU("rdmalab.atomic.swap", 64, true, "CmpSwap swap value", func(m *analysis.Message) (uint64, bool) { return m.SwapAdd, m.Opcode.Operation() == ib.OpCompareSwap }),
		atomicU("rdmalab.atomic.add", 64, true, "FetchAdd value added", func(m *analysis.Message) (uint64, bool) { return m.SwapAdd, m.Opcode.Operation() != ib.OpCompareSwap }),
		atomicU("rdmalab.atomic.response_frame", 32, false, "the ATOMIC Acknowledge's frame", func(m *analysis.Message) (uint64, bool) { return u64(m.RespFirstFrame), m.RespDone }),
		atomicU("rdmalab.atomic.orig", 64, true, "the value before the operation", func(m *analysis.Message) (uint64, bool) { return m.Orig, m.RespDone }),
		fb("rdmalab.atomic.swapped", "an answered CmpSwap found its compare value", func(p *analysis.Packet) (bool, bool) {
			m, ok := atomicMsg(p)
			if !ok || !m.RespDone || m.Opcode.Operation() != ib.OpCompareSwap {
				return false, false
			}
			return m.Swapped(), true
		}),
		fs("rdmalab.psn_status", "the PSN against what its flow expected: ok, gap, duplicate, retransmission, out of order", func(p *analysis.Packet) (string, bool) {
			s := p.Analysis.PSN.Status
			return s.String(), s != analysis.PSNNotChecked
		}),
		fp("rdmalab.ack", "the packet acknowledges (it has an AETH)", func(p *analysis.Packet) bool { return p.Analysis.Ack != nil }),
		fs("rdmalab.ack.syndrome", "ACK, NAK, RNR NAK", func(p *analysis.Packet) (string, bool) {
			if a := p.Analysis.Ack; a != nil {
				return a.Syndrome.String(), true
			}
			return "", false
		}),
		ackU("rdmalab.ack.psn", "the last PSN acknowledged (a NAK: the PSN in error)", func(a *analysis.AckInfo) (uint64, bool) { return u64(a.PSN), true }),
		ackU("rdmalab.ack.msn", "the MSN on the wire", func(a *analysis.AckInfo) (uint64, bool) { return u64(a.MSN), true }),
		ackU("rdmalab.ack.expected_msn", "the MSN the requests seen imply", func(a *analysis.AckInfo) (uint64, bool) { return u64(a.ExpectedMSN), a.MSNKnown }),
		ackEach("rdmalab.ack.acked_kind", dfilter.TypeString, "the kind of each message acknowledged for the first time", func(m *analysis.Message) dfilter.Value { return dfilter.String(m.Kind.String()) }),
		ackEach("rdmalab.ack.acked_seq", dfilter.TypeUint, "the number of each message acknowledged", func(m *analysis.Message) dfilter.Value { return dfilter.Uint(u64(m.Seq)) }),
		ackEach("rdmalab.ack.acked_frame", dfilter.TypeUint, "the first frame of each message acknowledged", func(m *analysis.Message) dfilter.Value { return dfilter.Uint(u64(m.FirstFrame)) }),
		fp("rdmalab.rpc", "the packet completes an RPC-over-RDMA message", func(p *analysis.Packet) bool { return p.Analysis.RPC != nil }),
		rdmaU("rdmalab.rpc.xid", 32, true, "the RPC's XID", func(h *rpcrdma.Header) (uint64, bool) { return u64(h.XID), true }),
		rpcS("rdmalab.rpc.proc", "the RPC-over-RDMA message type (RDMA_MSG ...)", func(m *analysis.RPCMessage) (string, bool) { return m.Header.Proc.String(), true }),
		rpcS("rdmalab.rpc.role", "call or reply", func(m *analysis.RPCMessage) (string, bool) {
			if m.RPC == nil {
				return "", false
			}
			return pick(m.Call, "call", "reply"), true
		}),
		rpcMU("rdmalab.rpc.program", "the RPC program", func(m *analysis.RPCMessage) (uint64, bool) { r := m.RPC; return u64(rProg(r)), r != nil && r.HaveProc }),
		rpcMU("rdmalab.rpc.version", "the program version", func(m *analysis.RPCMessage) (uint64, bool) { r := m.RPC; return u64(rVers(r)), r != nil && r.HaveProc }),
		rpcMU("rdmalab.rpc.procedure", "the procedure", func(m *analysis.RPCMessage) (uint64, bool) { r := m.RPC; return u64(rProc(r)), r != nil && r.HaveProc }),
		rpcS("rdmalab.rpc.summary", "the call's or reply's summary", func(m *analysis.RPCMessage) (string, bool) {
			if m.RPC == nil {
				return "", false
			}
			return pick(m.Call, m.RPC.CallSummary, m.RPC.ReplySummary), true
		}),
		rpcMU("rdmalab.rpc.call_frame", "a reply: the frame of its call", func(m *analysis.RPCMessage) (uint64, bool) {
			if m.RPC == nil || m.Call || m.RPC.Call == nil {
				return 0, false
			}
			return u64(m.RPC.Call.Frame), true
		}),
		{Name: "rdmalab.rpc.latency", Type: dfilter.TypeFloat, Time: true, Desc: "a reply: the seconds since its call", get: func(p *analysis.Packet, vs []dfilter.Value) []dfilter.Value {
			m := p.Analysis.RPC
			if m == nil || m.RPC == nil || m.Call || m.RPC.Call == nil {
				return vs
			}
			return append(vs, timeValue(int64(m.Time.Sub(m.RPC.Call.Time))))
		}},
		fb("rdmalab.rpc.obsolete", "an RDMA_MSGP or RDMA_DONE, which RFC 8166 removed (only true)", func(p *analysis.Packet) (bool, bool) { return true, p.Analysis.RPC != nil && p.Analysis.RPC.Obsolete() }),
		rpcMU("rdmalab.rpc.first_frame", "the frame of the SEND's first packet", func(m *analysis.RPCMessage) (uint64, bool) { return u64(m.FirstFrame), true }),
		fb("rdmalab.short_send", "a SEND too short for an RPC-over-RDMA header (only true)", func(p *analysis.Packet) (bool, bool) { return true, p.Analysis.Short }),
		fs("rdmalab.not_rpc", "why a complete SEND is not RPC-over-RDMA", func(p *analysis.Packet) (string, bool) { return p.Analysis.NotRPC, p.Analysis.NotRPC != "" }),
		fp("rdmalab.chunk", "the packet moves data of an RPC's chunk", func(p *analysis.Packet) bool { return p.Analysis.Chunk.RPC != nil }),
		chunkU("rdmalab.chunk.xid", 32, true, "the XID of the RPC whose chunk it is", func(c *analysis.ChunkRef) uint64 { return u64(c.RPC.XID) }),
		fs("rdmalab.chunk.kind", "read, write or reply", func(p *analysis.Packet) (string, bool) {
			c := p.Analysis.Chunk
			if c.RPC == nil {
				return "", false
			}
			return c.Kind.String(), true
		}),
		chunkU("rdmalab.chunk.index", 32, false, "the chunk's place in its list", func(c *analysis.ChunkRef) uint64 { return u64(c.Chunk) }),
		chunkU("rdmalab.segment.index", 32, false, "the segment's place in its chunk", func(c *analysis.ChunkRef) uint64 { return u64(c.Segment) }),
		chunkU("rdmalab.segment.handle", 32, true, "the segment's handle", func(c *analysis.ChunkRef) uint64 { return u64(c.Seg().Handle) }),
		chunkU("rdmalab.segment.offset", 64, false, "where the packet's data starts in the segment", func(c *analysis.ChunkRef) uint64 { return u64(c.Offset) }),
		chunkU("rdmalab.segment.len", 32, false, "the packet's bytes in the segment", func(c *analysis.ChunkRef) uint64 { return u64(c.Len) }),
		chunkU("rdmalab.segment.length", 32, false, "the segment's length", func(c *analysis.ChunkRef) uint64 { return u64(c.Seg().Length) }),
		fb("rdmalab.segment.past_end", "the data runs past the segment's end", func(p *analysis.Packet) (bool, bool) { c := p.Analysis.Chunk; return c.Past, c.RPC != nil }),
		fu("rdmalab.cm_connection", 32, false, "the CM connection a CM message belongs to", func(p *analysis.Packet) (uint64, bool) {
			if c := p.Analysis.CM; c != nil {
				return u64(c.ID), true
			}
			return 0, false
		}),
		fp("rdmalab.note", "the packet has a note (an anomaly, or what cannot be told)", func(p *analysis.Packet) bool { return len(p.Analysis.Notes) > 0 }),
		noteEach("rdmalab.note.kind", dfilter.TypeString, "each note's kind", func(n analysis.Note) dfilter.Value { return dfilter.String(n.Kind.String()) }),
		noteEach("rdmalab.note.anomaly", dfilter.TypeBool, "each note is an anomaly", func(n analysis.Note) dfilter.Value { return dfilter.Bool(n.Kind.Anomaly()) }),
		noteEach("rdmalab.note.text", dfilter.TypeString, "each note's text", func(n analysis.Note) dfilter.Value { return dfilter.String(n.Text) }),
		fp("rdmalab.error", "decoding stopped early", func(p *analysis.Packet) bool { return p.Err != nil }),
		fs("rdmalab.error.layer", "the layer where decoding stopped", func(p *analysis.Packet) (string, bool) {
			if p.Err == nil {
				return "", false
			}
			return p.Err.Layer, true
		}),
		fu("rdmalab.error.offset", 32, false, "the byte offset in the frame where decoding stopped", func(p *analysis.Packet) (uint64, bool) {
			if p.Err == nil {
				return 0, false
			}
			return u64(p.Err.Offset), true
		}),
		fs("rdmalab.error.msg", "why decoding stopped", func(p *analysis.Packet) (string, bool) {
			if p.Err == nil {
				return "", false
			}
			return p.Err.Msg, true
		}),
	}
}

// b2u is a flag as Wireshark's integer fields give it.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// pick is c ? a : b.
func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}
