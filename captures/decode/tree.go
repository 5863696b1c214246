package decode

// -V: a detail tree per packet, in the shape of tshark -V: each layer, its
// fields with Wireshark's labels, the CRC checks, the RPC-over-RDMA header
// (rpcrdma.Header.Lines), the RPC, and rdmalab's analysis. Each line is
// written with the bytes of the frame it describes (see layout), so that a
// UI can highlight them in a hex dump whatever the line's words.

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// TreeLine is one line of a packet's detail tree.
type TreeLine struct {
	Depth int    `json:"depth"` // 0 for a layer, 1 for its fields, ...
	Text  string `json:"text"`  // without the indentation
	// Start and End are the bytes of the frame the line shows (End
	// exclusive); Start == End when it shows none of its own (the
	// capture's metadata, rdmalab's analysis).
	Start int `json:"start"`
	End   int `json:"end"`
}

// Tree returns the detail tree of p (as `rdmalab decode -V` prints it)
// with the bytes of the frame each line shows.
func Tree(p *Packet) []TreeLine {
	t := tree{at: layoutOf(p)}
	t.packet(p)
	return t.lines
}

// appendTree appends the detail tree of p, as -V prints it, and a blank
// line.
func appendTree(sb *strings.Builder, p *Packet) {
	for _, l := range Tree(p) {
		sb.WriteString(strings.Repeat("    ", l.Depth))
		sb.WriteString(l.Text)
		sb.WriteByte('\n')
	}
	sb.WriteByte('\n')
}

// tree collects the lines of a packet's detail tree.
type tree struct {
	at    *layout
	lines []TreeLine
}

// line appends a line that shows the bytes b of the frame.
func (t *tree) line(depth int, b span, format string, args ...any) {
	t.lines = append(t.lines, TreeLine{Depth: depth, Text: fmt.Sprintf(format, args...), Start: b.start, End: b.end})
}

// packet writes the tree of p, layer by layer.
func (t *tree) packet(p *Packet) {
	at := t.at
	none := span{}
	t.line(0, at.frame, "Frame %d: %d bytes on wire, %d bytes captured, at file offset %d", p.Frame, p.WireLen, p.CapLen, p.Offset)
	t.line(1, none, "Arrival Time: %s", p.Time.Format("2006-01-02 15:04:05.000000000 UTC"))
	t.line(1, none, "[Time since first frame: %.9f seconds]", p.Rel.Seconds())
	t.line(1, none, "Link type: %v", p.LinkType)
	if p.Truncated {
		t.line(1, none, "[Truncated by the capture]")
	}
	if p.ERF != nil {
		e := p.ERF
		erf := at.of(e.Contents)
		t.line(0, erf, "Extensible Record Format")
		t.line(1, erf, "Record type: %d, Flags: 0x%02x, Record length: %d, Loss counter: %d, Wire length: %d",
			e.Type, e.Flags, e.RLen, e.LCtr, e.WLen)
	}
	if p.Eth != nil {
		t.line(0, at.of(p.Eth.Contents), "Ethernet II, Src: %s, Dst: %s, Type: %s (0x%04x)", p.Eth.SrcMAC, p.Eth.DstMAC, p.Eth.EthernetType, uint16(p.Eth.EthernetType))
	}
	switch {
	case p.IPv4 != nil:
		ip := p.IPv4
		hdr := at.of(ip.Contents)
		t.line(0, hdr, "Internet Protocol Version 4, Src: %s, Dst: %s", p.Src, p.Dst)
		t.line(1, hdr, "Differentiated Services Field: 0x%02x, Total Length: %d, Identification: 0x%04x, TTL: %d, Protocol: %s",
			ip.TOS, ip.Length, ip.Id, ip.TTL, ip.Protocol)
	case p.IPv6 != nil:
		ip := p.IPv6
		hdr := at.of(ip.Contents)
		t.line(0, hdr, "Internet Protocol Version 6, Src: %s, Dst: %s", p.Src, p.Dst)
		t.line(1, hdr, "Traffic Class: 0x%02x, Flow Label: 0x%05x, Payload Length: %d, Hop Limit: %d",
			ip.TrafficClass, ip.FlowLabel, ip.Length, ip.HopLimit)
		if h := ip.HopByHop; h != nil {
			t.line(1, at.of(h.Contents), "IPv6 Hop-by-Hop Option, Next Header: %s (%d), Length: %d bytes",
				h.NextHeader, uint8(h.NextHeader), len(h.Contents))
		}
	}
	t.other(p)
	if p.UDP != nil {
		t.line(0, at.of(p.UDP.Contents), "User Datagram Protocol, Src Port: %d, Dst Port: %d, Length: %d, Checksum: 0x%04x",
			p.SrcPort, p.DstPort, p.UDP.Length, p.UDP.Checksum)
	}
	if p.LRH != nil || p.GRH != nil || p.BTH != nil {
		t.line(0, at.ib, "InfiniBand")
		t.infiniband(p)
	}
	if p.MAD != nil {
		t.mad(p)
	}
	if r := p.Analysis.RPC; r != nil {
		for _, l := range r.Header.Lines() {
			t.line(l.Depth, at.rpcHdr.sub(l.Start, l.End), "%s", l.Text)
		}
		t.rpc(r)
	}
	t.analysis(p)
	if e := p.Err; e != nil {
		t.line(0, at.malformed(e), "[Malformed: %s at offset %d: %s]", e.Layer, e.Offset, e.Msg)
	}
}

