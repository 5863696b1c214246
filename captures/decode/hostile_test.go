package decode

// Captures crafted as an attacker would (issue 9), built from the ib layers
// and the rpcrdma and oncrpc codecs: chunks advertised with huge lengths
// and a few bytes placed far into them, and NFS names made of terminal
// escapes. RDMALAB_HOSTILE_DIR=dir keeps a copy of each file built.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// The two ends of the crafted captures: the client is node 1 with QP
// 0x11, the server node 2 with QP 0x12.
const (
	clientQP = 0x11
	serverQP = 0x12
)

// conv builds one RC conversation frame by frame, numbering PSNs each way.
type conv struct {
	t                    testing.TB
	frames               [][]byte
	clientPSN, serverPSN uint32
}

// fromClient sends a packet from the client to the server's QP.
func (c *conv) fromClient(b *ib.BTH, payload []byte) {
	b.DestQP = serverQP
	c.frames = append(c.frames, roceFrame(c.t, 1, 2, b, payload))
}

// fromServer sends a packet from the server to the client's QP.
func (c *conv) fromServer(b *ib.BTH, payload []byte) {
	b.DestQP = clientQP
	c.frames = append(c.frames, roceFrame(c.t, 2, 1, b, payload))
}

// clientSend sends msg as one SEND Only.
func (c *conv) clientSend(msg []byte) {
	c.fromClient(&ib.BTH{Opcode: ib.OpcodeRCSendOnly, PSN: c.clientPSN, A: true}, msg)
	c.clientPSN++
}

// clientSendLarge sends msg as SEND First, Middles and Last of 60 KiB.
func (c *conv) clientSendLarge(msg []byte) {
	const mtu = 4096 * 15
	for off := 0; off < len(msg); off += mtu {
		op := ib.OpcodeRCSendMiddle
		switch {
		case off == 0:
			op = ib.OpcodeRCSendFirst
		case off+mtu >= len(msg):
			op = ib.OpcodeRCSendLast
		}
		c.fromClient(&ib.BTH{Opcode: op, PSN: c.clientPSN, A: op == ib.OpcodeRCSendLast}, msg[off:min(off+mtu, len(msg))])
		c.clientPSN++
	}
}

func (c *conv) serverSend(msg []byte) {
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCSendOnly, PSN: c.serverPSN, A: true}, msg)
	c.serverPSN++
}

// serverRead pulls n bytes at va of rkey with one RDMA READ, answered
// with data.
func (c *conv) serverRead(rkey uint32, va uint64, data []byte) {
	psn := c.serverPSN
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCReadRequest, PSN: psn, A: true,
		RETH: ib.RETH{VA: va, RKey: rkey, DMALen: uint32(len(data))}}, nil)
	c.serverPSN++
	c.fromClient(&ib.BTH{Opcode: ib.OpcodeRCReadResponseOnly, PSN: psn, AETH: ackAETH(0)}, data)
}

// serverWrite pushes data to va of rkey with one RDMA WRITE Only.
func (c *conv) serverWrite(rkey uint32, va uint64, data []byte) {
	c.fromServer(&ib.BTH{Opcode: ib.OpcodeRCWriteOnly, PSN: c.serverPSN,
		RETH: ib.RETH{VA: va, RKey: rkey, DMALen: uint32(len(data))}}, data)
	c.serverPSN++
}

// write writes the frames as a pcap in the test's directory, and a copy
// under RDMALAB_HOSTILE_DIR when it is set.
func (c *conv) write(t testing.TB, name string) string {
	t.Helper()
	path := writeFrames(t, c.frames...)
	if dir := os.Getenv("RDMALAB_HOSTILE_DIR"); dir != "" {
		testutil.WriteFile(t, filepath.Join(dir, name), testutil.ReadFile(t, path))
	}
	return path
}

// rpcrdmaMsg encodes a transport header followed by body.
func rpcrdmaMsg(h rpcrdma.Header, body []byte) []byte {
	h.Vers = rpcrdma.Version
	if h.Credit == 0 {
		h.Credit = 32
	}
	return append(h.AppendTo(nil), body...)
}

