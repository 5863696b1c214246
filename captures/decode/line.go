package decode

// The default output: one line per packet, in the columns of tshark's
// default output (number, time, source → destination, protocol, length,
// info), with rdmalab's findings in brackets at the end of the info.

import (
	"net/netip"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// appendLine appends the one-line summary of p, with a newline. It is the
// default output's hot path: everything is appended to b, nothing is
// formatted with fmt (the columns are tshark's "%5d %11.6f %15s → %-15s
// %-8s %5d %s").
func appendLine(b []byte, p *analysis.Packet) []byte {
	b = appendFrameTime(b, p)
	b = appendAddrs(b, p)
	// The protocol column comes first but is known only once the info
	// is: the info goes after a gap of the widest protocol name, and
	// the name into the gap.
	at := len(b)
	b = append(b, "         "...) // len("RPCoRDMA") + 1
	b = append(b, "      "...)    // the length column, %5d and a space
	info := len(b)
	b, proto := appendInfo(b, p)
	var col [32]byte
	c := appendProtoLen(col[:0], proto, p.WireLen)
	gap := info - at
	if len(c) != gap {
		// A wider column than the gap: move the info.
		n := len(b) - info
		if len(c) > gap {
			b = append(b, make([]byte, len(c)-gap)...)
		}
		copy(b[at+len(c):], b[info:info+n])
		b = b[:at+len(c)+n]
	}
	copy(b[at:], c)
	return append(b, '\n')
}

// appendFrameTime appends the number and time columns.
func appendFrameTime(b []byte, p *analysis.Packet) []byte {
	at := len(b)
	b = appendtext.PadLeft(appendtext.Int(b, p.Frame), at, 5)
	b = append(b, ' ')
	at = len(b)
	b = appendtext.PadLeft(appendtext.Seconds(b, p.Rel, 6), at, 11)
	return append(b, ' ')
}

// appendAddrs appends the source and destination columns.
func appendAddrs(b []byte, p *analysis.Packet) []byte {
	at := len(b)
	if p.Src.IsValid() {
		b = p.Src.AppendTo(b)
	} else {
		b = linkAddr(b, p, true)
	}
	b = appendtext.PadLeft(b, at, 15)
	b = append(b, " → "...)
	at = len(b)
	if p.Src.IsValid() {
		b = p.Dst.AppendTo(b)
	} else {
		b = linkAddr(b, p, false)
	}
	b = appendtext.PadRight(b, at, 15)
	return append(b, ' ')
}

// appendProtoLen appends the protocol and length columns.
func appendProtoLen(b []byte, proto string, wireLen int) []byte {
	start := len(b)
	b = appendtext.PadRight(append(b, proto...), start, 8)
	b = append(b, ' ')
	at := len(b)
	b = appendtext.PadLeft(appendtext.Int(b, wireLen), at, 5)
	return append(b, ' ')
}

// lineCache writes the default output's lines of the common packet — a
// transport header, no RPC in it — from a line prefix kept per
// connection, opcode and length: the addresses, the protocol and length
// columns and the opcode's name up to "PSN=" repeat over the packets of a
// message, and cost more to format than the rest of the line. It is
// direct-mapped by a hash of the key, with room for the interleaved QPs
// of a busy capture (four slots in turn missed a third of the time on a
// verbs capture: every message's First, Middle and Last and the ACKs
// back are keys of their own).
type lineCache struct {
	entries [lineSlots]lineEntry
}

// lineSlots is the size of the lineCache: a power of two.
const lineSlots = 256

// lineKey is what a cached prefix depends on.
type lineKey struct {
	src, dst frame.Addr
	encap    frame.Encap
	wireLen  int
	opcode   ib.Opcode
	qp       uint32
}

func lineKeyOf(p *analysis.Packet) lineKey {
	return lineKey{src: p.Src, dst: p.Dst, encap: p.Encap, wireLen: p.WireLen, opcode: p.BTH.Opcode, qp: p.BTH.DestQP}
}

// slot is where key goes in the lineCache: a hash of the parts that
// differ between the interleaved lines of a capture.
func (k *lineKey) slot() int {
	s, d := k.src.IP.As16(), k.dst.IP.As16()
	h := uint32(k.qp)*0x9e3779b1 ^ uint32(k.opcode)*0x85ebca6b ^ uint32(k.wireLen)*0xc2b2ae35 ^
		(uint32(s[15])|uint32(s[14])<<8|uint32(d[15])<<16|uint32(d[14])<<24)*0x27d4eb2f ^ uint32(k.src.LID)<<16 ^ uint32(k.dst.LID)
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 13
	return int(h % lineSlots)
}

// find returns the entry of key, or nil.
func (lc *lineCache) find(key lineKey) *lineEntry {
	if e := &lc.entries[key.slot()]; e.ok && e.key == key {
		return e
	}
	return nil
}

type lineEntry struct {
	key  lineKey
	ok   bool
	text []byte
}

// appendLine is appendLine, with the prefix of a cachable packet taken
// from the cache.
func (lc *lineCache) appendLine(b []byte, p *analysis.Packet) []byte {
	if p.BTH == nil || p.CM != nil || p.MAD != nil || p.Analysis.RPC != nil || !p.Src.IsValid() {
		return appendLine(b, p)
	}
	b = appendFrameTime(b, p)
	key := lineKeyOf(p)
	e := lc.find(key)
	if e == nil {
		e = &lc.entries[key.slot()]
		t := appendAddrs(e.text[:0], p)
		t = appendProtoLen(t, p.Encap.String(), p.WireLen)
		e.text, e.key, e.ok = appendBTHead(t, p.BTH), key, true
	}
	b = append(b, e.text...)
	b = appendBTTail(b, p.BTH)
	b = appendAnalysisInfo(b, p)
	b = appendFaults(b, p)
	return append(b, '\n')
}

// linkAddr appends the source (or destination) MAC of a frame without
// network addresses.
func linkAddr(b []byte, p *analysis.Packet, src bool) []byte {
	if p.Eth == nil {
		return b
	}
	m := p.Eth.DstMAC
	if src {
		m = p.Eth.SrcMAC
	}
	return append(b, m.String()...)
}

// appendInfo appends the info column of p and returns the protocol
// column.
func appendInfo(b []byte, p *analysis.Packet) ([]byte, string) {
	proto := p.Encap.String()
	switch {
	case p.BTH != nil:
		if r := p.Analysis.RPC; r != nil {
			proto = rpcProto(r)
			b = appendRPCInfo(b, r)
			b = append(b, " ["...)
			b = appendBTInfo(b, p)
			b = append(b, ']')
		} else {
			b = appendBTInfo(b, p)
		}
		b = appendAnalysisInfo(b, p)
	case p.UDP != nil:
		proto = "UDP"
		b = appendtext.Uint(b, uint64(p.SrcPort))
		b = append(b, " → "...)
		b = appendtext.Uint(b, uint64(p.DstPort))
		b = append(b, " Len="...)
		b = appendtext.Int(b, len(p.UDP.Payload))
	default:
		// Frames beside the RDMA traffic: few, and other.go's.
		var sb strings.Builder
		proto = otherInfo(p, &sb)
		b = append(b, sb.String()...)
	}
	return appendFaults(b, p), proto
}

// appendFaults appends what is wrong with the frame: a bad CRC, a
// malformed header.
func appendFaults(b []byte, p *analysis.Packet) []byte {
	if p.ICRC.State == frame.CRCBad {
		b = append(b, " [bad ICRC]"...)
	}
	if p.VCRC.State == frame.CRCBad {
		b = append(b, " [bad VCRC]"...)
	}
	if p.Err != nil {
		b = append(b, " [malformed: "...)
		b = append(b, p.Err.Layer...)
		b = append(b, " at offset "...)
		b = appendtext.Int(b, p.Err.Offset)
		b = append(b, ": "...)
		b = append(b, p.Err.Msg...)
		b = append(b, ']')
	}
	return b
}

// appendBTInfo describes the InfiniBand headers: "RC Send Only
// QP=0x000011 PSN=123 ...".
func appendBTInfo(b []byte, p *analysis.Packet) []byte {
	t := p.BTH
	if p.CM != nil {
		b = append(b, "CM: "...)
		b = append(b, ib.CMAttr(p.MAD.AttributeID).String()...)
		return appendCMInfo(b, p)
	}
	if m := p.MAD; m != nil {
		b = append(b, "MAD "...)
		b = append(b, m.MgmtClass.String()...)
		b = append(b, " method "...)
		b = appendtext.Hex0x(b, uint64(m.Method), 2)
		b = append(b, " attribute "...)
		return appendtext.Hex0x(b, uint64(m.AttributeID), 4)
	}
	return appendBTTail(appendBTHead(b, t), t)
}

// appendBTHead appends a transport header's info up to its PSN: "RC Send
// Only QP=0x000011 PSN=".
func appendBTHead(b []byte, t *ib.BTH) []byte {
	b = t.Opcode.AppendInfo(b)
	b = append(b, " QP="...)
	b = appendtext.Hex0x(b, uint64(t.DestQP), 6)
	return append(b, " PSN="...)
}

// appendBTTail appends the rest: the PSN and the extended headers.
func appendBTTail(b []byte, t *ib.BTH) []byte {
	b = appendtext.Uint(b, uint64(t.PSN))
	h := t.Headers
	if h&ib.HasRDETH != 0 {
		b = append(b, " EEC="...)
		b = appendtext.Hex0x(b, uint64(t.RDETH.EECnxt), 6)
	}
	if h&ib.HasRETH != 0 {
		b = append(b, " VA="...)
		b = appendtext.Hex0x(b, t.RETH.VA, 0)
		b = append(b, " R_Key="...)
		b = appendtext.Hex0x(b, uint64(t.RETH.RKey), 8)
		b = append(b, " Len="...)
		b = appendtext.Uint(b, uint64(t.RETH.DMALen))
	}
	if h&ib.HasAtomicETH != 0 {
		b = append(b, " VA="...)
		b = appendtext.Hex0x(b, t.AtomicETH.VA, 0)
		b = append(b, " R_Key="...)
		b = appendtext.Hex0x(b, uint64(t.AtomicETH.RKey), 8)
	}
	if h&ib.HasAETH != 0 {
		b = append(b, ' ')
		b = t.AETH.Syndrome.AppendText(b)
		b = append(b, " MSN="...)
		b = appendtext.Uint(b, uint64(t.AETH.MSN))
	}
	if h&ib.HasImmDt != 0 {
		b = append(b, " Imm="...)
		b = appendtext.Hex0x(b, uint64(t.ImmDt.Data), 8)
	}
	if h&ib.HasIETH != 0 {
		b = append(b, " Inv R_Key="...)
		b = appendtext.Hex0x(b, uint64(t.IETH.RKey), 8)
	}
	return b
}

func appendCMInfo(b []byte, p *analysis.Packet) []byte {
	switch c := p.CM.(type) {
	case *ib.CMReq:
		b = append(b, " QPN="...)
		b = appendtext.Hex0x(b, uint64(c.LocalQPN), 6)
		b = append(b, " PSN="...)
		b = appendtext.Uint(b, uint64(c.StartingPSN))
		if ip, ok := c.IPCM(); ok {
			b = append(b, ' ')
			b = netip.AddrPortFrom(ip.Src, ip.SrcPort).AppendTo(b)
			b = append(b, " → "...)
			b = netip.AddrPortFrom(ip.Dst, c.ServicePort()).AppendTo(b)
		}
	case *ib.CMRep:
		b = append(b, " QPN="...)
		b = appendtext.Hex0x(b, uint64(c.LocalQPN), 6)
		b = append(b, " PSN="...)
		b = appendtext.Uint(b, uint64(c.StartingPSN))
	case *ib.CMRej:
		b = append(b, " reason "...)
		b = appendtext.Uint(b, uint64(c.Reason))
	}
	return b
}

// rpcProto is the protocol column of an RPC: the program's name, as
// Wireshark gives it, when it has one.
func rpcProto(r *analysis.RPCMessage) string {
	if r.RPC != nil && r.RPC.HaveProc && oncrpc.KnownProgram(r.RPC.Prog) {
		return oncrpc.ProgramName(r.RPC.Prog)
	}
	return "RPCoRDMA"
}

// appendRPCInfo appends the info of a SEND that carried an RPC-over-RDMA
// message.
func appendRPCInfo(b []byte, m *analysis.RPCMessage) []byte {
	h := &m.Header
	switch r := m.RPC; {
	case r == nil:
		b = append(b, h.Proc.String()...)
		b = append(b, " XID "...)
		b = appendtext.Hex0x(b, uint64(h.XID), 8)
	case m.Call:
		b = append(b, r.CallSummary...)
	default:
		b = append(b, r.ReplySummary...)
		if r.Call != nil {
			b = append(b, " (call in "...)
			b = appendtext.Int(b, r.Call.Frame)
			b = append(b, ')')
		}
	}
	b = append(b, " ["...)
	b = append(b, h.Proc.String()...)
	b = append(b, " XID "...)
	b = appendtext.Hex0x(b, uint64(h.XID), 8)
	b = append(b, " credits "...)
	b = appendtext.Uint(b, uint64(h.Credit))
	if h.Proc == rpcrdma.ProcMsgp {
		b = append(b, " padded to "...)
		b = appendtext.Uint(b, uint64(h.Align))
		b = append(b, " above "...)
		b = appendtext.Uint(b, uint64(h.Thresh))
		b = append(b, " (RFC 5666, obsolete)"...)
	}
	b = appendChunkCounts(b, h)
	return append(b, ']')
}

func appendChunkCounts(b []byte, h *rpcrdma.Header) []byte {
	if n := len(h.ReadList); n > 0 {
		b = appendtext.Int(append(b, " read list "...), n)
	}
	if n := len(h.WriteList); n > 0 {
		b = appendtext.Int(append(b, " write list "...), n)
	}
	if h.ReplyChunk != nil {
		b = appendtext.Int(append(b, " reply chunk "...), len(h.ReplyChunk.Segments))
	}
	return b
}

// swapText says whether an answered CmpSwap swapped.
func swapText(m *analysis.Message) string {
	switch {
	case m.Opcode.Operation() != ib.OpCompareSwap:
		return ""
	case m.Swapped():
		return ", swapped"
	}
	return ", not swapped"
}

// appendMsgName appends m.Name().
func appendMsgName(b []byte, m *analysis.Message) []byte {
	b = append(b, m.Kind.String()...)
	b = append(b, " #"...)
	return appendtext.Int(b, m.Seq)
}

// appendAnalysisInfo appends rdmalab's findings in brackets.
func appendAnalysisInfo(b []byte, p *analysis.Packet) []byte {
	an := &p.Analysis
	if m := an.Msg; m != nil {
		switch {
		case p.BTH.Opcode.Kind() == ib.KindReadResponse:
			b = append(b, " [response "...)
			b = appendtext.Int(b, an.MsgIndex+1)
			b = append(b, " to the READ in "...)
			b = appendtext.Int(b, m.FirstFrame)
			b = append(b, ']')
		case p.BTH.Opcode.Kind() == ib.KindAtomicAck:
			b = append(b, " [answers the "...)
			b = m.Opcode.AppendInfo(b)
			b = append(b, " in "...)
			b = appendtext.Int(b, m.FirstFrame)
			b = append(b, ": original "...)
			b = appendtext.Hex0x(b, m.Orig, 0)
			b = append(b, swapText(m)...)
			b = append(b, ']')
		case m.Kind != ib.KindReadRequest && p.BTH.Opcode.Position() != ib.PosOnly:
			b = append(b, " ["...)
			b = appendMsgName(b, m)
			b = append(b, " packet "...)
			b = appendtext.Int(b, an.MsgIndex+1)
			b = append(b, ']')
		}
	}
	if ak := an.Ack; ak != nil && len(ak.Acked) > 0 {
		first, last := ak.Acked[0], ak.Acked[len(ak.Acked)-1]
		if first == last {
			b = append(b, " [acks "...)
			b = appendMsgName(b, first)
			b = append(b, " (frame "...)
			b = appendtext.Int(b, first.FirstFrame)
			b = append(b, ")]"...)
		} else {
			b = append(b, " [acks "...)
			b = appendtext.Int(b, len(ak.Acked))
			b = append(b, " messages: "...)
			b = appendMsgName(b, first)
			b = append(b, " (frame "...)
			b = appendtext.Int(b, first.FirstFrame)
			b = append(b, ") to "...)
			b = appendMsgName(b, last)
			b = append(b, " (frame "...)
			b = appendtext.Int(b, last.FirstFrame)
			b = append(b, ")]"...)
		}
	}
	if c := an.Chunk; c.RPC != nil {
		b = append(b, " [XID "...)
		b = appendtext.Hex0x(b, uint64(c.RPC.XID), 8)
		b = append(b, ' ')
		b = append(b, c.Kind.String()...)
		b = append(b, " chunk "...)
		b = appendtext.Int(b, c.Chunk)
		b = append(b, " segment "...)
		b = appendtext.Int(b, c.Segment)
		b = append(b, " +"...)
		b = appendtext.Uint(b, c.Offset)
		b = append(b, ']')
	}
	if an.Short {
		b = append(b, " [short SEND]"...)
	}
	for _, n := range an.Notes {
		b = append(b, " ["...)
		if n.Kind.Anomaly() {
			b = append(b, '!')
		}
		b = append(b, n.Kind.String()...)
		b = append(b, ']')
	}
	return b
}
