package ib_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// icrcOf computes the ICRC of a decoded frame the way the decoder does.
func icrcOf(s *stack, decoded []gopacket.LayerType, frame []byte) (uint32, bool, error) {
	for _, lt := range decoded {
		switch lt {
		case layers.LayerTypeIPv4:
			c, err := ib.RoCEv2ICRC(frame[len(frame)-len(s.ip4.Contents)-len(s.ip4.Payload):][:len(s.ip4.Contents)+len(s.ip4.Payload)])
			return c, true, err
		case layers.LayerTypeIPv6:
			c, err := ib.RoCEv2ICRC(append(append([]byte(nil), s.ip6.Contents...), s.ip6.Payload...))
			return c, true, err
		case ib.LayerTypeGRH:
			c, err := ib.RoCEv1ICRC(append(append([]byte(nil), s.grh.Contents...), s.grh.Payload...))
			return c, true, err
		case ib.LayerTypeLRH:
			c, err := ib.NativeICRC(append(append([]byte(nil), s.lrh.Contents...), s.lrh.Payload...))
			return c, true, err
		}
	}
	return 0, false, nil
}

// TestICRCCaptures checks the ICRC of every InfiniBand packet of every
// capture, and the VCRC of native ones: all good, except in the sample
// whose ICRCs are known to be wrong.
func TestICRCCaptures(t *testing.T) {
	for _, path := range testutil.AllCaptures(t) {
		bad := strings.Contains(path, "icrc-mismatch")
		var good, total, vgood, vtotal int
		for _, f := range readFrames(t, path) {
			var s stack
			var decoded []gopacket.LayerType
			if err := s.parser(firstLayer(t, f)).DecodeLayers(f.data, &decoded); err != nil {
				t.Fatalf("%s frame %d: %v", path, f.n, err)
			}
			if s.bth.Contents == nil || !contains(decoded, ib.LayerTypeBTH) {
				continue
			}
			c, ok, err := icrcOf(&s, decoded, f.data)
			if !ok || err != nil {
				t.Fatalf("%s frame %d: %v", path, f.n, err)
			}
			total++
			if c == s.bth.ICRC {
				good++
			}
			if contains(decoded, ib.LayerTypeLRH) {
				vtotal++
				n := int(s.lrh.PktLen) * 4
				if ib.VCRC(append(append([]byte(nil), s.lrh.Contents...), s.lrh.Payload...)[:n]) == s.lrh.VCRC {
					vgood++
				}
			}
		}
		name := filepath.Base(path)
		switch {
		case total == 0:
			t.Errorf("%s: no InfiniBand packet", name)
		case bad && good != 0:
			t.Errorf("%s: %d of %d ICRCs verify; the sample's ICRCs are all wrong", name, good, total)
		case !bad && good != total:
			t.Errorf("%s: %d of %d ICRCs verify", name, good, total)
		case vgood != vtotal:
			t.Errorf("%s: %d of %d VCRCs verify", name, vgood, vtotal)
		}
		t.Logf("%s: ICRC %d/%d, VCRC %d/%d", name, good, total, vgood, vtotal)
	}
}

func contains(s []gopacket.LayerType, t gopacket.LayerType) bool {
	for _, x := range s {
		if x == t {
			return true
		}
	}
	return false
}

// referenceICRC is an independent, byte-by-byte statement of Annex A17's
// masking for RoCEv2 over IPv6, written without the package's helpers.
func referenceICRC(ip6 []byte) uint32 {
	m := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ip6[:len(ip6)-4]...)
	ip := m[8:]
	ip[0] |= 0x0f                          // traffic class, high nibble
	ip[1], ip[2], ip[3] = 0xff, 0xff, 0xff // traffic class low nibble, flow label
	ip[7] = 0xff                           // hop limit
	ip[40+6], ip[40+7] = 0xff, 0xff        // UDP checksum
	ip[40+8+4] = 0xff                      // BTH resv8a
	var le [4]byte
	binary.LittleEndian.PutUint32(le[:], crc32.ChecksumIEEE(m))
	return binary.BigEndian.Uint32(le[:])
}

