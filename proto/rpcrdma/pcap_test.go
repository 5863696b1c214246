package rpcrdma

// A test-only reader for classic pcap files of RoCEv2 traffic:
//
//	pcap file header (24 bytes) | record header (16) | frame | record header | frame ...
//	frame: Ethernet II (14) | IPv4 (IHL*4) | UDP (8, dst port 4791) |
//	       BTH (12) | [RETH 16 | AETH 4 | ImmDt 4 | IETH 4] | payload | pad | ICRC (4)
//
// It is deliberately small: no VLANs, no IPv6, no pcapng, no ICRC check.

import (
	"encoding/binary"
	"os"
	"testing"
)

// IB BTH opcodes (Reliable Connection) used by the tests.
const (
	opSendFirst      = 0x00
	opSendMiddle     = 0x01
	opSendLast       = 0x02
	opSendOnly       = 0x04
	opWriteFirst     = 0x06
	opWriteMiddle    = 0x07
	opWriteLast      = 0x08
	opWriteOnly      = 0x0a
	opReadRequest    = 0x0c
	opReadRespFirst  = 0x0d
	opReadRespMiddle = 0x0e
	opReadRespLast   = 0x0f
	opReadRespOnly   = 0x10
	opAck            = 0x11
	opSendOnlyInv    = 0x17
)

// rcPacket is one RoCEv2 packet of a Reliable Connection.
type rcPacket struct {
	Frame   int // 1-based frame number, as tshark counts
	Src     [4]byte
	Dst     [4]byte
	Opcode  uint8
	DestQP  uint32
	PSN     uint32
	HasRETH bool
	VA      uint64 // RETH virtual address
	RKey    uint32 // RETH R_key
	DMALen  uint32 // RETH DMA length
	Payload []byte // after the transport headers, without pad and ICRC
}

// isRPCSend reports whether p starts an RDMA Send that carries an
// RPC-over-RDMA header right after the BTH (and IETH).
func (p *rcPacket) isRPCSend() bool {
	return p.Opcode == opSendOnly || p.Opcode == opSendFirst || p.Opcode == opSendOnlyInv
}

// readRC returns the RC packets of a classic pcap file of RoCEv2 traffic,
// skipping frames that are not IPv4/UDP 4791 or not RC opcodes.
func readRC(t testing.TB, path string) []rcPacket {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 24 {
		t.Fatalf("%s: %d bytes, too short for a pcap header", path, len(data))
	}
	var bo binary.ByteOrder
	switch binary.LittleEndian.Uint32(data) {
	case 0xa1b2c3d4, 0xa1b23c4d:
		bo = binary.LittleEndian
	case 0xd4c3b2a1, 0x4d3cb2a1:
		bo = binary.BigEndian
	default:
		t.Fatalf("%s: not a classic pcap file (magic %x)", path, data[:4])
	}
	if lt := bo.Uint32(data[20:]); lt != 1 {
		t.Fatalf("%s: link type %d, want Ethernet (1)", path, lt)
	}
	var pkts []rcPacket
	off := 24
	for frame := 1; off < len(data); frame++ {
		if len(data)-off < 16 {
			t.Fatalf("%s: frame %d: record header truncated at file offset %d", path, frame, off)
		}
		incl := int(bo.Uint32(data[off+8:]))
		off += 16
		if incl > len(data)-off {
			t.Fatalf("%s: frame %d: record of %d bytes truncated at file offset %d", path, frame, incl, off)
		}
		if p, ok := parseRoCE(data[off : off+incl]); ok {
			p.Frame = frame
			pkts = append(pkts, p)
		}
		off += incl
	}
	return pkts
}

// parseRoCE parses Ethernet/IPv4/UDP 4791/BTH and the RC extended headers.
func parseRoCE(f []byte) (rcPacket, bool) {
	var p rcPacket
	if len(f) < 14 || binary.BigEndian.Uint16(f[12:]) != 0x0800 {
		return p, false
	}
	ip := f[14:]
	if len(ip) < 20 || ip[0]>>4 != 4 || ip[9] != 17 {
		return p, false
	}
	ihl := int(ip[0]&0xf) * 4
	totalLen := int(binary.BigEndian.Uint16(ip[2:]))
	if totalLen > len(ip) || ihl+8 > totalLen {
		return p, false
	}
	copy(p.Src[:], ip[12:16])
	copy(p.Dst[:], ip[16:20])
	udp := ip[ihl:totalLen]
	if binary.BigEndian.Uint16(udp[2:]) != 4791 {
		return p, false
	}
	ib := udp[8:]
	if len(ib) < 12+4 {
		return p, false
	}
	p.Opcode = ib[0]
	if p.Opcode >= 0x20 { // not Reliable Connection
		return p, false
	}
	pad := int(ib[1]>>4) & 3
	p.DestQP = binary.BigEndian.Uint32(ib[4:]) & 0xffffff
	p.PSN = binary.BigEndian.Uint32(ib[8:]) & 0xffffff
	h := 12
	switch p.Opcode {
	case opWriteFirst, opWriteOnly, 0x0b, opReadRequest: // RETH
		if len(ib) < h+16 {
			return p, false
		}
		p.HasRETH = true
		p.VA = binary.BigEndian.Uint64(ib[h:])
		p.RKey = binary.BigEndian.Uint32(ib[h+8:])
		p.DMALen = binary.BigEndian.Uint32(ib[h+12:])
		h += 16
		if p.Opcode == 0x0b { // WRITE ONLY with immediate
			h += 4
		}
	case opReadRespFirst, opReadRespLast, opReadRespOnly, opAck: // AETH
		h += 4
	case 0x03, 0x05, 0x09: // *_WITH_IMMEDIATE: ImmDt
		h += 4
	case 0x16, opSendOnlyInv: // *_WITH_INVALIDATE: IETH
		h += 4
	}
	end := len(ib) - 4 - pad // strip ICRC and pad
	if end < h {
		return p, false
	}
	p.Payload = ib[h:end]
	return p, true
}
