package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// decode --check -w writes the capture as pcapng with the notes as
// comments, from a file and from standard input alike; what it printed
// is what it prints without -w.
func TestDecodeWriteAnnotated(t *testing.T) {
	const in = "captures/testdata/verbs-rc-pingpong.pcap"
	dir := t.TempDir()
	fromFile, fromPipe := filepath.Join(dir, "file.pcapng"), filepath.Join(dir, "pipe.pcapng")
	code, out, stderr := runDecode("--check", "-w", fromFile, in)
	if code != exitFailed || !strings.Contains(stderr, "66 packets written to "+fromFile+", with 16 notes as comments") {
		t.Errorf("decode --check -w: exit %d, %q", code, stderr)
	}
	if _, plain, _ := runDecode("--check", in); plain != out {
		t.Errorf("-w changed what decode prints")
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if code := run([]string{"decode", "--check", "-w", fromPipe, "-"}, bytes.NewReader(data), &o, &e); code != exitFailed || o.String() != out {
		t.Errorf("decode --check -w OUT -: exit %d, %s", code, e.String())
	}
	a, _ := os.ReadFile(fromFile)
	b, _ := os.ReadFile(fromPipe)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the capture from a pipe (%d bytes) is not the capture from the file (%d bytes)", len(b), len(a))
	}
	if leftover, _ := filepath.Glob(filepath.Join(os.TempDir(), "rdmalab-stdin-*")); len(leftover) > 0 {
		t.Errorf("standard input's copy is left behind: %v", leftover)
	}
	if code, _, stderr := runDecode("--parquet", "x.parquet", "-w", fromFile, in); code != exitUsage || !strings.Contains(stderr, "-w writes packets, --parquet rows") {
		t.Errorf("--parquet -w: exit %d, %q", code, stderr)
	}
}

// The comments are rdmalab's fields too: frame.comment in -Y, -T fields
// (as tshark prints them), --json and -V, escaped where a terminal reads.
func TestDecodeReadsComments(t *testing.T) {
	out := filepath.Join(t.TempDir(), "checked.pcapng")
	if code, _, stderr := runDecode("--check", "-w", out, "captures/testdata/verbs-rc-pingpong.pcap"); code != exitFailed {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	args := []string{"-T", "fields", "-e", "frame.number", "-e", "frame.comment", "-Y", `frame.comment contains "retransmission"`}
	_, got, _ := runDecode(append(args, out)...)
	if want := testutil.RunTshark(t, append([]string{"-r", out}, args...)...); got != want || strings.Count(got, "\n") < 4 {
		t.Errorf("decode:\n%s\ntshark:\n%s", got, want)
	}
	_, tree, _ := runDecode("-V", "-Y", "frame.number == 20", out)
	if !strings.HasPrefix(tree, "Packet comments\n    rdmalab: retransmission: PSN 6809450") {
		t.Errorf("-V does not start with the comments:\n%.300s", tree)
	}
	_, js, _ := runDecode("--json", "-Y", "frame.number == 20", out)
	if !strings.Contains(js, `"frame.comment":"rdmalab: retransmission: PSN 6809450`) {
		t.Errorf("--json has no frame.comment:\n%.400s", js)
	}
}

// A comment from a capture is hostile: the text outputs escape it, --json
// keeps it exact.
func TestDecodeEscapesComments(t *testing.T) {
	r, err := pcapfile.Open("captures/testdata/rdmacm-rping.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w, err := pcapfile.NewNgWriter(&buf, r.LinkType())
	if err != nil {
		t.Fatal(err)
	}
	var rec pcapfile.Record
	if err := r.Next(&rec); err != nil {
		t.Fatal(err)
	}
	const evil = "\x1b[2Jowned\r\n"
	if err := w.WritePacketComments(0, rec.Info, rec.Data, []string{evil}); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "evil.pcapng")
	testutil.WriteFile(t, in, buf.Bytes())
	for _, args := range [][]string{{"-V"}, {"-T", "fields", "-e", "frame.comment"}} {
		_, out, _ := runDecode(append(args, in)...)
		if strings.ContainsAny(out, "\x1b\r") || !strings.Contains(out, `\x1b[2Jowned\r\n`) {
			t.Errorf("%v: %q", args, out)
		}
	}
	_, js, _ := runDecode("--json", in)
	if !strings.Contains(js, `"frame.comment":"\u001b[2Jowned\u000d\n"`) {
		t.Errorf("--json: %.300s", js)
	}
}
