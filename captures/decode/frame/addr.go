package frame

import (
	"net"
	"net/netip"

	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Addr is where a packet comes from or goes to: an IP address (RoCEv2), a
// GID (RoCEv1, or native InfiniBand with a GRH), or a LID.
type Addr struct {
	IP  netip.Addr // IPv4, IPv6 or GID
	LID uint16     // native InfiniBand without GRH
}

// IsValid reports whether a is set.
func (a Addr) IsValid() bool { return a.IP.IsValid() || a.LID != 0 }

func (a Addr) String() string { return string(a.AppendTo(nil)) }

// AppendTo appends the text of a to b.
func (a Addr) AppendTo(b []byte) []byte {
	switch {
	case a.IP.IsValid():
		return a.IP.Unmap().AppendTo(b)
	case a.LID != 0:
		return appendtext.Uint(append(b, "LID:"...), uint64(a.LID))
	}
	return append(b, '?')
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

func IPAddr16(b [16]byte) netip.Addr { return netip.AddrFrom16(b).Unmap() }

// GIDIPv6 is a GID as Wireshark shows an FT_IPv6 (an IPv4-mapped GID
// stays ::ffff:a.b.c.d).
func GIDIPv6(g ib.GID) netip.Addr { return netip.AddrFrom16(g) }
