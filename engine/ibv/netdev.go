package ibv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Port is where a node's connection runs: its device, port and the GID
// index its QPs go by (PickGID's).
type Port struct {
	Device   string
	Port     int
	GIDIndex int
}

// Netdev is the network interface a RoCE port's packets cross.
type Netdev struct {
	Name string
	// Software is set for a device the kernel implements in software
	// (Soft-RoCE: it has no bus device under sysfs, only a virtual one):
	// its RoCE packets are frames of Name like any other. An HCA's are
	// built and parsed on the card and never reach Name's packet sockets.
	Software bool
}

// NetdevOf reads from sysfs (its root, "/sys" but in tests) the netdev
// of p's GID, as the kernel's GID table records it
// (infiniband/DEV/ports/P/gid_attrs/ndevs/I, what `rdma link` shows).
func NetdevOf(sysfs string, p Port) (Netdev, error) {
	dev := filepath.Join(sysfs, "class", "infiniband", p.Device)
	file := filepath.Join(dev, "ports", strconv.Itoa(p.Port), "gid_attrs", "ndevs", strconv.Itoa(p.GIDIndex))
	b, err := os.ReadFile(file)
	if err != nil {
		return Netdev{}, fmt.Errorf("ibv: the netdev of %s port %d GID[%d]: %w", p.Device, p.Port, p.GIDIndex, err)
	}
	name := strings.TrimSpace(string(b))
	if name == "" || strings.ContainsAny(name, "/ \t") {
		return Netdev{}, fmt.Errorf("ibv: the netdev of %s port %d GID[%d]: %s holds %q, not an interface name", p.Device, p.Port, p.GIDIndex, file, name)
	}
	// A bus device (PCI, auxiliary) links its ib device under "device";
	// rxe and siw live under devices/virtual and have none.
	_, err = os.Lstat(filepath.Join(dev, "device"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Netdev{Name: name, Software: true}, nil
	case err != nil:
		return Netdev{}, fmt.Errorf("ibv: %s: %w", p.Device, err)
	}
	return Netdev{Name: name}, nil
}
