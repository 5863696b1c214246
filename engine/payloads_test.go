package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// A payload cut from a chunk keeps its bytes for as long as it is kept,
// whatever is cut, kept, skipped and dropped around it.
func TestPayloadsKeepTheirBytes(t *testing.T) {
	var p payloads
	type kept struct {
		b    []byte
		fill byte
		c    *chunk
	}
	var live []kept
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{1, 4, 176, 4096, 20480, 65536, maxCut, maxCut + 1}
	for i := 0; i < 5_000; i++ {
		n := sizes[rng.IntN(len(sizes))]
		b := p.alloc(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("alloc(%d): len %d cap %d", n, len(b), cap(b))
		}
		fill := byte(i)
		for j := range b {
			b[j] = fill
		}
		if rng.IntN(10) == 0 {
			continue // handed out, never kept: the tap was removed
		}
		live = append(live, kept{b, fill, p.kept(b)})
		if (live[len(live)-1].c == nil) != (n > maxCut) {
			t.Fatalf("payload %d (%d bytes): chunk %v", i, n, live[len(live)-1].c)
		}
		for len(live) > 0 && rng.IntN(3) > 0 {
			p.drop(live[0].c)
			live = live[1:]
		}
		if i%97 == 0 {
			for _, k := range live {
				if !bytes.Equal(k.b, bytes.Repeat([]byte{k.fill}, len(k.b))) {
					t.Fatalf("after %d payloads a kept one (%d bytes of %d) was overwritten", i, len(k.b), k.fill)
				}
			}
		}
	}
	if len(p.free) > maxFree {
		t.Errorf("%d free chunks kept, over %d", len(p.free), maxFree)
	}
}

// Recording the wire reuses the chunks of the payloads the bound pushed
// out: once the lab keeps its 64 MiB, a long session's recording makes no
// new payload buffer.
func TestKeptPayloadsReuseChunks(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	l.Sched.Quiet = true
	write := func() {
		if _, err := l.Write(1<<20, ChunkOpts{}); err != nil {
			t.Fatal(err)
		}
		l.Continue()
	}
	for l.capture.dropped == 0 {
		write() // fill the 64 MiB the lab keeps
	}
	if l.payloads.made > maxTransferBytes/chunkSize+2 {
		t.Errorf("%d chunks made to keep %d bytes", l.payloads.made, maxTransferBytes)
	}
	for i := 0; i < 8; i++ {
		write() // the chunks start over
	}
	made := l.payloads.made
	for i := 0; i < 16; i++ {
		write()
	}
	if l.payloads.made != made {
		t.Errorf("16 MiB more WRITE data made %d new chunks", l.payloads.made-made)
	}
	// What is kept is still what crossed the wire.
	want := Pattern(l.Set.Seed, 0, 1<<20)
	reads := 0
	kept := l.Transfers()
	for _, tr := range kept[len(kept)-200:] {
		if tr.Op.Opcode == verbs.WRRDMARead && tr.Op.Node == "server" {
			reads++
			if len(tr.Payload) == 0 || !bytes.Contains(want, tr.Payload) {
				t.Fatalf("a kept RDMA READ payload (%d bytes) is not WRITE data", len(tr.Payload))
			}
		}
	}
	if reads == 0 {
		t.Error("no RDMA READ kept")
	}
	for i, tr := range kept {
		if c := l.transferChunk.items()[i]; (c != nil) != (len(tr.Payload) > 0) {
			t.Fatalf("kept transfer %d: %d payload bytes, chunk %v", i, len(tr.Payload), c)
		}
	}
}

// Payloads with the same bytes share one copy, and every kept payload
// keeps its bytes whatever is shared, dropped and cut again around it.
func TestPayloadsShareKeepTheirBytes(t *testing.T) {
	var p payloads
	type kept struct {
		b    []byte
		want []byte
		c    *chunk
	}
	rng := rand.New(rand.NewPCG(3, 4))
	contents := func(n int, v int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + v)
		}
		return b
	}
	var live []kept
	shared := 0
	for i := 0; i < 20_000; i++ {
		n := []int{100, 1024, 4096, 20480, 65536}[rng.IntN(5)]
		v := rng.IntN(4) // a few contents repeat...
		if rng.IntN(3) == 0 {
			v = 4 + i // ...others are new
		}
		want := contents(n, v)
		if rng.IntN(5) == 0 {
			want[n/2] ^= 0xff // alike at both ends, not between
		}
		b := p.alloc(n)
		copy(b, want)
		c := p.kept(b)
		if sb, sc, ok := p.share(b, c); ok {
			if &sb[0] == &b[0] || sc == nil {
				t.Fatalf("payload %d shared with itself", i)
			}
			b, c = sb, sc
			shared++
		}
		live = append(live, kept{b, want, c})
		for len(live) > 0 && rng.IntN(2) > 0 {
			k := rng.IntN(len(live))
			p.drop(live[k].c)
			live = append(live[:k], live[k+1:]...)
		}
		if i%101 == 0 {
			for _, k := range live {
				if !bytes.Equal(k.b, k.want) {
					t.Fatalf("after %d payloads a kept one (%d bytes) was overwritten", i, len(k.b))
				}
			}
		}
	}
	if shared < 5_000 {
		t.Errorf("%d payloads shared, want most of the repeated ones", shared)
	}
	for _, k := range live {
		p.drop(k.c)
	}
	for _, c := range append(p.free, p.cur) {
		if c.live != 0 {
			t.Errorf("a chunk has %d live payloads after every one was dropped", c.live)
		}
	}
}

// Recording the same WRITE over and over shares its data: the lab keeps
// 64 MiB of transfers in a few chunks, and the kept payloads are still
// what crossed the wire.
func TestKeptPayloadsShared(t *testing.T) {
	l := newLab(t, func(s *Settings) { s.AutoComplete = true })
	l.Sched.Quiet = true
	for i := 0; i < 100; i++ {
		if _, err := l.Write(1<<20, ChunkOpts{}); err != nil {
			t.Fatal(err)
		}
		l.Continue()
	}
	if l.capture.dropped == 0 || l.transferBytes < maxTransferBytes-(2<<20) {
		t.Fatalf("100 MiB of WRITEs kept %d bytes and dropped %d transfers", l.transferBytes, l.capture.dropped)
	}
	if l.payloads.made > 2 {
		t.Errorf("%d chunks made to keep 100 copies of one WRITE", l.payloads.made)
	}
	want := Pattern(l.Set.Seed, 0, 1<<20)
	reads := 0
	for _, tr := range l.Transfers() {
		if tr.Op.Opcode == verbs.WRRDMARead && tr.Op.Node == "server" {
			reads++
			if len(tr.Payload) != tr.Op.Bytes || !bytes.Contains(want, tr.Payload) {
				t.Fatalf("a kept RDMA READ payload (%d bytes) is not WRITE data", len(tr.Payload))
			}
		}
	}
	if reads < 1000 {
		t.Errorf("%d RDMA READs kept", reads)
	}
}