// other writes the layers beside the RDMA traffic: ARP, ICMP, TCP, with
// the summary the one-line output gives them.
func (t *tree) other(p *Packet) {
	var sb strings.Builder
	switch {
	case p.ARP != nil:
		arpInfo(&sb, p.ARP)
		t.line(0, t.at.of(p.ARP.Contents), "Address Resolution Protocol, Opcode: %d, %s", p.ARP.Operation, sb.String())
	case p.ICMPv6 != nil:
		icmp6Info(&sb, p.ICMPv6)
		c := p.ICMPv6
		t.line(0, t.at.frame.sub(offsetIn(p.Data, c.Contents), offsetIn(p.Data, c.Payload)+len(c.Payload)),
			"Internet Control Message Protocol v6, Type: %d, Code: %d, Checksum: 0x%04x", c.TypeCode.Type(), c.TypeCode.Code(), c.Checksum)
		t.line(1, t.at.of(c.Payload), "%s", sb.String())
	case p.ICMPv4 != nil:
		icmp4Info(&sb, p)
		c := p.ICMPv4
		t.line(0, t.at.frame.sub(offsetIn(p.Data, c.Contents), offsetIn(p.Data, c.Payload)+len(c.Payload)),
			"Internet Control Message Protocol, Type: %d, Code: %d, Checksum: 0x%04x", c.TypeCode.Type(), c.TypeCode.Code(), c.Checksum)
		t.line(1, t.at.of(c.Contents), "%s", sb.String())
	case p.TCP != nil:
		tc := p.TCP
		hdr := t.at.of(tc.Contents)
		t.line(0, hdr, "Transmission Control Protocol, Src Port: %d, Dst Port: %d, Len: %d", tc.SrcPort, tc.DstPort, len(tc.Payload))
		tcpInfo(&sb, p)
		t.line(1, hdr, "%s", sb.String())
		t.line(1, hdr.sub(4, 8), "Sequence Number (raw): %d", tc.Seq)
		t.line(1, hdr.sub(8, 12), "Acknowledgment Number (raw): %d", tc.Ack)
		if len(tc.Payload) > 0 {
			t.line(1, t.at.of(tc.Payload), "TCP payload: %d bytes", len(tc.Payload))
		}
	}
}

