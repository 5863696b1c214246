package ib

// Base Transport Header (IBTA Vol 1 9.2, Figure 128; the F and B bits are
// RoCEv2's FECN and BECN, Annex A17.9.1). Every InfiniBand transport
// packet has one; the opcode decides the extension headers that follow
// (opcode.go), and the packet ends with the pad bytes and the Invariant
// CRC (icrc.go).
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|    OpCode     |S|M|Pad|  TVer |        Partition Key          |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|F|B| Resv6a    |       Destination QP (DestQP)                 |  4
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|A|   Resv7     |       Packet Sequence Number (PSN)            |  8
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| extension headers (RDETH, DETH, XRCETH, FETH, RETH, AtomicETH,
//	|   AETH, AtomicAckETH, ImmDt, IETH: those the OpCode calls for)
//	| payload ... | pad (PadCnt bytes) |  Invariant CRC (ICRC)     |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// Sizes in bytes.
const (
	BTHLen  = 12
	ICRCLen = 4
)

// Well-known queue pairs.
const (
	QPSMI = 0 // subnet management (QP0)
	QPGSI = 1 // general services, where CM MADs go (QP1)
)

// BTH is the Base Transport Header with the extension headers its opcode
// calls for. Its Contents are the 12 BTH bytes; its Payload is what
// follows the extension headers, without the pad and the ICRC.
type BTH struct {
	layers.BaseLayer
	Opcode    Opcode // infiniband.bth.opcode
	SE        bool   // infiniband.bth.se, Solicited Event
	M         bool   // infiniband.bth.m, MigReq
	PadCnt    uint8  // infiniband.bth.padcnt
	TVer      uint8  // infiniband.bth.tver
	PKey      uint16 // infiniband.bth.p_key
	FECN      bool   // F: forward congestion notification (RoCEv2 ECN)
	BECN      bool   // B: backward congestion notification
	Reserved  uint8  // the six reserved bits of byte 4 (Resv6a)
	DestQP    uint32 // infiniband.bth.destqp, 24 bits
	A         bool   // infiniband.bth.a, AckReq
	Reserved7 uint8  // infiniband.bth.reserved7
	PSN       uint32 // infiniband.bth.psn, 24 bits

	// Headers says which extension headers follow; each is decoded into
	// the field of its name. Fields of absent headers are zero.
	Headers      Headers
	RDETH        RDETH
	DETH         DETH
	XRCETH       XRCETH
	FETH         FETH
	RETH         RETH
	AtomicETH    AtomicETH
	AETH         AETH
	AtomicAckETH AtomicAckETH
	ImmDt        ImmDt
	IETH         IETH

	Pad  []byte // the PadCnt bytes after the payload
	ICRC uint32 // infiniband.invariant.crc: the last four bytes read big-endian, as Wireshark shows them
}

// LayerType returns LayerTypeBTH.
func (b *BTH) LayerType() gopacket.LayerType { return LayerTypeBTH }

// CanDecode returns LayerTypeBTH.
func (b *BTH) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType returns LayerTypeMAD for a UD packet to QP0 or QP1,
// LayerTypeIPoIB for other UD packets whose payload starts like an IPoIB
// header, and gopacket.LayerTypePayload otherwise.
func (b *BTH) NextLayerType() gopacket.LayerType {
	if b.Opcode.Transport() == TransportUD {
		if b.DestQP == QPSMI || b.DestQP == QPGSI {
			return LayerTypeMAD
		}
		if looksLikeIPoIB(b.Payload) {
			return LayerTypeIPoIB
		}
	}
	return gopacket.LayerTypePayload
}

// DecodeFromBytes decodes a BTH, its extension headers, pad and ICRC from
// data, which must end with the ICRC (a UDP payload, or what a GRH or LRH
// bounds). When the extension headers do not fit, the BTH fields are set,
// Headers lists the headers that fit, and the error says what is missing.
func (b *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*b = BTH{}
	if len(data) < BTHLen {
		return errShort(df, "BTH", BTHLen, len(data))
	}
	w0 := binary.BigEndian.Uint32(data)
	w1 := binary.BigEndian.Uint32(data[4:])
	w2 := binary.BigEndian.Uint32(data[8:])
	b.Opcode = Opcode(w0 >> 24)
	b.SE = w0&(1<<23) != 0
	b.M = w0&(1<<22) != 0
	b.PadCnt = uint8(w0>>20) & 3
	b.TVer = uint8(w0>>16) & 0xf
	b.PKey = uint16(w0)
	b.FECN = w1&(1<<31) != 0
	b.BECN = w1&(1<<30) != 0
	b.Reserved = uint8(w1>>24) & 0x3f
	b.DestQP = w1 & 0xffffff
	b.A = w2&(1<<31) != 0
	b.Reserved7 = uint8(w2>>24) & 0x7f
	b.PSN = w2 & 0xffffff
	b.Contents = data[:BTHLen]

	want := b.Opcode.Headers()
	end := len(data) - ICRCLen // the ICRC starts here
	if end < BTHLen {
		df.SetTruncated()
		return errAt("BTH", len(data), "%d bytes after the BTH, too short for the %d-byte ICRC", len(data)-BTHLen, ICRCLen)
	}
	b.ICRC = binary.BigEndian.Uint32(data[end:])
	off, err := b.decodeHeaders(data[:end], want)
	if err != nil {
		df.SetTruncated()
		return err
	}
	payEnd := end - int(b.PadCnt)
	if payEnd < off {
		return errAt("BTH", off, "pad count %d is more than the %d bytes after the headers", b.PadCnt, end-off)
	}
	b.Pad = data[payEnd:end]
	b.Payload = data[off:payEnd]
	return nil
}

// decodeHeaders decodes the extension headers in want from data (which
// stops at the ICRC), in wire order, and returns the offset after them.
func (b *BTH) decodeHeaders(data []byte, want Headers) (int, error) {
	off := BTHLen
	for i := 0; i < numHeaders; i++ {
		h := Headers(1) << i
		if want&h == 0 {
			continue
		}
		n := headerLens[i]
		if len(data)-off < n {
			return off, errAt("BTH", off, "opcode %d needs a %d-byte %s, have %d bytes before the ICRC",
				uint8(b.Opcode), n, headerNames[i], len(data)-off)
		}
		d := data[off:]
		switch h {
		case HasRDETH:
			b.RDETH.decode(d)
		case HasDETH:
			b.DETH.decode(d)
		case HasXRCETH:
			b.XRCETH.decode(d)
		case HasFETH:
			b.FETH.decode(d)
		case HasRETH:
			b.RETH.decode(d)
		case HasAtomicETH:
			b.AtomicETH.decode(d)
		case HasAETH:
			b.AETH.decode(d)
		case HasAtomicAckETH:
			b.AtomicAckETH.decode(d)
		case HasImmDt:
			b.ImmDt.decode(d)
		case HasIETH:
			b.IETH.decode(d)
		}
		b.Headers |= h
		off += n
	}
	return off, nil
}

// Extensions appends the extension headers b has, in wire order, to dst.
func (b *BTH) Extensions(dst []gopacket.Layer) []gopacket.Layer {
	for i := 0; i < numHeaders; i++ {
		if l := b.extension(Headers(1) << i); l != nil {
			dst = append(dst, l)
		}
	}
	return dst
}

// extension returns the header h if b has it.
func (b *BTH) extension(h Headers) extLayer {
	if b.Headers&h == 0 {
		return nil
	}
	return b.field(h)
}

// field returns the field that holds header h.
func (b *BTH) field(h Headers) extLayer {
	switch h {
	case HasRDETH:
		return &b.RDETH
	case HasDETH:
		return &b.DETH
	case HasXRCETH:
		return &b.XRCETH
	case HasFETH:
		return &b.FETH
	case HasRETH:
		return &b.RETH
	case HasAtomicETH:
		return &b.AtomicETH
	case HasAETH:
		return &b.AETH
	case HasAtomicAckETH:
		return &b.AtomicAckETH
	case HasImmDt:
		return &b.ImmDt
	case HasIETH:
		return &b.IETH
	}
	return nil
}

// extLayer is an extension header.
type extLayer interface {
	gopacket.Layer
	gopacket.SerializableLayer
	put(buf []byte)
}

// SerializeTo prepends the BTH and the extension headers its opcode calls
// for to b, and appends the pad and the ICRC field. With FixLengths,
// PadCnt is set to pad the payload to a multiple of four bytes and Headers
// to the opcode's. The ICRC field is written as b.ICRC: it covers headers
// this layer cannot see, so compute it over the finished buffer with
// SetICRC.
func (b *BTH) SerializeTo(buf gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	payloadLen := len(buf.Bytes())
	want := b.Opcode.Headers()
	if opts.FixLengths {
		b.PadCnt = uint8((4 - payloadLen%4) % 4)
		b.Headers = want
	}
	tail, err := buf.AppendBytes(int(b.PadCnt) + ICRCLen)
	if err != nil {
		return err
	}
	clear(tail[:b.PadCnt])
	binary.BigEndian.PutUint32(tail[b.PadCnt:], b.ICRC)

	hdr, err := buf.PrependBytes(BTHLen + want.Len())
	if err != nil {
		return err
	}
	b.put(hdr)
	off := BTHLen
	for i := 0; i < numHeaders; i++ {
		h := Headers(1) << i
		if want&h == 0 {
			continue
		}
		b.field(h).put(hdr[off:])
		off += headerLens[i]
	}
	return nil
}

func (b *BTH) put(buf []byte) {
	w0 := uint32(b.Opcode)<<24 | uint32(b.PadCnt&3)<<20 | uint32(b.TVer&0xf)<<16 | uint32(b.PKey)
	if b.SE {
		w0 |= 1 << 23
	}
	if b.M {
		w0 |= 1 << 22
	}
	w1 := uint32(b.Reserved&0x3f)<<24 | b.DestQP&0xffffff
	if b.FECN {
		w1 |= 1 << 31
	}
	if b.BECN {
		w1 |= 1 << 30
	}
	w2 := uint32(b.Reserved7&0x7f)<<24 | b.PSN&0xffffff
	if b.A {
		w2 |= 1 << 31
	}
	binary.BigEndian.PutUint32(buf, w0)
	binary.BigEndian.PutUint32(buf[4:], w1)
	binary.BigEndian.PutUint32(buf[8:], w2)
}

// decodeBTH is the registry decoder: it adds the BTH and then each of its
// extension headers as a layer of its own.
func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	b := &BTH{}
	if err := b.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(b)
	var ext [numHeaders]gopacket.Layer
	for _, l := range b.Extensions(ext[:0]) {
		p.AddLayer(l)
	}
	return p.NextDecoder(b.NextLayerType())
}
