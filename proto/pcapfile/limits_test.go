package pcapfile_test

// Hostile files built in the test, small as stored: gzip bombs, a flood of
// interfaces, lengths claiming more than the file holds. Each must end in
// an error naming the frame and offset, in bounded memory.

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

func pcapHeader() []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = append(b, make([]byte, 8)...)
	b = binary.LittleEndian.AppendUint32(b, 262144)
	return binary.LittleEndian.AppendUint32(b, 1)
}

func gzipMember(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bomb is head then copies of unit, as gzip members (a gzip reader reads
// them as one stream): what `gzip -9` of the whole would expand to,
// built without ever holding it.
func bomb(t testing.TB, head, unit []byte, copies int) []byte {
	out := gzipMember(t, head)
	m := gzipMember(t, unit)
	for range copies {
		out = append(out, m...)
	}
	return out
}

// readFrames reads data to its end or first error.
func readFrames(t testing.TB, data []byte, opt pcapfile.Options) (frames int, err error) {
	t.Helper()
	r, err := pcapfile.NewReaderWith(bytes.NewReader(data), opt)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var rec pcapfile.Record
	for {
		if err := r.Next(&rec); err != nil {
			if errors.Is(err, io.EOF) {
				return frames, nil
			}
			return frames, err
		}
		frames++
	}
}

// A pcap header and 4 GiB of zeros (empty records), 4 MB as gzip -9:
// the reader stops at the default limit, 64 times the compressed size,
// each record counting 256 bytes, having allocated next to nothing.
func TestGzipBomb(t *testing.T) {
	data := bomb(t, pcapHeader(), make([]byte, 1<<20), 4096)
	limit := pcapfile.DefaultMaxExpand(int64(len(data)))
	if limit != pcapfile.ExpandRatio*int64(len(data)) {
		t.Fatalf("limit %d for %d bytes", limit, len(data))
	}
	var frames int
	var err error
	alloc := testutil.Allocated(func() { frames, err = readFrames(t, data, pcapfile.Options{}) })
	records := limit/pcapfile.RecordCost + 1 // the one past the limit
	var pe *pcapfile.Error
	var xe *pcapfile.ExpandError
	if !errors.As(err, &pe) || !errors.As(err, &xe) {
		t.Fatalf("%d frames, error %v", frames, err)
	}
	if int64(frames) != records-1 || pe.Frame != frames+1 || pe.Offset != 24+16*int64(frames) || !pe.Gzip ||
		xe.Limit != limit || xe.Records != records || xe.Compressed <= 0 || xe.Compressed > int64(len(data)) {
		t.Errorf("%d frames, error %+v, %+v", frames, pe, xe)
	}
	want := "frame " + strconv.Itoa(frames+1) + ", uncompressed offset " + strconv.Itoa(int(pe.Offset)) + ": gzip data expands past " +
		pcapfile.FormatSize(limit) + " at compressed offset "
	if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "--max-expand") {
		t.Errorf("message %q, want it to start %q and name --max-expand", msg, want)
	}
	if alloc > 2<<20 {
		t.Errorf("reading the bomb allocated %d bytes", alloc)
	}
}

// MaxExpand moves the limit both ways; the default has a floor; a real
// capture within it reads whole.
func TestMaxExpand(t *testing.T) {
	data := bomb(t, pcapHeader(), make([]byte, 1<<20), 16)
	n, err := readFrames(t, data, pcapfile.Options{MaxExpand: 1 << 20})
	var xe *pcapfile.ExpandError
	if !errors.As(err, &xe) || n != (1<<20)/pcapfile.RecordCost || xe.Limit != 1<<20 {
		t.Fatalf("1 MiB limit: %d frames, %v", n, err)
	}
	if n, err := readFrames(t, data, pcapfile.Options{MaxExpand: 1 << 30}); err != nil || n != 16<<16 {
		t.Fatalf("1 GiB limit: %d frames, %v", n, err)
	}

	if got := pcapfile.DefaultMaxExpand(1 << 20); got != pcapfile.MinExpand {
		t.Fatalf("default of 1 MiB: %d, want the floor", got)
	}
	real := gzipped(t, testutil.ReadCapture(t, "nfs3-rdma.pcap"))
	if n, err := readFrames(t, real, pcapfile.Options{}); err != nil || n != kernelCaptures["nfs3-rdma.pcap"] {
		t.Fatalf("nfs3-rdma.pcap.gz: %d frames, %v", n, err)
	}
	if _, err := readFrames(t, real, pcapfile.Options{MaxExpand: 64 << 10}); !errors.As(err, &xe) {
		t.Fatalf("nfs3-rdma.pcap.gz under 64 KiB: %v", err)
	}
}

func ngBlock(typ uint32, body []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, typ)
	b = binary.LittleEndian.AppendUint32(b, uint32(12+len(body)))
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, uint32(12+len(body)))
}

