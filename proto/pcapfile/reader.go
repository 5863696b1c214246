package pcapfile

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
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

var formatNames = [...]string{FormatPcap: "pcap", FormatPcapNG: "pcapng"}

// String returns the name of f ("pcapng"), or "unknown" for a value
// without one.
func (f Format) String() string {
	if int(f) < len(formatNames) && formatNames[f] != "" {
		return formatNames[f]
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
	// MaxInterfaces bounds the interfaces one pcapng section describes:
	// dumpcap writes one per interface it captures on, and each costs the
	// reader some state.
	MaxInterfaces = 1 << 16
	// ExpandRatio and MinExpand make the default MaxExpand: 64 times the
	// compressed file, and at least 256 MiB. Captures of random payloads
	// compress 1-4 times, of zero-filled pages up to ~170 times (those
	// need --max-expand past a couple of MB); a bomb ~1000 times.
	ExpandRatio = 64
	MinExpand   = 256 << 20
	// RecordCost is what a record or block of a gzip file counts against
	// MaxExpand at least: what its reader's user keeps of even an empty
	// one (the capture index 16 bytes and its notes, an analysis a few
	// hundred), so that a bomb of empty records is stopped as soon as one
	// of bytes.
	RecordCost = 256
)

// Options change how a Reader reads.
type Options struct {
	// MaxExpand is the most bytes a gzip-compressed file may decompress
	// to, each record or block counting at least RecordCost: past it Next
	// returns an *Error wrapping an *ExpandError. 0 means
	// DefaultMaxExpand of the compressed size.
	MaxExpand int64
	// Size is the number of bytes the stream holds from where it is read,
	// when the reader cannot tell (0: ask it; an *os.File or a reader
	// with Len, as bytes.Reader, can). Record lengths are checked against
	// what is left before anything is read, and the default MaxExpand of
	// a gzip file is ExpandRatio times it.
	Size int64
	// Decompressed, when set, gets a copy of a gzip file's decompressed
	// bytes as they are read (a little ahead of the records returned):
	// a copy that can be read back at record offsets.
	Decompressed io.Writer
}

// DefaultMaxExpand is the MaxExpand of a gzip file of size compressed
// bytes (0: unknown) when its Options give none: ExpandRatio times size,
// at least MinExpand.
func DefaultMaxExpand(size int64) int64 {
	if size > math.MaxInt64/ExpandRatio {
		return math.MaxInt64
	}
	return max(MinExpand, ExpandRatio*size)
}

// Record is one packet of a capture.
type Record struct {
	Frame    int   // 1-based, counting packets as Wireshark does
	Offset   int64 // byte offset of the record header (pcap) or block (pcapng)
	DataOff  int64 // byte offset of the packet data
	Info     gopacket.CaptureInfo
	LinkType LinkType
	Data     []byte   // valid until the next Next; callers copy what they keep
	Comments []string // a pcapng packet's comments (opt_comment), in order
}

// Reader reads the packets of a capture file.
type Reader struct {
	br     *bufio.Reader
	closer io.Closer
	gz     bool
	format Format
	off    int64 // bytes consumed from the (uncompressed) stream
	size   int64 // bytes in the uncompressed stream, -1 when unknown (gzip)
	restat func() int64

	// gzip: what the records and blocks so far cost against limit, and
	// where in the compressed file the reader is.
	cost, limit int64
	blocks      int64
	in          *countReader
	zbuf        *bufio.Reader
	frame       int // last frame returned
	buf         []byte
	hdr         [24]byte // a record or block header: a field, so reading it does not allocate
	err         error    // sticky: after an error the stream is out of step

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
func NewReader(r io.Reader) (*Reader, error) { return NewReaderWith(r, Options{}) }

// NewReaderWith is NewReader with options.
func NewReaderWith(r io.Reader, opt Options) (*Reader, error) {
	rd := &Reader{size: opt.Size}
	if rd.size <= 0 {
		rd.size, rd.restat = streamSize(r)
	}
	in := &countReader{r: r}
	// A small file gets a small buffer: the fuzz targets open thousands
	// a second.
	rd.br = bufio.NewReaderSize(in, bufSize(rd.size))
	magic, err := rd.br.Peek(2)
	if err != nil {
		return nil, rd.fail(0, "reading the file magic", err)
	}
	if magic[0] == gzipMagic[0] && magic[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(rd.br)
		if err != nil {
			return nil, rd.fail(0, "reading the gzip header", err)
		}
		rd.limit = opt.MaxExpand
		if rd.limit <= 0 {
			rd.limit = DefaultMaxExpand(max(rd.size, 0))
		}
		rd.in, rd.zbuf = in, rd.br
		var src io.Reader = zr
		if opt.Decompressed != nil {
			src = io.TeeReader(zr, opt.Decompressed)
		}
		rd.gz, rd.closer, rd.size, rd.restat = true, zr, -1, nil
		rd.br = bufio.NewReaderSize(src, 1<<16)
	}
	if err := rd.readFileHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Open opens the capture file at path; Close closes it.
func Open(path string) (*Reader, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options.
func OpenWith(path string, opt Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReaderWith(f, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = multiCloser{r.closer, f}
	return r, nil
}

// streamSize says how many bytes r holds from where it is, -1 when it
// cannot tell; for a file that may still grow, restat asks again.
func streamSize(r io.Reader) (size int64, restat func() int64) {
	switch s := r.(type) {
	case *os.File:
		st, err := s.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1, nil
		}
		pos, err := s.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1, nil
		}
		restat = func() int64 {
			if st, err := s.Stat(); err == nil {
				return st.Size() - pos
			}
			return -1
		}
		return st.Size() - pos, restat
	case interface{ Len() int }:
		return int64(s.Len()), nil
	}
	return -1, nil
}

// bufSize is the read buffer for a stream of size bytes (-1: unknown): a
// small file gets what it holds, a big one 1 MiB, so that reading costs
// few system calls per megabyte; a record is returned from the buffer
// without a copy when it fits (peekData).
func bufSize(size int64) int {
	const big = 1 << 20
	if size >= 0 && size < big {
		return max(int(size), 16)
	}
	return big
}

// countReader counts the bytes read from the file: for a gzip file, with
// what its buffer holds, where in the compressed data the reader is.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
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
		return err
	}
	if rec.LinkType == LinkTypeERF && len(rec.Data) >= 8 {
		// An ERF record carries its own time, to a fraction of a
		// nanosecond, which the pcap header rounds: Wireshark's.
		rec.Info.Timestamp = erfTime(binary.LittleEndian.Uint64(rec.Data))
	}
	return nil
}

// erfTime is an ERF timestamp (seconds in the high 32 bits, a binary
// fraction in the low 32) as a time, rounded to the nanosecond.
func erfTime(ts uint64) time.Time {
	frac := (ts&0xffffffff*1_000_000_000 + 1<<31) >> 32
	return time.Unix(int64(ts>>32), int64(frac)).UTC()
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
		if what == "" {
			what = "record header"
		}
		return r.readError(frame, what, n, len(p), err)
	}
	return nil
}

