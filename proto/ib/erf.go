package ib

// Extensible Record Format record header (Endace ERF; LINKTYPE_ERF, 197),
// how DAG cards and ibdump-style InfiniBand sniffers deliver native IB
// packets. Timestamp is little-endian, the other fields big-endian.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                  Timestamp, 64 bits, little-endian            |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|X|    Type     |     Flags     |       Record length (rlen)    |  8
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|     Loss counter (lctr)       |      Wire length (wlen)       | 12
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| extension headers, 8 bytes each, while X (bit 7 of byte 0 of each) is set
//	| type 2 (Ethernet): 2 bytes offset and pad, then the frame
//	| type 21 (InfiniBand): the IB packet from its LRH, VCRC included
//	X: an extension header follows

import (
	"encoding/binary"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// ERFHeaderLen is the length of the fixed ERF record header.
const ERFHeaderLen = 16

// ERF record types this package follows.
const (
	ERFTypeEthernet       = 2
	ERFTypeIPv4           = 7
	ERFTypeIPv6           = 8
	ERFTypeInfiniBand     = 21
	ERFTypeInfiniBandLink = 25
)

// ERF is an ERF record header; its Payload is the packet it carries,
// bounded by the record and wire lengths.
type ERF struct {
	layers.BaseLayer
	Timestamp uint64 // erf.ts: 32.32 fixed-point seconds
	Type      uint8  // erf.types.type, 7 bits
	Flags     uint8  // erf.flags
	RLen      uint16 // erf.rlen
	LCtr      uint16 // erf.lctr
	WLen      uint16 // erf.wlen
	// ExtHeaders are the extension headers, 8 bytes each, as on the wire
	// (bit 7 of each first byte: another follows). They alias the input.
	ExtHeaders []byte
	Pad        uint16 // Ethernet records: the offset and pad bytes
}

// LayerType returns LayerTypeERF.
func (e *ERF) LayerType() gopacket.LayerType { return LayerTypeERF }

// CanDecode returns LayerTypeERF.
func (e *ERF) CanDecode() gopacket.LayerClass { return LayerTypeERF }

// NextLayerType follows Type.
func (e *ERF) NextLayerType() gopacket.LayerType {
	switch e.Type {
	case ERFTypeInfiniBand, ERFTypeInfiniBandLink:
		return LayerTypeLRH
	case ERFTypeEthernet:
		return layers.LayerTypeEthernet
	case ERFTypeIPv4:
		return layers.LayerTypeIPv4
	case ERFTypeIPv6:
		return layers.LayerTypeIPv6
	}
	return gopacket.LayerTypePayload
}

// Truncated reports the flag the capture card sets on a cut record.
func (e *ERF) Truncated() bool { return e.Flags&0x08 != 0 }

// DecodeFromBytes decodes an ERF record header.
func (e *ERF) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*e = ERF{}
	if len(data) < ERFHeaderLen {
		return errShort(df, "ERF", ERFHeaderLen, len(data))
	}
	e.Timestamp = binary.LittleEndian.Uint64(data)
	e.Type = data[8] & 0x7f
	e.Flags = data[9]
	e.RLen = binary.BigEndian.Uint16(data[10:])
	e.LCtr = binary.BigEndian.Uint16(data[12:])
	e.WLen = binary.BigEndian.Uint16(data[14:])
	off := ERFHeaderLen
	for more := data[8]&0x80 != 0; more; {
		if len(data)-off < 8 {
			return errShort(df, "ERF", off+8, len(data))
		}
		more = data[off]&0x80 != 0
		off += 8
	}
	e.ExtHeaders = data[ERFHeaderLen:off]
	if e.Type == ERFTypeEthernet {
		if len(data)-off < 2 {
			return errShort(df, "ERF", off+2, len(data))
		}
		e.Pad = binary.BigEndian.Uint16(data[off:])
		off += 2
	}
	// The record length may count padding a capture file dropped: the
	// wire length says how much packet there is.
	end := len(data)
	if int(e.RLen) >= off && int(e.RLen) < end {
		end = int(e.RLen)
	}
	if w := off + int(e.WLen); w < end {
		end = w
	} else if w > len(data) || e.Truncated() {
		df.SetTruncated()
	}
	e.BaseLayer = layers.BaseLayer{Contents: data[:off], Payload: data[off:end]}
	return nil
}

// SerializeTo prepends the record header to b. With FixLengths, RLen and
// WLen are set from what b holds (no padding).
func (e *ERF) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	n := len(e.ExtHeaders) / 8
	hdr := ERFHeaderLen + 8*n
	if e.Type == ERFTypeEthernet {
		hdr += 2
	}
	if opts.FixLengths {
		e.WLen = uint16(len(b.Bytes()))
		e.RLen = uint16(len(b.Bytes()) + hdr)
	}
	buf, err := b.PrependBytes(hdr)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint64(buf, e.Timestamp)
	buf[8] = e.Type & 0x7f
	if n > 0 {
		buf[8] |= 0x80
	}
	buf[9] = e.Flags
	binary.BigEndian.PutUint16(buf[10:], e.RLen)
	binary.BigEndian.PutUint16(buf[12:], e.LCtr)
	binary.BigEndian.PutUint16(buf[14:], e.WLen)
	copy(buf[ERFHeaderLen:], e.ExtHeaders[:8*n])
	if e.Type == ERFTypeEthernet {
		binary.BigEndian.PutUint16(buf[hdr-2:], e.Pad)
	}
	return nil
}

func decodeERF(data []byte, p gopacket.PacketBuilder) error {
	return decodeLayer[ERF](data, p)
}