// infiniband writes the lines under "InfiniBand": each header and its fields.
func (t *tree) infiniband(p *Packet) {
	at := t.at
	if l := p.LRH; l != nil {
		t.line(1, at.lrh, "Local Route Header")
		t.line(2, at.lrh.sub(0, 2), "Virtual Lane: 0x%x, Link Version: %d, Service Level: %d, Link Next Header: %d (%s)", l.VL, l.LVer, l.SL, l.LNH, l.LNH)
		t.line(2, at.lrh.sub(2, 8), "Destination Local ID: %d, Packet Length: %d, Source Local ID: %d", l.DLID, l.PktLen, l.SLID)
	}
	if g := p.GRH; g != nil {
		t.line(1, at.grh, "Global Route Header")
		t.line(2, at.grh.sub(0, 8), "IP Version: %d, Traffic Class: %d, Flow Label: %d, Payload Length: %d, Next Header: %d, Hop Limit: %d",
			g.IPVer, g.TClass, g.FlowLabel, g.PayLen, g.NxtHdr, g.HopLmt)
		t.line(2, at.grh.sub(8, 24), "Source GID: %s", g.SGID)
		t.line(2, at.grh.sub(24, 40), "Destination GID: %s", g.DGID)
	}
	b := p.BTH
	if b == nil {
		t.crc("Variant CRC", p.VCRC, 4, at.vcrc)
		return
	}
	t.line(1, at.bth, "Base Transport Header")
	t.line(2, at.bth.sub(0, 1), "Opcode: %s (%d)", b.Opcode, uint8(b.Opcode))
	// The flags one per line with their bits, as tshark shows them.
	raw := func(i int) byte {
		if i < len(b.Contents) {
			return b.Contents[i]
		}
		return 0
	}
	flag := func(i int, mask byte, label string, v any) {
		t.line(2, at.bth.sub(i, i+1), "%s = %s: %v", bitPattern(raw(i), mask), label, v)
	}
	flag(1, 0x80, "Solicited Event", title(b.SE))
	flag(1, 0x40, "MigReq", title(b.M))
	flag(1, 0x30, "Pad Count", b.PadCnt)
	flag(1, 0x0f, "Header Version", b.TVer)
	t.line(2, at.bth.sub(2, 4), "Partition Key: %d", b.PKey)
	flag(4, 0x80, "FECN", title(b.FECN))
	flag(4, 0x40, "BECN", title(b.BECN))
	flag(4, 0x3f, "Reserved (6 bits)", raw(4)&0x3f)
	t.line(2, at.bth.sub(5, 8), "Destination Queue Pair: 0x%06x", b.DestQP)
	flag(8, 0x80, "Acknowledge Request", title(b.A))
	flag(8, 0x7f, "Reserved (7 bits)", raw(8)&0x7f)
	t.line(2, at.bth.sub(9, 12), "Packet Sequence Number: %d", b.PSN)
	h := b.Headers
	if h&ib.HasRDETH != 0 {
		eth := at.ext[ib.HasRDETH]
		t.line(1, eth, "RDETH - Reliable Datagram Extended Transport Header")
		t.line(2, eth, "E2E Context: 0x%06x", b.RDETH.EECnxt)
	}
	if h&ib.HasDETH != 0 {
		eth := at.ext[ib.HasDETH]
		t.line(1, eth, "DETH - Datagram Extended Transport Header")
		t.line(2, eth, "Queue Key: 0x%08x, Source Queue Pair: 0x%06x", b.DETH.QKey, b.DETH.SrcQP)
	}
	if h&ib.HasXRCETH != 0 {
		eth := at.ext[ib.HasXRCETH]
		t.line(1, eth, "XRCETH - XRC Extended Transport Header")
		t.line(2, eth, "XRC SRQ: 0x%06x", b.XRCETH.XRCSRQ)
	}
	if h&ib.HasFETH != 0 {
		eth := at.ext[ib.HasFETH]
		t.line(1, eth, "FETH - FLUSH Extended Transport Header")
		t.line(2, eth, "Selectivity Level: %d, Placement Type: %d", b.FETH.Selectivity, b.FETH.Placement)
	}
	if h&ib.HasRETH != 0 {
		eth := at.ext[ib.HasRETH]
		t.line(1, eth, "RETH - RDMA Extended Transport Header")
		t.line(2, eth, "Virtual Address: 0x%016x, Remote Key: 0x%08x, DMA Length: %d", b.RETH.VA, b.RETH.RKey, b.RETH.DMALen)
	}
	if h&ib.HasAtomicETH != 0 {
		a, eth := b.AtomicETH, at.ext[ib.HasAtomicETH]
		t.line(1, eth, "AtomicETH - Atomic Extended Transport Header")
		t.line(2, eth.sub(0, 12), "Virtual Address: 0x%016x, Remote Key: 0x%08x", a.VA, a.RKey)
		t.line(2, eth.sub(12, 28), "Swap (Or Add) Data: 0x%016x, Compare Data: 0x%016x", a.SwapDt, a.CmpDt)
	}
	if h&ib.HasAETH != 0 {
		eth := at.ext[ib.HasAETH]
		t.line(1, eth, "AETH - ACK Extended Transport Header")
		t.line(2, eth, "Syndrome: 0x%02x (%s), Message Sequence Number: %d", uint8(b.AETH.Syndrome), b.AETH.Syndrome, b.AETH.MSN)
	}
	if h&ib.HasAtomicAckETH != 0 {
		eth := at.ext[ib.HasAtomicAckETH]
		t.line(1, eth, "AtomicAckETH - Atomic ACK Extended Transport Header")
		t.line(2, eth, "Original Remote Data: 0x%016x", b.AtomicAckETH.OrigRemDt)
	}
	if h&ib.HasImmDt != 0 {
		t.line(1, at.ext[ib.HasImmDt], "Immediate Data: 0x%08x", b.ImmDt.Data)
	}
	if h&ib.HasIETH != 0 {
		eth := at.ext[ib.HasIETH]
		t.line(1, eth, "IETH - Invalidate Extended Transport Header")
		t.line(2, eth, "RKey: 0x%08x", b.IETH.RKey)
	}
	if p.MAD == nil && len(b.Payload) > 0 {
		t.line(1, at.payload, "Payload: %d bytes%s", len(b.Payload), padNote(b))
	}
	t.crc("Invariant CRC", p.ICRC, 8, at.icrc)
	t.crc("Variant CRC", p.VCRC, 4, at.vcrc)
}