// readError says why reading want bytes of what stopped after got: the
// end of the file, or an error reading it (a gzip one, a copy's write).
func (r *Reader) readError(frame int, what string, got, want int, err error) *Error {
	e := &Error{Frame: frame, Offset: r.off, Gzip: r.gz}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		e.Msg = "file ends inside the " + what + " (" + strconv.Itoa(got) + " of " + strconv.Itoa(want) + " bytes)"
		e.Err = io.ErrUnexpectedEOF
	default:
		e.Msg = "reading the " + what + " (" + strconv.Itoa(got) + " of " + strconv.Itoa(want) + " bytes)"
		e.Err = err
	}
	return e
}

// charge counts a record or block of n bytes at off, its header
// included, against the gzip limit before its bytes are read.
func (r *Reader) charge(frame int, off, n int64) error {
	if !r.gz {
		return nil
	}
	r.blocks++
	r.cost += max(n, RecordCost)
	if r.cost <= r.limit {
		return nil
	}
	return &Error{Frame: frame, Offset: off, Gzip: true,
		Err: &ExpandError{Limit: r.limit, Compressed: r.in.n - int64(r.zbuf.Buffered()), Records: r.blocks}}
}

// fits checks n bytes against what is left of an uncompressed file
// before they are read: a length is a claim.
func (r *Reader) fits(n int, frame int, what string) error {
	if r.size < 0 || int64(n) <= r.size-r.off {
		return nil
	}
	if r.restat != nil {
		r.size = r.restat() // the file may still be being written
		if r.size < 0 || int64(n) <= r.size-r.off {
			return nil
		}
	}
	left := max(r.size-r.off, 0)
	return &Error{Frame: frame, Offset: r.off + left, Gzip: r.gz,
		Msg: fmt.Sprintf("file ends inside the %s (%d of %d bytes)", what, left, n), Err: io.ErrUnexpectedEOF}
}

// readData reads n bytes into the reusable buffer, growing it as the bytes
// arrive rather than by what a length field claims.
func (r *Reader) readData(n int, frame int, what string) ([]byte, error) {
	if err := r.fits(n, frame, what); err != nil {
		return nil, err
	}
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
			return nil, r.readError(frame, what, len(b), n, err)
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
	if err := r.fits(n, frame, what); err != nil {
		return nil, err
	}
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
	if err := r.charge(frame, start, int64(hdrLen)+int64(incl)); err != nil {
		return err
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
