package replay

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// manyRPCs is a conversation of n RPCs, each a call whose Read chunk the
// server pulls with one RDMA READ, then a reply the client ACKs: 6 frames
// an RPC.
func manyRPCs(t testing.TB, n int) *conv {
	c := newConv(t)
	for i := range n {
		xid := 0x1000 + uint32(i)
		h := rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcNoMsg, ReadList: []rpcrdma.ReadSegment{{Position: 0,
			Segment: rpcrdma.Segment{Handle: 0x100, Length: 16, Offset: uint64(i) << 12}}}}
		c.clientSend(rdmaMsg(h, nil))
		c.serverRead(0x100, uint64(i)<<12, []byte("0123456789abcdef"))
		c.serverSend(rdmaMsg(rpcrdma.Header{XID: xid, Proc: rpcrdma.ProcMsg}, nfsReply(xid, []byte{0, 0, 0, 0})))
	}
	return c
}

// The builder lets go of an RPC's plans and its decode.RPC soon after the
// ACK of its reply, not 2*maxLook frames after the reply: a big capture
// would otherwise keep some 1,500 RPCs' plans (10 MB of a million-packet
// capture) at any time.
func TestSweepDelivered(t *testing.T) {
	const n = 6000 // 36,000 frames: past ackedMargin and a sweep
	tl, err := open(bytes.NewReader(manyRPCs(t, n).pcap()), nil, "many.pcap", ReadOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	for tl.src != nil && tl.src.built < 2*sweepEvery {
		tl.pump()
	}
	if tl.b == nil {
		t.Fatal("the capture ended before two sweeps")
	}
	// The RPCs built since the ACKs ackedMargin frames before the last
	// sweep, and a lookahead's worth: each has 6 frames.
	most := (sweepEvery+ackedMargin)/6 + minLook/6 + 1
	c := tl.b.conns[0]
	if len(tl.b.rpcIDs) > most || len(c.reads) > most || len(c.replies) > most {
		t.Errorf("after %d RPCs: %d RPCs, %d read plans, %d reply plans kept; want at most %d",
			len(tl.RPCs), len(tl.b.rpcIDs), len(c.reads), len(c.replies), most)
	}
	for i := range tl.RPCs[:len(tl.RPCs)-most] {
		if tl.RPCs[i].rpc != nil {
			t.Fatalf("RPC %d still holds its decode.RPC", i+1)
		}
	}
	tl.All()
	if len(tl.RPCs) != n {
		t.Errorf("%d RPCs replayed, want %d", len(tl.RPCs), n)
	}
}

// A timeline read with NoJSON (the view's) keeps none of what the JSON
// transcript quotes once its RPCs are let go, refuses a JSON transcript,
// and tells everything else as one read without it.
func TestNoJSON(t *testing.T) {
	path := testutil.Capture(t, nfs41)
	tl, err := ReadFileWith(path, ReadOptions{NoJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range tl.RPCs {
		if r.wire != nil || r.rpc != nil {
			t.Fatalf("RPC %d keeps what the JSON transcript quotes", i+1)
		}
	}
	var b bytes.Buffer
	if err := tl.WriteTranscript(&b, Options{JSON: true}); err == nil || !strings.Contains(err.Error(), "NoJSON") || b.Len() != 0 {
		t.Errorf("a JSON transcript of a NoJSON timeline: %v, %d bytes written", err, b.Len())
	}
	want := load(t, nfs41)
	var got, wantb bytes.Buffer
	o := Options{ByRPC: true, Events: true}
	if err := tl.WriteTranscript(&got, o); err != nil {
		t.Fatal(err)
	}
	if err := want.WriteTranscript(&wantb, o); err != nil {
		t.Fatal(err)
	}
	if got.String() != wantb.String() {
		t.Error("the transcript of a NoJSON timeline differs")
	}
	if want.RPCs[0].wire == nil {
		t.Error("a timeline read without NoJSON keeps nothing for its JSON transcript")
	}
}
