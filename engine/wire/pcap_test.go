package wire_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/wire"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// mixed returns sim transfers of every kind the emitter handles: SENDs of
// one and several packets, WRITEs, a READ, a WRITE and a SEND with
// immediate, an RNR NAK and its retry, a remote access NAK at the end.
func mixed(t *testing.T) (*fixture, []sim.Transfer) {
	x := newFixture(t, 1024, 7)
	x.post(t, x.c, verbs.SendWR{WRID: 1, Opcode: verbs.WRSend, Signaled: true, SGList: []verbs.SGE{x.c.sge(3, 37)}})
	x.f.DeliverNext() // RNR NAK: no receive yet
	for i := 0; i < 4; i++ {
		x.recv(t, x.s, uint64(i), 0, 8192)
		x.recv(t, x.c, uint64(i), 0, 8192)
	}
	x.post(t, x.c, verbs.SendWR{WRID: 2, Opcode: verbs.WRSend, SGList: []verbs.SGE{x.c.sge(0, 3000)}})
	x.post(t, x.s, verbs.SendWR{WRID: 3, Opcode: verbs.WRRDMAWrite, SGList: []verbs.SGE{x.s.sge(1, 5000)},
		RemoteAddr: x.c.mr.Addr() + 100, RKey: x.c.mr.RKey()})
	x.post(t, x.s, verbs.SendWR{WRID: 4, Opcode: verbs.WRRDMARead, Signaled: true, SGList: []verbs.SGE{x.s.sge(0, 4097)},
		RemoteAddr: x.c.mr.Addr() + 8, RKey: x.c.mr.RKey()})
	x.post(t, x.s, verbs.SendWR{WRID: 5, Opcode: verbs.WRRDMAWriteWithImm, ImmData: 0x1234, SGList: []verbs.SGE{x.s.sge(0, 2)},
		RemoteAddr: x.c.mr.Addr(), RKey: x.c.mr.RKey()})
	x.post(t, x.s, verbs.SendWR{WRID: 6, Opcode: verbs.WRSendWithImm, ImmData: 0x55, SGList: []verbs.SGE{x.s.sge(0, 1)}})
	x.f.DeliverAll()
	x.post(t, x.c, verbs.SendWR{WRID: 7, Opcode: verbs.WRRDMAWrite, Signaled: true, SGList: []verbs.SGE{x.c.sge(0, 100)},
		RemoteAddr: x.s.mr.Addr(), RKey: x.s.mr.RKey() + 1})
	x.f.DeliverAll()
	ts := x.transfers
	x.transfers = nil
	return x, ts
}

func mixedOptions(x *fixture) wire.Options {
	return wire.Options{Start: 0, Conns: []wire.Conn{{Active: "client", Passive: "server",
		ActiveQPN: x.c.qp.Num(), PassiveQPN: x.s.qp.Num(), PathMTU: 1024, RNRRetry: 7}}}
}

