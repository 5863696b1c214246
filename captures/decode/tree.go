package decode

// -V: a detail tree per packet, in the shape of tshark -V: each layer, its
// fields with Wireshark's labels, the CRC checks, the RPC-over-RDMA header
// (rpcrdma.Header.Lines), the RPC, and rdmalab's analysis. Each line is
// written with the bytes of the frame it describes (see layout), so that a
// UI can highlight them in a hex dump whatever the line's words.

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
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
func Tree(p *analysis.Packet) []TreeLine {
	var t tree
	t.at.fill(p)
	t.packet(p)
	return t.lines
}

// treeWriter appends the detail trees of packets as -V prints them, in
// the buffers it reuses from one packet to the next.
type treeWriter struct{ t tree }

// appendTree appends the detail tree of p, as -V prints it, and a blank
// line.
func (w *treeWriter) appendTree(b []byte, p *analysis.Packet) []byte {
	t := &w.t
	t.at.fill(p)
	t.write, t.out = true, b
	t.packet(p)
	b = append(t.out, '\n')
	t.out = nil
	return b
}

// tree collects the lines of a packet's detail tree: as TreeLines (Tree),
// or as text appended to out (write, -V). A line is begun, its text
// appended to the buffer begin returns, and ended.
type tree struct {
	at      layout
	lines   []TreeLine
	write   bool
	out     []byte
	cur     TreeLine // the line begun (TreeLines)
	scratch []byte   // its text (TreeLines)
	bufs    analysis.RebuildBufs
	link    pcapfile.LinkType // the last link type named, and its name
	linkStr string
}

// begin starts a line at depth that shows the bytes b of the frame; its
// text goes on the buffer returned, which end takes back.
func (t *tree) begin(depth int, b span) []byte {
	if t.write {
		for i := 0; i < depth; i++ {
			t.out = append(t.out, "    "...)
		}
		return t.out
	}
	t.cur = TreeLine{Depth: depth, Start: b.start, End: b.end}
	return t.scratch[:0]
}

// end finishes the line begun, whose text is b.
func (t *tree) end(b []byte) {
	if t.write {
		t.out = append(b, '\n')
		return
	}
	t.cur.Text = string(b)
	t.scratch = b
	t.lines = append(t.lines, t.cur)
}

// line appends a line that shows the bytes b of the frame.
func (t *tree) line(depth int, b span, format string, args ...any) {
	t.end(fmt.Appendf(t.begin(depth, b), format, args...))
}

// text appends a line of fixed text.
func (t *tree) text(depth int, b span, s string) { t.end(append(t.begin(depth, b), s...)) }

