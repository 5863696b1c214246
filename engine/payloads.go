package engine

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// payloads holds the payload copies of the transfers the lab keeps
// (Transfers) in chunks reused once every payload in them is dropped, so
// recording the wire in a long session does not allocate and clear a new
// buffer for every operation that crosses it. A payload whose bytes are
// already kept (a lab moves the same file data again and again) shares
// them: its copy is cut back, and the recording touches no new memory.
type payloads struct {
	cur     *chunk
	free    []*chunk
	pending []given // handed out, not yet kept, in order
	made    int     // chunks allocated
	seen    map[uint64]keptRef
	seed    maphash.Seed
}

// chunk is one buffer payloads are cut from, front to back.
type chunk struct {
	buf  []byte
	off  int
	live int    // payloads cut from it still kept or pending
	gen  uint64 // bumped when the chunk is free to be cut again
}

// keptRef is a kept payload others may share, valid while its chunk is
// in the generation it was cut in.
type keptRef struct {
	b   []byte
	c   *chunk
	gen uint64
}

const (
	// minShare is the smallest payload worth looking up.
	minShare = 1024
	// maxSeen bounds the kept payloads remembered for sharing.
	maxSeen = 4096
	// keyEnds is how many bytes of each end of a payload its key hashes.
	keyEnds = 64
)

// given is one payload handed out: its first byte identifies it when it
// comes back to be kept.
type given struct {
	first *byte
	c     *chunk
}

const (
	chunkSize = 4 << 20
	// Payloads over maxCut get their own buffer, which the GC frees.
	maxCut = chunkSize / 4
	// maxFree bounds the unused chunks kept for reuse.
	maxFree = 8
)

// alloc is the fabric's payload allocator (sim.Fabric.SetPayloadAlloc).
func (p *payloads) alloc(n int) []byte {
	if n <= 0 || n > maxCut {
		return make([]byte, n)
	}
	if p.cur == nil || p.cur.off+n > len(p.cur.buf) {
		p.next()
	}
	c := p.cur
	b := c.buf[c.off : c.off+n : c.off+n]
	c.off += n
	c.live++
	p.pending = append(p.pending, given{&b[0], c})
	return b
}

// next starts a new current chunk: a free one, or a new one.
func (p *payloads) next() {
	if old := p.cur; old != nil && old.live == 0 {
		old.gen++ // free to cut again, or let go
		if len(p.free) < maxFree {
			old.off = 0
			p.free = append(p.free, old)
		}
	}
	if n := len(p.free); n > 0 {
		p.cur = p.free[n-1]
		p.free = p.free[:n-1]
		return
	}
	p.cur = &chunk{buf: make([]byte, chunkSize)}
	p.made++
}

// kept takes payload b, handed out by alloc, into the kept transfers, and
// returns its chunk (nil for a buffer of its own). Payloads handed out
// before it that never came back (the tap was removed) are let go.
func (p *payloads) kept(b []byte) *chunk {
	if len(b) == 0 || len(b) > maxCut {
		return nil
	}
	for i, g := range p.pending {
		if g.first == &b[0] {
			for _, skipped := range p.pending[:i] {
				p.drop(skipped.c)
			}
			p.pending = append(p.pending[:0], p.pending[i+1:]...)
			return g.c
		}
	}
	return nil
}

// drop lets go of one payload cut from c; an unused chunk is reused.
func (p *payloads) drop(c *chunk) {
	if c == nil {
		return
	}
	c.live--
	if c.live == 0 && c != p.cur {
		c.gen++ // free to cut again, or let go
		if len(p.free) < maxFree {
			c.off = 0
			p.free = append(p.free, c)
		}
	}
}

// share looks for a kept payload with the bytes of b, just kept from chunk
// c. When there is one, b's copy is cut back and the kept bytes and their
// chunk, counted once more, come back to be kept in b's stead.
func (p *payloads) share(b []byte, c *chunk) ([]byte, *chunk, bool) {
	if c == nil || len(b) < minShare {
		return nil, nil, false
	}
	if p.seen == nil {
		p.seen, p.seed = map[uint64]keptRef{}, maphash.MakeSeed()
	}
	// The key hashes the length and both ends only: a hit is checked
	// byte for byte, and payloads alike at their ends but not between
	// merely take each other's place in seen.
	var h maphash.Hash
	h.SetSeed(p.seed)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b[:keyEnds])
	h.Write(b[len(b)-keyEnds:])
	key := h.Sum64()
	r, ok := p.seen[key]
	if ok && r.c.gen == r.gen && bytes.Equal(r.b, b) && p.cutBack(b, c) {
		r.c.live++
		return r.b, r.c, true
	}
	if len(p.seen) >= maxSeen {
		clear(p.seen)
	}
	p.seen[key] = keptRef{b, c, c.gen}
	return nil, nil, false
}

// cutBack undoes the cut of b from c when it is the last one made.
func (p *payloads) cutBack(b []byte, c *chunk) bool {
	if c != p.cur || c.off < len(b) || &c.buf[c.off-len(b)] != &b[0] {
		return false
	}
	c.off -= len(b)
	c.live--
	return true
}
