package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
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
		{[]string{"-Y", "infiniband.bth.psnn >= 1", nfs3}, exitUsage, "column 1: unknown field \"infiniband.bth.psnn\" (did you mean infiniband.bth.psn?)\n    infiniband.bth.psnn >= 1\n    ^~~~~~~~~~~~~~~~~~~\n"},
		{[]string{"-Y", "ip.src == 192.0.2.1 &&", nfs3}, exitUsage, "column 23: the expression ends too early"},
		{[]string{"--rpc", "-Y", "rpc", nfs3}, exitUsage, "-Y selects packets, not RPCs"},
		{[]string{"-c", "0", nfs3}, exitUsage, "-c 0: the packet count is zero"},
		{[]string{"-Y", "infiniband.bth.opcode in {4 17}", nfs3}, exitUsage, "column 29: \"17\" was unexpected here"},
		{[]string{"--rpc", "--filter", "rdmalab.icrc_bad", nfs3}, exitUsage, "is a display filter, which selects packets, not RPCs"},
		{[]string{"-T", "pdml", nfs3}, exitUsage, "only -T fields is supported"},
		{[]string{"-T", "fields", nfs3}, exitUsage, "-T fields needs at least one -e FIELD"},
		{[]string{"-T", "fields", "-e", "ip.srcc", nfs3}, exitUsage, "-e ip.srcc: unknown field (did you mean ip.src?)"},
		{[]string{"-T", "fields", "-e", "ip.src", "-E", "occurrence=9", nfs3}, exitUsage, "want occurrence=f|l|a"},
		{[]string{"-e", "ip.src", nfs3}, exitUsage, "-e and -E go with -T fields"},
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

