package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// writeFile runs Write on path and returns the anomalies, the output and
// the error.
func writeFile(path string, o Output) (int, string, error) {
	var out bytes.Buffer
	n, err := Write(&out, path, o)
	return n, out.String(), err
}

func TestWriteCheckFails(t *testing.T) {
	path := craft.Mutate(t, func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 69) }, 0)
	n, out, err := writeFile(path, Output{Check: true})
	if err != nil || n == 0 || !strings.Contains(out, "frame 66: call never answered") {
		t.Errorf("%d anomalies, %v\n%s", n, err, out)
	}
}

func TestWriteFilter(t *testing.T) {
	nfs3 := testutil.Capture(t, "nfs3-rdma.pcap")
	frames := func(expr string) []string {
		f, err := fields.CompileSelection(expr)
		if err != nil {
			t.Fatal(err)
		}
		_, out, _ := writeFile(nfs3, Output{Filter: f})
		var fs []string
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				fs = append(fs, f[0])
			}
		}
		return fs
	}
	if n := len(frames("opcode=ack")); n != 111 {
		t.Errorf("opcode=ack: %d frames, want 111", n)
	}
	if n := len(frames("opcode=RC Send Only|23")); n != 76 {
		t.Errorf("opcode=RC Send Only|23: %d frames, want 76", n)
	}
	if n := len(frames("qp=0x11")); n != 747 {
		t.Errorf("qp=0x11: %d frames, want 747 (all but the 5 CM MADs)", n)
	}
	xid := strings.Join(frames("xid=0x4bdbd665"), " ")
	for _, f := range []string{"86", "87", "88", "94", "95", "222", "223", "224"} {
		if !strings.Contains(" "+xid+" ", " "+f+" ") {
			t.Errorf("xid=0x4bdbd665 lacks frame %s: %s", f, xid)
		}
	}
	if strings.Contains(" "+xid+" ", " 225 ") || strings.Contains(" "+xid+" ", " 84 ") {
		t.Errorf("xid=0x4bdbd665 selects other RPCs' frames: %s", xid)
	}
}

func TestWriteTruncatedFile(t *testing.T) {
	b := testutil.ReadCapture(t, "rdmacm-rping.pcap")
	path := filepath.Join(t.TempDir(), "cut.pcap")
	testutil.WriteFile(t, path, b[:24+16+322+16+100])
	_, out, err := writeFile(path, Output{})
	if err == nil || strings.Count(out, "\n") != 1 ||
		!strings.Contains(err.Error(), "cut.pcap: frame 2, offset 478: file ends inside the packet data (100 of 322 bytes)") {
		t.Errorf("%v\nstdout %s", err, out)
	}
}

// An output that shows no NFS field skips making them
// (Options.SkipNFSFields): its text is the same as with them made, which
// a display filter passing every frame forces, for the lines, the trees
// and the RPCs of every capture.
func TestWriteSkipsNFSFields(t *testing.T) {
	every, err := fields.CompileDisplayFilter("frame")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range testutil.AllCaptures(t) {
		for _, o := range []Output{{}, {Tree: true}, {RPCs: true}, {RPCs: true, Check: true}} {
			_, skipped, err1 := writeFile(path, o)
			o.Display = every
			_, made, err2 := writeFile(path, o)
			if skipped != made || (err1 == nil) != (err2 == nil) {
				t.Errorf("%s, %+v: the output differs with the NFS fields made (%v, %v)", filepath.Base(path), o, err1, err2)
			}
		}
	}
	// And they are not made.
	for _, skip := range []bool{false, true} {
		calls, withFields := 0, 0
		an, err := ReadFileWith(testutil.Capture(t, "nfs3-rdma.pcap"), analysis.Options{SkipNFSFields: skip}, func(*analysis.Packet) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range an.RPCs() {
			if r.CallSummary != "" && r.HaveProc {
				calls++
			}
			if r.CallNFS != nil || r.ReplyNFS != nil {
				withFields++
			}
		}
		if calls == 0 || (withFields == 0) != skip {
			t.Errorf("SkipNFSFields %v: %d calls summarized, %d with NFS fields", skip, calls, withFields)
		}
	}
}

// The packets' text goes out in writes of exactly what a pipe holds
// (writeChunk), the last excepted, and none longer: a longer one would
// wait for the reader to drain the pipe, and the decoding with it.
func TestWriteInPipeSizedChunks(t *testing.T) {
	var w testutil.WriteSizes
	if _, err := Write(&w, testutil.Capture(t, "nfs3-rdma.pcap"), Output{JSON: true}); err != nil {
		t.Fatal(err)
	}
	if len(w.Sizes) < 3 {
		t.Fatalf("%d writes of %d bytes: the test needs output of several chunks", len(w.Sizes), w.Len())
	}
	for i, n := range w.Sizes {
		if n > writeChunk || (n != writeChunk && i < len(w.Sizes)-1) {
			t.Fatalf("write %d of %d is %d bytes, want %d", i+1, len(w.Sizes), n, writeChunk)
		}
	}
	lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
	if len(lines) != 752 {
		t.Errorf("%d lines, want one per packet (752)", len(lines))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not JSON: the chunks cut it: %.200s", i+1, l)
		}
	}
}

// TestTruncatedCapture: a capture cut inside a record decodes up to the
// cut, and the error names the file, the frame and the offset.
func TestTruncatedCapture(t *testing.T) {
	b := testutil.ReadCapture(t, "rdmacm-rping.pcap")
	path := filepath.Join(t.TempDir(), "cut.pcap")
	testutil.WriteFile(t, path, b[:24+16+322+16+100])
	n := 0
	_, err := ReadFile(path, func(p *analysis.Packet) error { n++; return nil })
	var pe *pcapfile.Error
	if n != 1 || !errors.As(err, &pe) || pe.Frame != 2 || pe.Offset != 24+16+322+16+100 ||
		!strings.Contains(err.Error(), "cut.pcap: frame 2, offset 478") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%d frames, error %v", n, err)
	}
}