func ngSHB() []byte {
	return ngBlock(0x0a0d0d0a, append(binary.LittleEndian.AppendUint32(nil, 0x1a2b3c4d),
		1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
}

func ngIDB() []byte { return ngBlock(1, []byte{1, 0, 0, 0, 0, 0, 1, 0}) }

func ngEPB(data []byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, 0)
	body = append(body, make([]byte, 8)...)
	body = binary.LittleEndian.AppendUint32(body, uint32(len(data)))
	body = binary.LittleEndian.AppendUint32(body, uint32(len(data)))
	body = append(body, data...)
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	return ngBlock(6, body)
}

// Interface Description Blocks by the hundred million (5 MB as gzip): the
// section may describe MaxInterfaces, and the error names the block past
// them, before or after the first packet.
func TestInterfaceBomb(t *testing.T) {
	idbs := bytes.Repeat(ngIDB(), (1<<20)/20)
	perUnit := len(idbs) / 20
	for _, tc := range []struct {
		name  string
		head  []byte
		frame int
	}{
		{"before the first packet", ngSHB(), 1},
		{"after a packet", concat(ngSHB(), ngIDB(), ngEPB([]byte{1, 2, 3, 4})), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bomb(t, tc.head, idbs, 2000) // 100 M interfaces, 2 GB uncompressed
			var err error
			alloc := testutil.Allocated(func() { _, err = readFrames(t, data, pcapfile.Options{MaxExpand: 1 << 40}) })
			have := tc.frame - 1 // the interface of the packet before
			var pe *pcapfile.Error
			wantOff := int64(len(tc.head)) + int64(pcapfile.MaxInterfaces-have)*20
			if !errors.As(err, &pe) || pe.Frame != tc.frame || pe.Offset != wantOff ||
				!strings.Contains(err.Error(), "more than 65536 interfaces") {
				t.Fatalf("error %v, want frame %d at offset %d (%d interfaces a unit)", err, tc.frame, wantOff, perUnit)
			}
			if alloc > 16<<20 {
				t.Errorf("reading %d interfaces allocated %d bytes", pcapfile.MaxInterfaces, alloc)
			}
		})
	}
	// Within the limit, each section starts afresh.
	var b []byte
	for range 3 {
		b = append(b, ngSHB()...)
		b = append(b, bytes.Repeat(ngIDB(), pcapfile.MaxInterfaces)...)
		b = append(b, ngEPB([]byte{9})...)
	}
	if n, err := readFrames(t, b, pcapfile.Options{}); err != nil || n != 3 {
		t.Fatalf("3 sections of %d interfaces: %d frames, %v", pcapfile.MaxInterfaces, n, err)
	}
}

func concat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }

