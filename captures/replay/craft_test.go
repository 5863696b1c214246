package replay

// Captures built frame by frame for the hostile cases of issue 9: chunks
// advertised with huge lengths, data placed outside its segment, names
// made of terminal escapes. RDMALAB_HOSTILE_DIR=dir keeps a copy of each.

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// The two ends: the client is node 1 with QP 0x11, the server node 2 with
// QP 0x12.
const (
	clientQP = 0x11
	serverQP = 0x12
)

// conv builds one RC conversation, numbering PSNs and MSNs each way.
type conv struct {
	t                    testing.TB
	frames               [][]byte
	clientPSN, serverPSN uint32
	clientMSN, serverMSN uint32 // messages each side has received
}

func newConv(t testing.TB) *conv { return &conv{t: t, clientPSN: 1000, serverPSN: 5000} }

func (c *conv) fromClient(b *ib.BTH, payload []byte) {
	b.DestQP = serverQP
	c.frames = append(c.frames, roceFrame(c.t, 1, 2, b, payload))
}

func (c *conv) fromServer(b *ib.BTH, payload []byte) {
	b.DestQP = clientQP
	c.frames = append(c.frames, roceFrame(c.t, 2, 1, b, payload))
}

// clientSend sends msg as one SEND Only; the server's HCA ACKs it.
func (c *conv) clientSend(msg []byte) {
	psn := c.clientPSN
	c.fromClient(&ib.BTH{Opcode: ib.OpcodeRCSendOnly, PSN: psn, A: true}, msg)
	c.clientPSN++
	c.serverMSN++
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCAcknowledge, PSN: psn, AETH: ackAETH(c.serverMSN)}, nil)
}

// serverSend sends msg as one SEND Only; the client ACKs it.
func (c *conv) serverSend(msg []byte) {
	psn := c.serverSendUnacked(msg)
	c.fromClient(&ib.BTH{Opcode: ib.OpcodeRCAcknowledge, PSN: psn, AETH: ackAETH(c.clientMSN)}, nil)
}

// serverSendUnacked sends msg as one SEND Only and returns its PSN; the
// capture shows no ACK for it.
func (c *conv) serverSendUnacked(msg []byte) uint32 {
	psn := c.serverPSN
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCSendOnly, PSN: psn, A: true}, msg)
	c.serverPSN++
	c.clientMSN++
	return psn
}

// serverRead pulls len(data) bytes at va of rkey with one RDMA READ,
// answered with data in one response.
func (c *conv) serverRead(rkey uint32, va uint64, data []byte) {
	psn := c.serverPSN
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCReadRequest, PSN: psn, A: true,
		RETH: ib.RETH{VA: va, RKey: rkey, DMALen: uint32(len(data))}}, nil)
	c.serverPSN++
	c.clientMSN++
	c.fromClient(&ib.BTH{Opcode: ib.OpcodeRCReadResponseOnly, PSN: psn, AETH: ackAETH(c.clientMSN)}, data)
}

// serverWrite pushes data to va of rkey with one RDMA WRITE Only.
func (c *conv) serverWrite(rkey uint32, va uint64, data []byte) {
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCWriteOnly, PSN: c.serverPSN,
		RETH: ib.RETH{VA: va, RKey: rkey, DMALen: uint32(len(data))}}, data)
	c.serverPSN++
	c.clientMSN++
}

// pcap is the conversation as an Ethernet pcap.
func (c *conv) pcap() []byte {
	var b bytes.Buffer
	w, err := pcapfile.NewWriter(&b, pcapfile.LinkTypeEthernet, 65535)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, fr := range c.frames {
		if err := w.WritePacket(gopacket.CaptureInfo{CaptureLength: len(fr), Length: len(fr)}, fr); err != nil {
			c.t.Fatal(err)
		}
	}
	return b.Bytes()
}