// packet writes the tree of p, layer by layer.
func (t *tree) packet(p *analysis.Packet) {
	at := &t.at
	none := span{}
	if len(p.Comments) > 0 {
		// As Wireshark's tree: the capture's comments first, escaped.
		t.text(0, none, "Packet comments")
		for _, c := range p.Comments {
			t.text(1, none, safe.Text(c))
		}
	}
	b := t.begin(0, at.frame)
	b = appendtext.Int(append(b, "Frame "...), p.Frame)
	b = appendtext.Int(append(b, ": "...), p.WireLen)
	b = appendtext.Int(append(b, " bytes on wire, "...), p.CapLen)
	b = appendtext.Uint(append(b, " bytes captured, at file offset "...), uint64(p.Offset))
	t.end(b)
	b = append(t.begin(1, none), "Arrival Time: "...)
	t.end(p.Time.AppendFormat(b, "2006-01-02 15:04:05.000000000 UTC"))
	b = appendtext.Seconds(append(t.begin(1, none), "[Time since first frame: "...), p.Rel, 9)
	t.end(append(b, " seconds]"...))
	if t.linkStr == "" || t.link != p.LinkType {
		t.link, t.linkStr = p.LinkType, p.LinkType.String()
	}
	t.end(append(append(t.begin(1, none), "Link type: "...), t.linkStr...))
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
	if e := p.Eth; e != nil {
		b := appendtext.MAC(append(t.begin(0, at.of(e.Contents)), "Ethernet II, Src: "...), e.SrcMAC)
		b = appendtext.MAC(append(b, ", Dst: "...), e.DstMAC)
		b = append(append(b, ", Type: "...), e.EthernetType.String()...)
		b = appendtext.Hex0x(append(b, " ("...), uint64(e.EthernetType), 4)
		t.end(append(b, ')'))
	}
	switch {
	case p.IPv4 != nil:
		ip := p.IPv4
		hdr := at.of(ip.Contents)
		b := p.Src.AppendTo(append(t.begin(0, hdr), "Internet Protocol Version 4, Src: "...))
		t.end(p.Dst.AppendTo(append(b, ", Dst: "...)))
		b = appendtext.Hex0x(append(t.begin(1, hdr), "Differentiated Services Field: "...), uint64(ip.TOS), 2)
		b = appendtext.Uint(append(b, ", Total Length: "...), uint64(ip.Length))
		b = appendtext.Hex0x(append(b, ", Identification: "...), uint64(ip.Id), 4)
		b = appendtext.Uint(append(b, ", TTL: "...), uint64(ip.TTL))
		t.end(append(append(b, ", Protocol: "...), ip.Protocol.String()...))
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
	if u := p.UDP; u != nil {
		b := appendtext.Uint(append(t.begin(0, at.of(u.Contents)), "User Datagram Protocol, Src Port: "...), uint64(p.SrcPort))
		b = appendtext.Uint(append(b, ", Dst Port: "...), uint64(p.DstPort))
		b = appendtext.Uint(append(b, ", Length: "...), uint64(u.Length))
		t.end(appendtext.Hex0x(append(b, ", Checksum: "...), uint64(u.Checksum), 4))
	}
	if p.LRH != nil || p.GRH != nil || p.BTH != nil {
		t.text(0, at.ib, "InfiniBand")
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
func (t *tree) other(p *analysis.Packet) {
	var sb strings.Builder
	switch {
	case p.ARP != nil:
		arpInfo(&sb, p.ARP)
		t.line(0, t.at.of(p.ARP.Contents), "Address Resolution Protocol, Opcode: %d, %s", p.ARP.Operation, sb.String())
	case p.ICMPv6 != nil:
		icmp6Info(&sb, p.ICMPv6)
		c := p.ICMPv6
		t.line(0, t.at.frame.sub(frame.OffsetIn(p.Data, c.Contents), frame.OffsetIn(p.Data, c.Payload)+len(c.Payload)),
			"Internet Control Message Protocol v6, Type: %d, Code: %d, Checksum: 0x%04x", c.TypeCode.Type(), c.TypeCode.Code(), c.Checksum)
		t.line(1, t.at.of(c.Payload), "%s", sb.String())
	case p.ICMPv4 != nil:
		icmp4Info(&sb, p)
		c := p.ICMPv4
		t.line(0, t.at.frame.sub(frame.OffsetIn(p.Data, c.Contents), frame.OffsetIn(p.Data, c.Payload)+len(c.Payload)),
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
func (t *tree) infiniband(p *analysis.Packet) {
	at := &t.at
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
	t.text(1, at.bth, "Base Transport Header")
	l := b.Opcode.AppendName(append(t.begin(2, at.bth.sub(0, 1)), "Opcode: "...))
	l = appendtext.Uint(append(l, " ("...), uint64(b.Opcode))
	t.end(append(l, ')'))
	// The flags one per line with their bits, as tshark shows them.
	var raw [ib.BTHLen]byte
	copy(raw[:], b.Contents)
	t.flag(at.bth, raw[1], 1, 0x80, "Solicited Event: ", title(b.SE), 0, false)
	t.flag(at.bth, raw[1], 1, 0x40, "MigReq: ", title(b.M), 0, false)
	t.flag(at.bth, raw[1], 1, 0x30, "Pad Count: ", "", uint64(b.PadCnt), true)
	t.flag(at.bth, raw[1], 1, 0x0f, "Header Version: ", "", uint64(b.TVer), true)
	t.end(appendtext.Uint(append(t.begin(2, at.bth.sub(2, 4)), "Partition Key: "...), uint64(b.PKey)))
	t.flag(at.bth, raw[4], 4, 0x80, "FECN: ", title(b.FECN), 0, false)
	t.flag(at.bth, raw[4], 4, 0x40, "BECN: ", title(b.BECN), 0, false)
	t.flag(at.bth, raw[4], 4, 0x3f, "Reserved (6 bits): ", "", uint64(raw[4]&0x3f), true)
	t.end(appendtext.Hex0x(append(t.begin(2, at.bth.sub(5, 8)), "Destination Queue Pair: "...), uint64(b.DestQP), 6))
	t.flag(at.bth, raw[8], 8, 0x80, "Acknowledge Request: ", title(b.A), 0, false)
	t.flag(at.bth, raw[8], 8, 0x7f, "Reserved (7 bits): ", "", uint64(raw[8]&0x7f), true)
	t.end(appendtext.Uint(append(t.begin(2, at.bth.sub(9, 12)), "Packet Sequence Number: "...), uint64(b.PSN)))
	h := b.Headers
	if h&ib.HasRDETH != 0 {
		eth := at.ext.of(ib.HasRDETH)
		t.line(1, eth, "RDETH - Reliable Datagram Extended Transport Header")
		t.line(2, eth, "E2E Context: 0x%06x", b.RDETH.EECnxt)
	}
	if h&ib.HasDETH != 0 {
		eth := at.ext.of(ib.HasDETH)
		t.line(1, eth, "DETH - Datagram Extended Transport Header")
		t.line(2, eth, "Queue Key: 0x%08x, Source Queue Pair: 0x%06x", b.DETH.QKey, b.DETH.SrcQP)
	}
	if h&ib.HasXRCETH != 0 {
		eth := at.ext.of(ib.HasXRCETH)
		t.line(1, eth, "XRCETH - XRC Extended Transport Header")
		t.line(2, eth, "XRC SRQ: 0x%06x", b.XRCETH.XRCSRQ)
	}
	if h&ib.HasFETH != 0 {
		eth := at.ext.of(ib.HasFETH)
		t.line(1, eth, "FETH - FLUSH Extended Transport Header")
		t.line(2, eth, "Selectivity Level: %d, Placement Type: %d", b.FETH.Selectivity, b.FETH.Placement)
	}
	if h&ib.HasRETH != 0 {
		eth := at.ext.of(ib.HasRETH)
		t.text(1, eth, "RETH - RDMA Extended Transport Header")
		l := appendtext.Hex0x(append(t.begin(2, eth), "Virtual Address: "...), b.RETH.VA, 16)
		l = appendtext.Hex0x(append(l, ", Remote Key: "...), uint64(b.RETH.RKey), 8)
		t.end(appendtext.Uint(append(l, ", DMA Length: "...), uint64(b.RETH.DMALen)))
	}
	if h&ib.HasAtomicETH != 0 {
		a, eth := b.AtomicETH, at.ext.of(ib.HasAtomicETH)
		t.line(1, eth, "AtomicETH - Atomic Extended Transport Header")
		t.line(2, eth.sub(0, 12), "Virtual Address: 0x%016x, Remote Key: 0x%08x", a.VA, a.RKey)
		t.line(2, eth.sub(12, 28), "Swap (Or Add) Data: 0x%016x, Compare Data: 0x%016x", a.SwapDt, a.CmpDt)
	}
	if h&ib.HasAETH != 0 {
		eth := at.ext.of(ib.HasAETH)
		t.text(1, eth, "AETH - ACK Extended Transport Header")
		l := appendtext.Hex0x(append(t.begin(2, eth), "Syndrome: "...), uint64(b.AETH.Syndrome), 2)
		l = b.AETH.Syndrome.AppendText(append(l, " ("...))
		t.end(appendtext.Uint(append(l, "), Message Sequence Number: "...), uint64(b.AETH.MSN)))
	}
	if h&ib.HasAtomicAckETH != 0 {
		eth := at.ext.of(ib.HasAtomicAckETH)
		t.line(1, eth, "AtomicAckETH - Atomic ACK Extended Transport Header")
		t.line(2, eth, "Original Remote Data: 0x%016x", b.AtomicAckETH.OrigRemDt)
	}
	if h&ib.HasImmDt != 0 {
		t.line(1, at.ext.of(ib.HasImmDt), "Immediate Data: 0x%08x", b.ImmDt.Data)
	}
	if h&ib.HasIETH != 0 {
		eth := at.ext.of(ib.HasIETH)
		t.line(1, eth, "IETH - Invalidate Extended Transport Header")
		t.line(2, eth, "RKey: 0x%08x", b.IETH.RKey)
	}
	if p.MAD == nil && len(b.Payload) > 0 {
		l := appendtext.Int(append(t.begin(1, at.payload), "Payload: "...), len(b.Payload))
		l = append(l, " bytes"...)
		if b.PadCnt != 0 {
			l = append(appendtext.Uint(append(l, " (+"...), uint64(b.PadCnt)), " pad)"...)
		}
		t.end(l)
	}
	t.crc("Invariant CRC", p.ICRC, 8, at.icrc)
	t.crc("Variant CRC", p.VCRC, 4, at.vcrc)
}

// title writes a flag as tshark does: True, False.
// flag writes a line of one BTH flag (byte i of the BTH, under mask):
// its bits, label, and the value, a word or (num) a number.
func (t *tree) flag(bth span, v byte, i int, mask byte, label, word string, n uint64, num bool) {
	l := appendBitPattern(t.begin(2, bth.sub(i, i+1)), v, mask)
	l = append(append(l, " = "...), label...)
	if num {
		l = appendtext.Uint(l, n)
	} else {
		l = append(l, word...)
	}
	t.end(l)
}

// appendBitPattern appends the bits of v under mask as tshark shows them
// ("1... ...."), the others as dots.
func appendBitPattern(b []byte, v, mask byte) []byte {
	for i := 7; i >= 0; i-- {
		switch bit := byte(1) << i; {
		case mask&bit == 0:
			b = append(b, '.')
		case v&bit != 0:
			b = append(b, '1')
		default:
			b = append(b, '0')
		}
		if i == 4 {
			b = append(b, ' ')
		}
	}
	return b
}

func title(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// crc writes the check of a CRC of width hex digits held in the bytes at.
func (t *tree) crc(name string, c frame.CRCCheck, width int, at span) {
	switch c.State {
	case frame.CRCGood:
		l := appendtext.Hex0x(append(append(t.begin(1, at), name...), ": "...), uint64(c.Wire), width)
		t.end(append(l, " [correct]"...))
	case frame.CRCBad:
		t.line(1, at, "%s: 0x%0*x [incorrect, should be 0x%0*x]", name, width, c.Wire, width, c.Computed)
	case frame.CRCUnknown:
		t.line(1, at, "%s: [unchecked: the capture cut the packet]", name)
	}
}

// mad writes the management datagram's header and its CM message.
func (t *tree) mad(p *analysis.Packet) {
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
			t.line(1, body, "IP CM: %s → %s", netip.AddrPortFrom(ip.Src, ip.SrcPort), netip.AddrPortFrom(ip.Dst, c.ServicePort()))
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
func (t *tree) rpc(m *analysis.RPCMessage) {
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
	if rb := r.ReplyRebuilt(&t.bufs); rb.Some && (len(r.WriteChunks) > 0 || m.Header.Proc != 0) {
		note := ""
		if rb.Err != nil {
			note = " (" + rb.Err.Error() + ")"
		}
		t.line(1, body, "[Reply rebuilt with its chunk data: %d bytes%s]", rb.N, note)
	}
}

// callHeader writes the call's program, procedure, credentials and
// verifier, and then its arguments under the program's name. The call is
// the message's inline part; body is where it lies in the frame (no bytes
// when the packet does not hold all of it).
func (t *tree) callHeader(m *analysis.RPCMessage, body span) {
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
func (t *tree) analysis(p *analysis.Packet) {
	an, at, none := &p.Analysis, &t.at, span{}
	if an.Flow == nil && an.CM == nil && len(an.Notes) == 0 {
		return
	}
	t.text(0, none, "[rdmalab analysis]")
	if f := an.Flow; f != nil {
		l := appendtext.Int(append(t.begin(1, none), "Flow "...), f.ID)
		l = f.Key.AppendTo(append(l, ": "...))
		l = append(l, ", peer "...)
		if f.Peer != nil {
			l = appendtext.Int(append(l, "flow "...), f.Peer.ID)
			if f.Inferred {
				l = append(l, " (inferred)"...)
			}
		} else {
			l = append(l, "unknown"...)
		}
		t.end(l)
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
			l := appendMsgName(append(t.begin(1, none), "Message: "...), m)
			l = appendtext.Int(append(l, ", first packet in frame "...), m.FirstFrame)
			l = appendtext.Int(append(l, ", packet "...), an.MsgIndex+1)
			l = appendtext.Int(append(l, ", "...), m.Len)
			t.end(append(append(l, " bytes so far, "...), state...))
		}
		if m.AckFrame != 0 {
			t.end(appendtext.Int(append(t.begin(2, none), "Acknowledged in frame "...), m.AckFrame))
		}
	}
	if an.PSN.Status != analysis.PSNNotChecked {
		l := append(append(t.begin(1, at.bth.sub(8, 12)), "PSN: "...), an.PSN.Status.String()...)
		l = appendtext.Uint(append(l, " (expected "...), uint64(an.PSN.Expected))
		t.end(append(l, ')'))
	}
	if ak := an.Ack; ak != nil {
		msn := ""
		if ak.MSNKnown {
			msn = fmt.Sprintf(", MSN %d expected", ak.ExpectedMSN)
		}
		aeth := at.ext.of(ib.HasAETH)
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
			data = at.ext.of(ib.HasRETH)
		}
		sg := c.Seg()
		l := appendtext.Hex0x(append(t.begin(1, data), "RPC XID "...), uint64(c.RPC.XID), 8)
		l = append(append(append(l, ", "...), c.Kind.String()...), " chunk "...)
		l = appendtext.Int(l, c.Chunk)
		l = appendtext.Int(append(l, ", segment "...), c.Segment)
		l = appendtext.Hex0x(append(l, " (handle "...), uint64(sg.Handle), 8)
		l = appendtext.Uint(append(l, ", "...), uint64(sg.Length))
		l = appendtext.Hex0x(append(l, " bytes at "...), sg.Offset, 16)
		l = appendtext.Uint(append(l, "), offset "...), c.Offset)
		l = appendtext.Int(append(l, ", "...), c.Len)
		t.end(append(l, " bytes"...))
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
