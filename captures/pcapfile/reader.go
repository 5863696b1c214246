package pcapfile

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/google/gopacket"
)

// Format is the kind of capture file.
type Format uint8

// Formats.
const (
	FormatPcap Format = iota + 1
	FormatPcapNG
)

func (f Format) String() string {
	switch f {
	case FormatPcap:
		return "pcap"
	case FormatPcapNG:
		return "pcapng"
	}
	return "unknown"
}

// Limits on what a file may claim.
const (
	// MaxRecord is the largest packet record accepted, whatever the snap
	// length says: Wireshark's WTAP_MAX_PACKET_SIZE_STANDARD (256 KiB).
	// RDMA frames are at most a 4 KiB MTU plus headers (9 KiB jumbo).
	MaxRecord = 256 << 10
	// MaxBlock bounds a pcapng block.
	MaxBlock = MaxRecord + 1<<16
)

// Record is one packet of a capture.
type Record struct {
	Frame    int   // 1-based, counting packets as Wireshark does
	Offset   int64 // byte offset of the record header (pcap) or block (pcapng)
	DataOff  int64 // byte offset of the packet data
	Info     gopacket.CaptureInfo
	LinkType LinkType
	Data     []byte // valid until the next Next; callers copy what they keep
}

// Reader reads the packets of a capture file.
type Reader struct {
	br     *bufio.Reader
	closer io.Closer
	gz     bool
	format Format
	off    int64 // bytes consumed from the (uncompressed) stream
	frame  int   // last frame returned
	buf    []byte
	hdr    [24]byte // a record header: a field, so reading it does not allocate
	err    error    // sticky: after an error the stream is out of step

	// pcap
	order    binary.ByteOrder
	nanos    bool
	modified bool
	snaplen  uint32
	linkType LinkType
	version  [2]uint16

	ng ngState
}

var gzipMagic = []byte{0x1f, 0x8b}

// NewReader reads the file header of a pcap or pcapng file, gzip-compressed
// or not, from r.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{br: bufio.NewReaderSize(r, 1<<16)}
	magic, err := rd.br.Peek(2)
	if err != nil {
		return nil, rd.fail(0, "reading the file magic", err)
	}
	if magic[0] == gzipMagic[0] && magic[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(rd.br)
		if err != nil {
			return nil, rd.fail(0, "reading the gzip header", err)
		}
		rd.gz, rd.closer = true, zr
		rd.br = bufio.NewReaderSize(zr, 1<<16)
	}
	if err := rd.readFileHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Open opens the capture file at path; Close closes it.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = multiCloser{r.closer, f}
	return r, nil
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if c != nil {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// Close releases the file (and gzip reader) Open or NewReader opened.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Format returns the file's format.
func (r *Reader) Format() Format { return r.format }

// Gzip reports whether the file is gzip-compressed.
func (r *Reader) Gzip() bool { return r.gz }

// LinkType returns the link type of the file (pcap) or of its first
// interface (pcapng); records carry their own.
func (r *Reader) LinkType() LinkType { return r.linkType }

// Snaplen returns the snap length of the file or first interface.
func (r *Reader) Snaplen() uint32 { return r.snaplen }

// Next reads the next record into rec. It returns io.EOF at the clean end
// of the file and an *Error, naming the frame and byte offset, when the
// file is damaged; after an error every call returns it again.
func (r *Reader) Next(rec *Record) error {
	if r.err != nil {
		return r.err
	}
	var err error
	if r.format == FormatPcap {
		err = r.nextPcap(rec)
	} else {
		err = r.nextNG(rec)
	}
	if err != nil {
		r.err = err
	}
	return err
}

// ReadPacketData returns a copy of the next packet (gopacket.PacketDataSource).
func (r *Reader) ReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	var rec Record
	if err := r.Next(&rec); err != nil {
		return nil, gopacket.CaptureInfo{}, err
	}
	return append([]byte(nil), rec.Data...), rec.Info, nil
}

// ZeroCopyReadPacketData returns the next packet in a buffer the next call
// reuses (gopacket.ZeroCopyPacketDataSource).
func (r *Reader) ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	var rec Record
	if err := r.Next(&rec); err != nil {
		return nil, gopacket.CaptureInfo{}, err
	}
	return rec.Data, rec.Info, nil
}

// read fills p from the stream, counting the bytes. what names the field
// for the error.
func (r *Reader) read(p []byte, frame int, what string) error {
	n, err := io.ReadFull(r.br, p)
	r.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) && n == 0 && frame > 0 && what == "" {
			return io.EOF
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		if what == "" {
			what = "record header"
		}
		return &Error{Frame: frame, Offset: r.off, Gzip: r.gz,
			Msg: "file ends inside the " + what + " (" + strconv.Itoa(n) + " of " + strconv.Itoa(len(p)) + " bytes)", Err: err}
	}
	return nil
}

