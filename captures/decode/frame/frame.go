package frame

import (
	"errors"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/captures/decode/netlayer"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Decoder decodes frames with gopacket's DecodingLayerParser over one
// preallocated set of layers (one parser per first layer, sharing them).
type Decoder struct {
	eth   layers.Ethernet
	dot1q layers.Dot1Q
	sll   netlayer.LinuxSLL
	sll2  ib.LinuxSLL2
	erf   ib.ERF
	ip4   layers.IPv4
	ip6   netlayer.IPv6
	icmp4 layers.ICMPv4
	icmp6 layers.ICMPv6
	udp   layers.UDP
	tcp   layers.TCP
	arp   netlayer.ARP
	lrh   ib.LRH
	grh   ib.GRH
	rwh   ib.RWH
	bth   ib.BTH
	mad   ib.MAD
	req   ib.CMReq
	rep   ib.CMRep
	rtu   ib.CMRtu
	rej   ib.CMRej
	dreq  ib.CMDreq
	drep  ib.CMDrep
	ipoib ib.IPoIB
	pay   gopacket.Payload
	icrc  ib.Checker
	hint  icrcHint // the ICRC the read-ahead computed for this frame

	parsers   map[gopacket.LayerType]*gopacket.DecodingLayerParser
	last      *gopacket.DecodingLayerParser // parsers[lastFirst]
	lastFirst gopacket.LayerType
	decoded   []gopacket.LayerType
	noFast    bool // every frame through the parser (tests compare the two)
	skipCRCs  bool // NewDecoder's skipCRCs
	truncated bool // a layer said so while the fast path ran (DecodeFeedback)
	first     time.Time
	started   bool
	warm      byte // what warmHeaders read, kept so that its loads are not dropped
}

// SetTruncated is gopacket.DecodeFeedback for the fast path.
func (d *Decoder) SetTruncated() { d.truncated = true }

// fast decodes the usual RoCEv2 frame — Ethernet, IPv4, UDP to port 4791,
// a BTH and its payload — calling each layer's DecodeFromBytes in turn as
// the DecodingLayerParser does, without its container lookups and
// interface calls. It reports false, and the parser decodes the frame
// again, for any other frame, and for any error, truncation or panic, so
// that what the parser says of those stays its own.
func (d *Decoder) fast(data []byte) (ok bool) {
	const eth, minIP = 14, 20
	if d.noFast || len(data) < eth+minIP+8+ib.BTHLen+ib.ICRCLen ||
		data[12] != 0x08 || data[13] != 0x00 || data[eth]>>4 != 4 || data[eth+9] != 17 {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	d.truncated = false
	if d.eth.DecodeFromBytes(data, d) != nil || d.eth.NextLayerType() != layers.LayerTypeIPv4 {
		return false
	}
	if d.ip4.DecodeFromBytes(d.eth.Payload, d) != nil || d.ip4.NextLayerType() != layers.LayerTypeUDP || len(d.ip4.Payload) == 0 {
		return false
	}
	if d.udp.DecodeFromBytes(d.ip4.Payload, d) != nil || d.udp.DstPort != ib.UDPPortRoCEv2 ||
		d.udp.NextLayerType() != ib.LayerTypeBTH || len(d.udp.Payload) == 0 {
		return false
	}
	if d.bth.DecodeFromBytes(d.udp.Payload, d) != nil || d.truncated {
		return false
	}
	d.decoded = append(d.decoded[:0], layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, ib.LayerTypeBTH)
	if len(d.bth.Payload) == 0 {
		return true // the parser stops where a layer leaves nothing
	}
	if d.bth.NextLayerType() != gopacket.LayerTypePayload || d.pay.DecodeFromBytes(d.bth.Payload, d) != nil || d.truncated {
		return false
	}
	d.decoded = append(d.decoded, gopacket.LayerTypePayload)
	return true
}

func (d *Decoder) parser(first gopacket.LayerType) *gopacket.DecodingLayerParser {
	if d.last != nil && d.lastFirst == first {
		return d.last // a capture's frames mostly start alike
	}
	if p, ok := d.parsers[first]; ok {
		d.last, d.lastFirst = p, first
		return p
	}
	if d.parsers == nil {
		d.parsers = map[gopacket.LayerType]*gopacket.DecodingLayerParser{}
	}
	// A sparse container (a slice indexed by layer type, rdmalab's from
	// 1000 up) rather than the default map: one index per layer.
	p := gopacket.NewDecodingLayerParser(first)
	var dlc gopacket.DecodingLayerContainer = gopacket.DecodingLayerSparse(nil)
	for _, l := range []gopacket.DecodingLayer{
		&d.eth, &d.dot1q, &d.sll, &d.sll2, &d.erf, &d.ip4, &d.ip6, &d.icmp4, &d.icmp6, &d.udp, &d.tcp, &d.arp,
		&d.lrh, &d.grh, &d.rwh, &d.bth, &d.mad, &d.req, &d.rep, &d.rtu, &d.rej, &d.dreq, &d.drep,
		&d.ipoib, &d.pay} {
		dlc = dlc.Put(l)
	}
	p.SetDecodingLayerContainer(dlc)
	p.IgnoreUnsupported = true
	d.parsers[first] = p
	d.last, d.lastFirst = p, first
	return p
}

// NewDecoder returns a decoder for the frames of one capture; with
// skipCRCs it leaves every ICRC and VCRC unchecked (CRCUnknown, with the
// wire's value).
func NewDecoder(skipCRCs bool) *Decoder { return &Decoder{skipCRCs: skipCRCs} }

// ParserOnly makes d decode every frame through gopacket's parser, without
// the RoCEv2 fast path: the two must decode alike (tests compare them).
func (d *Decoder) ParserOnly() { d.noFast = true }

// Decode decodes one record into p. The Packet, and everything it points
// into, is valid until the next call; Rel is the time since the first
// record d decoded.
func (d *Decoder) Decode(rec *pcapfile.Record, p *Packet) {
	*p = Packet{Frame: rec.Frame, Offset: rec.Offset, Time: rec.Info.Timestamp,
		CapLen: rec.Info.CaptureLength, WireLen: rec.Info.Length, LinkType: rec.LinkType, Data: rec.Data,
		Comments: rec.Comments}
	d.decode(rec, p)
	if e := p.ERF; e != nil {
		// The record's own header is not the frame's, as Wireshark
		// counts it (pcapfile takes its time from it).
		p.Pseudo = min(len(e.Contents), p.CapLen)
		p.CapLen -= p.Pseudo
		p.WireLen = max(p.WireLen-p.Pseudo, p.CapLen)
	}
	if !d.started {
		d.first, d.started = p.Time, true
	}
	p.Rel = p.Time.Sub(d.first)
}

// decode fills p's layers, addresses and CRC checks from rec.
func (d *Decoder) decode(rec *pcapfile.Record, p *Packet) {
	data := rec.Data
	p.Truncated = rec.Info.CaptureLength < rec.Info.Length
	first, err := pcapfile.FirstLayer(rec.LinkType, data)
	if err != nil {
		p.Err = &FrameError{Frame: rec.Frame, Layer: "link", Msg: safe.Text(err.Error())}
		return
	}
	if first == layers.LayerTypeEthernet && d.fast(data) {
		p.Layers = d.decoded
	} else {
		parser := d.parser(first)
		err = parser.DecodeLayers(data, &d.decoded)
		p.Layers = d.decoded
		if parser.Truncated {
			p.Truncated = true
		}
		if err != nil {
			p.Err = d.frameError(rec, first, err)
		}
	}
	d.fill(p)
	if d.skipCRCs {
		uncheckedCRCs(p)
		return
	}
	d.checkCRCs(p)
}

// uncheckedCRCs records the CRC fields a packet has without checking them.
func uncheckedCRCs(p *Packet) {
	if p.LRH != nil && p.LRH.HasVCRC {
		p.VCRC = CRCCheck{State: CRCUnknown, Wire: uint32(p.LRH.VCRC)}
	}
	if p.BTH != nil && p.Encap != EncapNone {
		p.ICRC = CRCCheck{State: CRCUnknown, Wire: p.BTH.ICRC}
	}
}

// frameError locates a layer's error in the frame. The parser lists only
// the layers that decoded: the one that failed is what the last of them
// said comes next (or the first layer), and it starts where that one's
// payload does.
func (d *Decoder) frameError(rec *pcapfile.Record, first gopacket.LayerType, err error) *FrameError {
	fe := &FrameError{Frame: rec.Frame, Msg: lowerFirst(err.Error())}
	failed := first
	if n := len(d.decoded); n > 0 {
		if l := d.layer(d.decoded[n-1]); l != nil {
			fe.Offset = OffsetIn(rec.Data, l.LayerPayload())
			if dl, ok := l.(gopacket.DecodingLayer); ok {
				failed = dl.NextLayerType()
			}
		}
	}
	fe.Layer = failed.String()
	var de *ib.DecodeError
	if errors.As(err, &de) {
		fe.Layer, fe.Msg = de.Layer, de.Msg
		fe.Offset += de.Offset
	}
	fe.Msg = safe.Text(fe.Msg) // a layer's own words, but printed as they are
	return fe
}

// OffsetIn returns where sub starts in frame (sub is a subslice of it).
func OffsetIn(frame, sub []byte) int {
	if cap(sub) == 0 {
		return len(frame)
	}
	return cap(frame) - cap(sub)
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if unicode.IsUpper(r) && (len(s) == n || !unicode.IsUpper(rune(s[n]))) {
		return string(unicode.ToLower(r)) + s[n:]
	}
	return s
}

// layer returns the decoding layer of type t.
func (d *Decoder) layer(t gopacket.LayerType) gopacket.Layer {
	switch t {
	case layers.LayerTypeEthernet:
		return &d.eth
	case layers.LayerTypeDot1Q:
		return &d.dot1q
	case layers.LayerTypeLinuxSLL:
		return &d.sll
	case layers.LayerTypeIPv4:
		return &d.ip4
	case layers.LayerTypeIPv6:
		return &d.ip6
	case layers.LayerTypeUDP:
		return &d.udp
	case layers.LayerTypeTCP:
		return &d.tcp
	case layers.LayerTypeARP:
		return &d.arp
	case layers.LayerTypeICMPv4:
		return &d.icmp4
	case layers.LayerTypeICMPv6:
		return &d.icmp6
	case gopacket.LayerTypePayload:
		return &d.pay
	}
	switch t {
	case ib.LayerTypeLinuxSLL2:
		return &d.sll2
	case ib.LayerTypeERF:
		return &d.erf
	case ib.LayerTypeLRH:
		return &d.lrh
	case ib.LayerTypeGRH:
		return &d.grh
	case ib.LayerTypeRWH:
		return &d.rwh
	case ib.LayerTypeBTH:
		return &d.bth
	case ib.LayerTypeMAD:
		return &d.mad
	case ib.LayerTypeCMReq:
		return &d.req
	case ib.LayerTypeCMRep:
		return &d.rep
	case ib.LayerTypeCMRtu:
		return &d.rtu
	case ib.LayerTypeCMRej:
		return &d.rej
	case ib.LayerTypeCMDreq:
		return &d.dreq
	case ib.LayerTypeCMDrep:
		return &d.drep
	case ib.LayerTypeIPoIB:
		return &d.ipoib
	}
	return nil
}

// fill points p at the layers decoded and sets its addresses.
func (d *Decoder) fill(p *Packet) {
	types := p.Layers
	if p.Err != nil && p.Err.Layer == "BTH" && len(d.bth.Contents) == ib.BTHLen {
		// The BTH itself decoded; what follows it did not. Show it.
		types = append(types[:len(types):len(types)], ib.LayerTypeBTH)
	}
	for _, t := range types {
		switch t {
		case layers.LayerTypeEthernet:
			p.Eth = &d.eth
		case layers.LayerTypeIPv4:
			if p.IPv4 == nil && p.IPv6 == nil && p.LRH == nil && p.GRH == nil && p.BTH == nil { // not IP over IB
				p.IPv4 = &d.ip4
				p.Src.IP, _ = addrFrom(d.ip4.SrcIP)
				p.Dst.IP, _ = addrFrom(d.ip4.DstIP)
			}
		case layers.LayerTypeIPv6:
			if p.IPv4 == nil && p.IPv6 == nil && p.LRH == nil && p.GRH == nil && p.BTH == nil {
				p.IPv6 = &d.ip6.IPv6
				p.Src.IP, _ = addrFrom(d.ip6.SrcIP)
				p.Dst.IP, _ = addrFrom(d.ip6.DstIP)
			}
		case layers.LayerTypeUDP:
			if p.BTH != nil || p.LRH != nil {
				break // UDP over IPoIB
			}
			p.UDP = &d.udp
			p.SrcPort, p.DstPort = uint16(d.udp.SrcPort), uint16(d.udp.DstPort)
		case layers.LayerTypeTCP:
			p.TCP = &d.tcp
		case layers.LayerTypeARP:
			p.ARP = &d.arp.ARP
		case layers.LayerTypeICMPv4:
			p.ICMPv4 = &d.icmp4
		case layers.LayerTypeICMPv6:
			p.ICMPv6 = &d.icmp6
		case ib.LayerTypeERF:
			p.ERF = &d.erf
		case ib.LayerTypeLRH:
			p.LRH = &d.lrh
			p.Encap = EncapNative
			p.Src, p.Dst = Addr{LID: d.lrh.SLID}, Addr{LID: d.lrh.DLID}
		case ib.LayerTypeGRH:
			p.GRH = &d.grh
			if p.Encap != EncapNative {
				p.Encap = EncapRoCEv1
			}
			p.Src, p.Dst = GIDAddr(d.grh.SGID), GIDAddr(d.grh.DGID)
		case ib.LayerTypeBTH:
			if p.UDP != nil && p.DstPort != ib.UDPPortRoCEv2 {
				break // gopacket fell back to the source port: not RoCEv2
			}
			p.BTH = &d.bth
			if p.UDP != nil {
				p.Encap = EncapRoCEv2
			}
		case ib.LayerTypeMAD:
			p.MAD = &d.mad
		case ib.LayerTypeIPoIB:
			p.IPoIB = &d.ipoib
		case ib.LayerTypeCMReq, ib.LayerTypeCMRep, ib.LayerTypeCMRtu, ib.LayerTypeCMRej,
			ib.LayerTypeCMDreq, ib.LayerTypeCMDrep:
			p.CM = d.layer(t)
		}
	}
}

func GIDAddr(g ib.GID) Addr { return Addr{IP: IPAddr16(g)} }

// checkCRCs verifies the ICRC and VCRC of an InfiniBand packet.
func (d *Decoder) checkCRCs(p *Packet) {
	if p.LRH != nil && p.BTH == nil && p.LRH.HasVCRC && !p.Truncated {
		span := p.Data[OffsetIn(p.Data, p.LRH.Contents) : OffsetIn(p.Data, p.LRH.Payload)+len(p.LRH.Payload)]
		p.VCRC = CRCCheck{Wire: uint32(p.LRH.VCRC), Computed: uint32(ib.VCRC(span))}
		p.VCRC.State = crcState(p.VCRC.Wire == p.VCRC.Computed)
	}
	if p.BTH == nil {
		return
	}
	p.ICRC.Wire = p.BTH.ICRC
	frame := p.Data
	var span []byte
	switch p.Encap {
	case EncapRoCEv2:
		start := 0
		if p.IPv4 != nil {
			start = OffsetIn(frame, p.IPv4.Contents)
		} else {
			start = OffsetIn(frame, p.IPv6.Contents)
		}
		span = frame[start : OffsetIn(frame, p.UDP.Payload)+len(p.UDP.Payload)]
	case EncapRoCEv1:
		start := OffsetIn(frame, p.GRH.Contents)
		span = frame[start : OffsetIn(frame, p.GRH.Payload)+len(p.GRH.Payload)]
	case EncapNative:
		start := OffsetIn(frame, p.LRH.Contents)
		span = frame[start : OffsetIn(frame, p.LRH.Payload)+len(p.LRH.Payload)]
		if p.LRH.HasVCRC && !p.Truncated {
			p.VCRC = CRCCheck{Wire: uint32(p.LRH.VCRC), Computed: uint32(ib.VCRC(span))}
			p.VCRC.State = crcState(p.VCRC.Wire == p.VCRC.Computed)
		} else {
			p.VCRC.State = CRCUnknown
		}
	default:
		return
	}
	if p.Truncated {
		p.ICRC.State = CRCUnknown
		return
	}
	var c uint32
	var err error
	switch p.Encap {
	case EncapRoCEv2:
		if h := d.hint; h.ok && int(h.start) == OffsetIn(frame, span) && int(h.end) == OffsetIn(frame, span)+len(span) {
			c = h.crc
			break
		}
		c, err = d.icrc.RoCEv2ICRC(span)
	case EncapRoCEv1:
		c, err = d.icrc.RoCEv1ICRC(span)
	default:
		c, err = d.icrc.NativeICRC(span)
	}
	if err != nil {
		p.ICRC.State = CRCUnknown
		return
	}
	p.ICRC.Computed = c
	p.ICRC.State = crcState(c == p.ICRC.Wire)
}

func crcState(ok bool) CRCState {
	if ok {
		return CRCGood
	}
	return CRCBad
}
