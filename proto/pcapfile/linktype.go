package pcapfile

import (
	"fmt"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/proto/ib"
)

// LinkType is a tcpdump.org link-layer header type, all 32 bits of it
// (gopacket's layers.LinkType keeps 8).
type LinkType uint32

// Link types rdmalab decodes.
const (
	LinkTypeNull       LinkType = 0
	LinkTypeEthernet   LinkType = 1
	LinkTypeRaw        LinkType = 101
	LinkTypeLinuxSLL   LinkType = 113
	LinkTypeERF        LinkType = ib.LinkTypeERF
	LinkTypeIPv4       LinkType = 228
	LinkTypeIPv6       LinkType = 229
	LinkTypeInfiniBand LinkType = ib.LinkTypeInfiniBand
	LinkTypeLinuxSLL2  LinkType = ib.LinkTypeLinuxSLL2
)

var linkTypeNames = map[LinkType]string{
	LinkTypeNull: "NULL", LinkTypeEthernet: "Ethernet", LinkTypeRaw: "Raw IP",
	LinkTypeLinuxSLL: "Linux cooked v1", LinkTypeERF: "ERF", LinkTypeIPv4: "IPv4",
	LinkTypeIPv6: "IPv6", LinkTypeInfiniBand: "InfiniBand", LinkTypeLinuxSLL2: "Linux cooked v2",
}

// String returns the name of t and its number ("Ethernet (1)"), or "link
// type N" for a value without a name.
func (t LinkType) String() string {
	if s, ok := linkTypeNames[t]; ok {
		return fmt.Sprintf("%s (%d)", s, uint32(t))
	}
	return fmt.Sprintf("link type %d", uint32(t))
}

// FirstLayer returns the layer type a frame of link type t starts with;
// data is needed to tell IPv4 from IPv6 in raw IP captures.
func FirstLayer(t LinkType, data []byte) (gopacket.LayerType, error) {
	switch t {
	case LinkTypeEthernet:
		return layers.LayerTypeEthernet, nil
	case LinkTypeLinuxSLL:
		return layers.LayerTypeLinuxSLL, nil
	case LinkTypeLinuxSLL2:
		return ib.LayerTypeLinuxSLL2, nil
	case LinkTypeERF:
		return ib.LayerTypeERF, nil
	case LinkTypeInfiniBand:
		return ib.LayerTypeLRH, nil
	case LinkTypeIPv4:
		return layers.LayerTypeIPv4, nil
	case LinkTypeIPv6:
		return layers.LayerTypeIPv6, nil
	case LinkTypeRaw, 12, 14: // 12 and 14 are raw IP on some BSDs
		if len(data) > 0 && data[0]>>4 == 6 {
			return layers.LayerTypeIPv6, nil
		}
		return layers.LayerTypeIPv4, nil
	}
	return gopacket.LayerTypeZero, fmt.Errorf("unsupported %v", t)
}
