package live

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"golang.org/x/net/bpf"

	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// filterCases are filters both compilers take: tcpdump's must give the
// same verdict as ours on every frame.
var filterCases = []string{
	"udp port 4791", "ip", "ip6", "arp", "rarp", "tcp", "udp", "icmp", "icmp6", "sctp",
	"host 192.0.2.1", "src host 192.0.2.2", "dst host 192.0.2.1", "host 192.0.2.1 or 10.0.0.1",
	"net 192.0.2.0/24", "src net 192.0.2", "dst net 10", "net 10.0.0.0 mask 255.0.0.0",
	"host 2001:db8::1", "net 2001:db8::/32", "ip6 src host 2001:db8::2", "dst net 2001:db8:0:1::/64",
	"port 4791", "src port 4791", "dst port 4791", "udp dst port 4791 and not src port 1",
	"tcp port 80", "port 80 or 443", "portrange 4790-4792", "udp portrange 1-1000", "tcp src portrange 20-80",
	"ether host 02:00:00:00:00:01", "ether src 02:00:00:00:00:02", "ether dst 02:00:00:00:00:01",
	"ether proto 0x8915", "ether proto \\ip6", "ether proto \\arp",
	"ip proto 17", "ip6 proto 17", "proto \\udp", "ip proto \\tcp", "proto 132",
	"less 100", "greater 1000",
	"not udp", "!(host 192.0.2.1 && port 4791)", "host 192.0.2.1 or host 192.0.2.2 and udp",
	"not tcp or udp and host 10.0.0.1", "src or dst host 192.0.2.1", "src and dst net 192.0.2.0/24",
	"(tcp or udp) and not (port 22 or port 4791)", "arp host 10.0.0.1", "ip host 192.0.2.1",
	"ip and not (src host 192.0.2.1 || dst host 10.0.0.1) and (port 4791 or icmp)",
	"udp port 4791 or ether proto 0x8915",
}

// tcpdumpProgram is tcpdump's compilation of expr for Ethernet (from a
// pcap file's link type, with no interface opened).
func tcpdumpProgram(t *testing.T, tcpdump, expr string) []bpf.Instruction {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "eth.pcap")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pcapfile.NewWriter(f, pcapfile.LinkTypeEthernet, Snaplen); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := exec.Command(tcpdump, "-r", file, "-ddd", expr).Output()
	if err != nil {
		t.Fatalf("tcpdump -ddd %q: %v", expr, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var raw []bpf.RawInstruction
	for _, l := range lines[1:] {
		var f [4]uint64
		for i, s := range strings.Fields(l) {
			if f[i], err = strconv.ParseUint(s, 10, 32); err != nil {
				t.Fatalf("tcpdump -ddd %q: line %q: %v", expr, l, err)
			}
		}
		raw = append(raw, bpf.RawInstruction{Op: uint16(f[0]), Jt: uint8(f[1]), Jf: uint8(f[2]), K: uint32(f[3])})
	}
	prog, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatalf("tcpdump -ddd %q: a program x/net/bpf cannot read", expr)
	}
	return prog
}

func needTcpdump(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("tcpdump")
	if err != nil {
		if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
			t.Fatal("tcpdump is not installed, and RDMALAB_REQUIRE_TOOLS=1 requires it (apt-get install tcpdump)")
		}
		t.Skip("tcpdump is not installed: skipping the comparison of capture filters with its compiler (set RDMALAB_REQUIRE_TOOLS=1 to make this a failure)")
	}
	return p
}

// Every filter keeps the frames tcpdump's compilation of it keeps, over
// the repository's captures and frames made to sit on each side of every
// test (addresses, ports, protocols, fragments, lengths): the two
// programs run on x/net/bpf's VM.
func TestFilterAgreesWithTcpdump(t *testing.T) {
	tcpdump := needTcpdump(t)
	frames := append(testdataFrames(t), madeFrames(3000)...)
	for _, expr := range filterCases {
		ours, err := CompileFilter(expr, Snaplen)
		if err != nil {
			t.Errorf("%q: %v", expr, err)
			continue
		}
		theirs := tcpdumpProgram(t, tcpdump, expr)
		kept := compare(t, expr, ours, theirs, frames)
		if kept == 0 || kept == len(frames) {
			t.Errorf("%q keeps %d of %d frames: the frames do not test it", expr, kept, len(frames))
		}
	}
	// The filter a capture attaches: the user's and RoCE's.
	for _, expr := range []string{"host 192.0.2.1", "not port 4791", "ip6 or arp", "src net 192.0.2.0/24 and less 300"} {
		ours, err := Program(expr, false)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, "Program "+expr, ours, tcpdumpProgram(t, tcpdump, "("+expr+") and ("+RoCEFilter+")"), frames)
	}
}

