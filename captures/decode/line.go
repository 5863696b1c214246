package decode

// The default output: one line per packet, in the columns of tshark's
// default output (number, time, source → destination, protocol, length,
// info), with rdmalab's findings in brackets at the end of the info.

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// appendLine appends the one-line summary of p, with a newline.
func appendLine(b []byte, p *Packet) []byte {
	src, dst := p.Src.String(), p.Dst.String()
	if !p.Src.IsValid() {
		src, dst = linkAddrs(p)
	}
	proto, info := protoInfo(p)
	b = fmt.Appendf(b, "%5d %11.6f %15s → %-15s %-8s %5d %s\n",
		p.Frame, p.Rel.Seconds(), src, dst, proto, p.WireLen, info)
	return b
}

func linkAddrs(p *Packet) (string, string) {
	if p.Eth != nil {
		return p.Eth.SrcMAC.String(), p.Eth.DstMAC.String()
	}
	return "", ""
}

// protoInfo returns the protocol column and the info column of p.
func protoInfo(p *Packet) (string, string) {
	var sb strings.Builder
	proto := p.Encap.String()
	switch {
	case p.BTH != nil:
		if r := p.Analysis.RPC; r != nil {
			proto = rpcProto(r)
			sb.WriteString(rpcInfo(r))
			sb.WriteString(" [")
			btInfo(&sb, p)
			sb.WriteString("]")
		} else {
			btInfo(&sb, p)
		}
		analysisInfo(&sb, p)
	case p.UDP != nil:
		proto = "UDP"
		fmt.Fprintf(&sb, "%d → %d Len=%d", p.SrcPort, p.DstPort, len(p.UDP.Payload))
	default:
		proto = otherInfo(p, &sb)
	}
	if p.ICRC.State == CRCBad {
		sb.WriteString(" [bad ICRC]")
	}
	if p.VCRC.State == CRCBad {
		sb.WriteString(" [bad VCRC]")
	}
	if p.Err != nil {
		fmt.Fprintf(&sb, " [malformed: %s at offset %d: %s]", p.Err.Layer, p.Err.Offset, p.Err.Msg)
	}
	return proto, sb.String()
}

// btInfo describes the InfiniBand headers: "RC Send Only QP=0x000011
// PSN=123 ...".
func btInfo(sb *strings.Builder, p *Packet) {
	b := p.BTH
	if p.CM != nil {
		fmt.Fprintf(sb, "CM: %s", ib.CMAttr(p.MAD.AttributeID))
		cmInfo(sb, p)
		return
	}
	if p.MAD != nil {
		fmt.Fprintf(sb, "MAD %s method 0x%02x attribute 0x%04x", p.MAD.MgmtClass, p.MAD.Method, p.MAD.AttributeID)
		return
	}
	fmt.Fprintf(sb, "%s QP=0x%06x PSN=%d", b.Opcode.Info(), b.DestQP, b.PSN)
	h := b.Headers
	if h&ib.HasRDETH != 0 {
		fmt.Fprintf(sb, " EEC=0x%06x", b.RDETH.EECnxt)
	}
	if h&ib.HasRETH != 0 {
		fmt.Fprintf(sb, " VA=0x%x R_Key=0x%08x Len=%d", b.RETH.VA, b.RETH.RKey, b.RETH.DMALen)
	}
	if h&ib.HasAtomicETH != 0 {
		fmt.Fprintf(sb, " VA=0x%x R_Key=0x%08x", b.AtomicETH.VA, b.AtomicETH.RKey)
	}
	if h&ib.HasAETH != 0 {
		fmt.Fprintf(sb, " %s MSN=%d", b.AETH.Syndrome, b.AETH.MSN)
	}
	if h&ib.HasImmDt != 0 {
		fmt.Fprintf(sb, " Imm=0x%08x", b.ImmDt.Data)
	}
	if h&ib.HasIETH != 0 {
		fmt.Fprintf(sb, " Inv R_Key=0x%08x", b.IETH.RKey)
	}
}

func cmInfo(sb *strings.Builder, p *Packet) {
	switch c := p.CM.(type) {
	case *ib.CMReq:
		fmt.Fprintf(sb, " QPN=0x%06x PSN=%d", c.LocalQPN, c.StartingPSN)
		if ip, ok := c.IPCM(); ok {
			fmt.Fprintf(sb, " %s → %s", ipString(ip.Src, ip.SrcPort), ipString(ip.Dst, c.ServicePort()))
		}
	case *ib.CMRep:
		fmt.Fprintf(sb, " QPN=0x%06x PSN=%d", c.LocalQPN, c.StartingPSN)
	case *ib.CMRej:
		fmt.Fprintf(sb, " reason %d", c.Reason)
	}
}

