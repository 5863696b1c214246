package engine

// payloads holds the payload copies of the transfers the lab keeps
// (Transfers) in chunks reused once every payload in them is dropped, so
// recording the wire in a long session does not allocate and clear a new
// buffer for every operation that crosses it.
type payloads struct {
	cur     *chunk
	free    []*chunk
	pending []given // handed out, not yet kept, in order
	made    int     // chunks allocated
}

// chunk is one buffer payloads are cut from, front to back.
type chunk struct {
	buf  []byte
	off  int
	live int // payloads cut from it still kept or pending
}

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
	if old := p.cur; old != nil && old.live == 0 && len(p.free) < maxFree {
		old.off = 0
		p.free = append(p.free, old)
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
	if c.live == 0 && c != p.cur && len(p.free) < maxFree {
		c.off = 0
		p.free = append(p.free, c)
	}
}