// payloadLen is the payload of the i'th test packet: every length up to
// 100 (each remainder by 16, each side of the 64 bytes at which
// hash/crc32 turns to CLMUL, with the headers and without), then random.
func payloadLen(rng *rand.Rand, i int) int {
	if i <= 100 {
		return i
	}
	return rng.IntN(2048)
}

func TestRoCEv2ICRCIPv6(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 150; i++ {
		ip := &layers.IPv6{Version: 6, TrafficClass: uint8(rng.Uint32()), FlowLabel: rng.Uint32() & 0xfffff,
			HopLimit: uint8(rng.Uint32()), NextHeader: layers.IPProtocolUDP,
			SrcIP: bytes.Repeat([]byte{0xfe}, 16), DstIP: bytes.Repeat([]byte{0x20}, 16)}
		udp := &layers.UDP{SrcPort: layers.UDPPort(rng.Uint32()), DstPort: ib.UDPPortRoCEv2}
		bth := &ib.BTH{Opcode: ib.OpcodeRCSendOnly, PKey: 0xffff, DestQP: rng.Uint32() & 0xffffff,
			PSN: rng.Uint32() & 0xffffff, FECN: rng.IntN(2) == 0, Reserved: uint8(rng.IntN(64))}
		pay := make([]byte, payloadLen(rng, i))
		for j := range pay {
			pay[j] = byte(rng.Uint32())
		}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ip, udp, bth, gopacket.Payload(pay)); err != nil {
			t.Fatal(err)
		}
		pkt := buf.Bytes()
		got, err := ib.RoCEv2ICRC(pkt)
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceICRC(pkt); got != want {
			t.Fatalf("packet %d: ICRC 0x%08x, reference 0x%08x", i, got, want)
		}
		if err := ib.SetRoCEv2ICRC(pkt); err != nil || ib.ICRCAt(pkt) != got {
			t.Fatalf("SetRoCEv2ICRC wrote 0x%08x (%v)", ib.ICRCAt(pkt), err)
		}
	}
}

// referenceICRC4 is referenceICRC for RoCEv2 over IPv4, options included.
func referenceICRC4(ip4 []byte) uint32 {
	ihl := int(ip4[0]&0xf) * 4
	m := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ip4[:len(ip4)-4]...)
	ip := m[8:]
	ip[1] = 0xff                      // TOS
	ip[8] = 0xff                      // TTL
	ip[10], ip[11] = 0xff, 0xff       // header checksum
	ip[ihl+6], ip[ihl+7] = 0xff, 0xff // UDP checksum
	ip[ihl+8+4] = 0xff                // BTH resv8a
	var le [4]byte
	binary.LittleEndian.PutUint32(le[:], crc32.ChecksumIEEE(m))
	return binary.BigEndian.Uint32(le[:])
}

// The ICRC over IPv4 with and without options, short and long payloads
// (the CRC's fast path starts at 64 bytes), against the reference.
func TestRoCEv2ICRCIPv4(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var c ib.Checker // reused: nothing of one packet may stay for the next
	for i := 0; i < 200; i++ {
		ip := &layers.IPv4{Version: 4, TOS: uint8(rng.Uint32()), TTL: uint8(rng.Uint32()), Id: uint16(rng.Uint32()),
			Protocol: layers.IPProtocolUDP, SrcIP: []byte{192, 0, 2, 1}, DstIP: []byte{192, 0, 2, 2}}
		if i%3 == 0 {
			ip.Options = []layers.IPv4Option{{OptionType: 0x94, OptionLength: 4, OptionData: []byte{0, 0}}}
		}
		udp := &layers.UDP{SrcPort: layers.UDPPort(rng.Uint32()), DstPort: ib.UDPPortRoCEv2}
		if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
			t.Fatal(err)
		}
		bth := &ib.BTH{Opcode: ib.OpcodeRCSendOnly, PKey: 0xffff, DestQP: rng.Uint32() & 0xffffff,
			PSN: rng.Uint32() & 0xffffff, BECN: rng.IntN(2) == 0, Reserved: uint8(rng.IntN(64))}
		pay := make([]byte, payloadLen(rng, i))
		for j := range pay {
			pay[j] = byte(rng.Uint32())
		}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, udp, bth, gopacket.Payload(pay)); err != nil {
			t.Fatal(err)
		}
		pkt := buf.Bytes()
		got, err := ib.RoCEv2ICRC(pkt)
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceICRC4(pkt); got != want {
			t.Fatalf("packet %d (IHL %d, %d bytes): ICRC 0x%08x, reference 0x%08x", i, pkt[0]&0xf, len(pkt), got, want)
		}
		if again, _ := c.RoCEv2ICRC(pkt); again != got {
			t.Fatalf("packet %d: a Checker says 0x%08x, RoCEv2ICRC 0x%08x", i, again, got)
		}
	}
}

