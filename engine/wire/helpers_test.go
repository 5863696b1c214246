package wire_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/wire"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// pkt is a decoded frame: the layers a test looks at.
type pkt struct {
	eth  *layers.Ethernet
	ip   *layers.IPv4
	udp  *layers.UDP
	bth  *ib.BTH
	data []byte
	time time.Time
}

// decodeFrame decodes f with gopacket and proto/ib's layers, failing the
// test on a decoding error, a bad IPv4 header checksum or a bad ICRC.
func decodeFrame(t *testing.T, i int, f wire.Frame) pkt {
	t.Helper()
	p := gopacket.NewPacket(f.Data, layers.LayerTypeEthernet, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatalf("frame %d: %v", i, el.Error())
	}
	var d pkt
	var ok bool
	if d.eth, ok = p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); !ok {
		t.Fatalf("frame %d: no Ethernet", i)
	}
	if d.ip, ok = p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); !ok {
		t.Fatalf("frame %d: no IPv4", i)
	}
	if d.udp, ok = p.Layer(layers.LayerTypeUDP).(*layers.UDP); !ok {
		t.Fatalf("frame %d: no UDP", i)
	}
	if d.bth, ok = p.Layer(ib.LayerTypeBTH).(*ib.BTH); !ok {
		t.Fatalf("frame %d: no BTH", i)
	}
	d.data, d.time = f.Data, f.Time
	if c := ipChecksum(f.Data[14:34]); c != 0xffff {
		t.Errorf("frame %d: IPv4 header checksum 0x%04x does not verify", i, d.ip.Checksum)
	}
	end := 14 + int(d.ip.Length)
	if end != len(f.Data) || int(d.udp.Length) != int(d.ip.Length)-20 {
		t.Errorf("frame %d: IP length %d, UDP length %d, frame %d bytes", i, d.ip.Length, d.udp.Length, len(f.Data))
	}
	want, err := ib.RoCEv2ICRC(f.Data[14:end])
	if err != nil || want != d.bth.ICRC {
		t.Errorf("frame %d: ICRC 0x%08x, computed 0x%08x (%v)", i, d.bth.ICRC, want, err)
	}
	if d.udp.DstPort != ib.UDPPortRoCEv2 || d.udp.Checksum != 0 || d.ip.TTL != 64 || d.ip.Flags != layers.IPv4DontFragment || d.bth.PKey != 0xffff {
		t.Errorf("frame %d: UDP %v→%v checksum 0x%04x, TTL %d, flags %v, P_Key 0x%04x", i,
			d.udp.SrcPort, d.udp.DstPort, d.udp.Checksum, d.ip.TTL, d.ip.Flags, d.bth.PKey)
	}
	return d
}

// ipChecksum sums a header with its checksum: 0xffff when it verifies.
func ipChecksum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

func decodeAll(t *testing.T, fs []wire.Frame) []pkt {
	t.Helper()
	var out []pkt
	for i, f := range fs {
		out = append(out, decodeFrame(t, i+1, f))
	}
	return out
}

// summary is one line per frame, what a golden file shows above its hex.
func summary(p pkt, epoch time.Time) string {
	b := p.bth
	var s strings.Builder
	fmt.Fprintf(&s, "%v %v:%d → %v len %d  %v QP 0x%06x PSN %d", p.time.Sub(epoch), p.ip.SrcIP, p.udp.SrcPort,
		p.ip.DstIP, len(p.data), b.Opcode, b.DestQP, b.PSN)
	if b.A {
		s.WriteString(" AckReq")
	}
	if b.PadCnt != 0 {
		fmt.Fprintf(&s, " pad %d", b.PadCnt)
	}
	if b.Headers&ib.HasRETH != 0 {
		fmt.Fprintf(&s, " RETH va 0x%x rkey 0x%x len %d", b.RETH.VA, b.RETH.RKey, b.RETH.DMALen)
	}
	if b.Headers&ib.HasAETH != 0 {
		fmt.Fprintf(&s, " AETH 0x%02x (%v) MSN %d", uint8(b.AETH.Syndrome), b.AETH.Syndrome, b.AETH.MSN)
	}
	if b.Headers&ib.HasImmDt != 0 {
		fmt.Fprintf(&s, " ImmDt 0x%08x", b.ImmDt.Data)
	}
	if b.Headers&ib.HasIETH != 0 {
		fmt.Fprintf(&s, " IETH 0x%08x", b.IETH.RKey)
	}
	if n := len(b.Payload); n > 0 {
		fmt.Fprintf(&s, " payload %d", n)
	}
	return s.String()
}

