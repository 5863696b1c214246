package ib_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Frame 6 of rdmacm-rping.pcap: rping's server pulls the client's buffer.
//
//	0000  52 54 00 12 34 02 52 54 00 12 34 01 08 00 45 00   Ethernet, IPv4
//	0020  02 02 f8 02 12 b7 00 28 00 00 0c 00 ff ff 00 00   UDP 63490 → 4791, BTH opcode 12
//	0030  00 13 80 0d 46 22 00 00 55 f9 cb bc a9 c0 00 00   QP 0x13, A, PSN 0x0d4622, RETH VA
//	0040  07 f2 00 00 01 00 5b d1 6e 18                     R_Key 0x7f2, DMA length 256, ICRC
const readRequestDump = `
0000  52 54 00 12 34 02 52 54 00 12 34 01 08 00 45 00
0010  00 3c e1 01 40 00 40 11 d5 ab c0 00 02 01 c0 00
0020  02 02 f8 02 12 b7 00 28 00 00 0c 00 ff ff 00 00
0030  00 13 80 0d 46 22 00 00 55 f9 cb bc a9 c0 00 00
0040  07 f2 00 00 01 00 5b d1 6e 18
`

// Frame 5 of the same capture: the ACK of the client's first SEND.
const ackDump = `
0000  52 54 00 12 34 02 52 54 00 12 34 01 08 00 45 00
0010  00 30 e1 00 40 00 40 11 d5 b8 c0 00 02 01 c0 00
0020  02 02 f8 02 12 b7 00 1c 00 00 11 00 ff ff 00 00
0030  00 13 00 7b 68 96 1f 00 00 01 e3 a4 c8 56
`

func TestBTHReadRequestFixture(t *testing.T) {
	var s stack
	var decoded []gopacket.LayerType
	if err := s.parser(layers.LayerTypeEthernet).DecodeLayers(unhex(t, readRequestDump), &decoded); err != nil {
		t.Fatal(err)
	}
	want := []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, ib.LayerTypeBTH}
	if !reflect.DeepEqual(decoded, want) {
		t.Fatalf("decoded %v, want %v", decoded, want)
	}
	b := s.bth
	b.BaseLayer, b.RETH.BaseLayer, b.Pad = layers.BaseLayer{}, layers.BaseLayer{}, nil
	wantBTH := ib.BTH{Opcode: ib.OpcodeRCReadRequest, PKey: 0xffff, DestQP: 0x13, A: true, PSN: 0x0d4622,
		Headers: ib.HasRETH, RETH: ib.RETH{VA: 0x55f9cbbca9c0, RKey: 0x7f2, DMALen: 256}, ICRC: 0x5bd16e18}
	if !reflect.DeepEqual(b, wantBTH) {
		t.Errorf("BTH\n got %+v\nwant %+v", b, wantBTH)
	}
	if len(s.bth.Payload) != 0 || len(s.bth.Contents) != ib.BTHLen {
		t.Errorf("payload %d bytes, contents %d", len(s.bth.Payload), len(s.bth.Contents))
	}
}

// TestNewPacketAddsExtensionLayers checks the registry path: each
// extension header becomes a layer of its own.
func TestNewPacketAddsExtensionLayers(t *testing.T) {
	p := gopacket.NewPacket(unhex(t, readRequestDump), layers.LayerTypeEthernet, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatal(el.Error())
	}
	var got []gopacket.LayerType
	for _, l := range p.Layers() {
		got = append(got, l.LayerType())
	}
	want := []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP, ib.LayerTypeBTH, ib.LayerTypeRETH}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("layers %v, want %v", got, want)
	}
	reth := p.Layer(ib.LayerTypeRETH).(*ib.RETH)
	if reth.RKey != 0x7f2 || reth.DMALen != 256 {
		t.Errorf("RETH %+v", reth)
	}
	if s := gopacket.LayerString(p.Layer(ib.LayerTypeBTH)); !bytes.Contains([]byte(s), []byte("Reliable Connection (RC) - RDMA READ Request")) {
		t.Errorf("LayerString does not name the opcode:\n%s", s)
	}
}

