package replay

import (
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"

	"github.com/rdmalab/rdmalab/engine/snap"
)

// random fills a value of type T, every exported field of it (a field
// added to snap's types and not to the ops fails the round trip).
func random[T any](t *testing.T, r *rand.Rand) T {
	t.Helper()
	v, ok := quick.Value(reflect.TypeFor[T](), r)
	if !ok {
		t.Fatalf("no random %v", reflect.TypeFor[T]())
	}
	return v.Interface().(T)
}

// An op gives back the very values it was written with: nil and empty
// slices apart, every field of the picture's types.
func TestOpRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 200 {
		rd, ch, ctxts := random[snap.Read](t, r), random[snap.Chain](t, r), random[[]snap.RWCtxt](t, r)
		hdr := random[snap.CallHeader](t, r)
		planned := random[[]int](t, r)
		call := callState{rpc: 3, xid: r.Uint32(), label: "V3 WRITE ✓", proc: "RDMA_MSG", state: callPulling}
		reply := replyState{xid: r.Uint32(), proc: "WRITE", pos: r.Uint64()}
		o := op(nil).call(call, &hdr).addRead(3, rd, true, planned).addChain(3, ch, ctxts).rwCreated(9).postSeq(5).addReply(reply)
		s := newState(4096)
		if err := o.apply(s); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.calls, []callState{call}) || !reflect.DeepEqual(s.call, &hdr) {
			t.Fatalf("call: %+v %+v, want %+v %+v", s.calls, s.call, call, hdr)
		}
		if want := (readState{rpc: 3, snap: rd, dense: true, planned: planned}); len(s.reads) != 1 || !reflect.DeepEqual(s.reads[0], want) {
			t.Fatalf("read: %+v\nwant %+v", s.reads, want)
		}
		if want := (chainState{rpc: 3, snap: ch, ctxts: ctxts}); len(s.chains) != 1 || !reflect.DeepEqual(s.chains[0], want) {
			t.Fatalf("chain: %+v\nwant %+v", s.chains, want)
		}
		if s.rwCreated != 9 || s.postSeq != 5 || !reflect.DeepEqual(s.replies, []replyState{reply}) {
			t.Fatalf("rw %d, post_seq %d, replies %+v", s.rwCreated, s.postSeq, s.replies)
		}
	}
}

// The primitives do to a picture what the builder's steps mean.
func TestOpPrimitives(t *testing.T) {
	s := newState(4096)
	o := op(nil).call(callState{rpc: 1, xid: 0x11, state: callPulling}, &snap.CallHeader{}).
		addRead(1, snap.Read{XID: "0x00000011"}, false, nil).addChain(1, snap.Chain{Owner: "rc"}, nil).
		land(1, 0, 100, "read chunk 0 seg 0").land(1, 100, 50, "read chunk 0 seg 0").readDone(1).
		removeChain(1, "rc").setCall(1, callInNfsd).
		addChain(1, snap.Chain{Owner: "sc"}, nil).addReply(replyState{xid: 0x11, pos: 4}).postSeq(4).
		acked(4).removeChain(1, "sc").setCall(1, callDelivered)
	if err := o.apply(s); err != nil {
		t.Fatal(err)
	}
	rs := s.readOf(1)
	// The second land continues the first from the same segment: one run.
	if rs == nil || !rs.done || rs.landed != 150 || len(rs.runs) != 1 || rs.runs[0] != (landRun{off: 0, n: 150, src: "read chunk 0 seg 0"}) {
		t.Fatalf("read %+v", rs)
	}
	if len(s.chains) != 0 || s.ackedPos != 4 || s.postSeq != 4 || !s.replies[0].acked || s.calls[0].state != callDelivered {
		t.Fatalf("after the ACK: chains %+v, acked %d, post %d, replies %+v, calls %+v", s.chains, s.ackedPos, s.postSeq, s.replies, s.calls)
	}
	if err := op(nil).dropRead(1).apply(s); err != nil || len(s.reads) != 0 {
		t.Fatalf("dropRead: %v, %+v", err, s.reads)
	}
}

// An op cut short, or one with a code that is none, is an error, never a
// panic or a length taken from it.
func TestOpDamaged(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	o := op(nil).addRead(3, random[snap.Read](t, r), true, []int{1, 2}).addChain(3, random[snap.Chain](t, r), nil).land(3, 0, 9, "x")
	for n := range len(o) {
		_ = o[:n].apply(newState(4096)) // no panic
	}
	if err := o[:len(o)-1].apply(newState(4096)); err == nil {
		t.Error("an op cut short applies without an error")
	}
	if err := (op{0xee}).apply(newState(4096)); err == nil {
		t.Error("an unknown op code applies without an error")
	}
	huge := op{opAddRead}.int(1).str("x").int(0).int(0).int(0).int(0).int(0).uint(1 << 40)
	if err := huge.apply(newState(4096)); err == nil {
		t.Error("a count past the bytes left applies without an error")
	}
}
