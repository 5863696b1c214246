package analysis

import (
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// Segments rebuilt from hostile placements, and a call in a position-zero
// Read chunk (the decode package's hostile_test.go crafts the rest).

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
		{"far into a huge segment", seg(true, craft.HugeSegment, craft.FarOffset, "0123456789abcdef"), craft.HugeSegment, "", craft.HugeSegment},
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
	call := craft.NFSCall(xid, 3, 3, "client", craft.XDROf(func(w *xdr.Writer) {
		w.OpaqueVar([]byte{1, 2, 3, 4})
		w.String("hello")
	}))
	half := len(call) / 2
	c := &craft.Conv{T: t}
	c.ClientSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg, ReadList: []rpcrdma.ReadSegment{
		{Position: 0, Segment: rpcrdma.Segment{Handle: 0x300, Length: uint32(len(call)), Offset: 0x10000}}}}, nil))
	c.ServerRead(0x300, 0x10000, call[:half])
	c.ServerRead(0x300, 0x10000, call[:half])
	c.ServerRead(0x300, 0x10000+uint64(half), call[half:])
	c.ServerSend(craft.RPCRDMAMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, craft.NFSReply(xid, craft.XDROf(func(w *xdr.Writer) {
		w.Uint32(2) // NFS3ERR_NOENT
		w.Uint32(0) // dir_attributes: none
	}))))
	d := decodeFile(t, c.Write(t, "readzero-lookup.pcap"))
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
