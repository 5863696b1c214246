package ib_test

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// TestCMConnectionSetup decodes the CM exchange of rdmacm-rping.pcap:
// REQ (frame 1), REP (2), RTU (3), and checks what it says about the QPs.
func TestCMConnectionSetup(t *testing.T) {
	frames := readFrames(t, testutil.Capture(t, "rdmacm-rping.pcap"))
	p := gopacket.NewPacket(frames[0].data, layers.LayerTypeEthernet, gopacket.Default)
	var got []gopacket.LayerType
	for _, l := range p.Layers() {
		got = append(got, l.LayerType())
	}
	want := []gopacket.LayerType{layers.LayerTypeEthernet, layers.LayerTypeIPv4, layers.LayerTypeUDP,
		ib.LayerTypeBTH, ib.LayerTypeDETH, ib.LayerTypeMAD, ib.LayerTypeCMReq}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("layers %v, want %v", got, want)
	}
	req := p.Layer(ib.LayerTypeCMReq).(*ib.CMReq)
	if req.LocalCommID != 0x0d17e5bf || req.LocalQPN != 0x13 || req.StartingPSN != 0x0d4622 ||
		req.ServiceID != 0x0000000001061c06 || req.PathMTU != 3 || ib.MTUBytes(req.PathMTU) != 1024 ||
		req.Primary.HopLimit != 0x40 || req.RetryCount != 7 || req.RNRRetryCount != 7 {
		t.Errorf("REQ %+v", req)
	}
	ip, ok := req.IPCM()
	wantIP := ib.IPCM{IPVer: 4, SrcPort: 0xc509, Src: netip.MustParseAddr("192.0.2.2"), Dst: netip.MustParseAddr("192.0.2.1")}
	if !ok || ip != wantIP || req.ServicePort() != 7174 {
		t.Errorf("IP CM %+v (%v), port %d", ip, ok, req.ServicePort())
	}
	if g := req.Primary.LocalGID.String(); g != "192.0.2.2" {
		t.Errorf("primary local GID %s", g)
	}

	var s stack
	var decoded []gopacket.LayerType
	if err := s.parser(layers.LayerTypeEthernet).DecodeLayers(frames[1].data, &decoded); err != nil {
		t.Fatal(err)
	}
	if !contains(decoded, ib.LayerTypeCMRep) || s.rep.RemoteCommID != req.LocalCommID || s.rep.LocalQPN != 0x13 ||
		s.rep.StartingPSN != 0x7b6896 || s.rep.LocalCAGUID != 0x505400fffe123401 {
		t.Errorf("REP %+v (decoded %v)", s.rep, decoded)
	}
	if err := s.parser(layers.LayerTypeEthernet).DecodeLayers(frames[2].data, &decoded); err != nil {
		t.Fatal(err)
	}
	if !contains(decoded, ib.LayerTypeCMRtu) || s.rtu.LocalCommID != req.LocalCommID || s.rtu.RemoteCommID != s.rep.LocalCommID {
		t.Errorf("RTU %+v", s.rtu)
	}
}

// TestCMSerializeEveryMessage round-trips each CM message through its
// SerializeTo with non-zero fields in every byte.
func TestCMSerializeEveryMessage(t *testing.T) {
	data := make([]byte, ib.MADDataLen)
	for i := range data {
		data[i] = byte(i*7 + 1)
	}
	for _, l := range []interface {
		gopacket.DecodingLayer
		gopacket.SerializableLayer
	}{&ib.CMReq{}, &ib.CMRep{}, &ib.CMRtu{}, &ib.CMRej{}, &ib.CMDreq{}, &ib.CMDrep{}} {
		if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			t.Fatalf("%T: %v", l, err)
		}
		buf := gopacket.NewSerializeBuffer()
		if err := l.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatal(err)
		}
		if string(buf.Bytes()) != string(data) {
			t.Errorf("%T: round trip differs\n got %x\nwant %x", l, buf.Bytes(), data)
		}
	}
}

// TestNativeERF decodes a native InfiniBand frame in an ERF record.
func TestNativeERF(t *testing.T) {
	frames := readFrames(t, testutil.PublicCapture(t, "magnate3-native-ib-erf-rdma.pcap"))
	var s stack
	var decoded []gopacket.LayerType
	f := frames[0]
	if err := s.parser(firstLayer(t, f)).DecodeLayers(f.data, &decoded); err != nil {
		t.Fatal(err)
	}
	want := []gopacket.LayerType{ib.LayerTypeERF, ib.LayerTypeLRH, ib.LayerTypeGRH, ib.LayerTypeBTH, ib.LayerTypeIPoIB}
	if !reflect.DeepEqual(decoded[:len(want)], want) {
		t.Fatalf("decoded %v", decoded)
	}
	if s.erf.Type != ib.ERFTypeInfiniBand || s.erf.RLen != 150 || s.erf.WLen != 134 ||
		s.lrh.LNH != ib.LNHIBAGlobal || s.lrh.DLID != 49152 || s.lrh.PktLen != 33 || s.lrh.SLID != 6 || s.lrh.VCRC != 0xe6b7 ||
		s.bth.Opcode != ib.OpcodeUDSendOnly || s.bth.DETH.QKey != 0xb1b || s.bth.DETH.SrcQP != 0x1ce ||
		s.ipoib.Type != layers.EthernetTypeARP || s.grh.SGID.String() != "fe80::8c0:eb03:ea:512e" {
		t.Errorf("ERF %+v\nLRH %+v\nBTH %+v", s.erf, s.lrh, s.bth)
	}
}

func TestLinuxSLL2(t *testing.T) {
	hdr := []byte{0x08, 0x00, 0, 0, 0, 0, 0, 3, 0, 1, 4, 6, 1, 2, 3, 4, 5, 6, 0, 0}
	var s ib.LinuxSLL2
	if err := s.DecodeFromBytes(append(hdr, 0x45), gopacket.NilDecodeFeedback); err != nil {
		t.Fatal(err)
	}
	if s.ProtocolType != layers.EthernetTypeIPv4 || s.InterfaceIndex != 3 || s.ARPHRDType != 1 ||
		s.PacketType != 4 || s.AddrLen != 6 || s.NextLayerType() != layers.LayerTypeIPv4 || len(s.Payload) != 1 {
		t.Errorf("%+v", s)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := s.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil || string(buf.Bytes()) != string(hdr) {
		t.Errorf("serialized %x (%v)", buf.Bytes(), err)
	}
}
