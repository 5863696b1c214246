package decode

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// TestLinkTypes decodes one RoCE or InfiniBand SEND in every encapsulation
// and link type rdmalab reads, in pcap, pcapng and gzip-compressed files.
func TestLinkTypes(t *testing.T) {
	mac := func(b byte) []byte { return []byte{2, 0, 0, 0, 0, b} }
	send := func() *ib.BTH { return &ib.BTH{Opcode: ib.OpcodeRCSendOnly, PKey: 0xffff, DestQP: 0x11, PSN: 9} }
	ip4 := func() gopacket.SerializableLayer {
		return &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}}
	}
	ip6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolUDP, SrcIP: make([]byte, 16), DstIP: make([]byte, 16)}
	udp6 := &layers.UDP{SrcPort: 69, DstPort: ib.UDPPortRoCEv2}
	udp6.SetNetworkLayerForChecksum(ip6)
	udp := func() gopacket.SerializableLayer { return &layers.UDP{SrcPort: 53, DstPort: ib.UDPPortRoCEv2} }
	pay := gopacket.Payload("payload!")
	// Linux cooked v1: gopacket's LinuxSLL does not serialize.
	sll := []byte{0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00}
	cases := []struct {
		name   string
		lt     pcapfile.LinkType
		encap  frame.Encap
		ls     []gopacket.SerializableLayer
		prefix []byte
	}{
		{"Ethernet IPv4", pcapfile.LinkTypeEthernet, frame.EncapRoCEv2, []gopacket.SerializableLayer{
			&layers.Ethernet{SrcMAC: mac(1), DstMAC: mac(2), EthernetType: layers.EthernetTypeIPv4}, ip4(), udp(), send(), pay}, nil},
		{"VLAN IPv6, source port 69", pcapfile.LinkTypeEthernet, frame.EncapRoCEv2, []gopacket.SerializableLayer{
			&layers.Ethernet{SrcMAC: mac(1), DstMAC: mac(2), EthernetType: layers.EthernetTypeDot1Q},
			&layers.Dot1Q{VLANIdentifier: 3, Type: layers.EthernetTypeIPv6}, ip6, udp6, send(), pay}, nil},
		{"Linux SLL", pcapfile.LinkTypeLinuxSLL, frame.EncapRoCEv2, []gopacket.SerializableLayer{ip4(), udp(), send(), pay}, sll},
		{"Linux SLL2", pcapfile.LinkTypeLinuxSLL2, frame.EncapRoCEv2, []gopacket.SerializableLayer{
			&ib.LinuxSLL2{ProtocolType: layers.EthernetTypeIPv4, InterfaceIndex: 2, ARPHRDType: 1, AddrLen: 6}, ip4(), udp(), send(), pay}, nil},
		{"raw IP", pcapfile.LinkTypeRaw, frame.EncapRoCEv2, []gopacket.SerializableLayer{ip4(), udp(), send(), pay}, nil},
		{"RoCEv1", pcapfile.LinkTypeEthernet, frame.EncapRoCEv1, []gopacket.SerializableLayer{
			&layers.Ethernet{SrcMAC: mac(1), DstMAC: mac(2), EthernetType: ib.EthernetTypeRoCEv1},
			&ib.GRH{IPVer: 6, NxtHdr: ib.NxtHdrIBA, HopLmt: 1}, send(), pay}, nil},
		{"InfiniBand", pcapfile.LinkTypeInfiniBand, frame.EncapNative, []gopacket.SerializableLayer{
			&ib.LRH{LNH: ib.LNHIBALocal, DLID: 1, SLID: 2}, send(), pay}, nil},
		{"ERF InfiniBand", pcapfile.LinkTypeERF, frame.EncapNative, []gopacket.SerializableLayer{
			&ib.ERF{Type: ib.ERFTypeInfiniBand}, &ib.LRH{LNH: ib.LNHIBAGlobal, DLID: 1, SLID: 2},
			&ib.GRH{IPVer: 6, NxtHdr: ib.NxtHdrIBA}, send(), pay}, nil},
	}
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	for _, tc := range cases {
		buf := gopacket.NewSerializeBuffer()
		if err := ib.SerializeLayers(buf, opts, tc.ls...); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fr := append(append([]byte(nil), tc.prefix...), buf.Bytes()...)
		ci := gopacket.CaptureInfo{CaptureLength: len(fr), Length: len(fr)}
		var pcap, ng bytes.Buffer
		w, _ := pcapfile.NewWriter(&pcap, tc.lt, 65536)
		w.WritePacket(ci, fr)
		nw, _ := pcapfile.NewNgWriter(&ng, tc.lt)
		nw.WritePacket(0, ci, fr)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(ng.Bytes())
		zw.Close()
		for kind, file := range map[string][]byte{"pcap": pcap.Bytes(), "pcapng": ng.Bytes(), "pcapng.gz": gz.Bytes()} {
			path := filepath.Join(t.TempDir(), "x."+kind)
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			d := decodeFile(t, path)
			p := d.packets[0]
			if p.Err != nil || p.BTH == nil || p.Encap != tc.encap || p.ICRC.State != frame.CRCGood ||
				string(p.BTH.Payload) != "payload!" || (tc.encap == frame.EncapNative) != (p.VCRC.State == frame.CRCGood) {
				t.Errorf("%s (%s): encap %v, ICRC %v, VCRC %v, error %v", tc.name, kind, p.Encap, p.ICRC.State, p.VCRC.State, p.Err)
			}
		}
	}
}
