package wire_test

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/wire"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// kernelConn is the connection of captures/testdata/nfs3-rdma.pcap (the
// Linux NFS client and server over rxe): its QPs, starting PSNs, RDMA-CM
// source port and RPC-over-RDMA private data.
var kernelConn = wire.Conn{Active: "client", Passive: "server", ActiveQPN: 0x11, PassiveQPN: 0x11,
	ActivePSN: 0x292a08, PassivePSN: 0xedb939, PathMTU: 1024, RetryCount: 6, SrcPort: 0xe254,
	ReqPrivate: wire.RPCRDMAPrivate(true, 4096, 4096), RepPrivate: wire.RPCRDMAPrivate(false, 4096, 4096)}

// cmLayers decodes a CM frame.
func cmLayers(t *testing.T, data []byte) gopacket.Packet {
	t.Helper()
	p := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatal(el.Error())
	}
	return p
}

// TestPreludeMatchesKernel emits the CM exchange of the kernel capture's
// connection and compares it, field by field, with the kernel's: what a
// decoder learns from it (QPs, PSNs, service, addresses, flow label) must
// be the same.
func TestPreludeMatchesKernel(t *testing.T) {
	kernel := readPcap(t, testutil.Capture(t, "nfs3-rdma.pcap"))
	e := wire.NewEmitter(wire.Options{Conns: []wire.Conn{kernelConn}, Start: time.Millisecond})
	ours := e.Prelude()
	if len(ours) != 3 {
		t.Fatalf("%d frames, want REQ, REP, RTU", len(ours))
	}
	for i, typ := range []gopacket.LayerType{ib.LayerTypeCMReq, ib.LayerTypeCMRep, ib.LayerTypeCMRtu} {
		k, o := cmLayers(t, kernel[i]), cmLayers(t, ours[i].Data)
		kb, ob := k.Layer(ib.LayerTypeBTH).(*ib.BTH), o.Layer(ib.LayerTypeBTH).(*ib.BTH)
		if ob.Opcode != kb.Opcode || ob.DestQP != kb.DestQP || ob.A != kb.A || ob.PSN != kb.PSN || ob.DETH.QKey != kb.DETH.QKey || ob.DETH.SrcQP != kb.DETH.SrcQP {
			t.Errorf("frame %d BTH %+v, kernel %+v", i+1, ob, kb)
		}
		ku, ou := k.Layer(layers.LayerTypeUDP).(*layers.UDP), o.Layer(layers.LayerTypeUDP).(*layers.UDP)
		ki, oi := k.Layer(layers.LayerTypeIPv4).(*layers.IPv4), o.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		if ou.SrcPort != ku.SrcPort || ou.SrcPort != 55410 || !oi.SrcIP.Equal(ki.SrcIP) || !oi.DstIP.Equal(ki.DstIP) || len(ours[i].Data) != len(kernel[i]) {
			t.Errorf("frame %d: %v:%v → %v (%d bytes), kernel %v:%v → %v (%d bytes)", i+1, oi.SrcIP, ou.SrcPort, oi.DstIP,
				len(ours[i].Data), ki.SrcIP, ku.SrcPort, ki.DstIP, len(kernel[i]))
		}
		km, om := k.Layer(ib.LayerTypeMAD).(*ib.MAD), o.Layer(ib.LayerTypeMAD).(*ib.MAD)
		if om.MgmtClass != km.MgmtClass || om.AttributeID != km.AttributeID || om.Method != km.Method || om.ClassVersion != km.ClassVersion {
			t.Errorf("frame %d MAD %+v, kernel %+v", i+1, om, km)
		}
		if o.Layer(typ) == nil {
			t.Fatalf("frame %d is not a %v", i+1, typ)
		}
	}
	kr := cmLayers(t, kernel[0]).Layer(ib.LayerTypeCMReq).(*ib.CMReq)
	or := cmLayers(t, ours[0].Data).Layer(ib.LayerTypeCMReq).(*ib.CMReq)
	kip, _ := kr.IPCM()
	oip, ok := or.IPCM()
	if !ok || oip != kip || or.ServiceID != kr.ServiceID || or.LocalCAGUID != kr.LocalCAGUID || or.LocalQPN != kr.LocalQPN ||
		or.StartingPSN != kr.StartingPSN || or.PathMTU != kr.PathMTU || or.PKey != kr.PKey || or.RetryCount != kr.RetryCount ||
		or.Primary != kr.Primary || !bytes.Equal(or.PrivateData[36:44], kr.PrivateData[36:44]) {
		t.Errorf("REQ\n ours   %+v\n kernel %+v", or, kr)
	}
	krep := cmLayers(t, kernel[1]).Layer(ib.LayerTypeCMRep).(*ib.CMRep)
	orep := cmLayers(t, ours[1].Data).Layer(ib.LayerTypeCMRep).(*ib.CMRep)
	if orep.RemoteCommID != or.LocalCommID || orep.LocalQPN != krep.LocalQPN || orep.StartingPSN != krep.StartingPSN ||
		orep.LocalCAGUID != krep.LocalCAGUID || orep.InitiatorDepth != krep.InitiatorDepth || orep.TargetACKDelay != krep.TargetACKDelay ||
		!bytes.Equal(orep.PrivateData[:8], krep.PrivateData[:8]) {
		t.Errorf("REP\n ours   %+v\n kernel %+v", orep, krep)
	}
	ortu := cmLayers(t, ours[2].Data).Layer(ib.LayerTypeCMRtu).(*ib.CMRtu)
	if ortu.LocalCommID != or.LocalCommID || ortu.RemoteCommID != orep.LocalCommID {
		t.Errorf("RTU %+v", ortu)
	}
	// The RTU is at Start, the REQ and REP one and two latencies before.
	if !ours[2].Time.Equal(wire.DefaultEpoch().Add(time.Millisecond)) || ours[1].Time.Sub(ours[0].Time) != 2*time.Microsecond {
		t.Errorf("CM at %v %v %v", ours[0].Time, ours[1].Time, ours[2].Time)
	}
	if again := e.Prelude(); len(again) != 0 {
		t.Errorf("a second Prelude gave %d frames", len(again))
	}

	// The connection's packets take the port of RDMA-CM's flow label, in
	// both directions, as the kernel's do (frame 4 on).
	tr := transfer(verbs.WRSend, 100, 0x292a08, 10*time.Millisecond)
	tr.QPNum, tr.PeerQPNum, tr.MSN = 0x11, 0x11, 1
	for i, f := range e.Frames(tr) {
		u := cmLayers(t, f.Data).Layer(layers.LayerTypeUDP).(*layers.UDP)
		ku := cmLayers(t, kernel[3+i]).Layer(layers.LayerTypeUDP).(*layers.UDP)
		if u.SrcPort != 63059 || u.SrcPort != ku.SrcPort {
			t.Errorf("frame %d: source port %d, kernel %d", i+1, u.SrcPort, ku.SrcPort)
		}
	}
}

