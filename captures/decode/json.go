package decode

// --json: one object per packet, on one line. Fields Wireshark has keep
// its names (infiniband.bth.opcode, infiniband.reth.dmalen, rpcordma.xid,
// ...), with integers as numbers and 64-bit addresses, keys and GUIDs as
// "0x…" strings; repeated fields (rpcordma.rdma_handle) are arrays in wire
// order. rdmalab's own fields are under "rdmalab." (rdmalab.encap,
// rdmalab.icrc_ok, rdmalab.msg.kind, rdmalab.psn_status, rdmalab.chunk.xid,
// rdmalab.note.text, ...), flat like Wireshark's. Every key is a field of
// the registry (fields.go), which -T fields and the display filter read.

import (
	"slices"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// appendJSON appends the JSON object of p (without a newline).
func appendJSON(w *jsonw, p *analysis.Packet) {
	jsonFrame(w, p)
	if p.Encap != frame.EncapNone {
		w.str("rdmalab.encap", p.Encap.Field())
	}
	jsonNetwork(w, p)
	if p.LRH != nil {
		jsonLRH(w, p)
	}
	if p.GRH != nil {
		jsonGRH(w, p.GRH)
	}
	if p.BTH != nil {
		jsonBTH(w, p)
	}
	if p.MAD != nil {
		jsonMAD(w, p)
	}
	jsonAnalysis(w, p)
	if p.Err != nil {
		w.str("rdmalab.error.layer", p.Err.Layer)
		w.int("rdmalab.error.offset", p.Err.Offset)
		w.str("rdmalab.error.msg", p.Err.Msg)
	}
	w.close('}')
}

// jsonFrame opens the object and writes the frame fields, which every
// packet has, their keys with the separators around them.
func jsonFrame(w *jsonw, p *analysis.Packet) {
	b := append(w.b, `{"frame.number":`...)
	b = appendtext.Int(b, p.Frame)
	b = append(b, `,"frame.time_epoch":`...)
	b = w.epochSec.appendEpoch(b, p.Time.Unix(), p.Time.Nanosecond())
	b = append(b, `,"frame.time_relative":`...)
	b = w.relSec.appendDuration(b, p.Rel)
	b = append(b, `,"frame.len":`...)
	b = appendtext.Int(b, p.WireLen)
	b = append(b, `,"frame.cap_len":`...)
	b = appendtext.Int(b, p.CapLen)
	b = append(b, `,"rdmalab.frame.offset":`...)
	w.b, w.comma = appendtext.Int(b, int(p.Offset)), true
	switch len(p.Comments) {
	case 0:
	case 1:
		w.str("frame.comment", p.Comments[0])
	default:
		w.beginArray("frame.comment")
		for _, c := range p.Comments {
			w.str("", c)
		}
		w.endArray()
	}
}

func jsonNetwork(w *jsonw, p *analysis.Packet) {
	// Most frames repeat their connection's addresses and ports: those of
	// the usual Ethernet, IPv4, UDP frame are written once per connection
	// and direction, and copied after.
	var key netKey
	cached := p.Eth != nil && p.IPv4 != nil && p.UDP != nil && len(p.Eth.SrcMAC) == 6 && len(p.Eth.DstMAC) == 6 &&
		p.Src.IP.Is4() && p.Dst.IP.Is4()
	if cached {
		key = netKey{src: p.Src.IP.As4(), dst: p.Dst.IP.As4(), tos: p.IPv4.TOS, ttl: p.IPv4.TTL,
			sport: p.SrcPort, dport: p.DstPort}
		copy(key.smac[:], p.Eth.SrcMAC)
		copy(key.dmac[:], p.Eth.DstMAC)
		if w.nets.hit(w, key) {
			return
		}
	}
	start := len(w.b)
	jsonNetworkFields(w, p)
	if cached {
		w.nets.keep(w, key, start)
	}
}

// netKey is what the JSON fields of an Ethernet, IPv4, UDP frame's
// network layers say.
type netKey struct {
	smac, dmac   [6]byte
	src, dst     [4]byte
	tos, ttl     uint8
	sport, dport uint16
}

func jsonNetworkFields(w *jsonw, p *analysis.Packet) {
	if p.Eth != nil {
		w.mac("eth.src", p.Eth.SrcMAC)
		w.mac("eth.dst", p.Eth.DstMAC)
	}
	switch {
	case p.IPv4 != nil:
		w.addr("ip.src", p.Src)
		w.addr("ip.dst", p.Dst)
		w.uint("ip.dsfield", uint64(p.IPv4.TOS))
		w.uint("ip.ttl", uint64(p.IPv4.TTL))
	case p.IPv6 != nil:
		w.addr("ipv6.src", p.Src)
		w.addr("ipv6.dst", p.Dst)
	}
	if p.UDP != nil {
		w.uint("udp.srcport", uint64(p.SrcPort))
		w.uint("udp.dstport", uint64(p.DstPort))
	}
}

func jsonLRH(w *jsonw, p *analysis.Packet) {
	l := p.LRH
	w.uint("infiniband.lrh.vl", uint64(l.VL))
	w.uint("infiniband.lrh.lver", uint64(l.LVer))
	w.uint("infiniband.lrh.sl", uint64(l.SL))
	w.uint("infiniband.lrh.lnh", uint64(l.LNH))
	w.uint("infiniband.lrh.dlid", uint64(l.DLID))
	w.uint("infiniband.lrh.pktlen", uint64(l.PktLen))
	w.uint("infiniband.lrh.slid", uint64(l.SLID))
	if l.HasVCRC {
		w.uint("infiniband.variant.crc", uint64(l.VCRC))
	}
	crcJSON(w, "rdmalab.vcrc_ok", p.VCRC.State)
}

func jsonGRH(w *jsonw, g *ib.GRH) {
	w.uint("infiniband.grh.ipver", uint64(g.IPVer))
	w.uint("infiniband.grh.tclass", uint64(g.TClass))
	w.uint("infiniband.grh.flowlabel", uint64(g.FlowLabel))
	w.uint("infiniband.grh.paylen", uint64(g.PayLen))
	w.uint("infiniband.grh.nxthdr", uint64(g.NxtHdr))
	w.uint("infiniband.grh.hoplmt", uint64(g.HopLmt))
	w.str("infiniband.grh.sgid", frame.GIDIPv6(g.SGID).String())
	w.str("infiniband.grh.dgid", frame.GIDIPv6(g.DGID).String())
}

func crcJSON(w *jsonw, key string, s frame.CRCState) {
	switch s {
	case frame.CRCGood:
		w.bool(key, true)
	case frame.CRCBad:
		w.bool(key, false)
	case frame.CRCUnknown:
		w.null(key)
	}
}

func jsonBTH(w *jsonw, p *analysis.Packet) {
	b := p.BTH
	jsonBTHFixed(w, b)
	w.uint("infiniband.bth.psn", uint64(b.PSN))
	h := b.Headers
	if h&ib.HasRDETH != 0 {
		w.uint("infiniband.rdeth.eecnxt", uint64(b.RDETH.EECnxt))
	}
	if h&ib.HasDETH != 0 {
		w.hex("infiniband.deth.q_key", uint64(b.DETH.QKey), 8)
		w.uint("infiniband.deth.srcqp", uint64(b.DETH.SrcQP))
	}
	if h&ib.HasXRCETH != 0 {
		w.uint("rdmalab.xrceth.xrcsrq", uint64(b.XRCETH.XRCSRQ))
	}
	if h&ib.HasRETH != 0 {
		w.hex("infiniband.reth.va", b.RETH.VA, 16)
		w.hex("infiniband.reth.r_key", uint64(b.RETH.RKey), 8)
		w.uint("infiniband.reth.dmalen", uint64(b.RETH.DMALen))
	}
	if h&ib.HasAtomicETH != 0 {
		w.hex("rdmalab.atomiceth.va", b.AtomicETH.VA, 16)
		w.hex("rdmalab.atomiceth.r_key", uint64(b.AtomicETH.RKey), 8)
		w.hex("infiniband.atomiceth.swapdt", b.AtomicETH.SwapDt, 16)
		w.hex("infiniband.atomiceth.cmpdt", b.AtomicETH.CmpDt, 16)
	}
	if h&ib.HasAETH != 0 {
		w.uint("infiniband.aeth.syndrome", uint64(b.AETH.Syndrome))
		w.uint("infiniband.aeth.msn", uint64(b.AETH.MSN))
		w.str("rdmalab.aeth.syndrome", b.AETH.Syndrome.String())
	}
	if h&ib.HasAtomicAckETH != 0 {
		w.hex("infiniband.atomicacketh.origremdt", b.AtomicAckETH.OrigRemDt, 16)
	}
	if h&ib.HasImmDt != 0 {
		w.hex("infiniband.immdt", uint64(b.ImmDt.Data), 8)
	}
	if h&ib.HasIETH != 0 {
		w.hex("infiniband.ieth", uint64(b.IETH.RKey), 8)
	}
	w.int("rdmalab.payload_len", len(b.Payload))
	if p.ICRC.State != frame.CRCAbsent {
		w.hex("infiniband.invariant.crc", uint64(b.ICRC), 8)
		crcJSON(w, "rdmalab.icrc_ok", p.ICRC.State)
	}
}

// bthKey is what the fields before the PSN say: they repeat over a
// connection's packets of one opcode.
type bthKey struct {
	opcode                  ib.Opcode
	padCnt, tVer, reserved7 uint8
	se, m, fecn, becn, a    bool
	pKey                    uint16
	destQP                  uint32
}

// jsonBTHFixed writes the transport header's fields before the PSN.
func jsonBTHFixed(w *jsonw, b *ib.BTH) {
	key := bthKey{opcode: b.Opcode, padCnt: b.PadCnt, tVer: b.TVer, reserved7: b.Reserved7,
		se: b.SE, m: b.M, fecn: b.FECN, becn: b.BECN, a: b.A, pKey: b.PKey, destQP: b.DestQP}
	if w.bth.hit(w, key) {
		return
	}
	start := len(w.b)
	w.uint("infiniband.bth.opcode", uint64(b.Opcode))
	w.bool("infiniband.bth.se", b.SE)
	w.bool("infiniband.bth.m", b.M)
	w.uint("infiniband.bth.padcnt", uint64(b.PadCnt))
	w.uint("infiniband.bth.tver", uint64(b.TVer))
	w.uint("infiniband.bth.p_key", uint64(b.PKey))
	w.bool("rdmalab.bth.fecn", b.FECN)
	w.bool("rdmalab.bth.becn", b.BECN)
	w.uint("infiniband.bth.destqp", uint64(b.DestQP))
	w.bool("infiniband.bth.a", b.A)
	w.uint("infiniband.bth.reserved7", uint64(b.Reserved7))
	w.bth.keep(w, key, start)
}

func jsonMAD(w *jsonw, p *analysis.Packet) {
	m := p.MAD
	w.uint("infiniband.mad.baseversion", uint64(m.BaseVersion))
	w.uint("infiniband.mad.mgmtclass", uint64(m.MgmtClass))
	w.uint("infiniband.mad.classversion", uint64(m.ClassVersion))
	w.uint("infiniband.mad.method", uint64(m.Method))
	w.uint("infiniband.mad.status", uint64(m.Status))
	w.hex("infiniband.mad.transactionid", m.TransactionID, 16)
	w.uint("infiniband.mad.attributeid", uint64(m.AttributeID))
	w.uint("infiniband.mad.attributemodifier", uint64(m.AttributeModifier))
	switch c := p.CM.(type) {
	case *ib.CMReq:
		jsonCMReq(w, c)
	case *ib.CMRep:
		w.hex("infiniband.cm.rep", uint64(c.LocalCommID), 8)
		w.hex("infiniband.cm.rep.remotecommid", uint64(c.RemoteCommID), 8)
		w.hex("infiniband.cm.rep.localqkey", uint64(c.LocalQKey), 8)
		w.uint("infiniband.cm.rep.localqpn", uint64(c.LocalQPN))
		w.uint("infiniband.cm.rep.localeecn", uint64(c.LocalEECN))
		w.uint("infiniband.cm.rep.startpsn", uint64(c.StartingPSN))
		w.uint("infiniband.cm.rep.respres", uint64(c.ResponderResources))
		w.uint("infiniband.cm.rep.initdepth", uint64(c.InitiatorDepth))
		w.uint("infiniband.cm.rep.tgtackdelay", uint64(c.TargetACKDelay))
		w.uint("infiniband.cm.rep.failoveracc", uint64(c.FailoverAccepted))
		w.uint("infiniband.cm.rep.e2eflowctrl", b2u(c.EndToEndFlowControl))
		w.uint("infiniband.cm.rep.rnrretrcount", uint64(c.RNRRetryCount))
		w.uint("infiniband.cm.rep.srq", b2u(c.SRQ))
		w.hex("infiniband.cm.rep.localcaguid", c.LocalCAGUID, 16)
	case *ib.CMRtu:
		w.hex("infiniband.cm.rtu.localcommid", uint64(c.LocalCommID), 8)
		w.hex("infiniband.cm.rtu.remotecommid", uint64(c.RemoteCommID), 8)
	case *ib.CMRej:
		w.hex("infiniband.cm.rej.localcommid", uint64(c.LocalCommID), 8)
		w.hex("infiniband.cm.rej.remotecommid", uint64(c.RemoteCommID), 8)
		w.uint("infiniband.cm.rej.msgrej", uint64(c.MessageRejected))
		w.uint("infiniband.cm.rej.rejinfolen", uint64(c.RejectInfoLength))
		w.uint("infiniband.cm.rej.reason", uint64(c.Reason))
	case *ib.CMDreq:
		w.hex("infiniband.cm.dreq.localcommid", uint64(c.LocalCommID), 8)
		w.hex("infiniband.cm.dreq.remotecommid", uint64(c.RemoteCommID), 8)
		w.uint("infiniband.cm.req.remoteqpneecn", uint64(c.RemoteQPN)) // sic: Wireshark's name
	case *ib.CMDrep:
		w.hex("infiniband.cm.drsp.localcommid", uint64(c.LocalCommID), 8)
		w.hex("infiniband.cm.drsp.remotecommid", uint64(c.RemoteCommID), 8)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// jsonCMReq writes a ConnectRequest with Wireshark's field names.
func jsonCMReq(w *jsonw, c *ib.CMReq) {
	w.hex("infiniband.cm.req", uint64(c.LocalCommID), 8)
	w.hex("infiniband.cm.req.serviceid", c.ServiceID, 16)
	w.hex("infiniband.cm.req.localcaguid", c.LocalCAGUID, 16)
	w.hex("infiniband.cm.req.localqkey", uint64(c.LocalQKey), 8)
	w.uint("infiniband.cm.req.localqpn", uint64(c.LocalQPN))
	w.uint("infiniband.cm.req.responderres", uint64(c.ResponderResources))
	w.uint("infiniband.cm.req.localeecn", uint64(c.LocalEECN))
	w.uint("infiniband.cm.req.initdepth", uint64(c.InitiatorDepth))
	w.uint("infiniband.cm.req.remoteeecn", uint64(c.RemoteEECN))
	w.uint("infiniband.cm.req.remoteresptout", uint64(c.RemoteCMResponseTimeout))
	w.uint("infiniband.cm.req.transpsvctype", uint64(c.TransportServiceType))
	w.uint("infiniband.cm.req.e2eflowctrl", b2u(c.EndToEndFlowControl))
	w.uint("infiniband.cm.req.startpsn", uint64(c.StartingPSN))
	w.uint("infiniband.cm.req.localresptout", uint64(c.LocalCMResponseTimeout))
	w.uint("infiniband.cm.req.retrcount", uint64(c.RetryCount))
	w.uint("infiniband.cm.req.pkey", uint64(c.PKey))
	w.uint("infiniband.cm.req.pppmtu", uint64(c.PathMTU))
	w.uint("infiniband.cm.req.rdcexist", b2u(c.RDCExists))
	w.uint("infiniband.cm.req.rnrretrcount", uint64(c.RNRRetryCount))
	w.uint("infiniband.cm.req.maxcmretr", uint64(c.MaxCMRetries))
	w.uint("infiniband.cm.req.srq", b2u(c.SRQ))
	w.uint("infiniband.cm.req.ext_transport", uint64(c.ExtendedTransport))
	jsonCMPath(w, "infiniband.cm.req.prim_", &c.Primary, true)
	jsonCMPath(w, "infiniband.cm.req.alt_", &c.Alternate, false)
	if ip, ok := c.IPCM(); ok {
		w.uint("infiniband.cm.req.ip_cm.majv", uint64(ip.Version>>4))
		w.uint("infiniband.cm.req.ip_cm.minv", uint64(ip.Version&0xf))
		w.uint("infiniband.cm.req.ip_cm.ipv", uint64(ip.IPVer))
		w.uint("infiniband.cm.req.ip_cm.sport", uint64(ip.SrcPort))
		if ip.IPVer == 4 {
			w.addr("infiniband.cm.req.ip_cm.sip4", frame.Addr{IP: ip.Src})
			w.addr("infiniband.cm.req.ip_cm.dip4", frame.Addr{IP: ip.Dst})
		} else {
			w.addr("infiniband.cm.req.ip_cm.sip6", frame.Addr{IP: ip.Src})
			w.addr("infiniband.cm.req.ip_cm.dip6", frame.Addr{IP: ip.Dst})
		}
	}
}

// jsonCMPath writes a path of a REQ. Wireshark shows the primary path's
// GIDs as IPv4 addresses (…_ipv4) when they are IPv4-mapped, and the
// alternate path's as bytes, which rdmalab leaves out.
func jsonCMPath(w *jsonw, prefix string, p *ib.CMPath, gids bool) {
	w.uint(prefix+"locallid", uint64(p.LocalLID))
	w.uint(prefix+"remotelid", uint64(p.RemoteLID))
	if gids {
		local, remote := frame.IPAddr16(p.LocalGID), frame.IPAddr16(p.RemoteGID)
		if local.Is4() && remote.Is4() {
			w.addr(prefix+"localgid_ipv4", frame.Addr{IP: local})
			w.addr(prefix+"remotegid_ipv4", frame.Addr{IP: remote})
		} else {
			w.str(prefix+"localgid", p.LocalGID.String())
			w.str(prefix+"remotegid", p.RemoteGID.String())
		}
	}
	w.uint(prefix+"flowlabel", uint64(p.FlowLabel))
	w.uint(prefix+"pktrate", uint64(p.PacketRate))
	w.uint(prefix+"tfcclass", uint64(p.TrafficClass))
	w.uint(prefix+"hoplim", uint64(p.HopLimit))
	w.uint(prefix+"sl", uint64(p.SL))
	w.uint(prefix+"subnetlocal", b2u(p.SubnetLocal))
	w.uint(prefix+"localacktout", uint64(p.LocalACKTimeout))
}

// jsonRPCoRDMA writes the transport header with Wireshark's field names.
func jsonRPCoRDMA(w *jsonw, h *rpcrdma.Header) {
	w.hex("rpcordma.xid", uint64(h.XID), 8)
	w.uint("rpcordma.version", uint64(h.Vers))
	w.uint("rpcordma.flow_control", uint64(h.Credit))
	w.uint("rpcordma.msg_type", uint64(h.Proc))
	switch h.Proc {
	case rpcrdma.ProcError:
		w.uint("rpcordma.errcode", uint64(h.Err))
		if h.Err == rpcrdma.ErrCodeVers {
			w.uint("rpcordma.vers_low", uint64(h.VersLow))
			w.uint("rpcordma.vers_high", uint64(h.VersHigh))
		}
		return
	case rpcrdma.ProcDone:
		return
	case rpcrdma.ProcMsgp:
		w.uint("rpcordma.rdma_align", uint64(h.Align))
		w.uint("rpcordma.rdma_thresh", uint64(h.Thresh))
	}
	w.uint("rpcordma.reads_count", uint64(len(h.ReadList)))
	w.uint("rpcordma.writes_count", uint64(len(h.WriteList)))
	reply := uint64(0)
	if h.ReplyChunk != nil {
		reply = 1
	}
	w.uint("rpcordma.reply_count", reply)
	if len(h.ReadList) > 0 {
		w.beginArray("rpcordma.position")
		for _, s := range h.ReadList {
			w.uint("", uint64(s.Position))
		}
		w.endArray()
	}
	var counts []int
	for _, c := range h.WriteList {
		counts = append(counts, len(c.Segments))
	}
	if h.ReplyChunk != nil {
		counts = append(counts, len(h.ReplyChunk.Segments))
	}
	if len(counts) > 0 {
		w.beginArray("rpcordma.segment_count")
		for _, n := range counts {
			w.int("", n)
		}
		w.endArray()
	}
	segs := wireSegments(h)
	if len(segs) == 0 {
		return
	}
	w.beginArray("rpcordma.rdma_handle")
	for _, s := range segs {
		w.hex("", uint64(s.Handle), 8)
	}
	w.endArray()
	w.beginArray("rpcordma.rdma_length")
	for _, s := range segs {
		w.uint("", uint64(s.Length))
	}
	w.endArray()
	w.beginArray("rpcordma.rdma_offset")
	for _, s := range segs {
		w.hex("", s.Offset, 16)
	}
	w.endArray()
}

// wireSegments lists the segments of h in wire order: Read list, Write
// list, Reply chunk.
func wireSegments(h *rpcrdma.Header) []rpcrdma.Segment {
	var segs []rpcrdma.Segment
	for _, s := range h.ReadList {
		segs = append(segs, s.Segment)
	}
	for _, c := range h.WriteList {
		segs = append(segs, c.Segments...)
	}
	if h.ReplyChunk != nil {
		segs = append(segs, h.ReplyChunk.Segments...)
	}
	return segs
}

// jsonAnalysis writes rdmalab's own fields.
func jsonAnalysis(w *jsonw, p *analysis.Packet) {
	an := &p.Analysis
	jsonFlowMsg(w, an.Flow, an.Msg)
	if m := an.Msg; m != nil {
		w.int("rdmalab.msg.index", an.MsgIndex)
		key := msgEndKey{firstFrame: m.FirstFrame, complete: m.Complete}
		if !fragHit(w, &w.msgEnd, key) {
			start := len(w.b)
			w.int("rdmalab.msg.first_frame", m.FirstFrame)
			w.bool("rdmalab.msg.complete", m.Complete)
			fragKeep(w, &w.msgEnd, key, start)
		}
		if m.Kind == ib.KindAtomic {
			jsonAtomic(w, m)
		}
	}
	if an.PSN.Status != analysis.PSNNotChecked {
		w.str("rdmalab.psn_status", an.PSN.Status.String())
	}
	if ak := an.Ack; ak != nil {
		w.str("rdmalab.ack.syndrome", ak.Syndrome.String())
		w.uint("rdmalab.ack.psn", uint64(ak.PSN))
		w.uint("rdmalab.ack.msn", uint64(ak.MSN))
		if ak.MSNKnown {
			w.uint("rdmalab.ack.expected_msn", uint64(ak.ExpectedMSN))
		}
		if len(ak.Acked) > 0 {
			w.beginArray("rdmalab.ack.acked_kind")
			for _, m := range ak.Acked {
				w.str("", m.Kind.String())
			}
			w.endArray()
			w.beginArray("rdmalab.ack.acked_seq")
			for _, m := range ak.Acked {
				w.int("", m.Seq)
			}
			w.endArray()
			w.beginArray("rdmalab.ack.acked_frame")
			for _, m := range ak.Acked {
				w.int("", m.FirstFrame)
			}
			w.endArray()
		}
	}
	if r := an.RPC; r != nil {
		jsonRPCoRDMA(w, &r.Header)
		jsonONCRPC(w, r)
		jsonRPC(w, r)
	}
	if an.Short {
		w.bool("rdmalab.short_send", true)
	}
	if an.NotRPC != "" {
		w.str("rdmalab.not_rpc", an.NotRPC)
	}
	if c := an.Chunk; c.RPC != nil {
		sg := c.Seg()
		key := chunkKey{xid: c.RPC.XID, kind: c.Kind, chunk: c.Chunk, segment: c.Segment, handle: sg.Handle}
		if !fragHit(w, &w.chunk, key) {
			start := len(w.b)
			w.hex("rdmalab.chunk.xid", uint64(c.RPC.XID), 8)
			w.str("rdmalab.chunk.kind", c.Kind.String())
			w.int("rdmalab.chunk.index", c.Chunk)
			w.int("rdmalab.segment.index", c.Segment)
			w.hex("rdmalab.segment.handle", uint64(sg.Handle), 8)
			fragKeep(w, &w.chunk, key, start)
		}
		w.uint("rdmalab.segment.offset", c.Offset)
		w.int("rdmalab.segment.len", c.Len)
		w.uint("rdmalab.segment.length", uint64(sg.Length))
		w.bool("rdmalab.segment.past_end", c.Past)
	}
	if c := an.CM; c != nil {
		w.int("rdmalab.cm_connection", c.ID)
	}
	if len(an.Notes) > 0 {
		w.beginArray("rdmalab.note.kind")
		for _, n := range an.Notes {
			w.str("", n.Kind.String())
		}
		w.endArray()
		w.beginArray("rdmalab.note.anomaly")
		for _, n := range an.Notes {
			w.bool("", n.Kind.Anomaly())
		}
		w.endArray()
		w.beginArray("rdmalab.note.text")
		for _, n := range an.Notes {
			w.str("", n.Text)
		}
		w.endArray()
	}
}

// msgKey is what the flow's fields and the message's first fields say:
// they repeat over the packets of a message.
type msgKey struct {
	flow, seq int
	ee        bool
	qp        uint32
	kind      ib.Kind
	msg       bool
}

// msgEndKey is what the message's fields after its packet index say.
type msgEndKey struct {
	firstFrame int
	complete   bool
}

// chunkKey is what the fields that name a packet's chunk segment say.
type chunkKey struct {
	xid            uint32
	kind           analysis.ChunkKind
	chunk, segment int
	handle         uint32
}

// jsonFlowMsg writes the flow's fields and the message's kind and number.
func jsonFlowMsg(w *jsonw, f *analysis.Flow, m *analysis.Message) {
	if f == nil {
		if m != nil {
			jsonMsgName(w, m)
		}
		return
	}
	key := msgKey{flow: f.ID, ee: f.Key.EE, qp: f.Key.QP, msg: m != nil}
	if m != nil {
		key.kind, key.seq = m.Kind, m.Seq
	}
	if fragHit(w, &w.msg, key) {
		return
	}
	start := len(w.b)
	w.int("rdmalab.flow", f.ID)
	if f.Key.EE {
		w.uint("rdmalab.ee_context", uint64(f.Key.QP))
	}
	if m != nil {
		jsonMsgName(w, m)
	}
	fragKeep(w, &w.msg, key, start)
}

func jsonMsgName(w *jsonw, m *analysis.Message) {
	w.str("rdmalab.msg.kind", m.Kind.String())
	w.int("rdmalab.msg.seq", m.Seq)
}

// jsonONCRPC writes the ONC RPC and NFS fields Wireshark has of the RPC
// message a SEND carried (on a reply, the program and procedure are the
// call's, as Wireshark shows them).
func jsonONCRPC(w *jsonw, m *analysis.RPCMessage) {
	r := m.RPC
	if r == nil || m.Header.Proc == rpcrdma.ProcError || (m.Call && !r.HaveProc) {
		return // no RPC message (yet): an error, or a call in a Read chunk
	}
	w.hex("rpc.xid", uint64(r.XID), 8)
	if m.Call {
		w.uint("rpc.msgtyp", 0)
	} else {
		w.uint("rpc.msgtyp", 1)
	}
	if !r.HaveProc {
		return
	}
	w.uint("rpc.program", uint64(r.Prog))
	w.uint("rpc.programversion", uint64(r.Vers))
	w.uint("rpc.procedure", uint64(r.Proc))
	if a := r.AuthSys; m.Call && a != nil {
		w.str("rpc.auth.machinename", a.MachineName)
		w.uint("rpc.auth.uid", uint64(a.UID))
		w.uint("rpc.auth.gid", uint64(a.GID))
	}
	f := r.ReplyNFS
	if m.Call {
		f = r.CallNFS
	}
	if f != nil {
		jsonNFS(w, f, m.Call)
	}
}

// jsonNFS writes NFS fields with Wireshark's names.
func jsonNFS(w *jsonw, f *nfs.Fields, call bool) {
	v3 := f.Vers == 3
	if v3 {
		w.uint("nfs.procedure_v3", uint64(f.Proc))
	} else {
		w.uint("nfs.procedure_v4", uint64(f.Proc))
		if len(f.Ops) > 0 {
			w.beginArray("nfs.opcode")
			for _, op := range f.Ops {
				w.uint("", uint64(op))
			}
			w.endArray()
		}
		if len(f.MainOps) > 0 {
			w.beginArray("nfs.main_opcode")
			for _, op := range f.MainOps {
				w.uint("", uint64(op))
			}
			w.endArray()
		}
	}
	if f.HasStatus {
		if v3 {
			w.uint("nfs.status3", uint64(f.Status))
			w.beginArray("nfs.status") // Wireshark's status of any version
			w.uint("", uint64(f.Status))
			w.endArray()
		} else {
			w.beginArray("nfs.status")
			for st := range f.Statuses() {
				w.uint("", uint64(st))
			}
			w.endArray()
		}
	}
	if f.HasOffset {
		w.uint(pick(v3, "nfs.offset3", "nfs.offset4"), f.Offset)
	}
	if f.HasCount {
		w.uint(pick(v3, "nfs.count3", "nfs.count4"), uint64(f.Count))
	}
	if f.HasStable {
		switch {
		case !v3:
			w.uint("nfs.stable_how4", uint64(f.Stable))
		case call:
			w.uint("nfs.write.stable", uint64(f.Stable))
		default:
			w.uint("nfs.write.committed", uint64(f.Stable))
		}
	}
	if f.HasDataLen {
		w.uint(pick(call, "nfs.write.data_length", "nfs.read.data_length"), uint64(f.DataLen))
	}
	if f.HasEOF {
		if v3 {
			w.bool("nfs.read.eof", f.EOF)
		} else {
			w.uint("nfs.eof", b2u(f.EOF))
		}
	}
	jsonStrings(w, f.Strings)
}

// jsonStrings writes the names and paths of an NFS message exactly as
// sent, each field once: a string, or an array when the message has
// several (as tshark -T json does). A message has few distinct fields and
// maybe many values (a READDIR reply): one pass per field.
func jsonStrings(w *jsonw, strs []nfs.StringField) {
	var fields []string
	for _, s := range strs {
		if !slices.Contains(fields, s.Field) {
			fields = append(fields, s.Field)
		}
	}
	for _, f := range fields {
		n, last := 0, ""
		for _, s := range strs {
			if s.Field == f {
				n, last = n+1, s.Value
			}
		}
		if n == 1 {
			w.str(f, last)
			continue
		}
		w.beginArray(f)
		for _, s := range strs {
			if s.Field == f {
				w.str("", s.Value)
			}
		}
		w.endArray()
	}
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// jsonAtomic writes an atomic and, once it is answered, its response.
func jsonAtomic(w *jsonw, m *analysis.Message) {
	cmpSwap := m.Opcode.Operation() == ib.OpCompareSwap
	if cmpSwap {
		w.str("rdmalab.atomic.op", "CmpSwap")
	} else {
		w.str("rdmalab.atomic.op", "FetchAdd")
	}
	w.int("rdmalab.atomic.request_frame", m.FirstFrame)
	w.hex("rdmalab.atomic.va", m.VA, 16)
	w.hex("rdmalab.atomic.r_key", uint64(m.RKey), 8)
	if cmpSwap {
		w.hex("rdmalab.atomic.compare", m.Compare, 16)
		w.hex("rdmalab.atomic.swap", m.SwapAdd, 16)
	} else {
		w.hex("rdmalab.atomic.add", m.SwapAdd, 16)
	}
	if m.RespDone {
		w.int("rdmalab.atomic.response_frame", m.RespFirstFrame)
		w.hex("rdmalab.atomic.orig", m.Orig, 16)
		if cmpSwap {
			w.bool("rdmalab.atomic.swapped", m.Swapped())
		}
	}
}

func jsonRPC(w *jsonw, m *analysis.RPCMessage) {
	w.hex("rdmalab.rpc.xid", uint64(m.Header.XID), 8)
	w.str("rdmalab.rpc.proc", m.Header.Proc.String())
	if r := m.RPC; r != nil {
		role := "reply"
		if m.Call {
			role = "call"
		}
		w.str("rdmalab.rpc.role", role)
		if r.HaveProc {
			w.uint("rdmalab.rpc.program", uint64(r.Prog))
			w.uint("rdmalab.rpc.version", uint64(r.Vers))
			w.uint("rdmalab.rpc.procedure", uint64(r.Proc))
		}
		if m.Call {
			w.str("rdmalab.rpc.summary", r.CallSummary)
		} else {
			w.str("rdmalab.rpc.summary", r.ReplySummary)
			if r.Call != nil {
				w.int("rdmalab.rpc.call_frame", r.Call.Frame)
				w.float("rdmalab.rpc.latency", m.Time.Sub(r.Call.Time).Seconds())
			}
		}
	}
	if m.Obsolete() {
		w.bool("rdmalab.rpc.obsolete", true)
	}
	w.int("rdmalab.rpc.first_frame", m.FirstFrame)
}
