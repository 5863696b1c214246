package pcapfile

// pcapng (draft-ietf-opsawg-pcapng): a sequence of blocks, each
//
//	 0                   1                   2                   3
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          Block Type                           |
//	|                      Block Total Length                       |
//	/                          Block Body                           /
//	|                      Block Total Length                       |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// A Section Header Block (with its byte-order magic) starts each section;
// Interface Description Blocks give each interface its link type, snap
// length and timestamp resolution; Enhanced, Simple and (obsolete) Packet
// Blocks hold packets. Other blocks are skipped.

import (
	"encoding/binary"
	"math"
	"math/bits"
	"time"

	"github.com/google/gopacket"
)

// Block types.
const (
	blockIDB = 0x00000001
	blockPB  = 0x00000002 // obsolete Packet Block
	blockSPB = 0x00000003
	blockEPB = 0x00000006
	blockSHB = magicNG
	bomMagic = 0x1a2b3c4d
)

// Interface options read from an IDB.
const (
	optEnd      = 0
	optComment  = 1 // opt_comment: UTF-8 text, in any block
	optTSResol  = 9
	optTSOffset = 14
)

type ngIface struct {
	linkType LinkType
	snaplen  uint32
	unitsPer uint64 // timestamp units per second
	offset   int64  // seconds added to every timestamp
}

type ngState struct {
	ifaces   []ngIface
	haveLink bool // LinkType is set from the first interface
}

// readFirstSection reads the SHB whose type the caller has read.
func (r *Reader) readFirstSection(typ [4]byte) error {
	start := r.off - 4
	body, err := r.readBlockBody(0, start, typ)
	if err != nil {
		return err
	}
	if err := r.section(0, start, body); err != nil {
		return err
	}
	// The link type of the file is its first interface's: read the blocks
	// before the first packet (or the next section).
	for !r.ng.haveLink {
		typ, err := r.br.Peek(4)
		if err != nil {
			return nil // no interface at all: Next reports what follows
		}
		switch bt := r.order.Uint32(typ); bt {
		case blockEPB, blockPB, blockSPB, blockSHB:
			return nil
		}
		start := r.off
		var t [4]byte
		if err := r.read(t[:], 0, "block type"); err != nil {
			return err
		}
		body, err := r.readBlockBody(0, start, t)
		if err != nil {
			return err
		}
		if r.order.Uint32(t[:]) == blockIDB {
			if err := r.iface(0, start, body); err != nil {
				return err
			}
		}
	}
	return nil
}

// uint32Of is r.order.Uint32 of b: handed to the interface, a slice of a
// local array would move it to the heap, an allocation a packet.
func (r *Reader) uint32Of(b [4]byte) uint32 {
	if r.order == binary.BigEndian {
		return binary.BigEndian.Uint32(b[:])
	}
	return binary.LittleEndian.Uint32(b[:])
}

// readBlockBody reads the rest of a block whose four type bytes were read,
// checks its lengths, and returns its body. For an SHB the byte order is
// taken from its magic first.
func (r *Reader) readBlockBody(frame int, start int64, typ [4]byte) ([]byte, error) {
	if err := r.read(r.hdr[4:8], frame, "block length"); err != nil {
		return nil, err
	}
	lb := [4]byte(r.hdr[4:8])
	if binary.LittleEndian.Uint32(typ[:]) == blockSHB {
		var bom [4]byte
		if err := r.read(bom[:], frame, "section byte-order magic"); err != nil {
			return nil, err
		}
		switch {
		case binary.LittleEndian.Uint32(bom[:]) == bomMagic:
			r.order = binary.LittleEndian
		case binary.BigEndian.Uint32(bom[:]) == bomMagic:
			r.order = binary.BigEndian
		default:
			return nil, r.errorf(frame, start+8, "section header byte-order magic %x is not 1a2b3c4d", bom)
		}
		total := r.uint32Of(lb)
		if err := r.checkBlockLen(frame, start, total, 28); err != nil {
			return nil, err
		}
		rest, err := r.readData(int(total)-12, frame, "section header block")
		if err != nil {
			return nil, err
		}
		rest = append(rest, 0, 0, 0, 0)
		copy(rest[4:], rest)
		copy(rest, bom[:]) // the body from the magic on, and the trailing length
		r.buf = rest
		return r.checkTrailer(frame, start, total, rest)
	}
	total := r.uint32Of(lb)
	if err := r.checkBlockLen(frame, start, total, 12); err != nil {
		return nil, err
	}
	rest, err := r.peekData(int(total)-8, frame, "block")
	if err != nil {
		return nil, err
	}
	return r.checkTrailer(frame, start, total, rest)
}