// -Y, --filter as a display filter, its alternatives, -T fields, -c, -x,
// --fields.
func TestDecodeFiltersAndFields(t *testing.T) {
	const nfs3 = "captures/testdata/nfs3-rdma.pcap"
	frames := func(args ...string) string {
		t.Helper()
		code, out, errs := runDecode(append(args, "-T", "fields", "-e", "frame.number", nfs3)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return strings.Join(strings.Fields(out), " ")
	}
	if got := frames("-Y", "infiniband.bth.psn >= 100 && ip.src == 192.0.2.1", "-c", "12"); got != "5 6 9 10" { // as tshark -c 12 -Y selects
		t.Errorf("-Y psn/ip.src: %s", got)
	}
	// help packets promised --filter rpc: it is the display filter's rpc.
	if a, b := frames("--filter", "rpc", "-c", "10"), frames("-Y", "rpc", "-c", "10"); a != "4 6 8 10" || a != b {
		t.Errorf("--filter rpc: %s; -Y rpc: %s", a, b)
	}
	// The key may be repeated in each alternative.
	if got := frames("--filter", "opcode=send-only|opcode=acknowledge", "-c", "7"); got != "4 5 6 7" {
		t.Errorf("opcode=send-only|opcode=acknowledge: %s", got)
	}
	if got := frames("-Y", "icrc_ok && msg.kind == \"SEND\" && psn_status == \"ok\"", "-c", "10"); got != "4 6 8 10" {
		t.Errorf("aliases: %s", got)
	}
	code, out, _ := runDecode("-T", "fields", "-E", "header=y", "-E", "separator=,", "-E", "quote=d", "-E", "occurrence=l",
		"-e", "frame.number", "-e", "rpcordma.rdma_handle", "-e", "rdmalab.chunk.kind", "-Y", "frame.number in {40, 42}", nfs3)
	want := "frame.number,rpcordma.rdma_handle,rdmalab.chunk.kind\n\"40\",\"0x00000acd\",\n\"42\",,\"reply\"\n"
	if code != exitOK || out != want {
		t.Errorf("-T fields -E: exit %d\n%s\nwant\n%s", code, out, want)
	}
	code, out, _ = runDecode("-x", "-P", "-c", "1", nfs3)
	if lines := strings.Split(out, "\n"); code != exitOK || !strings.HasPrefix(lines[0], "    1 ") || lines[1] != "" ||
		lines[2] != "0000  52 54 00 12 34 01 52 54 00 12 34 02 08 00 45 00   RT..4.RT..4...E." || !strings.HasSuffix(out, "\n\n") {
		t.Errorf("-x -P: %q", out)
	}
	code, out, _ = runDecode("--fields")
	if code != exitOK || !strings.Contains(out, "\ninfiniband.bth.psn ") || !strings.Contains(out, "rdmalab.psn_status") ||
		!strings.Contains(out, "uint24") || !strings.Contains(out, "Wireshark") {
		t.Errorf("--fields:\n%s", out)
	}
}

// --filter's terms are sugar: decode says on stderr the -Y they are
// short for, prints what that -Y prints, and says nothing more of a
// display filter given to --filter or of the RPC table's xid=.
func TestDecodeFilterSaysItsExpression(t *testing.T) {
	const nfs3 = "captures/testdata/nfs3-rdma.pcap"
	const qp17 = "infiniband.bth.destqp == 17 || infiniband.deth.srcqp == 17 || rdmalab.peer_qp == 17"
	for _, tc := range []struct{ filter, expr string }{
		{"qp=17", qp17},
		{"qp=0x11,opcode=rdma-read-request|ack", "(" + qp17 + ") && infiniband.bth.opcode in {12, 17}"},
		{"xid=0x4bdbd665", "rdmalab.xid == 0x4bdbd665"},
		{"rpcs,anomalies", "rdmalab.rpc.role && rdmalab.anomaly"},
		{"qp=17 opcode=RC Acknowledge", "(" + qp17 + ") && infiniband.bth.opcode == 17"},
	} {
		code, out, errs := runDecode("--filter", tc.filter, nfs3)
		if want := "rdmalab decode: --filter " + strconv.Quote(tc.filter) + " is -Y '" + tc.expr + "'\n"; code != exitOK || errs != want {
			t.Errorf("--filter %s: exit %d, stderr %q, want %q", tc.filter, code, errs, want)
		}
		code, viaY, errs := runDecode("-Y", tc.expr, nfs3)
		if code != exitOK || errs != "" || viaY != out {
			t.Errorf("-Y %s: exit %d %s, prints\n%s\nwhere --filter %s prints\n%s", tc.expr, code, errs, viaY, tc.filter, out)
		}
	}
	for _, args := range [][]string{{"--filter", "rpc"}, {"--filter", "rpcordma.xid == 0x4bdbd665"}, {"--filter", ""}, {"--rpc", "--filter", "xid=0x4bdbd665"}} {
		if code, _, errs := runDecode(append(args, nfs3)...); code != exitOK || errs != "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// decode - reads the capture from standard input as it comes (a pipe from
// tcpdump -w -): every output is the file's, gzip too, and a stream cut
// inside a packet says where, naming standard input.
func TestDecodeStandardInput(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
		gz   bool
	}{
		{"captures/testdata/nfs3-rdma.pcap", nil, false},
		{"captures/testdata/nfs3-rdma.pcap", []string{"-V", "-c", "40"}, false},
		{"captures/testdata/nfs4.1-rdma.pcap", []string{"--rpc"}, true},
		{"captures/testdata/rdmacm-rping.pcap", []string{"--json", "--check"}, false},
	} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		in := data
		if tc.gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			in = b.Bytes()
		}
		wantCode, want, _ := runDecode(append(slices.Clone(tc.args), tc.file)...)
		var out, errb bytes.Buffer
		// A reader that is no file: what a pipe gives.
		code := run(append(append([]string{"decode"}, tc.args...), "-"), io.MultiReader(bytes.NewReader(in)), &out, &errb)
		if code != wantCode || out.String() != want || len(want) == 0 {
			t.Errorf("decode %v - of %s: exit %d (file: %d), %d bytes of output (file: %d)\n%s", tc.args, tc.file, code, wantCode, out.Len(), len(want), errb.String())
		}
	}
	data, err := os.ReadFile("captures/testdata/nfs3-rdma.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"decode", "-"}, bytes.NewReader(data[:5000]), &out, &errb)
	if want := "rdmalab decode: standard input: frame 35, offset 5000: file ends inside the packet data"; code != exitFailed || !strings.HasPrefix(errb.String(), want) || !strings.Contains(out.String(), "\n   34 ") {
		t.Errorf("a stream cut short: exit %d, stderr %q, want %q and the 34 packets before it", code, errb.String(), want)
	}
}

// The -T fields options and -x print what tshark prints: an absent field
// is nothing, quoted or not; a separator or aggregator of several
// characters is its first; -x is the dump alone.
func TestDecodeFieldOptionsAsTshark(t *testing.T) {
	const nfs3 = "captures/testdata/nfs3-rdma.pcap"
	for _, args := range [][]string{
		{"-T", "fields", "-E", "quote=d", "-e", "frame.number", "-e", "rpcordma.rdma_handle", "-e", "rpc.xid", "-c", "60"},
		{"-T", "fields", "-E", "quote=s", "-E", "header=y", "-e", "rpcordma.xid", "-e", "nfs.name", "-c", "80"},
		{"-T", "fields", "-E", "separator=ab", "-E", "aggregator=xy", "-E", "quote=d", "-e", "frame.number",
			"-e", "rpcordma.rdma_handle", "-e", "rpcordma.rdma_length", "-Y", "rpcordma.rdma_handle"},
		{"-x", "-c", "5"},
		{"-x", "-V", "-c", "2"},
	} {
		code, out, stderr := runDecode(append(args, nfs3)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if want := testutil.RunTshark(t, append([]string{"-r", nfs3}, args...)...); out != want && !slices.Contains(args, "-V") {
			t.Errorf("decode %v:\n%s\ntshark:\n%s", args, out, want)
		} else if slices.Contains(args, "-V") && !strings.HasSuffix(want, dumpOf(out)) {
			t.Errorf("decode %v: the dump under the tree is not tshark's", args)
		}
	}
}

// dumpOf is the last packet's hex dump in a -x -V output.
func dumpOf(out string) string {
	i := strings.LastIndex(out, "\n0000  ")
	return out[i+1:]
}

// decode --help's bad-ICRC example selects the frame whose ICRC was
// damaged, and only it (TestDecodeFilterExamples runs the others).
func TestDecodeHelpExamples(t *testing.T) {
	_, help, _ := runDecode("-h")
	_, sel, ok := strings.Cut(help, "  -Y FILTER")
	sel, _, ok2 := strings.Cut(sel, "  --filter EXPR")
	if !ok || !ok2 {
		t.Fatalf("decode -h has no -Y section:\n%s", help)
	}
	_, sel, _ = strings.Cut(sel, "field names:") // past "Wireshark's"
	// The examples are quoted: every other part between quotes.
	parts := strings.Split(strings.Join(strings.Fields(sel), " "), "'")
	var filters []string
	for i := 1; i < len(parts); i += 2 {
		filters = append(filters, parts[i])
	}
	if len(filters) < 5 {
		t.Fatalf("found %d -Y examples in decode -h: %q", len(filters), filters)
	}
	data := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	// Frame 5 (an ACK): its last byte is the ICRC's; damage it.
	bad := filepath.Join(t.TempDir(), "bad-icrc.pcap")
	frames := pcapFrames(t, data)
	data = slices.Clone(data)
	data[frames[4]-1] ^= 0xff
	testutil.WriteFile(t, bad, data)
	found := false
	for _, f := range filters {
		if !strings.Contains(f, "icrc") {
			continue
		}
		found = true
		code, out, stderr := runDecode("-Y", f, bad)
		if code != exitOK || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "    5 ") {
			t.Errorf("decode -Y '%s' on a capture with frame 5's ICRC damaged: exit %d\n%s%s", f, code, out, stderr)
		}
	}
	if !found {
		t.Errorf("decode --help gives no example that finds a bad ICRC: %q", filters)
	}
}

// pcapFrames is where each record of a classic pcap ends.
func pcapFrames(t *testing.T, b []byte) []int {
	var ends []int
	for off := 24; off+16 <= len(b); {
		n := int(b[off+8]) | int(b[off+9])<<8 | int(b[off+10])<<16 | int(b[off+11])<<24
		off += 16 + n
		ends = append(ends, off)
	}
	if len(ends) == 0 {
		t.Fatal("not a classic pcap")
	}
	return ends
}

// An NFSv4 COMPOUND with an empty tag has nfs.tag, empty, as in tshark;
// a message of another program has none (quote=d tells them apart).
func TestEmptyTagAsTshark(t *testing.T) {
	const nfs4 = "captures/testdata/nfs4.1-rdma.pcap"
	args := []string{"-T", "fields", "-E", "quote=d", "-e", "frame.number", "-e", "nfs.tag", "-Y", "nfs && frame.number < 100"}
	_, out, _ := runDecode(append(args, nfs4)...)
	want := testutil.RunTshark(t, append([]string{"-r", nfs4}, args...)...)
	if out != want || !strings.Contains(out, "\t\"\"\n") {
		t.Errorf("decode:\n%s\ntshark:\n%s", out, want)
	}
}

// An ERF record's header is a pseudo-header, as Wireshark reads it: not
// in frame.len, frame.cap_len or -x, and its 32.32 timestamp gives the
// time to the nanosecond.
func TestERFAsTshark(t *testing.T) {
	for _, name := range []string{"magnate3-native-ib-erf-rdma.pcap", "srinivaskoritala-native-ib-erf-2008.pcap"} {
		f := testutil.PublicCapture(t, name)
		for _, args := range [][]string{
			{"-T", "fields", "-e", "frame.len", "-e", "frame.cap_len", "-e", "frame.time_epoch", "-e", "frame.time_relative"},
			{"-x"},
		} {
			_, out, _ := runDecode(append(args, f)...)
			if want := testutil.RunTshark(t, append([]string{"-r", f}, args...)...); out != want {
				t.Errorf("%s %v:\n%.600s\ntshark:\n%.600s", name, args, out, want)
			}
		}
	}
}

// Every -Y example of decode's help and of README's "Filters and fields"
// compiles and selects packets of a capture in captures/testdata.
func TestDecodeFilterExamples(t *testing.T) {
	_, help, _ := runDecode("-h")
	i := strings.Index(help, "\n  -Y FILTER")
	j := i + strings.Index(help[max(i, 0):], "\n  --filter EXPR")
	if i < 0 || j <= i {
		t.Fatal("decode -h has no -Y FILTER paragraph")
	}
	para := regexp.MustCompile(`\s*\n\s*`).ReplaceAllString(help[i:j], " ")
	var exprs []string
	for _, m := range regexp.MustCompile(`(?:^|\s)'([^']+)'`).FindAllStringSubmatch(para, -1) {
		exprs = append(exprs, m[1])
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`go run \. decode -Y '([^']+)'`).FindAllStringSubmatch(string(readme), -1) {
		exprs = append(exprs, m[1])
	}
	if len(exprs) < 10 {
		t.Fatalf("only %d examples found: %q", len(exprs), exprs)
	}
	paths, _ := filepath.Glob("captures/testdata/*.pcap")
	for _, e := range exprs {
		n := 0
		for _, p := range paths {
			code, out, stderr := runDecode("-Y", e, p)
			if code != exitOK {
				t.Fatalf("-Y %q %s: exit %d: %s", e, p, code, stderr)
			}
			n += strings.Count(out, "\n")
		}
		if n == 0 && !strings.Contains(e, "icrc_bad") { // TestDecodeHelpExamples damages an ICRC for it
			t.Errorf("-Y %q selects nothing in captures/testdata", e)
		}
	}
}