// compare runs both programs on every frame and returns how many ours
// keeps.
func compare(t *testing.T, expr string, ours, theirs []bpf.Instruction, frames [][]byte) int {
	t.Helper()
	vo, err := bpf.NewVM(ours)
	if err != nil {
		t.Fatalf("%q: our program: %v", expr, err)
	}
	vt, err := bpf.NewVM(theirs)
	if err != nil {
		t.Fatalf("%q: tcpdump's program: %v", expr, err)
	}
	kept, bad := 0, 0
	for i, fr := range frames {
		a, err1 := vo.Run(fr)
		b, err2 := vt.Run(fr)
		if err1 != nil || err2 != nil {
			t.Fatalf("%q frame %d: %v %v", expr, i, err1, err2)
		}
		if (a != 0) != (b != 0) && bad < 3 {
			bad++
			t.Errorf("%q frame %d (% x): ours %d, tcpdump %d", expr, i, fr[:min(len(fr), 64)], a, b)
		}
		if a != 0 {
			kept++
		}
	}
	return kept
}

func testdataFrames(t *testing.T) [][]byte {
	paths, err := filepath.Glob("../testdata/*.pcap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no captures in ../testdata: %v", err)
	}
	var frames [][]byte
	for _, p := range paths {
		r, err := pcapfile.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var rec pcapfile.Record
		for r.Next(&rec) == nil {
			if rec.LinkType == pcapfile.LinkTypeEthernet {
				frames = append(frames, append([]byte(nil), rec.Data...))
			}
		}
		r.Close()
	}
	return frames
}

// madeFrames are n frames drawn from small pools, so that each filter's
// every test meets frames on both sides of it.
func madeFrames(n int) [][]byte {
	rng := rand.New(rand.NewPCG(36, 4791))
	macs := []net.HardwareAddr{{2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 2}, {2, 0, 0, 0, 0, 3}}
	v4 := []net.IP{net.IPv4(192, 0, 2, 1), net.IPv4(192, 0, 2, 2), net.IPv4(10, 0, 0, 1), net.IPv4(10, 1, 2, 3), net.IPv4(198, 51, 100, 7)}
	v6 := []net.IP{net.ParseIP("2001:db8::1"), net.ParseIP("2001:db8::2"), net.ParseIP("2001:db8:0:1::5"), net.ParseIP("fe80::1")}
	ports := []uint16{4791, 80, 443, 22, 1, 1000, 20, 4790, 4792, 5000, 65535}
	pick := func(n int) int { return rng.IntN(n) }
	var frames [][]byte
	for len(frames) < n {
		eth := &layers.Ethernet{SrcMAC: macs[pick(3)], DstMAC: macs[pick(3)]}
		var ls []gopacket.SerializableLayer
		payload := gopacket.Payload(make([]byte, []int{0, 20, 60, 300, 1100}[pick(5)]))
		kind := pick(10)
		switch {
		case kind < 5: // IPv4
			eth.EthernetType = layers.EthernetTypeIPv4
			ip := &layers.IPv4{Version: 4, TTL: 64, SrcIP: v4[pick(5)], DstIP: v4[pick(5)]}
			if pick(8) == 0 {
				ip.FragOffset = 100
			}
			if pick(6) == 0 {
				ip.Options = []layers.IPv4Option{{OptionType: 1}, {OptionType: 1}, {OptionType: 1}, {OptionType: 0}}
			}
			ls = append(ls, eth, ip)
			ls = append(ls, transportLayers(rng, ports, ip, &ip.Protocol)...)
		case kind < 8: // IPv6
			eth.EthernetType = layers.EthernetTypeIPv6
			ip := &layers.IPv6{Version: 6, HopLimit: 64, SrcIP: v6[pick(4)], DstIP: v6[pick(4)]}
			ls = append(ls, eth, ip)
			if pick(6) == 0 {
				ip.NextHeader = layers.IPProtocolIPv6Fragment
				fr := &ipv6Frag{}
				ls = append(ls, fr)
				ls = append(ls, transportLayers(rng, ports, ip, &fr.next)...)
			} else {
				ls = append(ls, transportLayers(rng, ports, ip, &ip.NextHeader)...)
			}
		case kind < 9: // ARP or RARP
			eth.EthernetType = layers.EthernetTypeARP
			if pick(3) == 0 {
				eth.EthernetType = 0x8035
			}
			ls = append(ls, eth, &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
				HwAddressSize: 6, ProtAddressSize: 4, Operation: 1,
				SourceHwAddress: macs[pick(3)], SourceProtAddress: v4[pick(5)].To4(),
				DstHwAddress: macs[pick(3)], DstProtAddress: v4[pick(5)].To4()})
		default: // RoCEv1 or something else
			eth.EthernetType = []layers.EthernetType{0x8915, 0x88cc, 0x8100}[pick(3)]
			ls = append(ls, eth)
		}
		ls = append(ls, payload)
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ls...); err != nil {
			panic(err)
		}
		frames = append(frames, append([]byte(nil), buf.Bytes()...))
	}
	return frames
}

