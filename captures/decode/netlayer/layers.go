// Package netlayer holds the gopacket decoding layers the decoder uses in
// place of gopacket's own for frames beside the InfiniBand ones: Linux SLL
// and ARP, their lengths checked before they slice, and IPv6, its
// hop-by-hop header counted as the RFC has it.
package netlayer

import (
	"encoding/binary"
	"fmt"
	"net"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/proto/ib"
)

// gopacket's Linux SLL and ARP decoders slice by a length field before
// checking it against the frame (ARP's sum even wraps in a byte), and
// their panics came out as "panic: runtime error: ...". These decode the
// same fields themselves, checking each length first, and say what is
// wrong, where, as the InfiniBand layers do.

// Linux cooked capture v1 (LINKTYPE_LINUX_SLL) header.
const (
	sllLen     = 16 // packet type, ARPHRD type, address length, address[8], protocol
	sllAddrMax = 8  // the address field's size
)

// LinuxSLL is layers.LinuxSLL, decoded with its lengths checked.
type LinuxSLL struct{ layers.LinuxSLL }

func (l *LinuxSLL) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	l.LinuxSLL = layers.LinuxSLL{}
	const name = "Linux SLL"
	if len(data) < sllLen {
		df.SetTruncated()
		return &ib.DecodeError{Layer: name, Offset: len(data), Msg: fmt.Sprintf("need %d bytes, have %d", sllLen, len(data))}
	}
	n := binary.BigEndian.Uint16(data[4:])
	if n > sllAddrMax {
		return &ib.DecodeError{Layer: name, Offset: 4, Msg: fmt.Sprintf("address length %d is over the %d bytes the header holds", n, sllAddrMax)}
	}
	l.PacketType = layers.LinuxSLLPacketType(binary.BigEndian.Uint16(data))
	l.AddrType = binary.BigEndian.Uint16(data[2:])
	l.AddrLen = n
	l.Addr = net.HardwareAddr(data[6 : 6+n])
	l.EthernetType = layers.EthernetType(binary.BigEndian.Uint16(data[14:]))
	l.BaseLayer = layers.BaseLayer{Contents: data[:sllLen], Payload: data[sllLen:]}
	return nil
}

// arpFixed is the ARP header before its addresses.
const arpFixed = 8

// ARP is layers.ARP, decoded with its lengths checked.
type ARP struct{ layers.ARP }

func (a *ARP) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	a.ARP = layers.ARP{}
	if len(data) < arpFixed {
		df.SetTruncated()
		return &ib.DecodeError{Layer: "ARP", Offset: len(data), Msg: fmt.Sprintf("need %d bytes, have %d", arpFixed, len(data))}
	}
	hw, pr := int(data[4]), int(data[5])
	need := arpFixed + 2*hw + 2*pr
	if len(data) < need {
		df.SetTruncated()
		return &ib.DecodeError{Layer: "ARP", Offset: len(data),
			Msg: fmt.Sprintf("need %d bytes for two %d-byte hardware and two %d-byte protocol addresses, have %d", need, hw, pr, len(data))}
	}
	a.AddrType = layers.LinkType(binary.BigEndian.Uint16(data))
	a.Protocol = layers.EthernetType(binary.BigEndian.Uint16(data[2:]))
	a.HwAddressSize, a.ProtAddressSize = data[4], data[5]
	a.Operation = binary.BigEndian.Uint16(data[6:])
	at := arpFixed
	next := func(n int) []byte {
		b := data[at : at+n]
		at += n
		return b
	}
	a.SourceHwAddress, a.SourceProtAddress = next(hw), next(pr)
	a.DstHwAddress, a.DstProtAddress = next(hw), next(pr)
	a.BaseLayer = layers.BaseLayer{Contents: data[:need], Payload: data[need:]}
	return nil
}

// IPv6 is gopacket's IPv6 layer with its hop-by-hop header handled as the
// RFC has it: the payload length counts the extension headers, so an MLD
// report behind a hop-by-hop header is neither cut short nor called
// truncated (gopacket v1.1.19 compares the length with what follows the
// extension header).
type IPv6 struct{ layers.IPv6 }

// truncFlag records whether a layer said the frame was cut.
type truncFlag bool

func (t *truncFlag) SetTruncated() { *t = true }

// DecodeFromBytes decodes the header and sets the payload to what the
// payload length covers after the hop-by-hop header.
func (l *IPv6) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	var cut truncFlag
	err := l.IPv6.DecodeFromBytes(data, &cut)
	if err != nil || l.HopByHop == nil || l.Length == 0 {
		if cut {
			df.SetTruncated()
		}
		return err
	}
	start, end := 40+len(l.HopByHop.Contents), 40+int(l.Length)
	if end > len(data) {
		df.SetTruncated()
		end = len(data)
	}
	l.Payload = data[min(start, end):end]
	return nil
}