func (r *Reader) checkBlockLen(frame int, start int64, total, min uint32) error {
	switch {
	case total < min:
		return r.errorf(frame, start+4, "block length %d is less than %d", total, min)
	case total%4 != 0:
		return r.errorf(frame, start+4, "block length %d is not a multiple of 4", total)
	case total > MaxBlock:
		return r.errorf(frame, start+4, "block length %d is more than %d bytes", total, MaxBlock)
	}
	return r.charge(frame, start, int64(total))
}

// checkTrailer checks the length that ends a block and returns the body.
func (r *Reader) checkTrailer(frame int, start int64, total uint32, rest []byte) ([]byte, error) {
	body, tail := rest[:len(rest)-4], rest[len(rest)-4:]
	if t := r.order.Uint32(tail); t != total {
		return nil, r.errorf(frame, start+int64(total)-4, "block length %d at the end differs from %d at the start", t, total)
	}
	return body, nil
}

// section starts a section from an SHB body (from its byte-order magic).
func (r *Reader) section(frame int, start int64, body []byte) error {
	if major := r.order.Uint16(body[4:]); major != 1 {
		return r.errorf(frame, start+12, "pcapng version %d.%d, want 1.x", major, r.order.Uint16(body[6:]))
	}
	r.ng.ifaces = r.ng.ifaces[:0]
	return nil
}

// nextNG reads blocks until a packet block.
func (r *Reader) nextNG(rec *Record) error {
	frame := r.frame + 1
	for {
		start := r.off
		if err := r.read(r.hdr[:4], frame, ""); err != nil {
			return err
		}
		typ := [4]byte(r.hdr[:4])
		body, err := r.readBlockBody(frame, start, typ)
		if err != nil {
			return err
		}
		bt := r.uint32Of(typ)
		if binary.LittleEndian.Uint32(typ[:]) == blockSHB {
			bt = blockSHB
		}
		switch bt {
		case blockSHB:
			if err := r.section(frame, start, body); err != nil {
				return err
			}
		case blockIDB:
			if err := r.iface(frame, start, body); err != nil {
				return err
			}
		case blockEPB, blockPB, blockSPB:
			if err := r.packet(frame, start, bt, body, rec); err != nil {
				return err
			}
			r.frame = frame
			return nil
		}
	}
}

