package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// runDecode runs `rdmalab decode ARGS...`.
func runDecode(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"decode"}, args...), nil, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDecodeUsage(t *testing.T) {
	const nfs3 = "captures/testdata/nfs3-rdma.pcap"
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, exitUsage, "no capture file given"},
		{[]string{"--frobnicate", nfs3}, exitUsage, "flag provided but not defined: -frobnicate"},
		{[]string{"-V", "--json", nfs3}, exitUsage, "-V and --json do not go together"},
		{[]string{nfs3, nfs3}, exitUsage, "one capture file at a time"},
		{[]string{"--filter", "qp=nope", nfs3}, exitUsage, "filter qp=nope: not a 24-bit number"},
		{[]string{"--filter", "color=red", nfs3}, exitUsage, `filter key "color"`},
		{[]string{"--filter", "opcode=frobnicate", nfs3}, exitUsage, "unknown opcode name"},
		{[]string{"/nonexistent/x.pcap"}, exitFailed, "open /nonexistent/x.pcap: no such file or directory"},
		{[]string{"decode_test.go"}, exitFailed, "decode_test.go: file header, offset 0: not a pcap or pcapng file"},
	}
	for _, tc := range tests {
		code, _, stderr := runDecode(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
	}
	code, stdout, _ := runDecode("-h")
	if code != exitOK || !strings.HasPrefix(stdout, "usage: rdmalab decode") {
		t.Errorf("-h: exit %d, %q", code, stdout)
	}
}

func TestDecodeOutputs(t *testing.T) {
	const nfs3 = "captures/testdata/nfs3-rdma.pcap"
	code, out, stderr := runDecode(nfs3)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != exitOK || stderr != "" || len(lines) != 752 || !strings.Contains(lines[85], "V3 WRITE Call") {
		t.Fatalf("exit %d, %d lines, stderr %q", code, len(lines), stderr)
	}
	// Flags after the file, and --json: one valid object per frame.
	code, out, _ = runDecode(nfs3, "--json")
	lines = strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != exitOK || len(lines) != 752 {
		t.Fatalf("--json: exit %d, %d lines", code, len(lines))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("--json line %d is not JSON: %s", i+1, l)
		}
	}
	code, out, _ = runDecode("--rpc", nfs3)
	if code != exitOK || !strings.HasSuffix(out, "38 RPCs\n") || !strings.Contains(out, "read chunk 0 at position 108") {
		t.Errorf("--rpc: exit %d\n%s", code, out)
	}
	code, out, _ = runDecode("--rpc", "--json", nfs3)
	if n := strings.Count(out, "\n"); code != exitOK || n != 38 {
		t.Errorf("--rpc --json: exit %d, %d lines", code, n)
	}
	code, out, _ = runDecode("-V", "--filter", "xid=0x52dbd665", nfs3)
	if code != exitOK || !strings.Contains(out, "[Reply rebuilt with its chunk data: 131200 bytes]") {
		t.Errorf("-V: exit %d", code)
	}
	code, out, _ = runDecode("--check", nfs3)
	if code != exitOK || out != "0 anomalies, 0 notes on what the capture cannot tell\n" {
		t.Errorf("--check: exit %d, %q", code, out)
	}
	// --check with anomalies exits 1.
	code, out, _ = runDecode("--check", "captures/testdata/verbs-rc-pingpong.pcap")
	if code != exitFailed || !strings.Contains(out, "frame 20: retransmission") {
		t.Errorf("--check on a retransmission: exit %d\n%s", code, out)
	}
}
