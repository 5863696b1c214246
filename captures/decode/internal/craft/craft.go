// Package craft builds captures for the decoder's tests: RoCEv2 frames
// from the ib layers, one RC conversation numbered frame by frame, and the
// RPC-over-RDMA and ONC RPC messages it carries. Tests of every layer of
// the decoder (frame, analysis, the outputs) use it.
package craft

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// RoCEFrame builds a RoCEv2 frame from node a to node b (10.0.0.a to
// 10.0.0.b) carrying bth and its payload, with its ICRC.
func RoCEFrame(t testing.TB, a, b byte, bth *ib.BTH, payload []byte) []byte {
	t.Helper()
	if bth.PKey == 0 {
		bth.PKey = 0xffff
	}
	ls := []gopacket.SerializableLayer{
		&layers.Ethernet{SrcMAC: []byte{2, 0, 0, 0, 0, a}, DstMAC: []byte{2, 0, 0, 0, 0, b}, EthernetType: layers.EthernetTypeIPv4},
		&layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: []byte{10, 0, 0, a}, DstIP: []byte{10, 0, 0, b}},
		&layers.UDP{SrcPort: 50000, DstPort: ib.UDPPortRoCEv2},
		bth, gopacket.Payload(payload),
	}
	buf := gopacket.NewSerializeBuffer()
	if err := ib.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