// bitPattern shows the bits of v under mask as tshark does: "..00 ....".
func bitPattern(v, mask byte) string {
	var sb strings.Builder
	for i := 7; i >= 0; i-- {
		switch bit := byte(1) << i; {
		case mask&bit == 0:
			sb.WriteByte('.')
		case v&bit != 0:
			sb.WriteByte('1')
		default:
			sb.WriteByte('0')
		}
		if i == 4 {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

// title writes a flag as tshark does: True, False.
func title(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func padNote(b *ib.BTH) string {
	if b.PadCnt == 0 {
		return ""
	}
	return fmt.Sprintf(" (+%d pad)", b.PadCnt)
}

// crc writes the check of a CRC of width hex digits held in the bytes at.
func (t *tree) crc(name string, c CRCCheck, width int, at span) {
	switch c.State {
	case CRCGood:
		t.line(1, at, "%s: 0x%0*x [correct]", name, width, c.Wire)
	case CRCBad:
		t.line(1, at, "%s: 0x%0*x [incorrect, should be 0x%0*x]", name, width, c.Wire, width, c.Computed)
	case CRCUnknown:
		t.line(1, at, "%s: [unchecked: the capture cut the packet]", name)
	}
}

// mad writes the management datagram's header and its CM message.
func (t *tree) mad(p *Packet) {
	m, hdr, body := p.MAD, t.at.mad, t.at.madBody
	t.line(0, hdr, "MAD Header - Common Management Datagram")
	t.line(1, hdr.sub(0, 4), "Base Version: %d, Management Class: 0x%02x (%s), Class Version: %d, Method: 0x%02x",
		m.BaseVersion, uint8(m.MgmtClass), m.MgmtClass, m.ClassVersion, m.Method)
	t.line(1, hdr.sub(4, 24), "Status: 0x%04x, Transaction ID: 0x%016x, Attribute ID: 0x%04x, Attribute Modifier: 0x%08x",
		m.Status, m.TransactionID, m.AttributeID, m.AttributeModifier)
	// The CM messages' fields are shown together: each line shows the
	// whole message.
	switch c := p.CM.(type) {
	case *ib.CMReq:
		t.line(0, body, "CM ConnectRequest")
		t.line(1, body, "Local Communication ID: 0x%08x, ServiceID: 0x%016x", c.LocalCommID, c.ServiceID)
		t.line(1, body, "Local QPN: 0x%06x, Starting PSN: %d, Path MTU: %d (%d bytes), Transport: %d",
			c.LocalQPN, c.StartingPSN, c.PathMTU, ib.MTUBytes(c.PathMTU), c.TransportServiceType)
		t.line(1, body, "Primary path: LID %d → %d, GID %s → %s", c.Primary.LocalLID, c.Primary.RemoteLID, c.Primary.LocalGID, c.Primary.RemoteGID)
		if ip, ok := c.IPCM(); ok {
			t.line(1, body, "IP CM: %s → %s", ipString(ip.Src, ip.SrcPort), ipString(ip.Dst, c.ServicePort()))
		}
	case *ib.CMRep:
		t.line(0, body, "CM ConnectReply")
		t.line(1, body, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x", c.LocalCommID, c.RemoteCommID)
		t.line(1, body, "Local QPN: 0x%06x, Starting PSN: %d", c.LocalQPN, c.StartingPSN)
	case *ib.CMRtu:
		t.line(0, body, "CM ReadyToUse")
		t.line(1, body, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x", c.LocalCommID, c.RemoteCommID)
	case *ib.CMRej:
		t.line(0, body, "CM ConnectReject")
		t.line(1, body, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x, Reason: %d", c.LocalCommID, c.RemoteCommID, c.Reason)
	case *ib.CMDreq:
		t.line(0, body, "CM DisconnectRequest")
		t.line(1, body, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x, Remote QPN: 0x%06x", c.LocalCommID, c.RemoteCommID, c.RemoteQPN)
	case *ib.CMDrep:
		t.line(0, body, "CM DisconnectReply")
		t.line(1, body, "Local Communication ID: 0x%08x, Remote Communication ID: 0x%08x", c.LocalCommID, c.RemoteCommID)
	}
}

// rpc writes the RPC the message carries; every line shows the RPC
// message (when the packet holds all of it).
func (t *tree) rpc(m *RPCMessage) {
	r, body := m.RPC, t.at.rpcBody
	if r == nil {
		return
	}
	if m.Call {
		t.line(0, body, "Remote Procedure Call, Type: Call, XID: 0x%08x", r.XID)
		t.callHeader(m, body)
		if len(r.ReadChunks) > 0 {
			if b, err := r.CallBytes(); err == nil {
				t.line(1, body, "[Call rebuilt with its Read chunk data: %d bytes]", len(b))
			}
		}
		return
	}
	t.line(0, body, "Remote Procedure Call, Type: Reply, XID: 0x%08x", r.XID)
	if r.Call != nil {
		t.line(1, body, "[Call in frame %d, time %.9f seconds]", r.Call.Frame, m.Time.Sub(r.Call.Time).Seconds())
	}
	t.line(1, body, "%s", r.ReplySummary)
	if b, err := r.ReplyBytes(); b != nil && (len(r.WriteChunks) > 0 || m.Header.Proc != 0) {
		note := ""
		if err != nil {
			note = " (" + err.Error() + ")"
		}
		t.line(1, body, "[Reply rebuilt with its chunk data: %d bytes%s]", len(b), note)
	}
}

// callHeader writes the call's program, procedure, credentials and
// verifier, and then its arguments under the program's name. The call is
// the message's inline part; body is where it lies in the frame (no bytes
// when the packet does not hold all of it).
func (t *tree) callHeader(m *RPCMessage, body span) {
	r := m.RPC
	if !r.HaveProc {
		t.line(1, body, "%s", r.CallSummary)
		return
	}
	t.line(1, body.sub(12, 24), "Program: %s (%d), Version: %d, Procedure: %s (%d)",
		oncrpc.ProgramName(r.Prog), r.Prog, r.Vers, nfs.ProcName(r.Prog, r.Vers, r.Proc), r.Proc)
	t.line(1, body, "%s", r.CallSummary)
	b := m.Inline
	if p := m.Header.Proc; p != rpcrdma.ProcMsg && p != rpcrdma.ProcMsgp {
		b, body = nil, span{}
		if cb, err := r.CallBytes(); err == nil {
			b = cb
		}
	}
	var h oncrpc.CallHeader
	n, err := h.Decode(b)
	if err != nil {
		return
	}
	at := 24
	t.auth("Credentials", &h.Cred, body, at)
	at += 8 + xdr.RoundUp(len(h.Cred.Body))
	t.auth("Verifier", &h.Verf, body, at)
	args := body.sub(n, body.end-body.start)
	lines := nfs.CallTree(r.Prog, r.Vers, r.Proc, b[n:])
	if len(lines) == 0 {
		return
	}
	name := oncrpc.ProgramName(r.Prog)
	if name == "NFS" {
		name = "Network File System"
	}
	t.line(0, args, "%s, Procedure: %s", name, nfs.ProcName(r.Prog, r.Vers, r.Proc))
	for _, l := range lines {
		t.line(l.Depth+1, args.sub(l.Start, l.End), "%s", l.Text)
	}
}

// auth writes a credential or verifier that starts at off in body.
func (t *tree) auth(label string, a *oncrpc.OpaqueAuth, body span, off int) {
	all := body.sub(off, off+8+xdr.RoundUp(len(a.Body)))
	t.line(1, all, "%s", label)
	t.line(2, body.sub(off, off+8), "Flavor: %s (%d), Length: %d", a.Flavor, uint32(a.Flavor), len(a.Body))
	if a.Flavor != oncrpc.AuthSys {
		return
	}
	var p oncrpc.AuthSysParams
	if p.Decode(a.Body) != nil {
		return
	}
	at := off + 8
	t.line(2, body.sub(at, at+4), "Stamp: 0x%08x", p.Stamp)
	at += 4
	nameLen := 4 + xdr.RoundUp(len(p.MachineName))
	t.line(2, body.sub(at, at+nameLen), "Machine Name: %s", safe.Text(p.MachineName))
	at += nameLen
	t.line(2, body.sub(at, at+4), "UID: %d", p.UID)
	t.line(2, body.sub(at+4, at+8), "GID: %d", p.GID)
	at += 8
	t.line(2, body.sub(at, at+4+4*len(p.GIDs)), "Auxiliary GIDs (%d)%s", len(p.GIDs), gidList(p.GIDs))
}

func gidList(g []uint32) string {
	if len(g) == 0 {
		return ""
	}
	return ": " + strings.Trim(fmt.Sprint(g), "[]")
}

// analysis writes what rdmalab made of the packet; a line shows bytes
// only where it reads a field (the PSN, the AETH, the chunk's data).
func (t *tree) analysis(p *Packet) {
	an, at, none := &p.Analysis, t.at, span{}
	if an.Flow == nil && an.CM == nil && len(an.Notes) == 0 {
		return
	}
	t.line(0, none, "[rdmalab analysis]")
	if f := an.Flow; f != nil {
		peer := "unknown"
		if f.Peer != nil {
			peer = fmt.Sprintf("flow %d", f.Peer.ID)
			if f.Inferred {
				peer += " (inferred)"
			}
		}
		t.line(1, none, "Flow %d: %v, peer %s", f.ID, f.Key, peer)
		if f.Key.EE {
			t.line(2, none, "Reliable Datagram: PSNs are counted per EE context 0x%06x, whatever the QP", f.Key.QP)
		}
	}
	if c := an.CM; c != nil {
		t.line(1, none, "%v", c)
	}
	if m := an.Msg; m != nil {
		state := "incomplete"
		if m.Complete {
			state = "complete"
		}
		switch m.Kind {
		case ib.KindReadRequest:
			t.line(1, none, "Message: %s of %d bytes in frame %d; %d response packets, %d bytes so far, %s",
				m.Name(), m.DMALen, m.FirstFrame, m.RespPackets, m.RespBytes, state)
		case ib.KindAtomic:
			t.line(1, none, "Message: %s (%s) in frame %d, at 0x%016x R_Key 0x%08x", m.Name(), m.Opcode.Info(), m.FirstFrame, m.VA, m.RKey)
			if m.Opcode.Operation() == ib.OpCompareSwap {
				t.line(2, none, "Compare 0x%016x, swap 0x%016x", m.Compare, m.SwapAdd)
			} else {
				t.line(2, none, "Add 0x%016x", m.SwapAdd)
			}
			if m.RespDone {
				t.line(2, none, "Answered in frame %d: original value 0x%016x%s", m.RespFirstFrame, m.Orig, swapText(m))
			} else {
				t.line(2, none, "Not answered yet")
			}
		default:
			t.line(1, none, "Message: %s, first packet in frame %d, packet %d, %d bytes so far, %s",
				m.Name(), m.FirstFrame, an.MsgIndex+1, m.Len, state)
		}
		if m.AckFrame != 0 {
			t.line(2, none, "Acknowledged in frame %d", m.AckFrame)
		}
	}
	if an.PSN.Status != PSNNotChecked {
		t.line(1, at.bth.sub(8, 12), "PSN: %s (expected %d)", an.PSN.Status, an.PSN.Expected)
	}
	if ak := an.Ack; ak != nil {
		msn := ""
		if ak.MSNKnown {
			msn = fmt.Sprintf(", MSN %d expected", ak.ExpectedMSN)
		}
		aeth := at.ext[ib.HasAETH]
		t.line(1, aeth, "Acknowledges up to PSN %d, MSN %d%s", ak.PSN, ak.MSN, msn)
		for _, m := range ak.Acked {
			t.line(2, aeth, "%s of frame %d (PSN %d–%d)", m.Name(), m.FirstFrame, m.FirstPSN, m.LastPSN)
		}
	}
	if c := an.Chunk; c.RPC != nil {
		// A READ request names the chunk's segment in its RETH; other
		// packets carry the chunk's data.
		data := at.payload
		if p.BTH != nil && p.BTH.Opcode.Kind() == ib.KindReadRequest {
			data = at.ext[ib.HasRETH]
		}
		sg := c.segment()
		t.line(1, data, "RPC XID 0x%08x, %s chunk %d, segment %d (handle 0x%08x, %d bytes at 0x%016x), offset %d, %d bytes",
			c.RPC.XID, c.Kind, c.Chunk, c.Segment, sg.Handle, sg.Length, sg.Offset, c.Offset, c.Len)
	}
	if an.NotRPC != "" {
		t.line(1, none, "%s", an.NotRPC)
	}
	for _, n := range an.Notes {
		mark := "Unknown"
		if n.Kind.Anomaly() {
			mark = "Anomaly"
		}
		t.line(1, none, "%s: %s: %s", mark, n.Kind, n.Text)
	}
}
