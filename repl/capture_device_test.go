package repl

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/live"
	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// wireless is a provider with no wire of its own, as a real device's.
type wireless struct{ verbs.Provider }

// On a lab with no wire, capture save says what it cannot do and what
// does, and capture start says why it cannot capture; neither leaves a
// file behind.
func TestCaptureOnDeviceRefusals(t *testing.T) {
	s := newTestSession(t)
	s.lab.Provider = wireless{s.lab.Provider}
	dir := t.TempDir()
	file := filepath.Join(dir, "x.pcapng")
	var out strings.Builder
	err := s.Exec("capture save "+file, Pos{}, &out)
	if err == nil || !strings.Contains(err.Error(), "capture start FILE records them") {
		t.Fatalf("capture save on a device: %v", err)
	}
	err = s.Exec("capture start "+file, Pos{}, &out)
	if err == nil || !strings.Contains(err.Error(), "no netdev to capture on") {
		t.Fatalf("capture start without a device port: %v", err)
	}
	if s.capture.rec != nil {
		t.Fatal("a refused capture start left a recording")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("refusals left files: %v", ents)
	}
}

// A recording on a netdev (lo here: a real device's is its RoCE netdev)
// keeps the RoCE port's frames sent while it runs, and stop waits for
// them and writes a capture the decoder reads. It needs CAP_NET_RAW.
func TestDeviceRecording(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
			t.Fatal("not root, and RDMALAB_REQUIRE_TOOLS=1 requires the live capture test (a packet socket needs CAP_NET_RAW)")
		}
		t.Skip("not root: a packet socket needs CAP_NET_RAW; skipping the live capture test (set RDMALAB_REQUIRE_TOOLS=1 to make this a failure)")
	}
	path := filepath.Join(t.TempDir(), "lo.pcapng")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := startOn(engine.CaptureSite{Netdev: "lo", Device: "rxe9", Software: true}, f)
	if err != nil {
		t.Fatal(err)
	}
	// Unconnected: a port unreachable for one datagram fails no other.
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4791}
	for i := 0; i < 3; i++ {
		if _, err := c.WriteTo([]byte("not quite a BTH, but UDP 4791"), to); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	st, err := d.stop()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Captured < 3 {
		t.Fatalf("captured %d frames, want the 3 sent (at least)", st.Captured)
	}
	var out strings.Builder
	d.notes(&out, st)
	if out.String() != "" {
		t.Errorf("notes for a good capture: %q", out.String())
	}
	x, err := decode.OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Wait(context.Background(), -1); err != nil {
		t.Fatal(err)
	}
	if pr := x.Progress(); pr.Err != nil || pr.Packets < 3 {
		t.Fatalf("the file: %d packets, %v", pr.Packets, pr.Err)
	}
	// Nothing captured: the note says what to check, and for an HCA
	// what to use instead.
	out.Reset()
	(&deviceRecording{site: engine.CaptureSite{Netdev: "enp1s0", Device: "mlx5_0"}}).notes(&out, live.Stats{})
	if !strings.Contains(out.String(), "ibdump -d mlx5_0") {
		t.Errorf("an HCA's empty capture: %q", out.String())
	}
}
