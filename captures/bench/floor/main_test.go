package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// TestFloorCountsAsTheDecoder: on every kernel and public capture the
// floor sees the frames the decoder sees, takes the same ones for RoCEv2
// (untagged Ethernet, IPv4, UDP to 4791, a BTH), and finds the ICRCs the
// decoder finds bad.
func TestFloorCountsAsTheDecoder(t *testing.T) {
	roce := 0
	for _, path := range testutil.AllCaptures(t) {
		name := filepath.Base(path)
		got, err := count(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want counts
		if _, err := decode.ReadFile(path, func(p *analysis.Packet) error {
			want.frames++
			if p.BTH == nil || p.UDP == nil || p.IPv4 == nil || p.Eth == nil ||
				p.Eth.EthernetType != layers.EthernetTypeIPv4 || p.DstPort != ib.UDPPortRoCEv2 {
				want.other++
				return nil
			}
			want.roce++
			if p.ICRC.State != frame.CRCGood {
				want.badICRC++
			}
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s: floor counted %+v, the decoder %+v", name, got, want)
		}
		roce += got.roce
	}
	if roce == 0 {
		t.Error("the floor found no RoCEv2 frame in any capture")
	}
}

// TestFloorBadICRC: a payload byte changed is an ICRC the floor finds bad.
func TestFloorBadICRC(t *testing.T) {
	data := testutil.ReadCapture(t, "nfs3-rdma.pcap")
	data[len(data)-10] ^= 0xff // inside the last frame's payload, before its ICRC
	floorSays(t, "bad.pcap", data, "752 frames, 752 RoCEv2 (1 with a bad ICRC), 0 other")
}

// floorSays runs the floor on data written to a file named name and
// checks that it succeeds and prints report after the file's path.
func floorSays(t *testing.T, name string, data []byte, report string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if st := run([]string{path}, &out, &errb); st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	if want := fmt.Sprintf("floor: %s: %s\n", path, report); out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestFloorTrailer: bytes after the IP packet (an Ethernet FCS or
// padding) are not part of the ICRC, for the floor as for the decoder.
func TestFloorTrailer(t *testing.T) {
	in, err := pcapfile.Open(testutil.Capture(t, "nfs3-rdma.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var buf bytes.Buffer
	w, err := pcapfile.NewWriter(&buf, pcapfile.LinkTypeEthernet, 65535)
	if err != nil {
		t.Fatal(err)
	}
	var rec pcapfile.Record
	for in.Next(&rec) == nil {
		data := append(append([]byte(nil), rec.Data...), 0xde, 0xad, 0xbe, 0xef)
		ci := gopacket.CaptureInfo{Timestamp: rec.Info.Timestamp, CaptureLength: len(data), Length: len(data)}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	floorSays(t, "trailer.pcap", buf.Bytes(), "752 frames, 752 RoCEv2 (0 with a bad ICRC), 0 other")
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
