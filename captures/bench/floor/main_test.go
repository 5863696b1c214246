package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// TestFloorCountsAsTheDecoder: on every kernel capture the floor sees the
// frames the decoder sees, takes the same ones for RoCEv2 with a BTH, and
// finds every ICRC good, as the decoder does.
func TestFloorCountsAsTheDecoder(t *testing.T) {
	for _, name := range testutil.KernelCaptures() {
		path := testutil.Capture(t, name)
		got, err := count(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want counts
		if _, err := decode.ReadFile(path, func(p *decode.Packet) error {
			want.frames++
			if p.BTH == nil || p.UDP == nil || p.IPv4 == nil {
				want.other++
				return nil
			}
			want.roce++
			if p.ICRC.State != decode.CRCGood {
				want.badICRC++
			}
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want || got.roce == 0 {
			t.Errorf("%s: floor counted %+v, the decoder %+v", name, got, want)
		}
	}
}

// TestFloorBadICRC: a payload byte changed is an ICRC the floor finds bad.
func TestFloorBadICRC(t *testing.T) {
	data := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	data[len(data)-10] ^= 0xff // inside the last frame's payload, before its ICRC
	path := filepath.Join(t.TempDir(), "bad.pcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if st := run([]string{path}, &out, &errb); st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	if want := fmt.Sprintf("floor: %s: 752 frames, 752 RoCEv2 (1 with a bad ICRC), 0 other\n", path); out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestFloorErrors: a cut capture names the frame and byte offset where it
// ends, an empty one its header, and the usage is given for no file.
func TestFloorErrors(t *testing.T) {
	data := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	path := filepath.Join(t.TempDir(), "cut.pcap")
	if err := os.WriteFile(path, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if st := run([]string{path}, &out, &errb); st != 1 || !strings.Contains(errb.String(), path+": frame 752, offset ") {
		t.Errorf("cut file: status %d, stderr %q", st, errb.String())
	}
	empty := filepath.Join(t.TempDir(), "empty.pcap")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if st := run([]string{empty}, &out, &errb); st != 1 || !strings.HasPrefix(errb.String(), "floor: "+empty+": file header, offset 0") {
		t.Errorf("empty file: status %d, stderr %q", st, errb.String())
	}
	errb.Reset()
	if st := run(nil, &out, &errb); st != 2 || !strings.Contains(errb.String(), "usage: floor FILE") {
		t.Errorf("no file: status %d, stderr %q", st, errb.String())
	}
}