// golden compares the summaries and hex dumps of frames with
// testdata/NAME.txt; RDMALAB_UPDATE_GOLDEN=1 rewrites it.
func golden(t *testing.T, name string, ps []pkt, hexToo bool) {
	t.Helper()
	var s strings.Builder
	for i, p := range ps {
		fmt.Fprintf(&s, "%d %s\n", i+1, summary(p, wire.DefaultEpoch()))
		if hexToo {
			s.WriteString(hex.Dump(p.data))
		}
	}
	path := filepath.Join("testdata", name+".txt")
	if os.Getenv("RDMALAB_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (RDMALAB_UPDATE_GOLDEN=1 writes it)", err)
	}
	if got := s.String(); got != string(want) {
		t.Errorf("frames differ from %s (RDMALAB_UPDATE_GOLDEN=1 rewrites it):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// fixture is a client and a server node of a sim fabric, one RC QP each,
// connected, with a 64 KiB buffer each registered for every access; the
// tap keeps what the fabric executes.
type fixture struct {
	f         *sim.Fabric
	c, s      side
	transfers []sim.Transfer
}

type side struct {
	pd  verbs.PD
	cq  verbs.CQ
	qp  verbs.QP
	buf []byte
	mr  verbs.MR
}

func newFixture(t *testing.T, mtu, rnrRetry int) *fixture {
	t.Helper()
	x := &fixture{f: sim.NewFabric(sim.Config{Seed: 7})}
	x.f.SetTap(func(tr sim.Transfer) { x.transfers = append(x.transfers, tr) })
	open := func(node string) side {
		d, err := x.f.NewDevice(node, sim.DefaultAttr())
		must(t, err)
		pd, err := d.AllocPD()
		must(t, err)
		cq, err := d.CreateCQ(256)
		must(t, err)
		qp, err := pd.CreateQP(verbs.QPInitAttr{SendCQ: cq, RecvCQ: cq,
			Cap: verbs.QPCap{MaxSendWR: 64, MaxRecvWR: 64, MaxSendSGE: 2, MaxRecvSGE: 2}})
		must(t, err)
		buf := make([]byte, 64<<10)
		for i := range buf {
			buf[i] = byte(i*7 + len(node))
		}
		mr, err := pd.RegMR(buf, verbs.AccessLocalWrite|verbs.AccessRemoteWrite|verbs.AccessRemoteRead)
		must(t, err)
		return side{pd: pd, cq: cq, qp: qp, buf: buf, mr: mr}
	}
	x.c, x.s = open("client"), open("server")
	for _, c := range []struct {
		q    verbs.QP
		node string
		peer verbs.QP
	}{{x.c.qp, "server", x.s.qp}, {x.s.qp, "client", x.c.qp}} {
		must(t, c.q.Modify(verbs.QPAttr{State: verbs.QPSInit}))
		must(t, c.q.Modify(verbs.QPAttr{State: verbs.QPSRTR, RemoteNode: c.node, DestQPNum: c.peer.Num(), PathMTU: mtu}))
		must(t, c.q.Modify(verbs.QPAttr{State: verbs.QPSRTS, RNRRetry: rnrRetry, RetryCnt: 7}))
	}
	return x
}

func (s side) sge(off, n int) verbs.SGE {
	return verbs.SGE{Addr: s.mr.Addr() + uint64(off), Length: uint32(n), LKey: s.mr.LKey()}
}

func (x *fixture) post(t *testing.T, s side, wr verbs.SendWR) {
	t.Helper()
	if _, err := s.qp.PostSend(&wr); err != nil {
		t.Fatal(err)
	}
}

func (x *fixture) recv(t *testing.T, s side, wrid uint64, off, n int) {
	t.Helper()
	if _, err := s.qp.PostRecv(&verbs.RecvWR{WRID: wrid, SGList: []verbs.SGE{s.sge(off, n)}}); err != nil {
		t.Fatal(err)
	}
}

// frames runs the fabric until idle and emits what it executed since the
// last call.
func (x *fixture) frames(e *wire.Emitter) []wire.Frame {
	x.f.DeliverAll()
	var out []wire.Frame
	for _, tr := range x.transfers {
		out = append(out, e.Frames(tr)...)
	}
	x.transfers = x.transfers[:0]
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