// TestDecodeTwoPacketsIntoOneStruct decodes a READ request and then an ACK
// into the same layers: nothing of the first may survive.
func TestDecodeTwoPacketsIntoOneStruct(t *testing.T) {
	var s stack
	var decoded []gopacket.LayerType
	p := s.parser(layers.LayerTypeEthernet)
	if err := p.DecodeLayers(unhex(t, readRequestDump), &decoded); err != nil {
		t.Fatal(err)
	}
	if err := p.DecodeLayers(unhex(t, ackDump), &decoded); err != nil {
		t.Fatal(err)
	}
	b := s.bth
	if b.Opcode != ib.OpcodeRCAcknowledge || b.Headers != ib.HasAETH || b.A || b.PSN != 0x7b6896 {
		t.Errorf("BTH after the ACK: %+v", b)
	}
	if !reflect.DeepEqual(b.RETH, ib.RETH{}) {
		t.Errorf("RETH of the READ request survived: %+v", b.RETH)
	}
	if b.AETH.Syndrome != 0x1f || b.AETH.MSN != 1 {
		t.Errorf("AETH %+v", b.AETH)
	}
}

// TestRoundTripCaptures decodes every frame of every capture and serializes
// the layers again: the bytes must come back unchanged.
func TestRoundTripCaptures(t *testing.T) {
	for _, path := range testutil.AllCaptures(t) {
		n := 0
		for _, f := range readFrames(t, path) {
			var s stack
			var decoded []gopacket.LayerType
			if err := s.parser(firstLayer(t, f)).DecodeLayers(f.data, &decoded); err != nil {
				t.Fatalf("%s frame %d: %v", path, f.n, err)
			}
			var ls []gopacket.SerializableLayer
			var last gopacket.Layer
			hasBTH := false
			for _, lt := range decoded {
				l := s.layer(lt)
				if l == nil {
					break
				}
				hasBTH = hasBTH || lt == ib.LayerTypeBTH
				ls = append(ls, l)
				last = l.(gopacket.Layer)
			}
			if !hasBTH {
				continue
			}
			if pay := last.LayerPayload(); len(pay) > 0 && last.LayerType() != ib.LayerTypeCMReq &&
				last.LayerType() != ib.LayerTypeCMRep && last.LayerType() != ib.LayerTypeCMRtu &&
				last.LayerType() != ib.LayerTypeCMDreq && last.LayerType() != ib.LayerTypeCMDrep {
				ls = append(ls, gopacket.Payload(pay))
			}
			buf := gopacket.NewSerializeBuffer()
			if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, ls...); err != nil {
				t.Fatalf("%s frame %d: %v", path, f.n, err)
			}
			got, want := buf.Bytes(), f.data[:len(buf.Bytes())]
			if !bytes.Equal(got, want) {
				t.Errorf("%s frame %d (%v): round trip differs\n got %x\nwant %x", path, f.n, decoded, got, want)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no InfiniBand frame", path)
		}
	}
}