// ipv6Frag is an IPv6 fragment header (gopacket's does not serialize).
type ipv6Frag struct{ next layers.IPProtocol }

func (f *ipv6Frag) LayerType() gopacket.LayerType { return layers.LayerTypeIPv6Fragment }
func (f *ipv6Frag) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	h, err := b.PrependBytes(8)
	if err != nil {
		return err
	}
	h[0] = byte(f.next)
	binary.BigEndian.PutUint32(h[4:], 7)
	return nil
}

// transportLayers is a TCP, UDP, SCTP, ICMP or other header, its
// protocol number set in *proto.
func transportLayers(rng *rand.Rand, ports []uint16, nl gopacket.NetworkLayer, proto *layers.IPProtocol) []gopacket.SerializableLayer {
	sp, dp := ports[rng.IntN(len(ports))], ports[rng.IntN(len(ports))]
	switch rng.IntN(6) {
	case 0, 1:
		*proto = layers.IPProtocolUDP
		u := &layers.UDP{SrcPort: layers.UDPPort(sp), DstPort: layers.UDPPort(dp)}
		u.SetNetworkLayerForChecksum(nl)
		return []gopacket.SerializableLayer{u}
	case 2:
		*proto = layers.IPProtocolTCP
		return []gopacket.SerializableLayer{&layers.TCP{SrcPort: layers.TCPPort(sp), DstPort: layers.TCPPort(dp), DataOffset: 5}}
	case 3:
		*proto = layers.IPProtocolSCTP
		return []gopacket.SerializableLayer{&layers.SCTP{SrcPort: layers.SCTPPort(sp), DstPort: layers.SCTPPort(dp)}}
	case 4:
		if _, v6 := nl.(*layers.IPv6); v6 {
			*proto = layers.IPProtocolICMPv6
		} else {
			*proto = layers.IPProtocolICMPv4
		}
		return []gopacket.SerializableLayer{gopacket.Payload{8, 0, 0, 0, 0, 0, 0, 0}}
	}
	*proto = 47 // GRE: a protocol no filter names
	return nil
}

// What the compiler does not take it says, with the column.
func TestFilterErrors(t *testing.T) {
	for _, c := range []struct {
		expr string
		col  int
		says string
	}{
		{"vlan 100", 1, `"vlan" is not supported`},
		{"udp[8:2] = 0x1234", 4, "proto[offset:size]"},
		{"host example.com", 6, "host names are not resolved"},
		{"port domain", 6, "service names are not looked up"},
		{"host 10.0.0.1 and", 18, "ends where a primitive was wanted"},
		{"(udp or tcp", 12, "want ) to close the ( at column 1"},
		{"udp port 4791 tcp", 15, "want and, or or the end"},
		{"ether host 10.0.0.1", 12, "MAC address"},
		{"host 02:00:00:00:00:01", 6, "ether host 02:00:00:00:00:01"},
		{"ip6 host 10.0.0.1", 10, "an IPv4 address goes with ip"},
		{"icmp port 3", 11, "ports go with tcp, udp or sctp"},
		{"ether proto 100", 13, "802.3 length"},
		{"net 10.0.0.1/8", 5, "bits outside its prefix"},
		{"len > 100", 5, "a comparison is not supported"},
		{"len", 1, `"len" is not supported`},
		{"192.0.2.1", 1, "say host 192.0.2.1"},
	} {
		_, err := CompileFilter(c.expr, Snaplen)
		var fe *FilterError
		if !errors.As(err, &fe) {
			t.Errorf("%q: %v, want a FilterError", c.expr, err)
			continue
		}
		if fe.Col != c.col || !strings.Contains(fe.Msg, c.says) {
			t.Errorf("%q: column %d %q, want column %d saying %q", c.expr, fe.Col, fe.Msg, c.col, c.says)
		}
	}
}

// An empty filter keeps every frame; RoCE's alone is what Program gives
// without one.
func TestProgramDefaults(t *testing.T) {
	all, err := Program("", true)
	if err != nil || len(all) != 1 {
		t.Fatalf("Program(\"\", all) = %v, %v: want one ret", all, err)
	}
	roce, err := Program("", false)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := CompileFilter(RoCEFilter, Snaplen)
	if len(roce) != len(want) {
		t.Errorf("Program without a filter is %d instructions, RoCEFilter %d", len(roce), len(want))
	}
}
