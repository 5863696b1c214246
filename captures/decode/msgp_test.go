package decode

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// toMSGP turns the RDMA_MSG SEND Only frame f into RDMA_MSGP (RFC 5666
// §4.3): message type 2, and the padding alignment and threshold words
// after the fixed header, the chunk lists and the RPC message after them.
// The IPv4 and UDP lengths follow (mutate fixes the ICRC).
func toMSGP(f []byte, align, thresh uint32) []byte {
	hdr := craft.OffExt // SEND Only: the transport header starts after the BTH
	binary.BigEndian.PutUint32(f[hdr+12:], 2)
	words := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, align), thresh)
	out := append(append(append([]byte(nil), f[:hdr+16]...), words...), f[hdr+16:]...)
	binary.BigEndian.PutUint16(out[16:], binary.BigEndian.Uint16(out[16:])+8) // IPv4 total length
	binary.BigEndian.PutUint16(out[38:], binary.BigEndian.Uint16(out[38:])+8) // UDP length
	out[24], out[25] = 0, 0
	var sum uint32
	for i := 14; i < 34; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(out[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(out[24:], ^uint16(sum))
	return out
}

// TestMSGP decodes an NFS NULL call and its reply sent as RDMA_MSGP: the
// RPC message after the padding words is decoded, paired by XID and
// labelled obsolete, and tshark reads the same transport header.
func TestMSGP(t *testing.T) {
	path := craft.Mutate(t, func(fs []craft.Frame) []craft.Frame {
		fs[3].Data = toMSGP(fs[3].Data, 1024, 4096) // the NULL call
		fs[5].Data = toMSGP(fs[5].Data, 0, 0)       // its reply
		return fs
	}, 0)
	d := decodeFile(t, path)
	call, reply := d.packets[3].Analysis.RPC, d.packets[5].Analysis.RPC
	if call == nil || reply == nil {
		t.Fatalf("RDMA_MSGP not taken for RPC-over-RDMA: %q / %q", d.packets[3].Analysis.NotRPC, d.packets[5].Analysis.NotRPC)
	}
	if !call.Call || call.RPC == nil || call.RPC != reply.RPC || call.Header.Align != 1024 || call.Header.Thresh != 4096 || !call.Obsolete() {
		t.Errorf("call %+v, reply %+v", call, reply)
	}
	if r := call.RPC; r.CallSummary != "V3 NULL Call" || r.ReplySummary != "V3 NULL Reply" || r.Reply.Frame != 6 {
		t.Errorf("RPC %q / %q, reply in %d", r.CallSummary, r.ReplySummary, r.Reply.Frame)
	}
	for _, c := range []struct {
		frame int
		want  string
	}{
		{4, "NFS        134 V3 NULL Call [RDMA_MSGP XID 0x3adbd665 credits 128 padded to 1024 above 4096 (RFC 5666, obsolete)]"},
		{6, "V3 NULL Reply (call in 4) [RDMA_MSGP XID 0x3adbd665 credits 64 padded to 0 above 0 (RFC 5666, obsolete)]"},
	} {
		if !strings.Contains(d.lines[c.frame-1], c.want) {
			t.Errorf("frame %d: %q lacks %q", c.frame, d.lines[c.frame-1], c.want)
		}
	}
	for _, n := range d.an.Notes() {
		if n.Kind.Anomaly() {
			t.Errorf("anomaly: %v", n)
		}
	}
	js := jsonOf(t, path)
	if js[3]["rpcordma.msg_type"] != 2.0 || js[3]["rpcordma.rdma_align"] != 1024.0 || js[3]["rpcordma.rdma_thresh"] != 4096.0 ||
		js[3]["rdmalab.rpc.obsolete"] != true || js[3]["rdmalab.rpc.role"] != "call" || js[3]["nfs.procedure_v3"] != 0.0 {
		t.Errorf("frame 4 JSON: %v", js[3])
	}

	t.Run("tshark", func(t *testing.T) {
		out := testutil.RunTshark(t, "-r", path, "-Y", "frame.number==4 || frame.number==6", "-T", "fields",
			"-e", "rpcordma.msg_type", "-e", "rpcordma.rdma_align", "-e", "rpcordma.rdma_thresh", "-e", "rpc.xid")
		if got, want := out, "2\t1024\t4096\t0x3adbd665\n2\t0\t0\t0x3adbd665\n"; got != want {
			t.Errorf("tshark reads %q, want %q", got, want)
		}
	})
}