// nfsCall encodes an RPC call to NFS vers, proc from machine with args.
func nfsCall(xid, vers, proc uint32, machine string, args []byte) []byte {
	cred := (&oncrpc.AuthSysParams{MachineName: machine, UID: 0, GID: 0}).Auth()
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

// hugeSegment is the length the hostile chunks advertise per segment.
const hugeSegment = 0x7fffffff

// farOffset is where in each huge segment the hostile RDMA READ or WRITE
// places its few bytes: past the 64 MiB a rebuild used to materialise.
const farOffset = 0x7fff0000

// hostileReadZero builds a position-zero Read chunk call (RDMA_NOMSG) of
// segs huge segments and, for each, one RDMA READ of 16 bytes far into
// it: the whole call is 16 × segs bytes, the segments claim 2 GiB each.
func hostileReadZero(t *testing.T, segs int) *conv {
	c := &conv{t: t}
	const xid = 0x0bad0001
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg}
	for i := range segs {
		h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: 0,
			Segment: rpcrdma.Segment{Handle: 0x100 + uint32(i), Length: hugeSegment, Offset: uint64(i+1) << 40}})
	}
	c.clientSend(rpcrdmaMsg(h, nil))
	for i := range segs {
		c.serverRead(0x100+uint32(i), uint64(i+1)<<40+farOffset, []byte("0123456789abcdef"))
	}
	return c
}

// hostileReplyChunk builds an NFSv3 READDIR call offering a Reply chunk of
// segs huge segments, one RDMA WRITE of 16 bytes far into each, and an
// RDMA_NOMSG reply that says every segment was filled to its length.
func hostileReplyChunk(t *testing.T, segs int) *conv {
	c := &conv{t: t}
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
	c.clientSend(rpcrdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg, ReplyChunk: rc}, nfsCall(xid, 3, 16, "client", readdir)))
	for i, sg := range rc.Segments {
		c.serverWrite(sg.Handle, sg.Offset+farOffset, []byte("0123456789abcdef"))
		_ = i
	}
	c.serverSend(rpcrdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg, ReplyChunk: rc}, nil))
	return c
}

// TestChunkRebuildBounded decodes captures whose calls advertise Read or
// Reply chunks of segments claiming 2 GiB each, with 16 bytes placed far
// into each: every output mode must allocate in proportion to the file,
// not to the claims (each segment used to cost 64 MiB of zeros, rebuilt
// again at every READ), and say the bytes are missing.
func TestChunkRebuildBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(*testing.T, int) *conv
	}{{"readzero", hostileReadZero}, {"replychunk", hostileReplyChunk}} {
		for _, segs := range []int{4, 16} {
			name := fmt.Sprintf("%s-%d", tc.name, segs)
			t.Run(name, func(t *testing.T) {
				path := tc.build(t, segs).write(t, name+".pcap")
				size := uint64(len(testutil.ReadFile(t, path)))
				for _, mode := range []Output{{}, {Tree: true}, {JSON: true}, {RPCs: true}, {RPCs: true, JSON: true}, {Check: true}} {
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					_, out, err := writeFile(path, mode)
					runtime.ReadMemStats(&after)
					alloc := after.TotalAlloc - before.TotalAlloc
					t.Logf("%+v: %d bytes allocated for a %d-byte file", mode, alloc, size)
					if bound := 1<<20 + 64*size; alloc > bound {
						t.Errorf("%+v: %d bytes allocated, want at most %d", mode, alloc, bound)
					}
					if err != nil || out == "" {
						t.Errorf("%+v: %v, %d bytes out", mode, err, len(out))
					}
					checkTerminalSafe(t, fmt.Sprintf("%+v", mode), out)
					if mode == (Output{}) {
						checkPacketLines(t, out)
					}
				}
			})
		}
	}
}

