package decode

// The frames beside the RDMA traffic (ARP, ICMP, ICMPv6, TCP) get
// tshark's one-line summaries, so that a capture of a whole wire reads as
// it does in Wireshark:
//
//	ARP     Who has 192.168.70.4? Tell 192.168.70.6
//	ICMPv6  Multicast Listener Report Message v2
//	TCP     47378 → 9000 [SYN, ACK] Seq=0 Ack=1 Win=29200 Len=0 MSS=1460 SACK_PERM WS=128
//
// TCP sequence numbers are relative to the first of each direction, as
// tshark's are: the analyzer keeps the bases (analysis.TCPSeq).

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
)

// otherInfo writes the info of a frame that carries no InfiniBand
// transport and returns its protocol column.
func otherInfo(p *analysis.Packet, sb *strings.Builder) string {
	switch {
	case p.ARP != nil:
		arpInfo(sb, p.ARP)
		return "ARP"
	case p.ICMPv6 != nil:
		icmp6Info(sb, p.ICMPv6)
		return "ICMPv6"
	case p.ICMPv4 != nil:
		icmp4Info(sb, p)
		return "ICMP"
	case p.TCP != nil:
		tcpInfo(sb, p)
		return "TCP"
	}
	n := len(p.Layers)
	if n == 0 {
		sb.WriteString("undecoded")
		return "?"
	}
	last := p.Layers[n-1]
	if last == gopacket.LayerTypePayload && n > 1 {
		last = p.Layers[n-2]
	}
	sb.WriteString(last.String())
	return last.String()
}

// arpInfo: "Who has 10.0.0.1? Tell 10.0.0.2", "10.0.0.1 is at aa:bb:...".
func arpInfo(sb *strings.Builder, a *layers.ARP) {
	spa, tpa := arpIP(a.SourceProtAddress), arpIP(a.DstProtAddress)
	switch a.Operation {
	case layers.ARPRequest:
		if spa == tpa {
			fmt.Fprintf(sb, "ARP Announcement for %s", spa)
			return
		}
		fmt.Fprintf(sb, "Who has %s? Tell %s", tpa, spa)
	case layers.ARPReply:
		fmt.Fprintf(sb, "%s is at %s", spa, net.HardwareAddr(a.SourceHwAddress))
	default:
		fmt.Fprintf(sb, "ARP opcode %d", a.Operation)
	}
}

func arpIP(b []byte) string {
	if ip, ok := netip.AddrFromSlice(b); ok {
		return ip.String()
	}
	return fmt.Sprintf("%x", b)
}

// icmp6Names are the messages tshark names in its Info column.
var icmp6Names = map[uint8]string{
	1:   "Destination Unreachable",
	2:   "Packet Too Big",
	3:   "Time Exceeded",
	4:   "Parameter Problem",
	128: "Echo (ping) request",
	129: "Echo (ping) reply",
	130: "Multicast Listener Query",
	131: "Multicast Listener Report",
	132: "Multicast Listener Done",
	133: "Router Solicitation",
	134: "Router Advertisement",
	135: "Neighbor Solicitation",
	136: "Neighbor Advertisement",
	137: "Redirect",
	143: "Multicast Listener Report Message v2",
}

func icmp6Info(sb *strings.Builder, c *layers.ICMPv6) {
	typ := c.TypeCode.Type()
	name, ok := icmp6Names[typ]
	if !ok {
		fmt.Fprintf(sb, "Unknown ICMPv6 type %d code %d", typ, c.TypeCode.Code())
		return
	}
	sb.WriteString(name)
	body := c.Payload
	switch typ {
	case 128, 129:
		if len(body) >= 4 {
			fmt.Fprintf(sb, " id=0x%04x, seq=%d", binary.BigEndian.Uint16(body), binary.BigEndian.Uint16(body[2:]))
		}
	case 135, 136:
		// A reserved (or flags) word, then the target address.
		if len(body) >= 20 {
			target, _ := netip.AddrFromSlice(body[4:20])
			if typ == 135 {
				sb.WriteString(" for")
			}
			fmt.Fprintf(sb, " %s", target)
		}
	}
}

var icmp4Names = map[uint8]string{
	0:  "Echo (ping) reply",
	3:  "Destination unreachable",
	5:  "Redirect",
	8:  "Echo (ping) request",
	11: "Time-to-live exceeded",
	12: "Parameter problem",
	13: "Timestamp request",
	14: "Timestamp reply",
}

func icmp4Info(sb *strings.Builder, p *analysis.Packet) {
	c := p.ICMPv4
	typ := c.TypeCode.Type()
	name, ok := icmp4Names[typ]
	if !ok {
		fmt.Fprintf(sb, "Unknown ICMP (type %d code %d)", typ, c.TypeCode.Code())
		return
	}
	sb.WriteString(name)
	if typ == 0 || typ == 8 {
		if typ == 0 {
			sb.WriteString("  ") // tshark lines the replies' ids up with "request"
		}
		fmt.Fprintf(sb, "  id=0x%04x, seq=%d/%d", c.Id, c.Seq, c.Seq>>8|c.Seq<<8)
		if p.IPv4 != nil {
			fmt.Fprintf(sb, ", ttl=%d", p.IPv4.TTL)
		}
	}
}

// tcpFlagNames are in tshark's order, from the lowest bit.
var tcpFlagNames = [...]string{"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR", "NS"}

func tcpFlags(t *layers.TCP) []bool {
	return []bool{t.FIN, t.SYN, t.RST, t.PSH, t.ACK, t.URG, t.ECE, t.CWR, t.NS}
}

// tcpInfo: "47378 → 9000 [SYN] Seq=0 Win=29200 Len=0 MSS=1460 SACK_PERM WS=128".
func tcpInfo(sb *strings.Builder, p *analysis.Packet) {
	t, rel := p.TCP, p.Analysis.TCP
	fmt.Fprintf(sb, "%d → %d [", t.SrcPort, t.DstPort)
	n := 0
	for i, on := range tcpFlags(t) {
		if on {
			if n > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(tcpFlagNames[i])
			n++
		}
	}
	seq, ack, win := t.Seq, t.Ack, uint32(t.Window)
	if rel.Known {
		seq, ack, win = rel.Seq, rel.Ack, rel.Win
	}
	fmt.Fprintf(sb, "] Seq=%d", seq)
	if t.ACK {
		fmt.Fprintf(sb, " Ack=%d", ack)
	}
	fmt.Fprintf(sb, " Win=%d Len=%d", win, len(t.Payload))
	for _, o := range t.Options {
		d := o.OptionData
		switch {
		case o.OptionType == layers.TCPOptionKindMSS && len(d) == 2:
			fmt.Fprintf(sb, " MSS=%d", binary.BigEndian.Uint16(d))
		case o.OptionType == layers.TCPOptionKindSACKPermitted:
			sb.WriteString(" SACK_PERM")
		case o.OptionType == layers.TCPOptionKindTimestamps && len(d) == 8:
			fmt.Fprintf(sb, " TSval=%d TSecr=%d", binary.BigEndian.Uint32(d), binary.BigEndian.Uint32(d[4:]))
		case o.OptionType == layers.TCPOptionKindWindowScale && len(d) == 1:
			fmt.Fprintf(sb, " WS=%d", 1<<min(d[0], 14))
		}
	}
}