// BenchmarkRoCEv2ICRC is the ICRC of RoCEv2 packets: an acknowledge (the
// 4-byte AETH), an RPC-sized Send, and 1 KiB and 4 KiB payloads with 0
// and 12 bytes over a multiple of 16.
func BenchmarkRoCEv2ICRC(b *testing.B) {
	for _, n := range []int{4, 204, 1024, 1036, 4108} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: []byte{192, 0, 2, 1}, DstIP: []byte{192, 0, 2, 2}}
			udp := &layers.UDP{SrcPort: 49152, DstPort: ib.UDPPortRoCEv2}
			bth := &ib.BTH{Opcode: ib.OpcodeRCSendOnly, PKey: 0xffff, DestQP: 0x11}
			buf := gopacket.NewSerializeBuffer()
			if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, ip, udp, bth, gopacket.Payload(make([]byte, n))); err != nil {
				b.Fatal(err)
			}
			pkt := buf.Bytes()
			b.SetBytes(int64(len(pkt)))
			b.ReportAllocs()
			var c ib.Checker
			for b.Loop() {
				if _, err := c.RoCEv2ICRC(pkt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNativeCRCsRoundTrip serializes a native packet and lets
// SetNativeCRCs fill both CRCs.
func TestNativeCRCsRoundTrip(t *testing.T) {
	lrh := &ib.LRH{VL: 2, SL: 3, LNH: ib.LNHIBALocal, DLID: 5, SLID: 9}
	bth := &ib.BTH{Opcode: ib.OpcodeRCAcknowledge, PKey: 0xffff, DestQP: 0x29, PSN: 77, AETH: ib.AETH{Syndrome: 0x1f, MSN: 3}}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, lrh, bth); err != nil {
		t.Fatal(err)
	}
	pkt := buf.Bytes()
	if err := ib.SetNativeCRCs(pkt); err != nil {
		t.Fatal(err)
	}
	var s stack
	var decoded []gopacket.LayerType
	if err := s.parser(ib.LayerTypeLRH).DecodeLayers(pkt, &decoded); err != nil {
		t.Fatal(err)
	}
	body := pkt[:len(pkt)-2]
	if c, _ := ib.NativeICRC(body); c != s.bth.ICRC || ib.VCRC(body) != s.lrh.VCRC || !s.lrh.HasVCRC {
		t.Errorf("ICRC 0x%08x/0x%08x, VCRC 0x%04x/0x%04x", s.bth.ICRC, c, s.lrh.VCRC, ib.VCRC(body))
	}
	if int(s.lrh.PktLen)*4 != len(body) || s.bth.AETH.MSN != 3 {
		t.Errorf("PktLen %d, body %d, AETH %+v", s.lrh.PktLen, len(body), s.bth.AETH)
	}
	if want := bits.ReverseBytes16(0); s.lrh.VCRC == want {
		t.Error("VCRC not written")
	}
}

// scapyICRC recomputes, with scapy, the ICRC of every RoCEv2/IPv4 packet
// of a pcap file and prints "frame icrc" lines.
const scapyICRC = `
import sys
from scapy.all import rdpcap, raw, Ether
from scapy.contrib.roce import BTH
for i, p in enumerate(rdpcap(sys.argv[1]), 1):
    if BTH not in p or not p.haslayer('IP'):
        continue
    q = Ether(raw(p))
    q[BTH].icrc = None
    print(i, raw(q)[-4:].hex())
`

// TestICRCMatchesScapy cross-checks the RoCEv2 ICRC with Debian's scapy
// (scapy.contrib.roce, IPv4 only) on the kernel captures and on random
// packets whose masked fields (TOS, TTL, checksums, F/B/Resv6a) vary.
func TestICRCMatchesScapy(t *testing.T) {
	py := testutil.ScapyPython(t)
	dir := t.TempDir()
	synth := filepath.Join(dir, "synthetic.pcap")
	writeSynthetic(t, synth)
	paths := []string{synth}
	for _, n := range testutil.KernelCaptures() {
		paths = append(paths, testutil.Capture(t, n))
	}
	for _, path := range paths {
		out, err := exec.Command(py, "-c", scapyICRC, path).Output()
		if err != nil {
			t.Fatalf("scapy on %s: %v", path, err)
		}
		frames := readFrames(t, path)
		checked := 0
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var n int
			var hexICRC string
			if _, err := fmt.Sscanf(sc.Text(), "%d %s", &n, &hexICRC); err != nil {
				t.Fatalf("scapy output %q: %v", sc.Text(), err)
			}
			f := frames[n-1]
			ours, err := ib.RoCEv2ICRC(f.data[14:ipEnd(f.data)])
			if err != nil {
				t.Fatalf("%s frame %d: %v", path, n, err)
			}
			if got := fmt.Sprintf("%08x", ours); got != hexICRC {
				t.Errorf("%s frame %d: ICRC %s, scapy %s", filepath.Base(path), n, got, hexICRC)
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: scapy found no RoCEv2 packet", path)
		}
		t.Logf("%s: %d ICRCs agree with scapy", filepath.Base(path), checked)
	}
}

// ipEnd returns the end of the IPv4 packet in an Ethernet frame.
func ipEnd(frame []byte) int { return 14 + int(binary.BigEndian.Uint16(frame[16:])) }

// writeSynthetic writes RoCEv2 packets with random masked fields and
// payloads, their ICRCs set by SetRoCEv2ICRC.
func writeSynthetic(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapfile.NewWriter(f, pcapfile.LinkTypeEthernet, 65536)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	ops := []ib.Opcode{ib.OpcodeRCSendOnly, ib.OpcodeRCWriteFirst, ib.OpcodeRCReadRequest, ib.OpcodeRCAcknowledge,
		ib.OpcodeRCSendLastImm, ib.OpcodeRCSendOnlyInv, ib.OpcodeRCCompareSwap, ib.OpcodeUDSendOnly, ib.OpcodeCNP}
	for i := 0; i < 200; i++ {
		eth := &layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, 1}, DstMAC: []byte{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, IHL: 5, TOS: uint8(rng.Uint32()), TTL: uint8(rng.Uint32()), Id: uint16(rng.Uint32()),
			Protocol: layers.IPProtocolUDP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}}
		udp := &layers.UDP{SrcPort: layers.UDPPort(rng.Uint32()), DstPort: ib.UDPPortRoCEv2}
		bth := &ib.BTH{Opcode: ops[rng.IntN(len(ops))], PKey: uint16(rng.Uint32()), DestQP: rng.Uint32() & 0xffffff,
			PSN: rng.Uint32() & 0xffffff, FECN: rng.IntN(2) == 0, BECN: rng.IntN(2) == 0, Reserved: uint8(rng.IntN(64)),
			A: rng.IntN(2) == 0, SE: rng.IntN(2) == 0,
			RETH: ib.RETH{VA: rng.Uint64(), RKey: rng.Uint32(), DMALen: rng.Uint32()}}
		pay := make([]byte, rng.IntN(100))
		for j := range pay {
			pay[j] = byte(rng.Uint32())
		}
		if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
			t.Fatal(err)
		}
		buf := gopacket.NewSerializeBuffer()
		opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
		if err := gopacket.SerializeLayers(buf, opts, eth, ip, udp, bth, gopacket.Payload(pay)); err != nil {
			t.Fatal(err)
		}
		frame := buf.Bytes()
		binary.BigEndian.PutUint16(frame[14+20+6:], uint16(rng.Uint32())) // any UDP checksum: masked
		if err := ib.SetRoCEv2ICRC(frame[14:]); err != nil {
			t.Fatal(err)
		}
		ci := gopacket.CaptureInfo{CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
}