// packetLine is how every line of the default output starts: frame
// number, time, source.
var packetLine = regexp.MustCompile(`^ *[0-9]+ +[0-9]+\.[0-9]{6} +[0-9]`)

// checkPacketLines fails when a line of the default output is not a
// packet's: a message broke it, or a capture forged one.
func checkPacketLines(t *testing.T, out string) {
	t.Helper()
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !packetLine.MatchString(l) {
			t.Errorf("line %d is not a packet's: %q", i+1, l)
		}
	}
}

// TestChunkMissingCounted checks what the rebuild says of the hostile
// chunks: nothing made up, every claimed byte counted missing.
func TestChunkMissingCounted(t *testing.T) {
	const segs = 4
	d := decodeFile(t, hostileReplyChunk(t, segs).write(t, "replychunk.pcap"))
	r := d.an.RPCs()[0]
	b, err := r.ReplyBytes()
	want := fmt.Sprintf("%d bytes not seen", segs*hugeSegment)
	if len(b) != 0 || !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), want) {
		t.Errorf("reply rebuilt as %d bytes, %v; want none and %q", len(b), err, want)
	}
	for i, s := range r.ReplyChunk.Segments {
		if s.Placed != 16 {
			t.Errorf("segment %d: %d bytes placed, want 16", i, s.Placed)
		}
	}

	d = decodeFile(t, hostileReadZero(t, segs).write(t, "readzero.pcap"))
	r = d.an.RPCs()[0]
	b, err = r.CallBytes()
	if len(b) != 0 || !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), want) {
		t.Errorf("call rebuilt as %d bytes, %v; want none and %q", len(b), err, want)
	}
	if r.HaveProc || r.CallSummary != "RPC call in a position-zero Read chunk" {
		t.Errorf("a call never seen whole summarised: %q", r.CallSummary)
	}
}

