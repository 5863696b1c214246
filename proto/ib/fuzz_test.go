package ib_test

import (
	"reflect"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// layer is what every layer of the package is.
type layer interface {
	gopacket.DecodingLayer
	gopacket.SerializableLayer
}

// fuzzLayer decodes arbitrary bytes; whatever decodes must serialize and
// decode again to the same fields (the contents of pad bytes aside).
func fuzzLayer(f *testing.F, newLayer func() layer, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := newLayer()
		if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return
		}
		_ = l.NextLayerType()
		_ = gopacket.LayerString(l.(gopacket.Layer))
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, l, gopacket.Payload(l.LayerPayload())); err != nil {
			t.Fatalf("serialize: %v", err)
		}
		again := newLayer()
		if err := again.DecodeFromBytes(buf.Bytes(), gopacket.NilDecodeFeedback); err != nil {
			t.Fatalf("decoding what was serialized: %v\n%x", err, buf.Bytes())
		}
		if !sameFields(l, again) {
			t.Fatalf("round trip differs:\n%s\n%s", gopacket.LayerString(l.(gopacket.Layer)), gopacket.LayerString(again.(gopacket.Layer)))
		}
	})
}

// sameFields compares two layers' exported fields, ignoring the slices of
// BaseLayer and the pad bytes.
func sameFields(a, b layer) bool {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := 0; i < va.NumField(); i++ {
		name := va.Type().Field(i).Name
		if name == "BaseLayer" || name == "Pad" || !va.Type().Field(i).IsExported() {
			continue
		}
		if va.Field(i).Kind() == reflect.Struct && va.Field(i).FieldByName("BaseLayer").IsValid() {
			if !sameFields(va.Field(i).Addr().Interface().(layer), vb.Field(i).Addr().Interface().(layer)) {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return false
		}
	}
	return true
}

// captureSeeds returns the UDP payloads (BTH onwards) of a kernel capture.
func captureSeeds(f *testing.F, name string, max int) [][]byte {
	var out [][]byte
	for _, fr := range readFrames(f, testutil.Capture(f, name)) {
		if len(fr.data) > 42 && len(out) < max {
			out = append(out, fr.data[42:])
		}
	}
	return out
}

func FuzzBTH(f *testing.F) {
	fuzzLayer(f, func() layer { return &ib.BTH{} }, captureSeeds(f, "rdmacm-rping.pcap", 30)...)
}

func FuzzLRH(f *testing.F) {
	fuzzLayer(f, func() layer { return &ib.LRH{} },
		[]byte{0, 2, 0, 5, 0, 6, 0, 9, 0x11, 0, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2})
}

func FuzzGRH(f *testing.F) {
	g := make([]byte, 48)
	g[0], g[5], g[6] = 0x60, 8, ib.NxtHdrIBA
	fuzzLayer(f, func() layer { return &ib.GRH{} }, g)
}

func FuzzExtensionHeaders(f *testing.F) {
	seed := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}
	f.Add(uint8(0), seed)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		news := []func() layer{
			func() layer { return &ib.RDETH{} }, func() layer { return &ib.DETH{} },
			func() layer { return &ib.XRCETH{} }, func() layer { return &ib.FETH{} },
			func() layer { return &ib.RETH{} }, func() layer { return &ib.AtomicETH{} },
			func() layer { return &ib.AETH{} }, func() layer { return &ib.AtomicAckETH{} },
			func() layer { return &ib.ImmDt{} }, func() layer { return &ib.IETH{} },
			func() layer { return &ib.RWH{} }, func() layer { return &ib.IPoIB{} },
		}
		newLayer := news[int(which)%len(news)]
		l := newLayer()
		if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return
		}
		buf := gopacket.NewSerializeBuffer()
		if err := l.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := len(buf.Bytes()); string(buf.Bytes()) != string(data[:n]) {
			t.Fatalf("%T: serialized %x from %x", l, buf.Bytes(), data[:n])
		}
	})
}

func FuzzMAD(f *testing.F) {
	var seeds [][]byte
	for _, s := range captureSeeds(f, "rdmacm-rping.pcap", 3) {
		seeds = append(seeds, s[ib.BTHLen+ib.DETHLen:])
	}
	fuzzLayer(f, func() layer { return &ib.MAD{} }, seeds...)
}

func FuzzCM(f *testing.F) {
	var seeds [][]byte
	for _, s := range captureSeeds(f, "rdmacm-rping.pcap", 3) {
		seeds = append(seeds, s[ib.BTHLen+ib.DETHLen+ib.MADHeaderLen:])
	}
	for _, s := range seeds {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		news := []func() layer{
			func() layer { return &ib.CMReq{} }, func() layer { return &ib.CMRep{} },
			func() layer { return &ib.CMRtu{} }, func() layer { return &ib.CMRej{} },
			func() layer { return &ib.CMDreq{} }, func() layer { return &ib.CMDrep{} },
		}
		l := news[int(which)%len(news)]()
		if err := l.DecodeFromBytes(data, gopacket.NilDecodeFeedback); err != nil {
			return
		}
		if r, ok := l.(*ib.CMReq); ok {
			r.IPCM()
		}
		buf := gopacket.NewSerializeBuffer()
		if err := l.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := min(len(data), ib.MADDataLen); string(buf.Bytes()[:n]) != string(data[:n]) {
			t.Fatalf("%T: serialized %x from %x", l, buf.Bytes(), data)
		}
	})
}

func FuzzERF(f *testing.F) {
	rec := []byte{0, 0, 0, 0, 0, 0, 0, 0, ib.ERFTypeInfiniBand, 4, 0, 20, 0, 0, 0, 4, 1, 2, 3, 4}
	fuzzLayer(f, func() layer { return &ib.ERF{} }, rec, append([]byte{}, rec...))
}

func FuzzLinuxSLL2(f *testing.F) {
	fuzzLayer(f, func() layer { return &ib.LinuxSLL2{} }, make([]byte, 24))
}

// FuzzICRC feeds arbitrary bytes to the CRC functions: no panics, and
// SetRoCEv2ICRC makes its own check pass.
func FuzzICRC(f *testing.F) {
	for _, s := range captureSeeds(f, "rdmacm-rping.pcap", 5) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ib.RoCEv1ICRC(data)
		ib.NativeICRC(data)
		ib.VCRC(data)
		pkt := append([]byte(nil), data...)
		if err := ib.SetRoCEv2ICRC(pkt); err == nil {
			c, err := ib.RoCEv2ICRC(pkt)
			if err != nil || c != ib.ICRCAt(pkt) {
				t.Fatalf("ICRC set to 0x%08x, computed 0x%08x (%v)", ib.ICRCAt(pkt), c, err)
			}
		}
	})
}

// FuzzPacket decodes arbitrary frames through both decoding paths.
func FuzzPacket(f *testing.F) {
	for _, fr := range readFrames(f, testutil.Capture(f, "rdmacm-rping.pcap"))[:12] {
		f.Add(fr.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s stack
		var decoded []gopacket.LayerType
		s.parser(layers.LayerTypeEthernet).DecodeLayers(data, &decoded)
		p := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
		for _, l := range p.Layers() {
			_ = gopacket.LayerString(l)
		}
		gopacket.NewPacket(data, ib.LayerTypeLRH, gopacket.Default)
		gopacket.NewPacket(data, ib.LayerTypeERF, gopacket.Default)
	})
}
