package decode

// -V: a detail tree per packet, in the shape of tshark -V: each layer, its
// fields with Wireshark's labels, the CRC checks, the RPC-over-RDMA header
// (rpcrdma.Header.String), the RPC, and rdmalab's analysis.

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/proto/ib"
)

type tree struct{ sb *strings.Builder }

func (t tree) line(depth int, format string, args ...any) {
	t.sb.WriteString(strings.Repeat("    ", depth))
	fmt.Fprintf(t.sb, format, args...)
	t.sb.WriteByte('\n')
}

// appendTree appends the detail tree of p and a blank line.
func appendTree(sb *strings.Builder, p *Packet) {
	t := tree{sb}
	t.line(0, "Frame %d: %d bytes on wire, %d bytes captured, at file offset %d", p.Frame, p.WireLen, p.CapLen, p.Offset)
	t.line(1, "Arrival Time: %s", p.Time.Format("2006-01-02 15:04:05.000000000 UTC"))
	t.line(1, "[Time since first frame: %.9f seconds]", p.Rel.Seconds())
	t.line(1, "Link type: %v", p.LinkType)
	if p.Truncated {
		t.line(1, "[Truncated by the capture]")
	}
	if p.ERF != nil {
		e := p.ERF
		t.line(0, "Extensible Record Format")
		t.line(1, "Record type: %d, Flags: 0x%02x, Record length: %d, Loss counter: %d, Wire length: %d",
			e.Type, e.Flags, e.RLen, e.LCtr, e.WLen)
	}
	if p.Eth != nil {
		t.line(0, "Ethernet II, Src: %s, Dst: %s, Type: %s (0x%04x)", p.Eth.SrcMAC, p.Eth.DstMAC, p.Eth.EthernetType, uint16(p.Eth.EthernetType))
	}
	switch {
	case p.IPv4 != nil:
		ip := p.IPv4
		t.line(0, "Internet Protocol Version 4, Src: %s, Dst: %s", p.Src, p.Dst)
		t.line(1, "Differentiated Services Field: 0x%02x, Total Length: %d, Identification: 0x%04x, TTL: %d, Protocol: %s",
			ip.TOS, ip.Length, ip.Id, ip.TTL, ip.Protocol)
	case p.IPv6 != nil:
		ip := p.IPv6
		t.line(0, "Internet Protocol Version 6, Src: %s, Dst: %s", p.Src, p.Dst)
		t.line(1, "Traffic Class: 0x%02x, Flow Label: 0x%05x, Payload Length: %d, Hop Limit: %d",
			ip.TrafficClass, ip.FlowLabel, ip.Length, ip.HopLimit)
	}
	if p.UDP != nil {
		t.line(0, "User Datagram Protocol, Src Port: %d, Dst Port: %d, Length: %d, Checksum: 0x%04x",
			p.SrcPort, p.DstPort, p.UDP.Length, p.UDP.Checksum)
	}
	if p.LRH != nil || p.GRH != nil || p.BTH != nil {
		t.line(0, "InfiniBand")
		treeIB(t, p)
	}
	if p.MAD != nil {
		treeMAD(t, p)
	}
	if r := p.Analysis.RPC; r != nil {
		for _, l := range strings.Split(strings.TrimRight(r.Header.String(), "\n"), "\n") {
			t.line(0, "%s", l)
		}
		treeRPC(t, r)
	}
	treeAnalysis(t, p)
	if p.Err != nil {
		t.line(0, "[Malformed: %s at offset %d: %s]", p.Err.Layer, p.Err.Offset, p.Err.Msg)
	}
	sb.WriteByte('\n')
}