// TestSegmentBytes checks the rebuild of one segment: holes filled with
// zeros while the zeros are no more than the bytes seen, retransmitted
// bytes once, bytes not kept as zeros, and the missing bytes counted.
func TestSegmentBytes(t *testing.T) {
	seg := func(keep bool, length uint32, puts ...any) *Segment {
		s := &Segment{Segment: rpcrdma.Segment{Length: length}, keep: keep}
		for i := 0; i < len(puts); i += 2 {
			s.put(uint64(puts[i].(int)), []byte(puts[i+1].(string)))
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		s       *Segment
		want    uint32
		bytes   string
		missing int
	}{
		{"whole", seg(true, 8, 0, "abcd", 4, "efgh"), 8, "abcdefgh", 0},
		{"out of order", seg(true, 8, 4, "efgh", 0, "abcd"), 8, "abcdefgh", 0},
		{"retransmitted", seg(true, 8, 0, "abcd", 2, "cdef", 4, "efgh"), 8, "abcdefgh", 0},
		{"tail missing", seg(true, 8, 0, "abc"), 8, "abc", 5},
		{"hole filled", seg(true, 8, 0, "ab", 4, "efgh"), 8, "ab\x00\x00efgh", 2},
		{"hole as wide as the bytes seen", seg(true, 8, 0, "ab", 6, "gh"), 8, "ab\x00\x00\x00\x00gh", 4},
		{"hole wider than the bytes seen", seg(true, 8, 0, "a", 6, "gh"), 8, "a", 7},
		{"far into a huge segment", seg(true, hugeSegment, farOffset, "0123456789abcdef"), hugeSegment, "", hugeSegment},
		{"not kept", seg(false, 8, 0, "ab", 2, "cd"), 8, "\x00\x00\x00\x00", 4},
		{"want less than placed", seg(true, 8, 0, "abcdefgh"), 3, "abc", 0},
		{"placed past the segment", seg(true, 4, 2, "cdef"), 4, "\x00\x00cd", 2},
	} {
		b, missing := tc.s.Bytes(tc.want)
		if string(b) != tc.bytes || missing != tc.missing {
			t.Errorf("%s: %q, %d missing; want %q, %d", tc.name, b, missing, tc.bytes, tc.missing)
		}
		if m := tc.s.missing(tc.want); m != tc.missing {
			t.Errorf("%s: missing() = %d, Bytes says %d", tc.name, m, tc.missing)
		}
	}
}

// TestPositionZeroCallSummarised sends an NFSv3 LOOKUP call in a
// position-zero Read chunk: its first half is read twice before its
// second half arrives, so the bytes placed reach the chunk's length while
// it still has a hole, and the look that found the hole waits for twice as
// many before looking again. The reply looks once more: the call is
// summarised before its reply is, and rebuilt whole.
func TestPositionZeroCallSummarised(t *testing.T) {
	const xid = 0x600d0001
	call := nfsCall(xid, 3, 3, "client", xdrOf(func(w *xdr.Writer) {
		w.OpaqueVar([]byte{1, 2, 3, 4})
		w.String("hello")
	}))
	half := len(call) / 2
	c := &conv{t: t}
	c.clientSend(rpcrdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg, ReadList: []rpcrdma.ReadSegment{
		{Position: 0, Segment: rpcrdma.Segment{Handle: 0x300, Length: uint32(len(call)), Offset: 0x10000}}}}, nil))
	c.serverRead(0x300, 0x10000, call[:half])
	c.serverRead(0x300, 0x10000, call[:half])
	c.serverRead(0x300, 0x10000+uint64(half), call[half:])
	c.serverSend(rpcrdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsReply(xid, xdrOf(func(w *xdr.Writer) {
		w.Uint32(2) // NFS3ERR_NOENT
		w.Uint32(0) // dir_attributes: none
	}))))
	d := decodeFile(t, c.write(t, "readzero-lookup.pcap"))
	r := d.an.RPCs()[0]
	if r.CallSummary != "V3 LOOKUP Call, DH: 0xb63cfbcd/hello" || r.ReplySummary != "V3 LOOKUP Reply Error: NFS3ERR_NOENT" {
		t.Errorf("call %q, reply %q", r.CallSummary, r.ReplySummary)
	}
	if b, err := r.CallBytes(); err != nil || string(b) != string(call) {
		t.Errorf("call rebuilt as %x, %v; want %x", b, err, call)
	}
	if r.zeroTried != uint64(2*half) {
		t.Errorf("the last look found a hole with %d bytes placed, want %d", r.zeroTried, 2*half)
	}
}

// hostileReadList builds one call whose Read list fills a 4 MiB SEND (the
// most a SEND keeps), every segment at its own position, in descending
// order: grouping them by scanning the list per position took 27 s.
func hostileReadList(t testing.TB) *conv {
	c := &conv{t: t}
	const xid = 0x0bad0003
	n := (maxSendData - 256) / rpcrdma.ReadEntryLen
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}
	for i := range n {
		h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: uint32(n-i) * 4,
			Segment: rpcrdma.Segment{Handle: 0x1000 + uint32(i), Length: 4, Offset: uint64(i) << 12}})
	}
	c.clientSendLarge(rpcrdmaMsg(h, nfsCall(xid, 3, 0, "client", nil)))
	return c
}

// TestManyReadSegments decodes the call of hostileReadList.
// BenchmarkManyReadSegments times it: about a second, where the scan per
// position took 27 s.
func TestManyReadSegments(t *testing.T) {
	path := hostileReadList(t).write(t, "readlist-4m.pcap")
	_, out, err := writeFile(path, Output{})
	if err != nil || !strings.Contains(out, "V3 NULL Call") {
		t.Errorf("%v, %.300s", err, out)
	}
}

