package decode

// Hostile and damaged gzip captures through the index (issue 9): built in
// the test, small as stored. The index stops where the reader stops, with
// the same message `rdmalab decode` gives, keeps the frames before, and
// its decompressed copy never has a name on disk.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// gzipMembers is head then copies of unit, as gzip members: a gzip reader
// reads them as one stream, and building them never holds it whole.
func gzipMembers(t testing.TB, head, unit []byte, copies int) []byte {
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	out, m := member(head), member(unit)
	for range copies {
		out = append(out, m...)
	}
	return out
}

func pcapFileHeader() []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = append(b, make([]byte, 8)...)
	b = binary.LittleEndian.AppendUint32(b, 262144)
	return binary.LittleEndian.AppendUint32(b, 1)
}

// privateTemp points the temporary directory at an empty one and returns
// a function listing what is in it.
func privateTemp(t *testing.T) func() []string {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return func() []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
}

func waitAll(t testing.TB, x *Index) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := x.Wait(ctx, -1)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A pcap header and 1 GiB of zeros, 1 MB as gzip: the index stops at the
// limit with the reader's message, keeps the frames before it, and its
// decompressed copy holds no more than the limit and has no name.
func TestIndexGzipBomb(t *testing.T) {
	leftovers := privateTemp(t)
	path := filepath.Join(t.TempDir(), "bomb.pcap.gz")
	testutil.WriteFile(t, path, gzipMembers(t, pcapFileHeader(), make([]byte, 1<<20), 1024))
	const limit = 8 << 20
	var x *Index
	var n int
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	x, err := OpenIndexWith(path, IndexOptions{MaxExpand: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if names := leftovers(); len(names) > 0 {
		t.Errorf("the decompressed copy has a name while indexing: %v", names)
	}
	n = waitAll(t, x)
	runtime.ReadMemStats(&ms)
	alloc := ms.TotalAlloc - before

	frames := limit / pcapfile.RecordCost
	pr := x.Progress()
	var xe *pcapfile.ExpandError
	want := path + ": frame " + strconv.Itoa(frames+1) + ", uncompressed offset " + strconv.Itoa(24+16*frames) + ": gzip data expands past 8 MiB"
	if n != frames || !pr.Done || !errors.As(pr.Err, &xe) || !strings.HasPrefix(pr.Err.Error(), want) ||
		!strings.Contains(pr.Err.Error(), "--max-expand") {
		t.Fatalf("%d packets, progress %+v; want %d packets and %q", n, pr, frames, want)
	}
	if b := x.Bytes(n - 1); b == nil || len(b) != 0 || !strings.Contains(x.Summary(n-1), "malformed") {
		t.Errorf("the last packet: %q, %v", x.Summary(n-1), b)
	}
	st, err := x.tmp.f.Stat()
	if err != nil || st.Size() > limit {
		t.Errorf("decompressed copy: %v, %d bytes for a limit of %d", err, st.Size(), limit)
	}
	// What the index keeps of an empty frame, and the analysis's note on
	// it, bound the memory: the limit counts each record as RecordCost.
	if alloc > 64<<20 {
		t.Errorf("indexing %d frames allocated %d MB", n, alloc>>20)
	}
	x.Close()
	if names := leftovers(); len(names) > 0 {
		t.Errorf("left behind: %v", names)
	}
}

// 100 million Interface Description Blocks, 5 MB as gzip: the index stops
// at the section's 65537th, naming it.
func TestIndexInterfaceBomb(t *testing.T) {
	block := func(typ uint32, body []byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, typ)
		b = binary.LittleEndian.AppendUint32(b, uint32(12+len(body)))
		b = append(b, body...)
		return binary.LittleEndian.AppendUint32(b, uint32(12+len(body)))
	}
	shb := block(0x0a0d0d0a, append(binary.LittleEndian.AppendUint32(nil, 0x1a2b3c4d), 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	idb := block(1, []byte{1, 0, 0, 0, 0, 0, 1, 0})
	leftovers := privateTemp(t)
	path := filepath.Join(t.TempDir(), "idb.pcapng.gz")
	testutil.WriteFile(t, path, gzipMembers(t, shb, bytes.Repeat(idb, (1<<20)/20), 2000))
	x, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	n := waitAll(t, x)
	want := path + ": frame 1, uncompressed offset " + strconv.Itoa(len(shb)+65536*len(idb)) + ": more than 65536 interfaces in one section"
	if pr := x.Progress(); n != 0 || pr.Err == nil || pr.Err.Error() != want {
		t.Fatalf("%d packets, error %v; want %q", n, pr.Err, want)
	}
	x.Close()
	if names := leftovers(); len(names) > 0 {
		t.Errorf("left behind: %v", names)
	}
}

// A gzip capture cut short: the index keeps the good frames and says
// where it ends exactly as `rdmalab decode` does.
func TestIndexTruncatedGzip(t *testing.T) {
	b := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	path := filepath.Join(t.TempDir(), "cut.pcap.gz")
	testutil.WriteFile(t, path, z.Bytes()[:z.Len()/2])

	var lines []string
	_, derr := ReadFile(path, func(p *analysis.Packet) error {
		lines = append(lines, Line(p))
		return nil
	})
	var pe *pcapfile.Error
	if !errors.As(derr, &pe) || pe.Frame != len(lines)+1 || !strings.HasPrefix(derr.Error(), path+": frame ") ||
		!strings.Contains(derr.Error(), "uncompressed offset") || !strings.Contains(derr.Error(), "file ends inside") {
		t.Fatalf("decode: %d frames, %v", len(lines), derr)
	}
	x := openDone(t, path)
	if pr := x.Progress(); pr.Err == nil || pr.Err.Error() != derr.Error() || x.Len() != len(lines) {
		t.Fatalf("index: %d packets, %v; decode: %d, %v", x.Len(), pr.Err, len(lines), derr)
	}
	for _, i := range []int{0, len(lines) / 2, len(lines) - 1} {
		if got := x.Summary(i); got != strings.TrimSuffix(lines[i], "\n") {
			t.Errorf("packet %d: %q, decode %q", i, got, lines[i])
		}
	}
}

// No temporary file can be made: the error says so and names the file;
// a gzip file that is no capture leaves nothing behind.
func TestIndexTempFile(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(testutil.ReadCapture(t, "rdmacm-rping.pcap"))
	zw.Close()
	path := filepath.Join(t.TempDir(), "rping.pcap.gz")
	testutil.WriteFile(t, path, z.Bytes())
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	if _, err := OpenIndex(path); err == nil || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "temporary file") {
		t.Errorf("no temporary directory: %v", err)
	}

	leftovers := privateTemp(t)
	z.Reset()
	zw = gzip.NewWriter(&z)
	zw.Write([]byte("not a capture, but long enough to be read as one"))
	zw.Close()
	testutil.WriteFile(t, path, z.Bytes())
	if _, err := OpenIndex(path); err == nil || !strings.Contains(err.Error(), "not a pcap") {
		t.Errorf("not a capture: %v", err)
	}
	if names := leftovers(); len(names) > 0 {
		t.Errorf("left behind: %v", names)
	}
}
