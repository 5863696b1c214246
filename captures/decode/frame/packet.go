package frame

import (
	"fmt"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// Encap is how the InfiniBand transport travels.
type Encap uint8

// Encapsulations.
const (
	EncapNone   Encap = iota // no InfiniBand transport in the frame
	EncapRoCEv2              // UDP port 4791
	EncapRoCEv1              // EtherType 0x8915
	EncapNative              // native InfiniBand (LRH)
)

var encapNames = [...]string{"", "RRoCE", "RoCE", "InfiniBand"}

func (e Encap) String() string { return encapNames[e] }

var encapFields = [...]string{"", "RoCEv2", "RoCEv1", "InfiniBand"}

// Field is e as the rdmalab.encap field (and --json) gives it.
func (e Encap) Field() string { return encapFields[e] }

// CRCState is the outcome of a CRC check.
type CRCState uint8

// CRC states.
const (
	CRCAbsent  CRCState = iota // the packet has no such CRC
	CRCGood                    // it matches
	CRCBad                     // it does not match
	CRCUnknown                 // cannot be checked (truncated capture)
)

var crcNames = [...]string{"absent", "good", "bad", "unknown"}

func (s CRCState) String() string { return crcNames[s] }

// CRCCheck is the check of one CRC field.
type CRCCheck struct {
	State    CRCState
	Wire     uint32 // as Wireshark shows it
	Computed uint32
}

// Packet is one decoded frame. Its layer pointers and byte slices point
// into the Decoder and the reader's buffer: they are valid until the next
// Decode.
type Packet struct {
	Frame    int
	Offset   int64 // byte offset of the record in the file
	Time     time.Time
	Rel      time.Duration // since the first frame
	CapLen   int
	WireLen  int
	LinkType pcapfile.LinkType
	Data     []byte
	Comments []string // the capture's comments on the frame (pcapng opt_comment)
	// Pseudo is how many bytes of Data are a pseudo-header (an ERF
	// record's), which Wireshark counts neither in the lengths nor in -x.
	Pseudo int

	Layers    []gopacket.LayerType // decoded, outermost first
	Truncated bool                 // the capture cut the frame
	Err       *FrameError          // why decoding stopped early, if it did

	Encap            Encap
	Src, Dst         Addr
	SrcPort, DstPort uint16 // UDP

	Eth   *layers.Ethernet
	IPv4  *layers.IPv4
	IPv6  *layers.IPv6
	UDP   *layers.UDP
	ERF   *ib.ERF
	LRH   *ib.LRH
	GRH   *ib.GRH
	BTH   *ib.BTH
	MAD   *ib.MAD
	CM    gopacket.Layer // *ib.CMReq, *ib.CMRep, ... when the MAD is a CM message
	IPoIB *ib.IPoIB
	TCP   *layers.TCP
	ARP   *layers.ARP
	// ICMPv4 and ICMPv6 are the type and code; the message follows in
	// their payload.
	ICMPv4 *layers.ICMPv4
	ICMPv6 *layers.ICMPv6

	ICRC CRCCheck
	VCRC CRCCheck
}

// HasBTH reports whether the packet carries InfiniBand transport.
func (p *Packet) HasBTH() bool { return p.BTH != nil }

// Payload returns the InfiniBand payload (after the extension headers,
// without pad and ICRC), or nil.
func (p *Packet) Payload() []byte {
	if p.BTH == nil {
		return nil
	}
	return p.BTH.Payload
}

// FrameError says where in a frame decoding stopped: the layer, the byte
// offset of the problem in the frame, and what is wrong.
type FrameError struct {
	Frame  int
	Layer  string
	Offset int // in the frame
	Msg    string
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("frame %d, offset %d: %s: %s", e.Frame, e.Offset, e.Layer, e.Msg)
}

// NetSrc and NetDst are the IP addresses of a frame, whatever carries it.
func (p *Packet) NetSrc() []byte {
	if p.IPv4 != nil {
		return p.IPv4.SrcIP
	}
	if p.IPv6 != nil {
		return p.IPv6.SrcIP
	}
	return nil
}

func (p *Packet) NetDst() []byte {
	if p.IPv4 != nil {
		return p.IPv4.DstIP
	}
	if p.IPv6 != nil {
		return p.IPv6.DstIP
	}
	return nil
}
