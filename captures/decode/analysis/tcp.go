package analysis

// TCP sequence numbers are relative to the first of each direction, as
// tshark's are (package decode's other.go shows them).

import (
	"net/netip"

	"github.com/google/gopacket/layers"
)

// TCPSeq is a TCP segment's numbers as tshark shows them: the sequence
// and acknowledgement numbers relative to the first of each direction,
// and the window scaled as the handshake agreed.
type TCPSeq struct {
	Seq, Ack, Win uint32
	Known         bool // the fields are set
}

type tcpKey struct {
	src, dst         netip.Addr
	srcPort, dstPort layers.TCPPort
}

// tcpDir is what is known of one direction of a TCP connection.
type tcpDir struct {
	base     uint32 // the sequence number shown as 0
	haveBase bool
	shift    int // the window scale its SYN offered; -1 without one
	sawSYN   bool
}

// tcpState keeps the directions of the TCP connections seen, up to a
// bound: a capture of a busy wire must not grow it without end.
type tcpState struct {
	dirs map[tcpKey]*tcpDir
}

const maxTCPDirs = 1 << 16

func (s *tcpState) dir(k tcpKey) *tcpDir {
	d := s.dirs[k]
	if d == nil {
		if s.dirs == nil {
			s.dirs = map[tcpKey]*tcpDir{}
		}
		if len(s.dirs) >= maxTCPDirs {
			clear(s.dirs)
		}
		d = &tcpDir{shift: -1}
		s.dirs[k] = d
	}
	return d
}

// segment works out p's relative numbers.
func (s *tcpState) segment(p *Packet) {
	t := p.TCP
	src, _ := netip.AddrFromSlice(p.NetSrc())
	dst, _ := netip.AddrFromSlice(p.NetDst())
	k := tcpKey{src.Unmap(), dst.Unmap(), t.SrcPort, t.DstPort}
	me, peer := s.dir(k), s.dir(tcpKey{k.dst, k.src, k.dstPort, k.srcPort})
	if t.SYN {
		me.base, me.haveBase, me.sawSYN, me.shift = t.Seq, true, true, -1
		for _, o := range t.Options {
			if o.OptionType == layers.TCPOptionKindWindowScale && len(o.OptionData) == 1 {
				me.shift = int(min(o.OptionData[0], 14))
			}
		}
	} else if !me.haveBase {
		me.base, me.haveBase = t.Seq-1, true
	}
	if t.ACK && !peer.haveBase {
		peer.base, peer.haveBase = t.Ack-1, true
	}
	win := uint32(t.Window)
	if !t.SYN && me.sawSYN && peer.sawSYN && me.shift >= 0 && peer.shift >= 0 {
		win <<= me.shift
	}
	p.Analysis.TCP = TCPSeq{Seq: t.Seq - me.base, Ack: t.Ack - peer.base, Win: win, Known: true}
}
