package pcapfile

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/google/gopacket"
)

// Writer writes a classic pcap file (little-endian, nanosecond
// timestamps): what rdmalab saves and what Wireshark opens.
type Writer struct {
	w   io.Writer
	hdr [16]byte
}

// NewWriter writes the file header for link type lt and snap length
// snaplen to w.
func NewWriter(w io.Writer, lt LinkType, snaplen uint32) (*Writer, error) {
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], magicNanos)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], snaplen)
	binary.LittleEndian.PutUint32(h[20:], uint32(lt))
	if _, err := w.Write(h[:]); err != nil {
		return nil, err
	}
	return &Writer{w: w}, nil
}

// WritePacket writes one record.
func (w *Writer) WritePacket(ci gopacket.CaptureInfo, data []byte) error {
	if ci.CaptureLength != len(data) {
		return fmt.Errorf("pcapfile: capture length %d, but %d bytes of data", ci.CaptureLength, len(data))
	}
	t := ci.Timestamp
	binary.LittleEndian.PutUint32(w.hdr[0:], uint32(t.Unix()))
	binary.LittleEndian.PutUint32(w.hdr[4:], uint32(t.Nanosecond()))
	binary.LittleEndian.PutUint32(w.hdr[8:], uint32(len(data)))
	binary.LittleEndian.PutUint32(w.hdr[12:], uint32(max(ci.Length, len(data))))
	if _, err := w.w.Write(w.hdr[:]); err != nil {
		return err
	}
	_, err := w.w.Write(data)
	return err
}

// NgWriter writes a pcapng file with one section and the interfaces given
// to NewNgWriter (little-endian, nanosecond timestamps).
type NgWriter struct {
	w      io.Writer
	buf    []byte
	ifaces int // interfaces described so far
}

// NewNgWriter writes a Section Header Block and one Interface Description
// Block per link type.
func NewNgWriter(w io.Writer, lts ...LinkType) (*NgWriter, error) {
	nw := &NgWriter{w: w}
	shb := make([]byte, 16)
	binary.LittleEndian.PutUint32(shb[0:], bomMagic)
	binary.LittleEndian.PutUint16(shb[4:], 1)
	binary.LittleEndian.PutUint64(shb[8:], ^uint64(0)) // section length unknown
	if err := nw.block(blockSHB, shb); err != nil {
		return nil, err
	}
	for _, lt := range lts {
		if _, err := nw.AddInterface(lt); err != nil {
			return nil, err
		}
	}
	return nw, nil
}

// WritePacket writes an Enhanced Packet Block for interface iface.
func (w *NgWriter) WritePacket(iface int, ci gopacket.CaptureInfo, data []byte) error {
	return w.WritePacketComments(iface, ci, data, nil)
}

// maxComment is the most an option holds: a longer comment is cut, at a
// character boundary.
const maxComment = 1<<16 - 1

// AddInterface writes an Interface Description Block for link type lt
// and returns its number, for WritePacket: a section may describe an
// interface anywhere before its first packet.
func (w *NgWriter) AddInterface(lt LinkType) (int, error) {
	idb := make([]byte, 8, 20)
	binary.LittleEndian.PutUint16(idb[0:], uint16(lt))
	// if_tsresol = 9 (nanoseconds), then opt_endofopt.
	idb = append(idb, optTSResol, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0)
	if err := w.block(blockIDB, idb); err != nil {
		return 0, err
	}
	w.ifaces++
	return w.ifaces - 1, nil
}

// WritePacketComments writes an Enhanced Packet Block for interface iface
// with each comment as an opt_comment option, which Wireshark shows in
// the packet list and tests with frame.comment.
func (w *NgWriter) WritePacketComments(iface int, ci gopacket.CaptureInfo, data []byte, comments []string) error {
	ts := uint64(ci.Timestamp.UnixNano())
	body := w.buf[:0]
	body = binary.LittleEndian.AppendUint32(body, uint32(iface))
	body = binary.LittleEndian.AppendUint32(body, uint32(ts>>32))
	body = binary.LittleEndian.AppendUint32(body, uint32(ts))
	body = binary.LittleEndian.AppendUint32(body, uint32(len(data)))
	body = binary.LittleEndian.AppendUint32(body, uint32(max(ci.Length, len(data))))
	body = append(body, data...)
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	for _, c := range comments {
		if len(c) > maxComment {
			c = strings.ToValidUTF8(c[:maxComment], "")
		}
		body = binary.LittleEndian.AppendUint16(body, optComment)
		body = binary.LittleEndian.AppendUint16(body, uint16(len(c)))
		body = append(body, c...)
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
	}
	if len(comments) > 0 {
		body = append(body, 0, 0, 0, 0) // opt_endofopt
	}
	w.buf = body
	return w.block(blockEPB, body)
}

func (w *NgWriter) block(typ uint32, body []byte) error {
	var h [8]byte
	total := uint32(12 + len(body))
	binary.LittleEndian.PutUint32(h[0:], typ)
	binary.LittleEndian.PutUint32(h[4:], total)
	if _, err := w.w.Write(h[:]); err != nil {
		return err
	}
	if _, err := w.w.Write(body); err != nil {
		return err
	}
	_, err := w.w.Write(h[4:8])
	return err
}