func TestRPCRDMAPrivate(t *testing.T) {
	got := wire.RPCRDMAPrivate(true, 4096, 8192)
	if want := []byte{0xf6, 0xab, 0x0e, 0x18, 1, 1, 3, 7}; !bytes.Equal(got, want) {
		t.Errorf("% x, want % x", got, want)
	}
}

// TestCMPrivateDataTooLong is refused, not truncated.
func TestCMPrivateDataTooLong(t *testing.T) {
	c := kernelConn
	c.ReqPrivate = make([]byte, 57)
	if _, err := wire.NewPcapWriter(io.Discard, wire.Options{Conns: []wire.Conn{c}}); err == nil {
		t.Error("57 bytes of REQ private data accepted")
	}
}

// readPcap returns the frames of a pcap file.
func readPcap(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readPcapFrom(t, f, nil)
}

// readPcapFrom returns the frames of a pcap stream, and their times in ts.
func readPcapFrom(t *testing.T, r io.Reader, ts *[]time.Time) [][]byte {
	t.Helper()
	pr, err := pcapfile.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		data, ci, err := pr.ReadPacketData()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if pr.LinkType() != pcapfile.LinkTypeEthernet {
			t.Fatalf("link type %v", pr.LinkType())
		}
		out = append(out, data)
		if ts != nil {
			*ts = append(*ts, ci.Timestamp)
		}
	}
}
