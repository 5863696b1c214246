package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/ibv"
)

// fakeSysfs lays out the GID tables of devices (name → netdev), each
// GID[1] on port 1; rxe's have no bus device.
func fakeSysfs(t *testing.T, devs map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for dev, nd := range devs {
		dir := filepath.Join(root, "class", "infiniband", dev, "ports", "1", "gid_attrs", "ndevs")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "1"), []byte(nd+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCaptureSite(t *testing.T) {
	root := fakeSysfs(t, map[string]string{"rxe0": "eth0", "rxe1": "eth1", "rxe2": "eth0"})
	port := func(d string) ibv.Port { return ibv.Port{Device: d, Port: 1, GIDIndex: 1} }

	site, err := captureSite(root, port("rxe0"), port("rxe1"))
	if err != nil || site != (CaptureSite{Netdev: "eth0", Device: "rxe0", Software: true}) {
		t.Fatalf("two netdevs: got %+v, %v", site, err)
	}
	for _, c := range []struct {
		client string
		want   []string
	}{
		{"rxe0", []string{"both QPs are on rxe0 (netdev eth0)", "RXE_LOOPBACK", "the capture would be empty", "--engine ibv:rxe0,CLIENT_DEVICE"}},
		{"rxe2", []string{"rxe0 and rxe2 are both on netdev eth0", "RXE_LOOPBACK", "a netdev of its own"}},
	} {
		_, err := captureSite(root, port("rxe0"), port(c.client))
		if !errors.Is(err, ErrLoopback) {
			t.Fatalf("client %s: got %v, want ErrLoopback", c.client, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("client %s: %q lacks %q", c.client, err, w)
			}
		}
	}
	if _, err := captureSite(root, port("rxe0"), port("mlx5_0")); err == nil || !strings.Contains(err.Error(), "mlx5_0") {
		t.Fatalf("a client device sysfs lacks: got %v", err)
	}
	off := CaptureSite{Netdev: "enp1s0", Device: "mlx5_0"}.Offload()
	for _, w := range []string{"ibdump -d mlx5_0", "capture open", "sniffer"} {
		if !strings.Contains(off, w) {
			t.Errorf("Offload %q lacks %q", off, w)
		}
	}
}

func TestCaptureSiteSim(t *testing.T) {
	l, err := New(DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Can(OwnWire) {
		t.Fatal("the sim's lab: Can(OwnWire) false")
	}
	if _, err := l.CaptureSite(); err == nil {
		t.Fatal("the sim's lab has a capture site")
	}
}