// TestPcapWriterStreams writes the mixed transfers through a PcapWriter
// and reads the file back: the same frames Emitter gives, in time order,
// every ICRC right.
func TestPcapWriterStreams(t *testing.T) {
	x, ts := mixed(t)
	var buf bytes.Buffer
	pw, err := wire.NewPcapWriter(&buf, mixedOptions(x))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if err := pw.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Flush(); err != nil {
		t.Fatal(err)
	}
	e := wire.NewEmitter(mixedOptions(x))
	want := e.Prelude()
	for _, tr := range ts {
		want = append(want, e.Frames(tr)...)
	}
	var times []time.Time
	got := readPcapFrom(t, &buf, &times)
	if len(got) != len(want) || pw.Packets() != len(want) {
		t.Fatalf("file has %d frames, Packets says %d, Emitter gives %d", len(got), pw.Packets(), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i].Data) || !times[i].Equal(want[i].Time) {
			t.Errorf("frame %d differs", i+1)
		}
		if i > 0 && times[i].Before(times[i-1]) {
			t.Errorf("frame %d goes back in time", i+1)
		}
		if i >= 3 {
			decodeFrame(t, i+1, want[i])
		}
	}
	// Every kind of packet is there.
	ops := map[ib.Opcode]bool{}
	for _, f := range want[3:] {
		ops[decodeFrame(t, 0, f).bth.Opcode] = true
	}
	for _, op := range []ib.Opcode{ib.OpcodeRCSendOnly, ib.OpcodeRCSendFirst, ib.OpcodeRCSendMiddle, ib.OpcodeRCSendLast,
		ib.OpcodeRCWriteFirst, ib.OpcodeRCWriteMiddle, ib.OpcodeRCWriteLast, ib.OpcodeRCWriteOnly, ib.OpcodeRCWriteOnlyImm,
		ib.OpcodeRCReadRequest, ib.OpcodeRCReadResponseFirst, ib.OpcodeRCReadResponseMid, ib.OpcodeRCReadResponseLast,
		ib.OpcodeRCSendOnlyImm, ib.OpcodeRCAcknowledge} {
		if !ops[op] {
			t.Errorf("no %v in the mixed capture", op)
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestPcapWriterErrorSticks: a write error is returned, and again by
// every later call.
func TestPcapWriterErrorSticks(t *testing.T) {
	x, ts := mixed(t)
	pw, err := wire.NewPcapWriter(&failWriter{n: 1000}, mixedOptions(x))
	if err != nil {
		t.Fatal(err) // buffered: nothing reached the writer yet
	}
	var werr error
	for i := 0; i < 1000 && werr == nil; i++ {
		werr = pw.Write(ts[i%len(ts)])
	}
	if err := pw.Flush(); err == nil {
		t.Fatal("Flush after a failed write succeeded")
	}
	if err := pw.Write(ts[0]); err == nil {
		t.Error("Write after a failure succeeded")
	}
}

// TestICRCMatchesScapy cross-checks the ICRC of a sample of frames (the
// mixed transfers and the CM exchange) with scapy.contrib.roce.
func TestICRCMatchesScapy(t *testing.T) {
	py := testutil.ScapyPython(t)
	x, ts := mixed(t)
	path := filepath.Join(t.TempDir(), "mixed.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := wire.NewPcapWriter(f, mixedOptions(x))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		must(t, pw.Write(tr))
	}
	must(t, pw.Flush())
	must(t, f.Close())
	frames := readPcap(t, path)
	out, err := exec.Command(py, "-c", scapyICRC, path).CombinedOutput()
	if err != nil {
		t.Fatalf("scapy: %v\n%s", err, out)
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var n int
		var icrc string
		if _, err := fmt.Sscanf(sc.Text(), "%d %s", &n, &icrc); err != nil {
			continue // scapy's warnings
		}
		if n < 1 || n > len(frames) {
			t.Fatalf("scapy frame %d of %d", n, len(frames))
		}
		if wireICRC := hex.EncodeToString(frames[n-1][len(frames[n-1])-4:]); wireICRC != icrc {
			t.Errorf("frame %d: ICRC %s, scapy computes %s", n, wireICRC, icrc)
		}
		checked++
	}
	if checked != len(frames) {
		t.Errorf("scapy checked %d of %d frames", checked, len(frames))
	}
	t.Logf("%d ICRCs agree with scapy", checked)
}

// scapyICRC recomputes, with scapy, the ICRC of every RoCEv2 packet of a
// pcap and prints "frame icrc" in wire byte order.
const scapyICRC = `
import sys
from scapy.all import rdpcap, raw, Ether
from scapy.contrib.roce import BTH
for i, p in enumerate(rdpcap(sys.argv[1]), 1):
    if BTH not in p:
        continue
    q = Ether(raw(p))
    q[BTH].icrc = None
    print(i, raw(q)[-4:].hex())
`

// BenchmarkPcapWriter streams 1 MiB RDMA WRITEs (1024 packets and an ACK
// each at path MTU 1024) to io.Discard; packets/s is what gencap and
// capture start can write.
func BenchmarkPcapWriter(b *testing.B) {
	pw, err := wire.NewPcapWriter(io.Discard, wire.Options{})
	if err != nil {
		b.Fatal(err)
	}
	tr := transfer(verbs.WRRDMAWrite, 1<<20, 0, 0)
	tr.RemoteAddr, tr.RKey, tr.MSN = 0x1000, 0x99, 1
	b.SetBytes(int64(tr.Bytes))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tr.Due += time.Millisecond
		tr.PSN.First = uint32(i*1024) & (1<<24 - 1)
		if err := pw.Write(tr); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(pw.Packets())/b.Elapsed().Seconds(), "packets/s")
}
