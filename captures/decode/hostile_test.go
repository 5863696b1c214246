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

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// hostileReadZero builds a position-zero Read chunk call (RDMA_NOMSG) of
// segs huge segments and, for each, one RDMA READ of 16 bytes far into
// it: the whole call is 16 × segs bytes, the segments claim 2 GiB each.
func hostileReadZero(t *testing.T, segs int) *craft.Conv {
	c := &craft.Conv{T: t}
	const xid = 0x0bad0001
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg}
	for i := range segs {
		h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: 0,
			Segment: rpcrdma.Segment{Handle: 0x100 + uint32(i), Length: craft.HugeSegment, Offset: uint64(i+1) << 40}})
	}
	c.ClientSend(craft.RPCRDMAMsg(h, nil))
	for i := range segs {
		c.ServerRead(0x100+uint32(i), uint64(i+1)<<40+craft.FarOffset, []byte("0123456789abcdef"))
	}
	return c
}

// hostileReplyChunk builds an NFSv3 READDIR call offering a Reply chunk of
// segs huge segments, one RDMA WRITE of 16 bytes far into each, and an
// RDMA_NOMSG reply that says every segment was filled to its length.
func hostileReplyChunk(t *testing.T, segs int) *craft.Conv {
	c := &craft.Conv{T: t}
	const xid = 0x0bad0002
	rc := &rpcrdma.WriteChunk{}
	for i := range segs {
		rc.Segments = append(rc.Segments, rpcrdma.Segment{Handle: 0x200 + uint32(i), Length: craft.HugeSegment, Offset: uint64(i+1) << 40})
	}
	readdir := craft.XDROf(func(w *xdr.Writer) {
		w.OpaqueVar([]byte{1, 2, 3, 4}) // dir
		w.Uint64(0)                     // cookie
		w.OpaqueFixed(make([]byte, 8))  // cookieverf
		w.Uint32(4096)                  // count
	})
	c.ClientSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg, ReplyChunk: rc}, craft.NFSCall(xid, 3, 16, "client", readdir)))
	for i, sg := range rc.Segments {
		c.ServerWrite(sg.Handle, sg.Offset+craft.FarOffset, []byte("0123456789abcdef"))
		_ = i
	}
	c.ServerSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg, ReplyChunk: rc}, nil))
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
		build func(*testing.T, int) *craft.Conv
	}{{"readzero", hostileReadZero}, {"replychunk", hostileReplyChunk}} {
		for _, segs := range []int{4, 16} {
			name := fmt.Sprintf("%s-%d", tc.name, segs)
			t.Run(name, func(t *testing.T) {
				path := tc.build(t, segs).Write(t, name+".pcap")
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
	d := decodeFile(t, hostileReplyChunk(t, segs).Write(t, "replychunk.pcap"))
	r := d.an.RPCs()[0]
	b, err := r.ReplyBytes()
	want := fmt.Sprintf("%d bytes not seen", segs*craft.HugeSegment)
	if len(b) != 0 || !errors.Is(err, analysis.ErrIncomplete) || !strings.Contains(err.Error(), want) {
		t.Errorf("reply rebuilt as %d bytes, %v; want none and %q", len(b), err, want)
	}
	for i, s := range r.ReplyChunk.Segments {
		if s.Placed != 16 {
			t.Errorf("segment %d: %d bytes placed, want 16", i, s.Placed)
		}
	}

	d = decodeFile(t, hostileReadZero(t, segs).Write(t, "readzero.pcap"))
	r = d.an.RPCs()[0]
	b, err = r.CallBytes()
	if len(b) != 0 || !errors.Is(err, analysis.ErrIncomplete) || !strings.Contains(err.Error(), want) {
		t.Errorf("call rebuilt as %d bytes, %v; want none and %q", len(b), err, want)
	}
	if r.HaveProc || r.CallSummary != "RPC call in a position-zero Read chunk" {
		t.Errorf("a call never seen whole summarised: %q", r.CallSummary)
	}
}

// hostileReadList builds one call whose Read list fills a 4 MiB SEND (the
// most a SEND keeps), every segment at its own position, in descending
// order: grouping them by scanning the list per position took 27 s.
func hostileReadList(t testing.TB) *craft.Conv {
	c := &craft.Conv{T: t}
	const xid = 0x0bad0003
	n := (analysis.MaxSendData - 256) / rpcrdma.ReadEntryLen
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}
	for i := range n {
		h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: uint32(n-i) * 4,
			Segment: rpcrdma.Segment{Handle: 0x1000 + uint32(i), Length: 4, Offset: uint64(i) << 12}})
	}
	c.ClientSendLarge(craft.RPCRDMAMsg(h, craft.NFSCall(xid, 3, 0, "client", nil)))
	return c
}

