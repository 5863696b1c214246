package decode

import (
	"net"
	"net/netip"

	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
)

// Addr is where a packet comes from or goes to: an IP address (RoCEv2), a
// GID (RoCEv1, or native InfiniBand with a GRH), or a LID.
type Addr struct {
	IP  netip.Addr // IPv4, IPv6 or GID
	LID uint16     // native InfiniBand without GRH
}

// IsValid reports whether a is set.
func (a Addr) IsValid() bool { return a.IP.IsValid() || a.LID != 0 }

func (a Addr) String() string { return string(a.appendTo(nil)) }

// appendTo appends the text of a to b.
func (a Addr) appendTo(b []byte) []byte {
	switch {
	case a.IP.IsValid():
		return a.IP.Unmap().AppendTo(b)
	case a.LID != 0:
		return appendtext.Uint(append(b, "LID:"...), uint64(a.LID))
	}
	return append(b, '?')
}

// FlowKey identifies one direction of a queue pair's traffic: packets from
// Src to the queue pair QP at Dst. Reliable Datagram traffic runs on End-to-
// End contexts rather than queue pairs (IBTA 9.7.1): its flows are keyed by
// the EE context at Dst that the RDETH names (EE set, QP the EE context
// number), whose PSN sequence all its datagrams share whatever their QP.
type FlowKey struct {
	Src, Dst Addr
	QP       uint32
	EE       bool // QP is an EE context number (RD)
}

func (k FlowKey) String() string { return string(k.appendTo(nil)) }

// appendTo appends the text of k to b: "192.0.2.1 → 192.0.2.2 QP 0x000011".
func (k FlowKey) appendTo(b []byte) []byte {
	b = k.Src.appendTo(b)
	b = k.Dst.appendTo(append(b, " → "...))
	if k.EE {
		b = append(b, " EEC "...)
	} else {
		b = append(b, " QP "...)
	}
	return appendtext.Hex0x(b, uint64(k.QP), 6)
}

// addrFrom converts a gopacket IP (a slice of the frame) without
// allocating.
func addrFrom(ip net.IP) (netip.Addr, bool) {
	switch len(ip) {
	case 4:
		return netip.AddrFrom4([4]byte(ip)), true
	case 16:
		return netip.AddrFrom16([16]byte(ip)), true
	}
	return netip.Addr{}, false
}

func ipAddr16(b [16]byte) netip.Addr { return netip.AddrFrom16(b).Unmap() }