// TestSerializeFixLengths builds a RoCEv2 RDMA WRITE Only with Immediate
// from nothing: lengths and pad come from FixLengths, the ICRC from
// SetRoCEv2ICRC.
func TestSerializeFixLengths(t *testing.T) {
	eth := &layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, 1}, DstMAC: []byte{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, Flags: layers.IPv4DontFragment,
		SrcIP: []byte{192, 0, 2, 1}, DstIP: []byte{192, 0, 2, 2}}
	udp := &layers.UDP{SrcPort: 49152, DstPort: ib.UDPPortRoCEv2}
	bth := &ib.BTH{Opcode: ib.OpcodeRCWriteOnlyImm, PKey: 0xffff, DestQP: 0x11, A: true, PSN: 7,
		RETH: ib.RETH{VA: 0x1000, RKey: 0x42, DMALen: 5}, ImmDt: ib.ImmDt{Data: 0xdeadbeef}}
	payload := gopacket.Payload("hello")
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, eth, ip, udp, bth, payload); err != nil {
		t.Fatal(err)
	}
	frame := buf.Bytes()
	frame[14+20+6], frame[14+20+7] = 0, 0 // RoCEv2 senders leave the UDP checksum zero
	if err := ib.SetRoCEv2ICRC(frame[14:]); err != nil {
		t.Fatal(err)
	}
	if bth.PadCnt != 3 {
		t.Errorf("PadCnt %d, want 3", bth.PadCnt)
	}
	var s stack
	var decoded []gopacket.LayerType
	if err := s.parser(layers.LayerTypeEthernet).DecodeLayers(frame, &decoded); err != nil {
		t.Fatal(err)
	}
	b := &s.bth
	if b.Headers != ib.HasRETH|ib.HasImmDt || b.RETH.DMALen != 5 || b.ImmDt.Data != 0xdeadbeef ||
		string(b.Payload) != "hello" || len(b.Pad) != 3 {
		t.Errorf("decoded %+v payload %q", b, b.Payload)
	}
	if int(s.udp.Length) != 8+ib.BTHLen+ib.RETHLen+ib.ImmDtLen+8+ib.ICRCLen {
		t.Errorf("UDP length %d", s.udp.Length)
	}
	c, err := ib.RoCEv2ICRC(frame[14:])
	if err != nil || c != b.ICRC {
		t.Errorf("ICRC 0x%08x on the wire, 0x%08x computed (%v)", b.ICRC, c, err)
	}
}

func TestOpcodes(t *testing.T) {
	known := 0
	for i := 0; i < 256; i++ {
		if ib.Opcode(i).Known() {
			known++
		}
	}
	// RC 25 (0x00-0x14, 0x16, 0x17, FLUSH, ATOMIC WRITE), UC 12, RD 22, UD 2, CNP 1, XRC 23.
	if known != 25+12+22+2+1+23 {
		t.Errorf("%d known opcodes", known)
	}
	tests := []struct {
		op   ib.Opcode
		name string
		hdrs ib.Headers
		pos  ib.Position
	}{
		{0x04, "Reliable Connection (RC) - SEND Only", 0, ib.PosOnly},
		{0x0b, "Reliable Connection (RC) - RDMA WRITE Only with Immediate", ib.HasRETH | ib.HasImmDt, ib.PosOnly},
		{0x0d, "Reliable Connection (RC) - RDMA READ response First", ib.HasAETH, ib.PosFirst},
		{0x0e, "Reliable Connection (RC) - RDMA READ response Middle", 0, ib.PosMiddle},
		{0x12, "Reliable Connection (RC) - ATOMIC Acknowledge", ib.HasAETH | ib.HasAtomicAckETH, ib.PosOnly},
		{0x13, "Reliable Connection (RC) - CmpSwap", ib.HasAtomicETH, ib.PosOnly},
		{0x17, "Reliable Connection (RC) - SEND Only with Invalidate", ib.HasIETH, ib.PosOnly},
		{0x1c, "Reliable Connection (RC) - FLUSH", ib.HasFETH | ib.HasRETH, ib.PosOnly},
		{0x2b, "Unreliable Connection (UC) - RDMA WRITE Only with Immediate", ib.HasRETH | ib.HasImmDt, ib.PosOnly},
		{0x4b, "Reliable Datagram (RD) - RDMA WRITE Only with Immediate", ib.HasRDETH | ib.HasDETH | ib.HasRETH | ib.HasImmDt, ib.PosOnly},
		{0x4d, "Reliable Datagram (RD) - RDMA READ response First", ib.HasRDETH | ib.HasAETH, ib.PosFirst},
		{0x52, "Reliable Datagram (RD) - ATOMIC Acknowledge", ib.HasRDETH | ib.HasAETH | ib.HasAtomicAckETH, ib.PosOnly},
		{0x55, "Reliable Datagram (RD) - RESYNC", ib.HasRDETH | ib.HasDETH, ib.PosOnly},
		{0x64, "Unreliable Datagram (UD) - SEND only", ib.HasDETH, ib.PosOnly},
		{0x65, "Unreliable Datagram (UD) - SEND only with Immediate", ib.HasDETH | ib.HasImmDt, ib.PosOnly},
		{0x81, "CNP", 0, ib.PosNone},
		{0xa6, "Extended Reliable Connection (XRC) - RDMA WRITE First", ib.HasXRCETH | ib.HasRETH, ib.PosFirst},
		{0xb1, "Extended Reliable Connection (XRC) - Acknowledge", ib.HasAETH, ib.PosOnly},
		{0xb7, "Extended Reliable Connection (XRC) - SEND Only with Invalidate", ib.HasXRCETH | ib.HasIETH, ib.PosOnly},
		{0x15, "Reliable Connection (RC) - Reserved", 0, ib.PosNone},
	}
	for _, tc := range tests {
		if got := tc.op.String(); got != tc.name {
			t.Errorf("opcode %#x: %q, want %q", uint8(tc.op), got, tc.name)
		}
		if got := tc.op.Headers(); got != tc.hdrs {
			t.Errorf("opcode %#x: headers %v, want %v", uint8(tc.op), got, tc.hdrs)
		}
		if got := tc.op.Position(); got != tc.pos {
			t.Errorf("opcode %#x: position %v, want %v", uint8(tc.op), got, tc.pos)
		}
	}
}

