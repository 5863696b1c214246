package engine

import (
	"errors"
	"fmt"

	"github.com/rdmalab/rdmalab/engine/ibv"
)

// CaptureSite is where a real device's lab can have its RoCE packets
// captured: the netdev of the server's port, which every packet of the
// connection crosses, in both directions, when the client's port is on
// another netdev.
type CaptureSite struct {
	Netdev string
	// Device is the server's device ("rxe0").
	Device string
	// Software: Soft-RoCE, whose packets are the netdev's frames. An HCA
	// builds them on the card: they reach the netdev's packet sockets
	// only when it mirrors them (Offload says what to use instead).
	Software bool
}

// Offload says how to capture an HCA's own RoCE traffic, which a packet
// socket on its netdev does not see.
func (c CaptureSite) Offload() string {
	return fmt.Sprintf("%s builds its RoCE packets on the card, so %s's packet sockets see them only when the card mirrors them "+
		"(ConnectX: its offloaded-traffic sniffer, or tcpdump -i %s with a libpcap that has the RDMA sniffer); "+
		"else record with ibdump -d %s -w FILE.pcap, then capture open FILE.pcap", c.Device, c.Netdev, c.Device, c.Device)
}

// ErrLoopback says both ends of the lab's connection share a netdev, so
// no packet crosses it.
var ErrLoopback = errors.New("the packets would not cross the netdev")

// sysfs is where CaptureSite reads the devices' GID tables.
const sysfs = "/sys"

// CaptureSite finds where a real device's traffic can be captured. It
// fails with ErrLoopback when the two QPs share a netdev: rxe (and an HCA
// alike) hands a packet for its own netdev's address straight back to
// itself, so nothing crosses and a capture would be empty.
func (l *Lab) CaptureSite() (CaptureSite, error) {
	p, ok := l.Provider.(interface{ Port(node string) ibv.Port })
	if !ok {
		return CaptureSite{}, errors.New("the lab's provider names no device port: there is no netdev to capture on")
	}
	return captureSite(sysfs, p.Port("server"), p.Port("client"))
}

func captureSite(root string, server, client ibv.Port) (CaptureSite, error) {
	sn, err := ibv.NetdevOf(root, server)
	if err != nil {
		return CaptureSite{}, err
	}
	site := CaptureSite{Netdev: sn.Name, Device: server.Device, Software: sn.Software}
	if server.Device == client.Device {
		return site, fmt.Errorf("both QPs are on %s (netdev %s): %w: %s delivers a packet for its own address inside (rxe: RXE_LOOPBACK), so the capture would be empty; "+
			"put the client on a second device on a second netdev (--engine ibv:%s,CLIENT_DEVICE; test/rxe/README.md shows one host with two NICs)",
			server.Device, sn.Name, ErrLoopback, server.Device, server.Device)
	}
	cn, err := ibv.NetdevOf(root, client)
	if err != nil {
		return CaptureSite{}, err
	}
	if cn.Name == sn.Name {
		return site, fmt.Errorf("%s and %s are both on netdev %s: %w: a packet for the netdev's own address is handed back inside (rxe: RXE_LOOPBACK), so the capture would be empty; "+
			"put each device on a netdev of its own (rdma link add rxe1 type rxe netdev IF2; test/rxe/README.md shows one host with two NICs)",
			server.Device, client.Device, sn.Name, ErrLoopback)
	}
	return site, nil
}