func treeIB(t tree, p *Packet) {
	if l := p.LRH; l != nil {
		t.line(1, "Local Route Header")
		t.line(2, "Virtual Lane: 0x%x, Link Version: %d, Service Level: %d, Link Next Header: %d (%s)", l.VL, l.LVer, l.SL, l.LNH, l.LNH)
		t.line(2, "Destination Local ID: %d, Packet Length: %d, Source Local ID: %d", l.DLID, l.PktLen, l.SLID)
	}
	if g := p.GRH; g != nil {
		t.line(1, "Global Route Header")
		t.line(2, "IP Version: %d, Traffic Class: %d, Flow Label: %d, Payload Length: %d, Next Header: %d, Hop Limit: %d",
			g.IPVer, g.TClass, g.FlowLabel, g.PayLen, g.NxtHdr, g.HopLmt)
		t.line(2, "Source GID: %s", g.SGID)
		t.line(2, "Destination GID: %s", g.DGID)
	}
	b := p.BTH
	if b == nil {
		crcLine(t, "Variant CRC", p.VCRC, 4)
		return
	}
	t.line(1, "Base Transport Header")
	t.line(2, "Opcode: %s (%d)", b.Opcode, uint8(b.Opcode))
	t.line(2, "Solicited Event: %v, MigReq: %v, Pad Count: %d, Header Version: %d, Partition Key: %d",
		b.SE, b.M, b.PadCnt, b.TVer, b.PKey)
	t.line(2, "FECN: %v, BECN: %v, Destination Queue Pair: 0x%06x", b.FECN, b.BECN, b.DestQP)
	t.line(2, "Acknowledge Request: %v, Packet Sequence Number: %d", b.A, b.PSN)
	h := b.Headers
	if h&ib.HasRDETH != 0 {
		t.line(1, "RDETH - Reliable Datagram Extended Transport Header")
		t.line(2, "E2E Context: 0x%06x", b.RDETH.EECnxt)
	}
	if h&ib.HasDETH != 0 {
		t.line(1, "DETH - Datagram Extended Transport Header")
		t.line(2, "Queue Key: 0x%08x, Source Queue Pair: 0x%06x", b.DETH.QKey, b.DETH.SrcQP)
	}
	if h&ib.HasXRCETH != 0 {
		t.line(1, "XRCETH - XRC Extended Transport Header")
		t.line(2, "XRC SRQ: 0x%06x", b.XRCETH.XRCSRQ)
	}
	if h&ib.HasFETH != 0 {
		t.line(1, "FETH - FLUSH Extended Transport Header")
		t.line(2, "Selectivity Level: %d, Placement Type: %d", b.FETH.Selectivity, b.FETH.Placement)
	}
	if h&ib.HasRETH != 0 {
		t.line(1, "RETH - RDMA Extended Transport Header")
		t.line(2, "Virtual Address: 0x%016x, Remote Key: 0x%08x, DMA Length: %d", b.RETH.VA, b.RETH.RKey, b.RETH.DMALen)
	}
	if h&ib.HasAtomicETH != 0 {
		a := b.AtomicETH
		t.line(1, "AtomicETH - Atomic Extended Transport Header")
		t.line(2, "Virtual Address: 0x%016x, Remote Key: 0x%08x", a.VA, a.RKey)
		t.line(2, "Swap (Or Add) Data: 0x%016x, Compare Data: 0x%016x", a.SwapDt, a.CmpDt)
	}
	if h&ib.HasAETH != 0 {
		t.line(1, "AETH - ACK Extended Transport Header")
		t.line(2, "Syndrome: 0x%02x (%s), Message Sequence Number: %d", uint8(b.AETH.Syndrome), b.AETH.Syndrome, b.AETH.MSN)
	}
	if h&ib.HasAtomicAckETH != 0 {
		t.line(1, "AtomicAckETH - Atomic ACK Extended Transport Header")
		t.line(2, "Original Remote Data: 0x%016x", b.AtomicAckETH.OrigRemDt)
	}
	if h&ib.HasImmDt != 0 {
		t.line(1, "Immediate Data: 0x%08x", b.ImmDt.Data)
	}
	if h&ib.HasIETH != 0 {
		t.line(1, "IETH - Invalidate Extended Transport Header")
		t.line(2, "RKey: 0x%08x", b.IETH.RKey)
	}
	if p.MAD == nil && len(b.Payload) > 0 {
		t.line(1, "Payload: %d bytes%s", len(b.Payload), padNote(b))
	}
	crcLine(t, "Invariant CRC", p.ICRC, 8)
	crcLine(t, "Variant CRC", p.VCRC, 4)
}