func TestSyndrome(t *testing.T) {
	tests := []struct {
		s    ib.Syndrome
		want string
	}{
		{0x1f, "ACK"},
		{0x05, "ACK, 6 credits"},
		{0x2e, "RNR NAK, timer 1.28 ms"},
		{0x20, "RNR NAK, timer 655.36 ms"},
		{0x60, "NAK: PSN Sequence Error"},
		{0x62, "NAK: Remote Access Error"},
		{0x40, "reserved syndrome 0x40"},
	}
	for _, tc := range tests {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("syndrome %#02x: %q, want %q", uint8(tc.s), got, tc.want)
		}
	}
	if !ib.Syndrome(0x61).IsNAK() || ib.Syndrome(0x1f).IsNAK() || !ib.Syndrome(0x21).IsNAK() {
		t.Error("IsNAK")
	}
}

// TestSerializeLayersComputesCRCs builds RoCEv2 (IPv4 and IPv6, in a
// VLAN), RoCEv1 and native packets with ib.SerializeLayers: every CRC
// checks, and IPv6's UDP checksum too.
func TestSerializeLayersComputesCRCs(t *testing.T) {
	mac := func(b byte) []byte { return []byte{2, 0, 0, 0, 0, b} }
	bth := func() *ib.BTH {
		return &ib.BTH{Opcode: ib.OpcodeRCSendOnly, PKey: 0xffff, DestQP: 0x11, PSN: 9}
	}
	pay := gopacket.Payload("some RPC")
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}

	ip4 := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}}
	udp4 := &layers.UDP{SrcPort: 1234, DstPort: ib.UDPPortRoCEv2}
	udp4.SetNetworkLayerForChecksum(ip4)
	ip6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolUDP, SrcIP: make([]byte, 16), DstIP: make([]byte, 16)}
	ip6.SrcIP[15], ip6.DstIP[15] = 1, 2
	udp6 := &layers.UDP{SrcPort: 1234, DstPort: ib.UDPPortRoCEv2}
	udp6.SetNetworkLayerForChecksum(ip6)

	cases := []struct {
		name  string
		first gopacket.LayerType
		ls    []gopacket.SerializableLayer
	}{
		{"RoCEv2/IPv4", layers.LayerTypeEthernet, []gopacket.SerializableLayer{
			&layers.Ethernet{SrcMAC: mac(1), DstMAC: mac(2), EthernetType: layers.EthernetTypeIPv4}, ip4, udp4, bth(), pay}},
		{"RoCEv2/IPv6 in a VLAN", layers.LayerTypeEthernet, []gopacket.SerializableLayer{
			&layers.Ethernet{SrcMAC: mac(1), DstMAC: mac(2), EthernetType: layers.EthernetTypeDot1Q},
			&layers.Dot1Q{VLANIdentifier: 7, Type: layers.EthernetTypeIPv6}, ip6, udp6, bth(), pay}},
		{"RoCEv1", layers.LayerTypeEthernet, []gopacket.SerializableLayer{
			&layers.Ethernet{SrcMAC: mac(1), DstMAC: mac(2), EthernetType: ib.EthernetTypeRoCEv1},
			&ib.GRH{IPVer: 6, NxtHdr: ib.NxtHdrIBA, HopLmt: 1}, bth(), pay}},
		{"native", ib.LayerTypeLRH, []gopacket.SerializableLayer{
			&ib.LRH{LNH: ib.LNHIBALocal, DLID: 1, SLID: 2}, bth(), pay}},
	}
	for _, tc := range cases {
		buf := gopacket.NewSerializeBuffer()
		if err := ib.SerializeLayers(buf, opts, tc.ls...); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		p := gopacket.NewPacket(buf.Bytes(), tc.first, gopacket.Default)
		if el := p.ErrorLayer(); el != nil {
			t.Fatalf("%s: %v", tc.name, el.Error())
		}
		b := p.Layer(ib.LayerTypeBTH).(*ib.BTH)
		var want uint32
		var err error
		switch {
		case p.Layer(layers.LayerTypeIPv4) != nil:
			l := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
			want, err = ib.RoCEv2ICRC(append(l.Contents, l.Payload...))
			if u := p.Layer(layers.LayerTypeUDP).(*layers.UDP); u.Checksum != 0 {
				t.Errorf("%s: UDP checksum 0x%04x, want 0", tc.name, u.Checksum)
			}
		case p.Layer(layers.LayerTypeIPv6) != nil:
			l := p.Layer(layers.LayerTypeIPv6).(*layers.IPv6)
			want, err = ib.RoCEv2ICRC(append(l.Contents, l.Payload...))
			u := p.Layer(layers.LayerTypeUDP).(*layers.UDP)
			check := *u
			check.SetNetworkLayerForChecksum(l)
			vb := gopacket.NewSerializeBuffer()
			if e := gopacket.SerializeLayers(vb, gopacket.SerializeOptions{ComputeChecksums: true}, &check, gopacket.Payload(u.Payload)); e != nil || check.Checksum != u.Checksum {
				t.Errorf("%s: UDP checksum 0x%04x, want 0x%04x (%v)", tc.name, u.Checksum, check.Checksum, e)
			}
		case p.Layer(ib.LayerTypeGRH) != nil:
			g := p.Layer(ib.LayerTypeGRH).(*ib.GRH)
			want, err = ib.RoCEv1ICRC(append(g.Contents, g.Payload...))
		default:
			l := p.Layer(ib.LayerTypeLRH).(*ib.LRH)
			body := append(l.Contents, l.Payload...)
			want, err = ib.NativeICRC(body)
			if ib.VCRC(body) != l.VCRC {
				t.Errorf("%s: VCRC 0x%04x, want 0x%04x", tc.name, l.VCRC, ib.VCRC(body))
			}
		}
		if err != nil || want != b.ICRC || string(b.Payload) != "some RPC" {
			t.Errorf("%s: ICRC 0x%08x, want 0x%08x (%v), payload %q", tc.name, b.ICRC, want, err, b.Payload)
		}
	}
}