// WriteFrames writes frames as an Ethernet pcap and returns its path.
func WriteFrames(t testing.TB, frames ...[]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "built.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapfile.NewWriter(f, pcapfile.LinkTypeEthernet, 65535)
	if err != nil {
		t.Fatal(err)
	}
	for _, fr := range frames {
		if err := w.WritePacket(gopacket.CaptureInfo{CaptureLength: len(fr), Length: len(fr)}, fr); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// AckAETH is the AETH of a plain ACK with MSN msn.
func AckAETH(msn uint32) ib.AETH { return ib.AETH{Syndrome: 0x1f, MSN: msn} }

// The two ends of the crafted captures: the client is node 1 with QP
// 0x11, the server node 2 with QP 0x12.
const (
	ClientQP = 0x11
	ServerQP = 0x12
)

// Conv builds one RC conversation frame by frame, numbering PSNs each way.
type Conv struct {
	T                    testing.TB
	Frames               [][]byte
	ClientPSN, ServerPSN uint32
}

// FromClient sends a packet from the client to the server's QP.
func (c *Conv) FromClient(b *ib.BTH, payload []byte) {
	b.DestQP = ServerQP
	c.Frames = append(c.Frames, RoCEFrame(c.T, 1, 2, b, payload))
}

// FromServer sends a packet from the server to the client's QP.
func (c *Conv) FromServer(b *ib.BTH, payload []byte) {
	b.DestQP = ClientQP
	c.Frames = append(c.Frames, RoCEFrame(c.T, 2, 1, b, payload))
}

// ClientSend sends msg as one SEND Only.
func (c *Conv) ClientSend(msg []byte) {
	c.FromClient(&ib.BTH{Opcode: ib.OpcodeRCSendOnly, PSN: c.ClientPSN, A: true}, msg)
	c.ClientPSN++
}

// ClientSendLarge sends msg as SEND First, Middles and Last of 60 KiB.
func (c *Conv) ClientSendLarge(msg []byte) {
	const mtu = 4096 * 15
	for off := 0; off < len(msg); off += mtu {
		op := ib.OpcodeRCSendMiddle
		switch {
		case off == 0:
			op = ib.OpcodeRCSendFirst
		case off+mtu >= len(msg):
			op = ib.OpcodeRCSendLast
		}
		c.FromClient(&ib.BTH{Opcode: op, PSN: c.ClientPSN, A: op == ib.OpcodeRCSendLast}, msg[off:min(off+mtu, len(msg))])
		c.ClientPSN++
	}
}

func (c *Conv) ServerSend(msg []byte) {
	c.FromServer(&ib.BTH{Opcode: ib.OpcodeRCSendOnly, PSN: c.ServerPSN, A: true}, msg)
	c.ServerPSN++
}

// ServerRead pulls n bytes at va of rkey with one RDMA READ, answered
// with data.
func (c *Conv) ServerRead(rkey uint32, va uint64, data []byte) {
	psn := c.ServerPSN
	c.FromServer(&ib.BTH{Opcode: ib.OpcodeRCReadRequest, PSN: psn, A: true,
		RETH: ib.RETH{VA: va, RKey: rkey, DMALen: uint32(len(data))}}, nil)
	c.ServerPSN++
	c.FromClient(&ib.BTH{Opcode: ib.OpcodeRCReadResponseOnly, PSN: psn, AETH: AckAETH(0)}, data)
}

// ServerWrite pushes data to va of rkey with one RDMA WRITE Only.
func (c *Conv) ServerWrite(rkey uint32, va uint64, data []byte) {
	c.FromServer(&ib.BTH{Opcode: ib.OpcodeRCWriteOnly, PSN: c.ServerPSN,
		RETH: ib.RETH{VA: va, RKey: rkey, DMALen: uint32(len(data))}}, data)
	c.ServerPSN++
}

// Write writes the frames as a pcap in the test's directory, and a copy
// under RDMALAB_HOSTILE_DIR when it is set.
func (c *Conv) Write(t testing.TB, name string) string {
	t.Helper()
	path := WriteFrames(t, c.Frames...)
	if dir := os.Getenv("RDMALAB_HOSTILE_DIR"); dir != "" {
		testutil.WriteFile(t, filepath.Join(dir, name), testutil.ReadFile(t, path))
	}
	return path
}

// RPCRDMAMsg encodes a transport header followed by body.
func RPCRDMAMsg(h rpcrdma.Header, body []byte) []byte {
	h.Vers = rpcrdma.Version
	if h.Credit == 0 {
		h.Credit = 32
	}
	return append(h.AppendTo(nil), body...)
}

// NFSCall encodes an RPC call to NFS vers, proc from machine with args.
func NFSCall(xid, vers, proc uint32, machine string, args []byte) []byte {
	cred := (&oncrpc.AuthSysParams{MachineName: machine, UID: 0, GID: 0}).Auth()
	h := oncrpc.CallHeader{XID: xid, RPCVers: 2, Prog: 100003, Vers: vers, Proc: proc, Cred: cred}
	return append(h.AppendTo(nil), args...)
}

// NFSReply encodes an accepted, successful RPC reply with results.
func NFSReply(xid uint32, results []byte) []byte {
	h := oncrpc.ReplyHeader{XID: xid, Stat: oncrpc.MsgAccepted, AcceptStat: oncrpc.Success}
	return append(h.AppendTo(nil), results...)
}

// XDROf encodes what fn writes.
func XDROf(fn func(w *xdr.Writer)) []byte {
	w := xdr.NewWriter(nil)
	fn(&w)
	return w.Bytes()
}

// HugeSegment is the length the hostile chunks advertise per segment.
const HugeSegment = 0x7fffffff

// FarOffset is where in each huge segment the hostile RDMA READ or WRITE
// places its few bytes: past the 64 MiB a rebuild used to materialise.
const FarOffset = 0x7fff0000

// A RoCEv2 frame of the kernel captures: Ethernet (14), IPv4 (20), UDP (8),
// then the BTH at 42 and the first extension header (or payload) at 54.
const (
	OffBTH = 42
	OffExt = 54
)

// Frame is one frame of a capture Mutate rewrites.
type Frame struct {
	Data   []byte
	CapLen int // 0: all of Data
}

// Mutate rewrites nfs3-rdma.pcap through fn, fixes every ICRC unless keep
// says which frame (1-based, after fn) keeps its old one, and returns the
// path of the result.
func Mutate(t testing.TB, fn func(fs []Frame) []Frame, keepICRC int) string {
	t.Helper()
	r, err := pcapfile.Open(testutil.Capture(t, "nfs3-rdma.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var fs []Frame
	var rec pcapfile.Record
	for r.Next(&rec) == nil {
		fs = append(fs, Frame{Data: append([]byte(nil), rec.Data...)})
	}
	fs = fn(fs)
	path := filepath.Join(t.TempDir(), "mutated.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapfile.NewWriter(f, pcapfile.LinkTypeEthernet, 262144)
	if err != nil {
		t.Fatal(err)
	}
	for i, fr := range fs {
		if i+1 != keepICRC {
			end := 14 + int(binary.BigEndian.Uint16(fr.Data[16:]))
			if err := ib.SetRoCEv2ICRC(fr.Data[14:end]); err != nil {
				t.Fatalf("frame %d: %v", i+1, err)
			}
		}
		data := fr.Data
		if fr.CapLen > 0 {
			data = data[:fr.CapLen]
		}
		if err := w.WritePacket(gopacket.CaptureInfo{CaptureLength: len(data), Length: len(fr.Data)}, data); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// Drop removes the frames numbered (1-based) from fs.
func Drop(fs []Frame, frames ...int) []Frame {
	var out []Frame
	for i, f := range fs {
		if !slices.Contains(frames, i+1) {
			out = append(out, f)
		}
	}
	return out
}