// A length claiming more than the file holds is refused before anything
// is read or allocated, with the message a short read gives.
func TestLengthPastTheFile(t *testing.T) {
	rec := binary.LittleEndian.AppendUint32(make([]byte, 8), 200000)
	rec = binary.LittleEndian.AppendUint32(rec, 200000)
	pcap := concat(pcapHeader(), rec, make([]byte, 100))
	big := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 6), 300000)
	ng := concat(ngSHB(), ngIDB(), big, make([]byte, 40))
	path := filepath.Join(t.TempDir(), "cut.pcap")
	for _, tc := range []struct {
		name string
		data []byte
		off  int64
		msg  string
	}{
		{"pcap", pcap, int64(len(pcap)), "file ends inside the packet data (100 of 200000 bytes)"},
		{"pcapng", ng, int64(len(ng)), "file ends inside the block (40 of 299992 bytes)"},
	} {
		var err error
		alloc := testutil.Allocated(func() { _, err = readFrames(t, tc.data, pcapfile.Options{}) })
		var pe *pcapfile.Error
		if !errors.As(err, &pe) || pe.Frame != 1 || pe.Offset != tc.off || !strings.Contains(err.Error(), tc.msg) ||
			!errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v, want frame 1 at %d: %s", tc.name, err, tc.off, tc.msg)
		}
		if alloc > 32<<10 {
			t.Errorf("%s: %d bytes allocated for a %d-byte file", tc.name, alloc, len(tc.data))
		}
		// The same from a file, which may still grow while it is read.
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := pcapfile.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var x pcapfile.Record
		if err := r.Next(&x); !errors.As(err, &pe) || pe.Offset != tc.off || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s from a file: %v", tc.name, err)
		}
		r.Close()
	}
	pcapRec := concat(rec[:8], binary.LittleEndian.AppendUint32(nil, 3), binary.LittleEndian.AppendUint32(nil, 3), []byte{7, 8, 9})
	if err := os.WriteFile(path, concat(pcapHeader(), pcapRec), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := pcapfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(pcapRec) // written after the reader opened the file
	f.Close()
	var x pcapfile.Record
	for i := 1; i <= 2; i++ {
		if err := r.Next(&x); err != nil || !bytes.Equal(x.Data, []byte{7, 8, 9}) {
			t.Fatalf("growing file, frame %d: %v", i, err)
		}
	}
}

// A gzip file cut short gives its good frames, then the frame and
// uncompressed offset where it ends; a damaged one says what gzip found.
func TestTruncatedGzip(t *testing.T) {
	plain := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	z := gzipped(t, plain)
	full, _, _ := readAll(t, plain)
	for _, cut := range []int{len(z) / 3, len(z) / 2, len(z) - 100, len(z) - 4} {
		recs, _, err := readAll(t, z[:cut])
		var pe *pcapfile.Error
		if !errors.As(err, &pe) || !pe.Gzip || pe.Frame != len(recs)+1 || !errors.Is(err, io.ErrUnexpectedEOF) ||
			!strings.Contains(err.Error(), "uncompressed offset") || !strings.Contains(err.Error(), "file ends inside") {
			t.Fatalf("cut at %d of %d: %d frames, %v", cut, len(z), len(recs), err)
		}
		for i, rc := range recs {
			if !bytes.Equal(rc.data, full[i].data) {
				t.Fatalf("cut at %d: frame %d differs", cut, i+1)
			}
		}
	}
	bad := bytes.Clone(z)
	bad[len(bad)-8] ^= 0xff // the CRC-32
	recs, _, err := readAll(t, bad)
	var pe *pcapfile.Error
	if !errors.As(err, &pe) || len(recs) != len(full) || !errors.Is(err, gzip.ErrChecksum) ||
		!strings.Contains(err.Error(), "frame "+strconv.Itoa(len(full)+1)) {
		t.Fatalf("bad checksum: %d frames, %v", len(recs), err)
	}
}

// Options.Decompressed gets the decompressed bytes, no more than were
// read.
func TestDecompressedCopy(t *testing.T) {
	plain := testutil.ReadCapture(t, "rdmacm-rping.pcap")
	var copyBuf bytes.Buffer
	n, err := readFrames(t, gzipped(t, plain), pcapfile.Options{Decompressed: &copyBuf})
	if err != nil || n != kernelCaptures["rdmacm-rping.pcap"] || !bytes.Equal(copyBuf.Bytes(), plain) {
		t.Fatalf("%d frames, %v; copy of %d bytes, want %d", n, err, copyBuf.Len(), len(plain))
	}
	copyBuf.Reset()
	if _, err := readFrames(t, plain, pcapfile.Options{Decompressed: &copyBuf}); err != nil || copyBuf.Len() != 0 {
		t.Fatalf("uncompressed: %v, copy of %d bytes", err, copyBuf.Len())
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 256 << 20: "256 MiB",
		3 << 29: "1.5 GiB", 1 << 40: "1 TiB"} {
		if got := pcapfile.FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
