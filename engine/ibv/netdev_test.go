package ibv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sysfsWith lays out a sysfs tree with one device whose port 1 GID 1
// names netdev (and, for an HCA, a bus device link).
func sysfsWith(t *testing.T, dev, netdev string, hca bool) string {
	t.Helper()
	root := t.TempDir()
	d := filepath.Join(root, "class", "infiniband", dev)
	ndevs := filepath.Join(d, "ports", "1", "gid_attrs", "ndevs")
	if err := os.MkdirAll(ndevs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ndevs, "1"), []byte(netdev+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hca {
		if err := os.Symlink(root, filepath.Join(d, "device")); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestNetdevOf(t *testing.T) {
	root := sysfsWith(t, "rxe0", "eth0", false)
	got, err := NetdevOf(root, Port{Device: "rxe0", Port: 1, GIDIndex: 1})
	if err != nil || got != (Netdev{Name: "eth0", Software: true}) {
		t.Fatalf("rxe0: got %+v, %v; want eth0, software", got, err)
	}
	root = sysfsWith(t, "mlx5_0", "enp1s0f0", true)
	got, err = NetdevOf(root, Port{Device: "mlx5_0", Port: 1, GIDIndex: 1})
	if err != nil || got != (Netdev{Name: "enp1s0f0"}) {
		t.Fatalf("mlx5_0: got %+v, %v; want enp1s0f0, not software", got, err)
	}
	// A GID index with no netdev: the error names the device, port and index.
	_, err = NetdevOf(root, Port{Device: "mlx5_0", Port: 1, GIDIndex: 3})
	if err == nil || !strings.Contains(err.Error(), "mlx5_0 port 1 GID[3]") {
		t.Fatalf("missing GID: got %v", err)
	}
	bad := sysfsWith(t, "rxe1", "../x", false)
	if _, err := NetdevOf(bad, Port{Device: "rxe1", Port: 1, GIDIndex: 1}); err == nil || !strings.Contains(err.Error(), "not an interface name") {
		t.Fatalf("a path for a name: got %v", err)
	}
}