// write writes the capture into the test's directory (and a copy under
// RDMALAB_HOSTILE_DIR when it is set) and returns its path.
func (c *conv) write(t *testing.T, name string) string {
	t.Helper()
	data := c.pcap()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("RDMALAB_HOSTILE_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// roceFrame is a RoCEv2 frame from node a to node b (10.0.0.a to
// 10.0.0.b) carrying bth and its payload, with its ICRC.
func roceFrame(t testing.TB, a, b byte, bth *ib.BTH, payload []byte) []byte {
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
	return bytes.Clone(buf.Bytes())
}

// ackAETH is the AETH of a plain ACK with MSN msn.
func ackAETH(msn uint32) ib.AETH { return ib.AETH{Syndrome: 0x1f, MSN: msn} }

// rdmaMsg encodes a transport header followed by body.
func rdmaMsg(h rpcrdma.Header, body []byte) []byte {
	h.Vers = rpcrdma.Version
	if h.Credit == 0 {
		h.Credit = 32
	}
	return append(h.AppendTo(nil), body...)
}

// nfsCall encodes an RPC call to NFS vers, proc from machine with args.
func nfsCall(xid, vers, proc uint32, machine string, args []byte) []byte {
	cred := (&oncrpc.AuthSysParams{MachineName: machine}).Auth()
	h := oncrpc.CallHeader{XID: xid, RPCVers: 2, Prog: 100003, Vers: vers, Proc: proc, Cred: cred}
	return append(h.AppendTo(nil), args...)
}

// nfsReply encodes an accepted, successful RPC reply with results.
func nfsReply(xid uint32, results []byte) []byte {
	h := oncrpc.ReplyHeader{XID: xid, Stat: oncrpc.MsgAccepted, AcceptStat: oncrpc.Success}
	return append(h.AppendTo(nil), results...)
}

// xdrOf encodes what fn writes.
func xdrOf(fn func(w *xdr.Writer)) []byte {
	w := xdr.NewWriter(nil)
	fn(&w)
	return w.Bytes()
}

// hugeSegment is the length the hostile chunks advertise per segment, and
// farOffset where in it the few bytes that really move are placed.
const (
	hugeSegment = 0x7fffffff
	farOffset   = 0x7fff0000
)

// hostileReadZero is a position-zero Read chunk call (RDMA_NOMSG) of segs
// huge segments, each pulled by one RDMA READ of 16 bytes far into it.
func hostileReadZero(t testing.TB, segs int) *conv {
	c := newConv(t)
	const xid = 0x0bad0001
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg}
	for i := range segs {
		h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: 0,
			Segment: rpcrdma.Segment{Handle: 0x100 + uint32(i), Length: hugeSegment, Offset: uint64(i+1) << 40}})
	}
	c.clientSend(rdmaMsg(h, nil))
	for i := range segs {
		c.serverRead(0x100+uint32(i), uint64(i+1)<<40+farOffset, []byte("0123456789abcdef"))
	}
	c.serverSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsReply(xid, []byte{0, 0, 0, 0})))
	return c
}

// hostileReplyChunk is an NFSv3 READDIR call offering a Reply chunk of
// segs huge segments, one RDMA WRITE of 16 bytes far into each, and an
// RDMA_NOMSG reply that says each segment was filled to its length.
func hostileReplyChunk(t testing.TB, segs int) *conv {
	c := newConv(t)
	const xid = 0x0bad0002
	rc := &rpcrdma.WriteChunk{}
	for i := range segs {
		rc.Segments = append(rc.Segments, rpcrdma.Segment{Handle: 0x200 + uint32(i), Length: hugeSegment, Offset: uint64(i+1) << 40})
	}
	readdir := xdrOf(func(w *xdr.Writer) {
		w.OpaqueVar([]byte{1, 2, 3, 4}) // dir
		w.Uint64(0)                     // cookie
		w.OpaqueFixed(make([]byte, 8))  // cookieverf
		w.Uint32(4096)                  // count
	})
	c.clientSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg, ReplyChunk: rc}, nfsCall(xid, 3, 16, "client", readdir)))
	for _, sg := range rc.Segments {
		c.serverWrite(sg.Handle, sg.Offset+farOffset, []byte("0123456789abcdef"))
	}
	c.serverSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg, ReplyChunk: rc}, nil))
	return c
}

// escName is a file name and a machine name a terminal would act on: a
// screen clear, a cursor report request, a forged line.
const (
	escName    = "a\x1b[2J\x1b[6n\r\nfake line\x07\u202ez"
	escMachine = "host\x1b]0;owned\x07\r\n"
)

// hostileNames is an NFSv3 LOOKUP of escName from escMachine, answered
// with NOENT.
func hostileNames(t testing.TB) *conv {
	c := newConv(t)
	const xid = 0x0bad0003
	lookup := xdrOf(func(w *xdr.Writer) {
		w.OpaqueVar([]byte{1, 2, 3, 4})
		w.String(escName)
	})
	c.clientSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsCall(xid, 3, 3, escMachine, lookup)))
	noent := xdrOf(func(w *xdr.Writer) {
		w.Uint32(2)   // NFS3ERR_NOENT
		w.Bool(false) // no dir attributes
	})
	c.serverSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsReply(xid, noent)))
	return c
}

// TestWriteHostile writes the crafted captures for a look by hand:
// RDMALAB_HOSTILE_DIR=/tmp/hostile/replay go test -run WriteHostile.
func TestWriteHostile(t *testing.T) {
	if os.Getenv("RDMALAB_HOSTILE_DIR") == "" {
		t.Skip("RDMALAB_HOSTILE_DIR is not set")
	}
	for _, n := range []int{1, 4, 16} {
		hostileReadZero(t, n).write(t, "readzero-"+itoa(n)+".pcap")
		hostileReplyChunk(t, n).write(t, "replychunk-"+itoa(n)+".pcap")
	}
	hostileNames(t).write(t, "escape-names.pcap")
}

func itoa(n int) string { return string(rune('0'+n/10%10)) + string(rune('0'+n%10)) }
