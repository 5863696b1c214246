package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if code, _, stderr := runDecode("--rpc", "-w", fromFile, in); code != exitUsage || !strings.Contains(stderr, "-w writes packets") {
		t.Errorf("--rpc -w: exit %d, %q", code, stderr)
	}
}
