package decode

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestMainUsage(t *testing.T) {
	nfs3 := kernelPath("nfs3-rdma.pcap")
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, ExitUsage, "no capture file given"},
		{[]string{"--frobnicate", nfs3}, ExitUsage, "flag provided but not defined: -frobnicate"},
		{[]string{"-V", "--json", nfs3}, ExitUsage, "-V and --json do not go together"},
		{[]string{nfs3, nfs3}, ExitUsage, "one capture file at a time"},
		{[]string{"--filter", "qp=nope", nfs3}, ExitUsage, "filter qp=nope: not a 24-bit number"},
		{[]string{"--filter", "color=red", nfs3}, ExitUsage, `filter key "color"`},
		{[]string{"--filter", "opcode=frobnicate", nfs3}, ExitUsage, "unknown opcode name"},
		{[]string{"/nonexistent/x.pcap"}, ExitProblems, "open /nonexistent/x.pcap: no such file or directory"},
		{[]string{"main_test.go"}, ExitProblems, "main_test.go: file header, offset 0: not a pcap or pcapng file"},
	}
	for _, tc := range tests {
		code, _, stderr := runMain(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
	}
	code, stdout, _ := runMain("-h")
	if code != ExitOK || !strings.HasPrefix(stdout, "usage: rdmalab decode") {
		t.Errorf("-h: exit %d, %q", code, stdout)
	}
}

func TestMainOutputs(t *testing.T) {
	nfs3 := kernelPath("nfs3-rdma.pcap")
	code, out, stderr := runMain(nfs3)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != ExitOK || stderr != "" || len(lines) != 752 || !strings.Contains(lines[85], "V3 WRITE Call") {
		t.Fatalf("exit %d, %d lines, stderr %q", code, len(lines), stderr)
	}
	// Flags after the file, and --json: one valid object per frame.
	code, out, _ = runMain(nfs3, "--json")
	lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != ExitOK || len(lines) != 752 {
		t.Fatalf("--json: exit %d, %d lines", code, len(lines))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("--json line %d is not JSON: %s", i+1, l)
		}
	}
	code, out, _ = runMain("--rpc", nfs3)
	if code != ExitOK || !strings.HasSuffix(out, "38 RPCs\n") || !strings.Contains(out, "read chunk 0 at position 108") {
		t.Errorf("--rpc: exit %d\n%s", code, out)
	}
	code, out, _ = runMain("--rpc", "--json", nfs3)
	if n := strings.Count(out, "\n"); code != ExitOK || n != 38 {
		t.Errorf("--rpc --json: exit %d, %d lines", code, n)
	}
	code, out, _ = runMain("-V", "--filter", "xid=0x52dbd665", nfs3)
	if code != ExitOK || !strings.Contains(out, "[Reply rebuilt with its chunk data: 131200 bytes]") {
		t.Errorf("-V: exit %d", code)
	}
	code, out, _ = runMain("--check", nfs3)
	if code != ExitOK || out != "0 anomalies, 0 notes on what the capture cannot tell\n" {
		t.Errorf("--check: exit %d, %q", code, out)
	}
}

func TestMainCheckFails(t *testing.T) {
	path := mutate(t, func(fs []capFrame) []capFrame { return drop(fs, 69) }, 0)
	code, out, _ := runMain("--check", path)
	if code != ExitProblems || !strings.Contains(out, "frame 66: call never answered") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestMainFilter(t *testing.T) {
	nfs3 := kernelPath("nfs3-rdma.pcap")
	frames := func(args ...string) []string {
		_, out, _ := runMain(append(args, nfs3)...)
		var fs []string
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				fs = append(fs, f[0])
			}
		}
		return fs
	}
	if n := len(frames("--filter", "opcode=ack")); n != 111 {
		t.Errorf("opcode=ack: %d frames, want 111", n)
	}
	if n := len(frames("--filter", "opcode=RC Send Only|23")); n != 76 {
		t.Errorf("opcode=RC Send Only|23: %d frames, want 76", n)
	}
	if n := len(frames("--filter", "qp=0x11")); n != 747 {
		t.Errorf("qp=0x11: %d frames, want 747 (all but the 5 CM MADs)", n)
	}
	xid := strings.Join(frames("--filter", "xid=0x4bdbd665"), " ")
	for _, f := range []string{"86", "87", "88", "94", "95", "222", "223", "224"} {
		if !strings.Contains(" "+xid+" ", " "+f+" ") {
			t.Errorf("xid=0x4bdbd665 lacks frame %s: %s", f, xid)
		}
	}
	if strings.Contains(" "+xid+" ", " 225 ") || strings.Contains(" "+xid+" ", " 84 ") {
		t.Errorf("xid=0x4bdbd665 selects other RPCs' frames: %s", xid)
	}
}

func TestMainTruncatedFile(t *testing.T) {
	b := readFileBytes(t, kernelPath("rdmacm-rping.pcap"))
	path := filepath.Join(t.TempDir(), "cut.pcap")
	writeFileBytes(t, path, b[:24+16+322+16+100])
	code, out, stderr := runMain(path)
	if code != ExitProblems || strings.Count(out, "\n") != 1 ||
		!strings.Contains(stderr, "cut.pcap: frame 2, offset 478: file ends inside the packet data (100 of 322 bytes)") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
}
