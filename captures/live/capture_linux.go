package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Handle is a packet socket bound to one interface with its filter in
// the kernel: each frame the filter keeps is queued for Next, the rest
// never leave the kernel.
type Handle struct {
	name    string
	f       *os.File // the socket, in the runtime's poller: a deadline ends a wait
	rc      syscall.RawConn
	fd      int
	snaplen int
	ring    *ring // nil: frames are read with recvmsg, into buf
	buf     []byte
	oob     []byte
	stats   Stats
}

// Stats are a capture's counts.
type Stats struct {
	Captured uint64 // frames returned by Next
	Received uint64 // frames the filter kept (PACKET_STATISTICS' tp_packets)
	Dropped  uint64 // of those, dropped by the kernel for want of room (tp_drops)
}

// Open opens a packet socket on the interface iface with the compiled
// filter prog attached before any frame is queued.
func Open(iface string, prog []bpf.Instruction, snaplen int) (*Handle, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, fmt.Errorf("interface %q: no such interface (ip link lists those there are)", iface)
	}
	// The filter's offsets and the pcapng link type are Ethernet's.
	if b, err := os.ReadFile("/sys/class/net/" + ifi.Name + "/type"); err == nil {
		if t := strings.TrimSpace(string(b)); t != "1" && t != "772" {
			return nil, fmt.Errorf("interface %s is not Ethernet (its hardware type is %s): live capture takes Ethernet interfaces (RoCE's)", iface, t)
		}
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("the capture filter: %w", err)
	}
	// Protocol 0: nothing is queued until bind, after the filter is on.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("capturing on %s needs the CAP_NET_RAW capability: run as root, or give it to the program (sudo setcap cap_net_raw+ep %s)", iface, executable())
		}
		return nil, fmt.Errorf("a packet socket for %s: %w", iface, err)
	}
	h := &Handle{name: iface, fd: fd, snaplen: snaplen, buf: make([]byte, snaplen), oob: make([]byte, 64)}
	fail := func(what string, err error) (*Handle, error) {
		unix.Close(fd)
		return nil, fmt.Errorf("capture on %s: %s: %w", iface, what, err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}); err != nil {
		return fail("attaching the filter", err)
	}
	// Room for a burst while the decoder is busy (the default, some
	// 200 KiB, holds a hundred full frames): past rmem_max where
	// CAP_NET_ADMIN allows.
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, rcvBuf) != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, rcvBuf)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fail("asking for timestamps", err)
	}
	// The ring where the kernel allows it (it needs the memory locked
	// for it under RLIMIT_MEMLOCK's rules), else recvmsg a frame.
	if r, err := setupRing(fd); err == nil {
		h.ring = r
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
		return fail("binding", err)
	}
	// Promiscuous, as tcpdump is: the frames to other hosts too. The
	// membership ends with the socket.
	if err := unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP, &unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_PROMISC}); err != nil {
		return fail("promiscuous mode", err)
	}
	h.f = os.NewFile(uintptr(fd), "packet socket on "+iface)
	if h.rc, err = h.f.SyscallConn(); err != nil {
		h.f.Close()
		return nil, fmt.Errorf("capture on %s: %w", iface, err)
	}
	return h, nil
}

// rcvBuf is the socket's receive buffer: tcpdump's default ring is 2 MiB.
const rcvBuf = 8 << 20

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func executable() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "rdmalab"
}

// Next waits for the next frame and returns its bytes (valid until the
// next call or Close), its length on the wire and when the kernel received it;
// idle, when not nil, is called once before it waits (and its error
// returned). When ctx ends it returns ctx's error.
func (h *Handle) Next(ctx context.Context, idle func() error) (data []byte, length int, ts time.Time, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, time.Time{}, err
	}
	if h.ring != nil {
		return h.nextInRing(ctx, idle)
	}
	stop := context.AfterFunc(ctx, func() { h.f.SetReadDeadline(time.Now()) })
	defer stop()
	var n, oobn int
	var rerr, ierr error
	err = h.rc.Read(func(fd uintptr) bool {
		// MSG_TRUNC: n is the frame's whole length, past the buffer.
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), h.buf, h.oob, unix.MSG_TRUNC)
		if rerr == unix.EAGAIN && idle != nil {
			ierr, idle = idle(), nil
			return ierr != nil
		}
		return rerr != unix.EAGAIN
	})
	if ierr != nil {
		return nil, 0, time.Time{}, ierr
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, time.Time{}, ctx.Err()
		}
		return nil, 0, time.Time{}, err
	}
	if rerr != nil {
		return nil, 0, time.Time{}, fmt.Errorf("capture on %s: %w", h.name, rerr)
	}
	ts = timestamp(h.oob[:oobn])
	h.stats.Captured++
	return h.buf[:min(n, len(h.buf))], n, ts, nil
}

// nextInRing is Next from the ring.
func (h *Handle) nextInRing(ctx context.Context, idle func() error) ([]byte, int, time.Time, error) {
	data, length, sec, nsec, ok := h.ring.frame()
	if !ok {
		if idle != nil {
			if err := idle(); err != nil {
				return nil, 0, time.Time{}, err
			}
		}
		stop := context.AfterFunc(ctx, func() { h.f.SetReadDeadline(time.Now()) })
		err := h.rc.Read(func(uintptr) bool { return h.ring.ready() })
		stop()
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, time.Time{}, ctx.Err()
			}
			return nil, 0, time.Time{}, fmt.Errorf("capture on %s: %w", h.name, err)
		}
		if data, length, sec, nsec, ok = h.ring.frame(); !ok {
			return nil, 0, time.Time{}, fmt.Errorf("capture on %s: the ring said a frame was ready, and had none", h.name)
		}
	}
	h.stats.Captured++
	return data, length, time.Unix(int64(sec), int64(nsec)), nil
}

// timestamp is the kernel's SCM_TIMESTAMPNS in the control messages oob,
// or now when there is none. The messages are walked here, not with
// unix.ParseSocketControlMessage, which allocates for each frame.
func timestamp(oob []byte) time.Time {
	hdr := int(unsafe.Sizeof(unix.Cmsghdr{}))
	for len(oob) >= hdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		n := int(h.Len)
		if n < hdr || n > len(oob) {
			break
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && n-hdr >= int(unsafe.Sizeof(unix.Timespec{})) {
			t := (*unix.Timespec)(unsafe.Pointer(&oob[hdr]))
			return time.Unix(t.Unix())
		}
		oob = oob[min(len(oob), unix.CmsgSpace(n-hdr)):]
	}
	return time.Now()
}

// Stats are the counts so far. The kernel's counters reset when read:
// they are added up here.
func (h *Handle) Stats() Stats {
	if s, err := unix.GetsockoptTpacketStats(h.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
		h.stats.Received += uint64(s.Packets)
		h.stats.Dropped += uint64(s.Drops)
	}
	return h.stats
}

// Close closes the socket (and unmaps its ring: the last frame returned
// is gone).
func (h *Handle) Close() error {
	err := h.f.Close()
	if h.ring != nil {
		h.ring.close()
	}
	return err
}
