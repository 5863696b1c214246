package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// TestGencap writes a small capture over several connections and decodes
// it: as many frames as asked (the last batch may go past), one CM
// connection per Lab, every ICRC good, no anomaly, times never going back.
func TestGencap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.pcap")
	var out, errb bytes.Buffer
	if st := run([]string{"-packets", "20000", "-calls", "20", "-o", path}, &out, &errb); st != 0 {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	var n int
	if _, err := fmt.Sscanf(out.String(), "gencap: "+path+": %d packets", &n); err != nil || n < 20000 {
		t.Fatalf("output %q (%v)", out.String(), err)
	}
	var last time.Time
	frames := 0
	an, err := decode.ReadFile(path, func(p *analysis.Packet) error {
		frames++
		if p.ICRC.State != frame.CRCGood {
			return fmt.Errorf("frame %d: ICRC %v", p.Frame, p.ICRC.State)
		}
		if p.Time.Before(last) {
			return fmt.Errorf("frame %d goes back in time", p.Frame)
		}
		last = p.Time
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if frames != n {
		t.Errorf("file has %d frames, gencap said %d", frames, n)
	}
	for _, note := range an.Notes() {
		if note.Kind.Anomaly() {
			t.Errorf("anomaly: %v", note)
		}
	}
	conns := an.Connections()
	if len(conns) < 2 || !strings.Contains(out.String(), fmt.Sprintf("on %d connections", len(conns))) {
		t.Errorf("%d CM connections; gencap: %s", len(conns), out.String())
	}
	if len(an.RPCs()) < 40 {
		t.Errorf("%d RPCs", len(an.RPCs()))
	}

	// The same flags give the same file.
	again := filepath.Join(t.TempDir(), "again.pcap")
	if st := run([]string{"-q", "-packets", "20000", "-calls", "20", "-o", again}, io.Discard, &errb); st != 0 {
		t.Fatal(errb.String())
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same flags differ")
	}
}

func TestGencapUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-packets", "0", "-o", "x"}, {"-o", "x", "extra"}, {"-nosuch"}} {
		if st := run(args, io.Discard, io.Discard); st != 2 {
			t.Errorf("%q: status %d, want 2", args, st)
		}
	}
}

// TestSplice joins two pcap streams written in small pieces: one file
// header, every record whole, the second stream's times moved past the
// first's.
func TestSplice(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	stream := func(times ...time.Duration) []byte {
		var b bytes.Buffer
		w, err := pcapfile.NewWriter(&b, pcapfile.LinkTypeEthernet, 65535)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range times {
			data := bytes.Repeat([]byte{byte(i + 1)}, 60+i)
			if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: epoch.Add(d), CaptureLength: len(data), Length: len(data)}, data); err != nil {
				t.Fatal(err)
			}
		}
		return b.Bytes()
	}
	var out bytes.Buffer
	s := newSplice(&out)
	for _, st := range [][]byte{stream(0, time.Second+5), stream(3, 7)} {
		for len(st) > 0 { // in 7-byte writes, cutting every header
			n := min(7, len(st))
			if _, err := s.Write(st[:n]); err != nil {
				t.Fatal(err)
			}
			st = st[n:]
		}
		s.next()
	}
	r, err := pcapfile.NewReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, time.Second + 5, time.Second + 5 + gap, time.Second + 5 + gap + 4}
	for i, w := range want {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if got := ci.Timestamp.Sub(epoch); got != w || len(data) != 60+i%2 || data[0] != byte(i%2+1) {
			t.Errorf("record %d: at %v (want %v), %d bytes of %d", i+1, got, w, len(data), data[0])
		}
	}
	if _, _, err := r.ReadPacketData(); err != io.EOF {
		t.Errorf("after 4 records: %v", err)
	}
}
