package pcapfile_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// kernelCaptures and their frame counts (captures/README.md).
var kernelCaptures = map[string]int{
	"nfs3-rdma.pcap": 752, "nfs4.1-rdma.pcap": 817, "perftest-ib-read-bw.pcap": 45,
	"perftest-ib-write-bw.pcap": 45, "rdmacm-rping.pcap": 65, "verbs-rc-pingpong.pcap": 66,
}

type rec struct {
	frame     int
	off, doff int64
	ci        gopacket.CaptureInfo
	lt        pcapfile.LinkType
	data      []byte
}

// readAll reads every record of b; err is the error that stopped it (nil
// at a clean end).
func readAll(t testing.TB, b []byte) ([]rec, *pcapfile.Reader, error) {
	t.Helper()
	r, err := pcapfile.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	var out []rec
	var rc pcapfile.Record
	for {
		err := r.Next(&rc)
		if errors.Is(err, io.EOF) {
			return out, r, nil
		}
		if err != nil {
			return out, r, err
		}
		out = append(out, rec{rc.Frame, rc.Offset, rc.DataOff, rc.Info, rc.LinkType, append([]byte(nil), rc.Data...)})
	}
}

func TestReadKernelCaptures(t *testing.T) {
	for name, n := range kernelCaptures {
		b := testutil.ReadCapture(t, name)
		recs, r, err := readAll(t, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(recs) != n || r.Format() != pcapfile.FormatPcap || r.LinkType() != pcapfile.LinkTypeEthernet || r.Snaplen() != 262144 {
			t.Errorf("%s: %d frames, format %v, link %v, snaplen %d", name, len(recs), r.Format(), r.LinkType(), r.Snaplen())
		}
		off := int64(24)
		for i, rc := range recs {
			if rc.frame != i+1 || rc.off != off || rc.doff != off+16 || rc.ci.CaptureLength != len(rc.data) {
				t.Fatalf("%s record %d: frame %d offset %d/%d", name, i, rc.frame, rc.off, rc.doff)
			}
			if !bytes.Equal(rc.data, b[off+16:off+16+int64(len(rc.data))]) {
				t.Fatalf("%s frame %d: data differs from the file", name, rc.frame)
			}
			off += 16 + int64(len(rc.data))
		}
		if off != int64(len(b)) {
			t.Errorf("%s: records end at %d, file at %d", name, off, len(b))
		}
	}
}

// TestGzipAndPcapNG rewrites a capture as gzip, as pcapng (with our writer)
// and as gzip-compressed pcapng: the same frames come back.
// writeNG writes recs as a pcapng file with interfaces of links, all on
// the first, and returns the writer for more.
func writeNG(t *testing.T, out *bytes.Buffer, recs []rec, links ...pcapfile.LinkType) *pcapfile.NgWriter {
	t.Helper()
	w, err := pcapfile.NewNgWriter(out, links...)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range recs {
		if err := w.WritePacket(0, rc.ci, rc.data); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func TestGzipAndPcapNG(t *testing.T) {
	b := testutil.ReadCapture(t, "rdmacm-rping.pcap")
	want, _, err := readAll(t, b)
	if err != nil {
		t.Fatal(err)
	}
	var ng bytes.Buffer
	w := writeNG(t, &ng, want, pcapfile.LinkTypeEthernet, pcapfile.LinkTypeLinuxSLL2)
	if err := w.WritePacket(1, gopacket.CaptureInfo{Timestamp: time.Unix(1, 5), CaptureLength: 3, Length: 9}, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		format pcapfile.Format
	}{
		{"gzip", gzipped(t, b), pcapfile.FormatPcap},
		{"pcapng", ng.Bytes(), pcapfile.FormatPcapNG},
		{"pcapng.gz", gzipped(t, ng.Bytes()), pcapfile.FormatPcapNG},
	} {
		got, r, err := readAll(t, tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Format() != tc.format || r.LinkType() != pcapfile.LinkTypeEthernet || r.Gzip() != (tc.name != "pcapng") {
			t.Errorf("%s: format %v, link %v, gzip %v", tc.name, r.Format(), r.LinkType(), r.Gzip())
		}
		for i := range want {
			if !bytes.Equal(got[i].data, want[i].data) || !got[i].ci.Timestamp.Equal(want[i].ci.Timestamp) || got[i].lt != pcapfile.LinkTypeEthernet {
				t.Fatalf("%s frame %d differs", tc.name, i+1)
			}
		}
		if tc.format == pcapfile.FormatPcapNG {
			last := got[len(got)-1]
			if len(got) != len(want)+1 || last.lt != pcapfile.LinkTypeLinuxSLL2 || last.ci.Length != 9 || last.ci.Timestamp.UnixNano() != 1e9+5 {
				t.Errorf("%s: last record %+v: the SLL2 link type must keep all its bits", tc.name, last)
			}
		}
	}
}

func gzipped(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBigEndianMicroseconds builds a big-endian microsecond pcap with link
// type 276 by hand.
func TestBigEndianMicroseconds(t *testing.T) {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0xa1b2c3d4)
	b = binary.BigEndian.AppendUint16(b, 2)
	b = binary.BigEndian.AppendUint16(b, 4)
	b = append(b, make([]byte, 8)...)
	b = binary.BigEndian.AppendUint32(b, 65535)
	b = binary.BigEndian.AppendUint32(b, 276)
	b = binary.BigEndian.AppendUint32(b, 100)
	b = binary.BigEndian.AppendUint32(b, 7)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, 5)
	b = append(b, 0xaa, 0xbb)
	recs, r, err := readAll(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if r.LinkType() != pcapfile.LinkTypeLinuxSLL2 || len(recs) != 1 || recs[0].ci.Timestamp.UnixNano() != 100e9+7000 ||
		recs[0].ci.Length != 5 || !bytes.Equal(recs[0].data, []byte{0xaa, 0xbb}) {
		t.Errorf("link %v, records %+v", r.LinkType(), recs)
	}
}

// TestTruncatedFiles cuts a capture everywhere inside its first records:
// the frames before the cut decode, the error names the frame and offset.
func TestTruncatedFiles(t *testing.T) {
	b := testutil.ReadCapture(t, "rdmacm-rping.pcap")
	full, _, _ := readAll(t, b)
	for cut := 0; cut < 24+3*(16+322); cut++ {
		recs, _, err := readAll(t, b[:cut])
		if cut < 24 {
			var pe *pcapfile.Error
			if !errors.As(err, &pe) || pe.Frame != 0 {
				t.Fatalf("cut %d: %v", cut, err)
			}
			continue
		}
		complete := 0
		for _, rc := range full {
			if rc.doff+int64(len(rc.data)) <= int64(cut) {
				complete++
			}
		}
		if len(recs) != complete {
			t.Fatalf("cut %d: %d frames, want %d", cut, len(recs), complete)
		}
		atBoundary := cut == 24 || (complete > 0 && full[complete-1].doff+int64(len(full[complete-1].data)) == int64(cut))
		if atBoundary {
			if err != nil {
				t.Fatalf("cut %d at a record boundary: %v", cut, err)
			}
			continue
		}
		var pe *pcapfile.Error
		if !errors.As(err, &pe) || pe.Frame != complete+1 || pe.Offset != int64(cut) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut %d: error %v, want frame %d at offset %d", cut, err, complete+1, cut)
		}
	}
}

// TestHostileFiles checks that lengths a file claims are checked before
// anything is allocated or read, and that errors say where.
func TestHostileFiles(t *testing.T) {
	pcapHdr := func(lt uint32) []byte {
		b := binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4)
		b = binary.LittleEndian.AppendUint16(b, 2)
		b = binary.LittleEndian.AppendUint16(b, 4)
		b = append(b, make([]byte, 8)...)
		b = binary.LittleEndian.AppendUint32(b, 65535)
		return binary.LittleEndian.AppendUint32(b, lt)
	}
	huge := append(pcapHdr(1), make([]byte, 8)...)
	huge = binary.LittleEndian.AppendUint32(huge, 0xfffffff0)
	huge = binary.LittleEndian.AppendUint32(huge, 0xfffffff0)

	block := func(typ uint32, body []byte, trailer uint32) []byte {
		b := binary.LittleEndian.AppendUint32(nil, typ)
		b = binary.LittleEndian.AppendUint32(b, uint32(12+len(body)))
		b = append(b, body...)
		return binary.LittleEndian.AppendUint32(b, trailer)
	}
	shbBody := append(binary.LittleEndian.AppendUint32(nil, 0x1a2b3c4d), 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	shb := block(0x0a0d0d0a, shbBody, 28)
	idb := block(1, []byte{1, 0, 0, 0, 0, 0, 1, 0}, 20)
	epb := func(iface uint32, caplen uint32) []byte {
		body := binary.LittleEndian.AppendUint32(nil, iface)
		body = append(body, make([]byte, 8)...)
		body = binary.LittleEndian.AppendUint32(body, caplen)
		body = binary.LittleEndian.AppendUint32(body, caplen)
		body = append(body, 1, 2, 3, 4)
		return block(6, body, uint32(12+len(body)))
	}
	badOpt := block(1, []byte{1, 0, 0, 0, 0, 0, 1, 0, 2, 0, 200, 0}, 24) // if_filter option claiming 200 bytes
	badRes := block(1, []byte{1, 0, 0, 0, 0, 0, 1, 0, 9, 0, 1, 0, 0x7f, 0, 0, 0}, 28)

	tests := []struct {
		name  string
		data  []byte
		frame int
		off   int64
		msg   string
	}{
		{"not a capture", []byte("hello, world, this is text"), 0, 0, "not a pcap or pcapng file"},
		{"pcap version", append(append(binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4), 3, 0, 4, 0), make([]byte, 16)...), 0, 4, "pcap version 3.4"},
		{"huge record", huge, 1, 32, "record length 4294967280"},
		{"short block", slices.Concat(shb, block(6, nil, 12)[:8]), 1, 36, "file ends inside the block"},
		{"block length not multiple of 4", slices.Concat(shb, []byte{6, 0, 0, 0, 13, 0, 0, 0}), 1, 32, "not a multiple of 4"},
		{"block length too small", slices.Concat(shb, []byte{6, 0, 0, 0, 8, 0, 0, 0}), 1, 32, "less than 12"},
		{"trailer mismatch", slices.Concat(shb, idb, block(5, []byte{1, 2, 3, 4}, 99)), 1, 60, "differs from"},
		{"packet of no interface", slices.Concat(shb, epb(0, 4)), 1, 36, "interface 0, but the section describes 0"},
		{"caplen past block", slices.Concat(shb, idb, epb(0, 400)), 1, 68, "runs past the end"},
		{"option past block", slices.Concat(shb, badOpt), 0, 44, "runs past the end of its block"},
		{"absurd resolution", slices.Concat(shb, badRes), 0, 44, "finer than 64 bits"},
		{"bad byte order", block(0x0a0d0d0a, slices.Concat([]byte{1, 2, 3, 4}, shbBody[4:]), 28), 0, 8, "byte-order magic"},
	}
	for _, tc := range tests {
		_, _, err := readAll(t, tc.data)
		var pe *pcapfile.Error
		if !errors.As(err, &pe) || pe.Frame != tc.frame || pe.Offset != tc.off || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v (want frame %d, offset %d, %q)", tc.name, err, tc.frame, tc.off, tc.msg)
		}
	}
}

// TestEditcapPcapNG reads Wireshark's own pcapng conversion of a capture,
// when editcap is installed.
func TestEditcapPcapNG(t *testing.T) {
	editcap := testutil.Tool(t, "editcap", "tshark")
	src := testutil.Capture(t, "rdmacm-rping.pcap")
	dst := filepath.Join(t.TempDir(), "rping.pcapng")
	if out, err := exec.Command(editcap, "-F", "pcapng", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v\n%s", err, out)
	}
	ng, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := readAll(t, testutil.ReadCapture(t, "rdmacm-rping.pcap"))
	got, r, err := readAll(t, ng)
	if err != nil {
		t.Fatal(err)
	}
	if r.Format() != pcapfile.FormatPcapNG || len(got) != len(want) {
		t.Fatalf("%d frames, format %v", len(got), r.Format())
	}
	for i := range want {
		if !bytes.Equal(got[i].data, want[i].data) || !got[i].ci.Timestamp.Equal(want[i].ci.Timestamp) {
			t.Fatalf("frame %d differs", i+1)
		}
	}
}

func FuzzReader(f *testing.F) {
	b := testutil.ReadCapture(f, "rdmacm-rping.pcap")
	f.Add(b[:24+16+322+16+322])
	var ng bytes.Buffer
	w, _ := pcapfile.NewNgWriter(&ng, pcapfile.LinkTypeEthernet)
	w.WritePacket(0, gopacket.CaptureInfo{CaptureLength: 4, Length: 4}, []byte{1, 2, 3, 4})
	f.Add(ng.Bytes())
	f.Add(gzipped(f, b[:200]))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, _, err := readAll(t, data)
		var pe *pcapfile.Error
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %v is not a *pcapfile.Error", err)
		}
		for _, rc := range recs {
			if rc.ci.CaptureLength != len(rc.data) || rc.ci.Length < rc.ci.CaptureLength {
				t.Fatalf("frame %d: capture info %+v, %d bytes", rc.frame, rc.ci, len(rc.data))
			}
		}
	})
}

// TestNextDoesNotAllocate: reading a record, of pcap or pcapng, allocates
// nothing once the reader is open (a decoder reads millions).
func TestNextDoesNotAllocate(t *testing.T) {
	b := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	recs, _, err := readAll(t, b)
	if err != nil {
		t.Fatal(err)
	}
	var ng bytes.Buffer
	writeNG(t, &ng, recs, pcapfile.LinkTypeEthernet)
	for name, data := range map[string][]byte{"pcap": b, "pcapng": ng.Bytes()} {
		r, err := pcapfile.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var rc pcapfile.Record
		if err := r.Next(&rc); err != nil { // the first may size a buffer
			t.Fatal(err)
		}
		read := 1
		allocs := testing.AllocsPerRun(len(recs)/2, func() {
			if err := r.Next(&rc); err != nil {
				t.Fatalf("%s frame %d: %v", name, read+1, err)
			}
			read++
		})
		if allocs != 0 {
			t.Errorf("%s: %.2f allocations a record", name, allocs)
		}
	}
}