func BenchmarkManyReadSegments(b *testing.B) {
	path := hostileReadList(b).write(b, "readlist-4m.pcap")
	for b.Loop() {
		if _, _, err := writeFile(path, Output{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestManySegmentsOneRKey advertises a 4 MiB Read list of segments that
// all share one rkey, then RDMA WRITEs: each WRITE used to be compared
// with every segment under its rkey (a 40 MB capture of small WRITEs,
// minutes). A WRITE at the start of the oldest segment and one inside the
// newest are still placed, and thousands of WRITEs aimed elsewhere take a
// bounded time each.
func TestManySegmentsOneRKey(t *testing.T) {
	const xid, rkey = 0x0bad0004, 0x1000
	c := &conv{t: t}
	n := (maxSendData - 256) / rpcrdma.ReadEntryLen
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}
	for i := range n {
		h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: 4,
			Segment: rpcrdma.Segment{Handle: rkey, Length: 64, Offset: uint64(i) << 12}})
	}
	c.clientSendLarge(rpcrdmaMsg(h, nfsCall(xid, 3, 0, "client", nil)))
	c.serverWrite(rkey, 0, []byte("oldest"))
	c.serverWrite(rkey, uint64(n-1)<<12+8, []byte("newest"))
	const far = 20000
	for i := range far {
		c.serverWrite(rkey, 1<<50+uint64(i), []byte("x"))
	}
	c.serverSend(rpcrdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsReply(xid, nil)))
	path := c.write(t, "onerkey-4m.pcap")
	d := decodeFile(t, path)
	first := len(d.packets) - far - 3
	for i, want := range []struct {
		seg int
		off uint64
	}{{0, 0}, {n - 1, 8}} {
		ch := d.packets[first+i].Analysis.Chunk
		if ch.RPC == nil || ch.Segment != want.seg || ch.Offset != want.off || ch.Past {
			t.Errorf("WRITE %d placed at %+v, want segment %d +%d", i+1, ch, want.seg, want.off)
		}
	}
	if ch := d.packets[first+2].Analysis.Chunk; ch.RPC == nil || !ch.Past {
		t.Errorf("a WRITE outside every segment: %+v, want the most recent segment, past it", ch)
	}
}

// TestWriteFuzzSeeds writes the hostile captures as seeds of the fuzz
// corpora (RDMALAB_WRITE_SEEDS=1; the files are committed): whole files
// for FuzzCaptureFile, a call and what follows it for FuzzDecodeFrames.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("RDMALAB_WRITE_SEEDS") != "1" {
		t.Skip("RDMALAB_WRITE_SEEDS=1 writes the seeds")
	}
	seed := func(target, name, data string) {
		path := filepath.Join("testdata", "fuzz", target, name)
		if err := os.WriteFile(path, []byte("go test fuzz v1\n"+data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]*conv{
		"hostile-readzero":   hostileReadZero(t, 4),
		"hostile-replychunk": hostileReplyChunk(t, 4),
	} {
		seed("FuzzCaptureFile", name, fmt.Sprintf("[]byte(%q)\n", testutil.ReadFile(t, c.write(t, name+".pcap"))))
		seed("FuzzDecodeFrames", name, fmt.Sprintf("byte('\\x00')\n[]byte(%q)\n[]byte(%q)\n", c.frames[0], c.frames[1]))
	}
	c := &conv{t: t}
	x := uint32(0xe0000001)
	c.clientSend(rpcrdmaMsg(rpcrdma.Header{XID: x, Proc: rpcrdma.ProcMsg}, nfsCall(x, 3, 3, evil,
		xdrOf(func(w *xdr.Writer) { w.OpaqueVar([]byte{1, 2, 3, 4}); w.String(evil) }))))
	c.serverSend(rpcrdmaMsg(rpcrdma.Header{XID: x, Proc: rpcrdma.ProcMsg}, nfsReply(x, xdrOf(func(w *xdr.Writer) {
		w.Uint32(0)
		w.Bool(false)
		w.String(evil) // as a READLINK reply
	}))))
	seed("FuzzDecodeFrames", "hostile-names", fmt.Sprintf("byte('\\x00')\n[]byte(%q)\n[]byte(%q)\n", c.frames[0], c.frames[1]))
	seed("FuzzCaptureFile", "hostile-names", fmt.Sprintf("[]byte(%q)\n", testutil.ReadFile(t, c.write(t, "names.pcap"))))
}