// iface reads an Interface Description Block.
func (r *Reader) iface(frame int, start int64, body []byte) error {
	if len(body) < 8 {
		return r.errorf(frame, start+8, "interface description block body of %d bytes, need 8", len(body))
	}
	ifc := ngIface{
		linkType: LinkType(r.order.Uint16(body)),
		snaplen:  r.order.Uint32(body[4:]),
		unitsPer: 1e6,
	}
	err := r.options(frame, start+16, body[8:], func(code uint16, val []byte, off int64) error {
		switch code {
		case optTSResol:
			if len(val) != 1 {
				return r.errorf(frame, off, "if_tsresol option of %d bytes, want 1", len(val))
			}
			v := val[0]
			exp := uint64(v & 0x7f)
			base := uint64(10)
			if v&0x80 != 0 {
				base = 2
			}
			u := uint64(1)
			for i := uint64(0); i < exp; i++ {
				if u > math.MaxUint64/base {
					return r.errorf(frame, off, "if_tsresol %#x is finer than 64 bits can count", v)
				}
				u *= base
			}
			ifc.unitsPer = u
		case optTSOffset:
			if len(val) != 8 {
				return r.errorf(frame, off, "if_tsoffset option of %d bytes, want 8", len(val))
			}
			ifc.offset = int64(r.order.Uint64(val))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(r.ng.ifaces) >= MaxInterfaces {
		return r.errorf(frame, start, "more than %d interfaces in one section", MaxInterfaces)
	}
	if !r.ng.haveLink {
		r.linkType, r.snaplen, r.ng.haveLink = ifc.linkType, ifc.snaplen, true
	}
	r.ng.ifaces = append(r.ng.ifaces, ifc)
	return nil
}

// options walks the options of a block body; off is the file offset of the
// first option.
func (r *Reader) options(frame int, off int64, b []byte, f func(code uint16, val []byte, off int64) error) error {
	for len(b) >= 4 {
		code, n := r.order.Uint16(b), int(r.order.Uint16(b[2:]))
		if code == optEnd {
			return nil
		}
		padded := (n + 3) &^ 3
		if 4+padded > len(b) {
			return r.errorf(frame, off, "option %d of %d bytes runs past the end of its block", code, n)
		}
		if err := f(code, b[4:4+n], off); err != nil {
			return err
		}
		b = b[4+padded:]
		off += int64(4 + padded)
	}
	return nil
}

// packet fills rec from an Enhanced, Simple or obsolete Packet Block.
func (r *Reader) packet(frame int, start int64, bt uint32, body []byte, rec *Record) error {
	var ifID uint32
	var ts uint64
	var incl, orig uint32
	hdr := 20
	switch bt {
	case blockEPB, blockPB:
		if len(body) < 20 {
			return r.errorf(frame, start+8, "packet block body of %d bytes, need 20", len(body))
		}
		if bt == blockEPB {
			ifID = r.order.Uint32(body)
		} else {
			ifID = uint32(r.order.Uint16(body))
		}
		ts = uint64(r.order.Uint32(body[4:]))<<32 | uint64(r.order.Uint32(body[8:]))
		incl, orig = r.order.Uint32(body[12:]), r.order.Uint32(body[16:])
	case blockSPB:
		if len(body) < 4 {
			return r.errorf(frame, start+8, "simple packet block body of %d bytes, need 4", len(body))
		}
		hdr = 4
		orig = r.order.Uint32(body)
		incl = min(orig, uint32(len(body)-4))
	}
	if int(ifID) >= len(r.ng.ifaces) {
		return r.errorf(frame, start+8, "packet of interface %d, but the section describes %d", ifID, len(r.ng.ifaces))
	}
	ifc := &r.ng.ifaces[ifID]
	if bt == blockSPB && ifc.snaplen != 0 {
		incl = min(incl, ifc.snaplen)
	}
	if int64(incl) > int64(len(body)-hdr) {
		return r.errorf(frame, start+8+int64(hdr)-8, "captured length %d runs past the end of its %d-byte block", incl, len(body)+12)
	}
	sec := int64(ts/ifc.unitsPer) + ifc.offset
	hi, lo := bits.Mul64(ts%ifc.unitsPer, 1e9)
	ns, _ := bits.Div64(hi, lo, ifc.unitsPer) // hi < unitsPer: no panic
	nsec := int64(ns)
	*rec = Record{
		Frame: frame, Offset: start, DataOff: start + 8 + int64(hdr), LinkType: ifc.linkType,
		Data: body[hdr : hdr+int(incl)],
		Info: gopacket.CaptureInfo{Timestamp: time.Unix(sec, nsec).UTC(), CaptureLength: int(incl),
			Length: int(max(orig, incl)), InterfaceIndex: int(ifID)},
	}
	if opts := hdr + (int(incl)+3)&^3; bt == blockEPB && opts+4 <= len(body) {
		rec.Comments = r.comments(body[opts:])
	}
	return nil
}

// comments returns the opt_comment options of a packet block. A damaged
// option ends the list: the packet itself is sound.
func (r *Reader) comments(b []byte) []string {
	var cs []string
	for len(b) >= 4 {
		code, n := r.order.Uint16(b), int(r.order.Uint16(b[2:]))
		if code == optEnd || 4+n > len(b) {
			break
		}
		if code == optComment {
			cs = append(cs, string(b[4:4+n]))
		}
		b = b[min(len(b), 4+(n+3)&^3):]
	}
	return cs
}
