package wire

import (
	"hash/fnv"
	"net"
	"net/netip"
)

// NodeAddr returns the Ethernet and IPv4 addresses of a sim node: the
// server is 192.0.2.1 and the client 192.0.2.2, as in the kernel captures
// (QEMU's 52:54:00 MAC prefix, TEST-NET-1); any other name gets a host
// number in 3..252 from a hash of it.
func NodeAddr(node string) (net.HardwareAddr, netip.Addr) {
	var host byte
	switch node {
	case "server":
		host = 1
	case "client":
		host = 2
	default:
		h := fnv.New32a()
		h.Write([]byte(node))
		host = byte(3 + h.Sum32()%250)
	}
	return net.HardwareAddr{0x52, 0x54, 0x00, 0x12, 0x34, host}, netip.AddrFrom4([4]byte{192, 0, 2, host})
}

// node is one host on the link and its counters.
type node struct {
	mac  net.HardwareAddr
	ip   net.IP // IPv4, 4 bytes
	ip4  [4]byte
	ipID uint16 // the next IPv4 identification
	gsi  uint32 // the next PSN of its QP1 (MADs)
}

func newNode(name string) *node {
	mac, ip := NodeAddr(name)
	h := fnv.New32a()
	h.Write([]byte(name))
	return &node{mac: mac, ip: ip.AsSlice(), ip4: ip.As4(), ipID: uint16(h.Sum32())}
}

// guid is the node's CA GUID: the EUI-64 of its MAC, as rxe derives it
// (the universal/local bit flipped, ff:fe in the middle).
func (n *node) guid() uint64 {
	m := n.mac
	return uint64(m[0]^2)<<56 | uint64(m[1])<<48 | uint64(m[2])<<40 | 0xff<<32 | 0xfe<<24 |
		uint64(m[3])<<16 | uint64(m[4])<<8 | uint64(m[5])
}

// Source ports, as the kernel derives them (include/rdma/ib_verbs.h,
// drivers/infiniband/core/cma.c, drivers/infiniband/sw/rxe/rxe_qp.c).
const (
	portMin       = 0xc000     // IB_ROCE_UDP_ENCAP_VALID_PORT_MIN
	flowLabelMask = 0xfffff    // IB_GRH_FLOWLABEL_MASK
	goldenRatio32 = 0x61c88647 // GOLDEN_RATIO_32 of hash_32
)

// flowLabelPort is rdma_flow_label_to_udp_sport: the 20-bit flow label
// folded into 14 bits above 0xC000.
func flowLabelPort(fl uint32) uint16 {
	lo, hi := fl&0x3fff, fl&0xfc000
	lo ^= hi >> 14
	return uint16(lo | portMin)
}

// qpFlowLabel is rdma_calc_flow_label: the flow label of a QP pair that
// was given none.
func qpFlowLabel(lqpn, rqpn uint32) uint32 {
	v := uint64(lqpn) * uint64(rqpn)
	v ^= v >> 20
	v ^= v >> 40
	return uint32(v & flowLabelMask)
}

// cmFlowLabel is cma_get_roce_udp_flow_label for IPv4: RDMA-CM's flow label
// of a connection from its ports.
func cmFlowLabel(srcPort, dstPort uint16) uint32 {
	return (uint32(srcPort)*31 + uint32(dstPort)) & flowLabelMask
}

// gsiPort is the source port of QP1's MADs: rxe_qp_init_req's
// RXE_ROCE_V2_SPORT + hash_32(qpn, 14) for QP 1 (55410).
func gsiPort() uint16 {
	return uint16(portMin + (uint32(1)*goldenRatio32)>>(32-14)&0x3fff)
}
