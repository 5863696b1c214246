package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/internal/testutil"
)

// decode --follow reads a capture another program is still writing: the
// test writes it in pieces cut inside records and headers, and each
// packet's line comes as its record is whole, the same lines as the
// finished file's; Ctrl-C ends it (exit 0), and when the writer was in
// the middle of a record, says so instead of calling the file truncated.
func TestDecodeFollow(t *testing.T) {
	bin, err := exec.LookPath("rdmalab")
	if err != nil {
		t.Fatalf("rdmalab is not on PATH: %v", err)
	}
	capture := testutil.Capture(t, "sim-nfs3.pcap")
	data := testutil.ReadFile(t, capture)
	want := decodeFile(t, capture)
	wantLines := strings.SplitAfter(want, "\n")
	for _, tc := range []struct {
		name string
		keep int // bytes of the capture written before Ctrl-C
	}{
		{"whole", len(data)},
		{"cut inside the last record", len(data) - 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "growing.pcap")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out, errb syncBuffer
			cmd := exec.Command(bin, "decode", "--follow", path)
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			// Pieces of 997 bytes: cut inside the file header, records'
			// headers and their data.
			for off := 0; off < tc.keep; off += 997 {
				if _, err := f.Write(data[off:min(off+997, tc.keep)]); err != nil {
					t.Fatal(err)
				}
				time.Sleep(15 * time.Millisecond)
			}
			lines := len(wantLines) - 1
			if tc.keep < len(data) {
				lines--
			}
			deadline := time.Now().Add(10 * time.Second)
			for strings.Count(out.String(), "\n") < lines && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond) // the reader waits at the end, not ending
			if cmd.ProcessState != nil {
				t.Fatalf("decode --follow ended before Ctrl-C: %s", errb.String())
			}
			cmd.Process.Signal(os.Interrupt)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("decode --follow after Ctrl-C: %v: %s", err, errb.String())
			}
			if got := out.String(); got != strings.Join(wantLines[:lines], "") {
				t.Errorf("decode --follow differs from the file's decode:\n%s", firstDiff(got, strings.Join(wantLines[:lines], "")))
			}
			stopped := strings.Contains(errb.String(), "inside a record not yet written whole")
			if stopped != (tc.keep < len(data)) || strings.Contains(errb.String(), "truncated") {
				t.Errorf("stderr: %q", errb.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer a process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