// rpcProto is the protocol column of an RPC: the program's name, as
// Wireshark gives it, when it has one.
func rpcProto(r *RPCMessage) string {
	if r.RPC != nil && r.RPC.HaveProc && oncrpc.KnownProgram(r.RPC.Prog) {
		return oncrpc.ProgramName(r.RPC.Prog)
	}
	return "RPCoRDMA"
}

// rpcInfo is the info of a SEND that carried an RPC-over-RDMA message.
func rpcInfo(m *RPCMessage) string {
	h := &m.Header
	var sb strings.Builder
	switch r := m.RPC; {
	case r == nil:
		fmt.Fprintf(&sb, "%s XID 0x%08x", h.Proc, h.XID)
	case m.Call:
		sb.WriteString(r.CallSummary)
	default:
		sb.WriteString(r.ReplySummary)
		if r.Call != nil {
			fmt.Fprintf(&sb, " (call in %d)", r.Call.Frame)
		}
	}
	fmt.Fprintf(&sb, " [%s XID 0x%08x credits %d", h.Proc, h.XID, h.Credit)
	if h.Proc == rpcrdma.ProcMsgp {
		fmt.Fprintf(&sb, " padded to %d above %d (RFC 5666, obsolete)", h.Align, h.Thresh)
	}
	chunkCounts(&sb, h)
	sb.WriteString("]")
	return sb.String()
}

func chunkCounts(sb *strings.Builder, h *rpcrdma.Header) {
	if n := len(h.ReadList); n > 0 {
		fmt.Fprintf(sb, " read list %d", n)
	}
	if n := len(h.WriteList); n > 0 {
		fmt.Fprintf(sb, " write list %d", n)
	}
	if h.ReplyChunk != nil {
		fmt.Fprintf(sb, " reply chunk %d", len(h.ReplyChunk.Segments))
	}
}

// swapText says whether an answered CmpSwap swapped.
func swapText(m *Message) string {
	switch {
	case m.Opcode.Operation() != ib.OpCompareSwap:
		return ""
	case m.Swapped():
		return ", swapped"
	}
	return ", not swapped"
}

// analysisInfo appends rdmalab's findings in brackets.
func analysisInfo(sb *strings.Builder, p *Packet) {
	an := &p.Analysis
	if m := an.Msg; m != nil {
		switch {
		case p.BTH.Opcode.Kind() == ib.KindReadResponse:
			fmt.Fprintf(sb, " [response %d to the READ in %d]", an.MsgIndex+1, m.FirstFrame)
		case p.BTH.Opcode.Kind() == ib.KindAtomicAck:
			fmt.Fprintf(sb, " [answers the %s in %d: original 0x%x%s]", m.Opcode.Info(), m.FirstFrame, m.Orig, swapText(m))
		case m.Kind != ib.KindReadRequest && p.BTH.Opcode.Position() != ib.PosOnly:
			fmt.Fprintf(sb, " [%s packet %d]", m.Name(), an.MsgIndex+1)
		}
	}
	if ak := an.Ack; ak != nil && len(ak.Acked) > 0 {
		first, last := ak.Acked[0], ak.Acked[len(ak.Acked)-1]
		if first == last {
			fmt.Fprintf(sb, " [acks %s (frame %d)]", first.Name(), first.FirstFrame)
		} else {
			fmt.Fprintf(sb, " [acks %d messages: %s (frame %d) to %s (frame %d)]", len(ak.Acked),
				first.Name(), first.FirstFrame, last.Name(), last.FirstFrame)
		}
	}
	if c := an.Chunk; c.RPC != nil {
		fmt.Fprintf(sb, " [XID 0x%08x %s chunk %d segment %d +%d]", c.RPC.XID, c.Kind, c.Chunk, c.Segment, c.Offset)
	}
	if an.Short {
		fmt.Fprintf(sb, " [short SEND]")
	}
	for _, n := range an.Notes {
		mark := ""
		if n.Kind.Anomaly() {
			mark = "!"
		}
		fmt.Fprintf(sb, " [%s%s]", mark, n.Kind)
	}
}