func padNote(b *ib.BTH) string {
	if b.PadCnt == 0 {
		return ""
	}
	return fmt.Sprintf(" (+%d pad)", b.PadCnt)
}

func crcLine(t tree, name string, c CRCCheck, width int) {
	switch c.State {
	case CRCGood:
		t.line(1, "%s: 0x%0*x [correct]", name, width, c.Wire)
	case CRCBad:
		t.line(1, "%s: 0x%0*x [incorrect, should be 0x%0*x]", name, width, c.Wire, width, c.Computed)
	case CRCUnknown:
		t.line(1, "%s: [unchecked: the capture cut the packet]", name)
	}
}

func treeMAD(t tree, p *Packet) {
	m := p.MAD
	t.line(0, "MAD Header - Common Management Datagram")
	t.line(1, "Base Version: %d, Management Class: 0x%02x (%s), Class Version: %d, Method: 0x%02x",
		m.BaseVersion, uint8(m.MgmtClass), m.MgmtClass, m.ClassVersion, m.Method)
	t.line(1, "Status: 0x%04x, Transaction ID: 0x%016x, Attribute ID: 0x%04x, Attribute Modifier: 0x%08x",
		m.Status, m.TransactionID, m.AttributeID, m.AttributeModifier)
	switch c := p.CM.(type) {
	case *ib.CMReq:
		t.line(0, "CM ConnectRequest")
		t.line(1, "Local Communication ID: 0x%08x, ServiceID: 0x%016x", c.LocalCommID, c.ServiceID)
		t.line(1, "Local QPN: 0x%06x, Starting PSN: %d, Path MTU: %d (%d bytes), Transport: %d",
			c.LocalQPN, c.StartingPSN, c.PathMTU, ib.MTUBytes(c.PathMTU), c.TransportServiceType)
		t.line(1, "Primary path: LID %d → %d, GID %s → %s", c.Primary.LocalLID, c.Primary.RemoteLID, c.Primary.LocalGID, c.Primary.RemoteGID)
		if ip, ok := c.IPCM(); ok {
			t.line(1, "IP CM: %s → %s", ipString(ip.Src, ip.SrcPort), ipString(ip.Dst, c.ServicePort()))
		}
	case *ib.CMRep:
		t.line(0, "CM ConnectReply")
		t.line(1, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x", c.LocalCommID, c.RemoteCommID)
		t.line(1, "Local QPN: 0x%06x, Starting PSN: %d", c.LocalQPN, c.StartingPSN)
	case *ib.CMRtu:
		t.line(0, "CM ReadyToUse")
		t.line(1, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x", c.LocalCommID, c.RemoteCommID)
	case *ib.CMRej:
		t.line(0, "CM ConnectReject")
		t.line(1, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x, Reason: %d", c.LocalCommID, c.RemoteCommID, c.Reason)
	case *ib.CMDreq:
		t.line(0, "CM DisconnectRequest")
		t.line(1, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x, Remote QPN: 0x%06x", c.LocalCommID, c.RemoteCommID, c.RemoteQPN)
	case *ib.CMDrep:
		t.line(0, "CM DisconnectReply")
		t.line(1, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x", c.LocalCommID, c.RemoteCommID)
	}
}

func treeRPC(t tree, m *RPCMessage) {
	r := m.RPC
	if r == nil {
		return
	}
	if m.Call {
		t.line(0, "Remote Procedure Call, Type: Call, XID: 0x%08x", r.XID)
		if r.HaveProc {
			t.line(1, "Program: %d, Version: %d, Procedure: %d", r.Prog, r.Vers, r.Proc)
		}
		t.line(1, "%s", r.CallSummary)
		if len(r.ReadChunks) > 0 {
			if b, err := r.CallBytes(); err == nil {
				t.line(1, "[Call rebuilt with its Read chunk data: %d bytes]", len(b))
			}
		}
		return
	}
	t.line(0, "Remote Procedure Call, Type: Reply, XID: 0x%08x", r.XID)
	if r.Call != nil {
		t.line(1, "[Call in frame %d, time %.9f seconds]", r.Call.Frame, m.Time.Sub(r.Call.Time).Seconds())
	}
	t.line(1, "%s", r.ReplySummary)
	if b, err := r.ReplyBytes(); b != nil && (len(r.WriteChunks) > 0 || m.Header.Proc != 0) {
		note := ""
		if err != nil {
			note = " (" + err.Error() + ")"
		}
		t.line(1, "[Reply rebuilt with its chunk data: %d bytes%s]", len(b), note)
	}
}

func treeAnalysis(t tree, p *Packet) {
	an := &p.Analysis
	if an.Flow == nil && an.CM == nil && len(an.Notes) == 0 {
		return
	}
	t.line(0, "[rdmalab analysis]")
	if f := an.Flow; f != nil {
		peer := "unknown"
		if f.Peer != nil {
			peer = fmt.Sprintf("flow %d", f.Peer.ID)
			if f.Inferred {
				peer += " (inferred)"
			}
		}
		t.line(1, "Flow %d: %v, peer %s", f.ID, f.Key, peer)
		if f.Key.EE {
			t.line(2, "Reliable Datagram: PSNs are counted per EE context 0x%06x, whatever the QP", f.Key.QP)
		}
	}
	if c := an.CM; c != nil {
		t.line(1, "%v", c)
	}
	if m := an.Msg; m != nil {
		state := "incomplete"
		if m.Complete {
			state = "complete"
		}
		switch m.Kind {
		case ib.KindReadRequest:
			t.line(1, "Message: %s of %d bytes in frame %d; %d response packets, %d bytes so far, %s",
				m.Name(), m.DMALen, m.FirstFrame, m.RespPackets, m.RespBytes, state)
		case ib.KindAtomic:
			t.line(1, "Message: %s (%s) in frame %d, at 0x%016x R_Key 0x%08x", m.Name(), m.Opcode.Info(), m.FirstFrame, m.VA, m.RKey)
			if m.Opcode.Operation() == ib.OpCompareSwap {
				t.line(2, "Compare 0x%016x, swap 0x%016x", m.Compare, m.SwapAdd)
			} else {
				t.line(2, "Add 0x%016x", m.SwapAdd)
			}
			if m.RespDone {
				t.line(2, "Answered in frame %d: original value 0x%016x%s", m.RespFirstFrame, m.Orig, swapText(m))
			} else {
				t.line(2, "Not answered yet")
			}
		default:
			t.line(1, "Message: %s, first packet in frame %d, packet %d, %d bytes so far, %s",
				m.Name(), m.FirstFrame, an.MsgIndex+1, m.Len, state)
		}
		if m.AckFrame != 0 {
			t.line(2, "Acknowledged in frame %d", m.AckFrame)
		}
	}
	if an.PSN.Status != PSNNotChecked {
		t.line(1, "PSN: %s (expected %d)", an.PSN.Status, an.PSN.Expected)
	}
	if ak := an.Ack; ak != nil {
		msn := ""
		if ak.MSNKnown {
			msn = fmt.Sprintf(", MSN %d expected", ak.ExpectedMSN)
		}
		t.line(1, "Acknowledges up to PSN %d, MSN %d%s", ak.PSN, ak.MSN, msn)
		for _, m := range ak.Acked {
			t.line(2, "%s of frame %d (PSN %d–%d)", m.Name(), m.FirstFrame, m.FirstPSN, m.LastPSN)
		}
	}
	if c := an.Chunk; c.RPC != nil {
		sg := c.segment()
		t.line(1, "RPC XID 0x%08x, %s chunk %d, segment %d (handle 0x%08x, %d bytes at 0x%016x), offset %d, %d bytes",
			c.RPC.XID, c.Kind, c.Chunk, c.Segment, sg.Handle, sg.Length, sg.Offset, c.Offset, c.Len)
	}
	if an.NotRPC != "" {
		t.line(1, "%s", an.NotRPC)
	}
	for _, n := range an.Notes {
		mark := "Unknown"
		if n.Kind.Anomaly() {
			mark = "Anomaly"
		}
		t.line(1, "%s: %s: %s", mark, n.Kind, n.Text)
	}
}