// readData reads n bytes into the reusable buffer, growing it as the bytes
// arrive rather than by what a length field claims.
func (r *Reader) readData(n int, frame int, what string) ([]byte, error) {
	const step = 64 << 10
	b := r.buf[:0]
	for len(b) < n {
		k := min(n-len(b), step)
		if cap(b)-len(b) < k {
			b = append(b[:cap(b)], make([]byte, max(k, cap(b)))...)[:len(b)]
		}
		got, err := io.ReadFull(r.br, b[len(b):len(b)+k])
		r.off += int64(got)
		b = b[:len(b)+got]
		if err != nil {
			r.buf = b
			return nil, &Error{Frame: frame, Offset: r.off, Gzip: r.gz,
				Msg: fmt.Sprintf("file ends inside the %s (%d of %d bytes)", what, len(b), n), Err: io.ErrUnexpectedEOF}
		}
	}
	r.buf = b
	return b, nil
}

// peekData is readData for bytes the caller is done with before its next
// read: when they fit the read buffer it returns the buffered bytes
// themselves (valid until the next read) instead of copying them. The
// caller must not append to them.
func (r *Reader) peekData(n int, frame int, what string) ([]byte, error) {
	if n <= r.br.Size() {
		if b, err := r.br.Peek(n); err == nil {
			r.br.Discard(n)
			r.off += int64(n)
			return b, nil
		}
	}
	return r.readData(n, frame, what)
}

func (r *Reader) fail(frame int, msg string, err error) *Error {
	return &Error{Frame: frame, Offset: r.off, Gzip: r.gz, Msg: msg, Err: err}
}

func (r *Reader) errorf(frame int, off int64, format string, args ...any) *Error {
	return &Error{Frame: frame, Offset: off, Gzip: r.gz, Msg: fmt.Sprintf(format, args...)}
}

// Magic numbers.
const (
	magicMicros   = 0xa1b2c3d4
	magicNanos    = 0xa1b23c4d
	magicModified = 0xa1b2cd34
	magicNG       = 0x0a0d0d0a
)

func (r *Reader) readFileHeader() error {
	var m [4]byte
	if err := r.read(m[:], 0, "file magic"); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(m[:]) == magicNG {
		r.format = FormatPcapNG
		return r.readFirstSection(m)
	}
	r.format = FormatPcap
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		switch o.Uint32(m[:]) {
		case magicMicros:
			r.order = o
		case magicNanos:
			r.order, r.nanos = o, true
		case magicModified:
			r.order, r.modified = o, true
		default:
			continue
		}
		break
	}
	if r.order == nil {
		return r.errorf(0, 0, "not a pcap or pcapng file (magic %x)", m)
	}
	var h [20]byte
	if err := r.read(h[:], 0, "pcap file header"); err != nil {
		return err
	}
	r.version = [2]uint16{r.order.Uint16(h[0:]), r.order.Uint16(h[2:])}
	if r.version[0] != 2 {
		return r.errorf(0, 4, "pcap version %d.%d, want 2.x", r.version[0], r.version[1])
	}
	r.snaplen = r.order.Uint32(h[12:])
	r.linkType = LinkType(r.order.Uint32(h[16:]) & 0x0fffffff) // the top bits carry FCS flags
	return nil
}

func (r *Reader) nextPcap(rec *Record) error {
	frame := r.frame + 1
	hdrLen := 16
	if r.modified {
		hdrLen = 24
	}
	h := &r.hdr
	start := r.off
	if err := r.read(h[:hdrLen], frame, ""); err != nil {
		return err
	}
	sec, frac := r.order.Uint32(h[0:]), r.order.Uint32(h[4:])
	incl, orig := r.order.Uint32(h[8:]), r.order.Uint32(h[12:])
	limit := uint32(MaxRecord)
	if incl > limit {
		return r.errorf(frame, start+8, "record length %d is more than %d bytes (snap length %d)", incl, limit, r.snaplen)
	}
	data, err := r.peekData(int(incl), frame, "packet data")
	if err != nil {
		return err
	}
	nsec := int64(frac)
	if !r.nanos {
		nsec *= 1000
	}
	r.frame = frame
	*rec = Record{
		Frame: frame, Offset: start, DataOff: start + int64(hdrLen), LinkType: r.linkType, Data: data,
		Info: gopacket.CaptureInfo{Timestamp: time.Unix(int64(sec), nsec).UTC(),
			CaptureLength: int(incl), Length: int(max(orig, incl))},
	}
	return nil
}