// TestManyReadSegments decodes the call of hostileReadList.
// BenchmarkManyReadSegments times it: about a second, where the scan per
// position took 27 s.
func TestManyReadSegments(t *testing.T) {
	path := hostileReadList(t).Write(t, "readlist-4m.pcap")
	_, out, err := writeFile(path, Output{})
	if err != nil || !strings.Contains(out, "V3 NULL Call") {
		t.Errorf("%v, %.300s", err, out)
	}
}

func BenchmarkManyReadSegments(b *testing.B) {
	path := hostileReadList(b).Write(b, "readlist-4m.pcap")
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
	c := &craft.Conv{T: t}
	n := (analysis.MaxSendData - 256) / rpcrdma.ReadEntryLen
	h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}
	for i := range n {
		h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: 4,
			Segment: rpcrdma.Segment{Handle: rkey, Length: 64, Offset: uint64(i) << 12}})
	}
	c.ClientSendLarge(craft.RPCRDMAMsg(h, craft.NFSCall(xid, 3, 0, "client", nil)))
	c.ServerWrite(rkey, 0, []byte("oldest"))
	c.ServerWrite(rkey, uint64(n-1)<<12+8, []byte("newest"))
	const far = 20000
	for i := range far {
		c.ServerWrite(rkey, 1<<50+uint64(i), []byte("x"))
	}
	c.ServerSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, craft.NFSReply(xid, nil)))
	path := c.Write(t, "onerkey-4m.pcap")
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
	for name, c := range map[string]*craft.Conv{
		"hostile-readzero":   hostileReadZero(t, 4),
		"hostile-replychunk": hostileReplyChunk(t, 4),
	} {
		seed("FuzzCaptureFile", name, fmt.Sprintf("[]byte(%q)\n", testutil.ReadFile(t, c.Write(t, name+".pcap"))))
		seed("FuzzDecodeFrames", name, fmt.Sprintf("byte('\\x00')\n[]byte(%q)\n[]byte(%q)\n", c.Frames[0], c.Frames[1]))
	}
	c := &craft.Conv{T: t}
	x := uint32(0xe0000001)
	c.ClientSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: x, Proc: rpcrdma.ProcMsg}, craft.NFSCall(x, 3, 3, evil,
		craft.XDROf(func(w *xdr.Writer) { w.OpaqueVar([]byte{1, 2, 3, 4}); w.String(evil) }))))
	c.ServerSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: x, Proc: rpcrdma.ProcMsg}, craft.NFSReply(x, craft.XDROf(func(w *xdr.Writer) {
		w.Uint32(0)
		w.Bool(false)
		w.String(evil) // as a READLINK reply
	}))))
	seed("FuzzDecodeFrames", "hostile-names", fmt.Sprintf("byte('\\x00')\n[]byte(%q)\n[]byte(%q)\n", c.Frames[0], c.Frames[1]))
	seed("FuzzCaptureFile", "hostile-names", fmt.Sprintf("[]byte(%q)\n", testutil.ReadFile(t, c.Write(t, "names.pcap"))))
}
