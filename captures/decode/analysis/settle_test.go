package analysis

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// A segment keeps what was placed in it as a prefix (bytes in order from
// 0) and pieces; settle, once its bytes are dropped, merges the pieces.
// Whatever the order, overlaps and holes of what was placed, the bytes
// and the missing count rebuilt from the segment are those of the pieces
// as put left them with their bytes dropped, and a segment filled in
// order (or filled at all from 0) keeps no piece.
func TestSegmentSettle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		length := uint32(1 + rng.IntN(4000))
		sg := rpcrdma.Segment{Handle: 1, Length: length, Offset: 0x1000}
		kept := &Segment{Segment: sg, keep: true}
		lean := &Segment{Segment: sg}
		off := uint64(0)
		for k, n := 0, rng.IntN(12); k < n; k++ {
			if rng.IntN(3) == 0 { // out of order, overlapping or past the end
				off = uint64(rng.IntN(int(length) + 100))
			}
			data := make([]byte, 1+rng.IntN(600))
			kept.put(off, data)
			lean.put(off, data)
			off += uint64(len(data))
		}
		dropped := &Segment{Segment: sg, pieces: slices.Clone(kept.pieces)}
		for i := range dropped.pieces {
			dropped.pieces[i].data = nil // what release did before settle
		}
		for _, want := range []uint32{length, length / 2, length + 10} {
			wantB, wantM := dropped.rebuild(nil, want, modeBuild)
			leanB, leanM := lean.rebuild(nil, want, modeBuild)
			if !slices.Equal(leanB, wantB) || leanM != wantM {
				t.Fatalf("trial %d, want %d: unkept segment rebuilds %d bytes, %d missing; pieces %v give %d, %d",
					trial, want, len(leanB), leanM, dropped.pieces, len(wantB), wantM)
			}
		}
		kept.settle()
		for _, want := range []uint32{length, length / 2, length + 10} {
			wantB, wantM := dropped.rebuild(nil, want, modeBuild)
			gotB, gotM := kept.rebuild(nil, want, modeBuild)
			if !slices.Equal(gotB, wantB) || gotM != wantM {
				t.Fatalf("trial %d, want %d: settled segment rebuilds %d bytes, %d missing; pieces %v give %d, %d",
					trial, want, len(gotB), gotM, dropped.pieces, len(wantB), wantM)
			}
		}
		for _, p := range kept.pieces {
			if p.data != nil || p.off == 0 {
				t.Fatalf("trial %d: settled pieces %v (prefix %d)", trial, kept.pieces, kept.prefix)
			}
		}
	}
	// In order from 0: no piece, before or after settle.
	s := &Segment{Segment: rpcrdma.Segment{Length: 3000}}
	for off := uint64(0); off < 3000; off += 1000 {
		s.put(off, make([]byte, 1000))
	}
	k := &Segment{Segment: rpcrdma.Segment{Length: 3000}, keep: true}
	for off := uint64(0); off < 3000; off += 1000 {
		k.put(off, make([]byte, 1000))
	}
	k.settle()
	for _, s := range []*Segment{s, k} {
		if s.prefix != 3000 || s.pieces != nil {
			t.Errorf("in order: prefix %d, pieces %v; want 3000 and none", s.prefix, s.pieces)
		}
	}
}

// A reply rebuilt in reused buffers is the reply rebuilt afresh, whatever
// was rebuilt in them before: Write chunk bytes kept or not (zeros the
// buffers skip writing), longer replies before shorter ones.
func TestRebuildReplyReusesBufs(t *testing.T) {
	var rpcs []*RPC
	for _, name := range testutil.KernelCaptures() {
		for _, opt := range []Options{{}, {DropChunkData: true}} {
			an := decodeEach(t, testutil.Capture(t, name), opt, func(*Packet) {})
			rpcs = append(rpcs, an.RPCs()...)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var bufs RebuildBufs
	withData := 0
	for range 3 {
		rng.Shuffle(len(rpcs), func(i, j int) { rpcs[i], rpcs[j] = rpcs[j], rpcs[i] })
		for _, r := range rpcs {
			want, werr := r.ReplyBytes()
			got, gerr := r.rebuildReply(&bufs)
			if !bytes.Equal(got, want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("XID 0x%08x: rebuilt in reused buffers: %d bytes (%v), afresh %d bytes (%v)",
					r.XID, len(got), gerr, len(want), werr)
			}
			if len(r.WriteChunks) > 0 && r.WriteChunks[0].written() > 0 {
				withData++
			}
		}
	}
	if withData == 0 {
		t.Fatal("no reply with Write chunk data in the kernel captures")
	}
}
