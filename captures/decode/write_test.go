package decode

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// writeFile runs Write on path and returns the anomalies, the output and
// the error.
func writeFile(path string, o Output) (int, string, error) {
	var out bytes.Buffer
	n, err := Write(&out, path, o)
	return n, out.String(), err
}

func TestWriteCheckFails(t *testing.T) {
	path := mutate(t, func(fs []capFrame) []capFrame { return drop(fs, 69) }, 0)
	n, out, err := writeFile(path, Output{Check: true})
	if err != nil || n == 0 || !strings.Contains(out, "frame 66: call never answered") {
		t.Errorf("%d anomalies, %v\n%s", n, err, out)
	}
}

func TestWriteFilter(t *testing.T) {
	nfs3 := testutil.Capture(t, "nfs3-rdma.pcap")
	frames := func(expr string) []string {
		f, err := ParseFilter(expr)
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
