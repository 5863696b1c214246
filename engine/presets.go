package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// ChunkOpts shapes the chunk a preset advertises.
type ChunkOpts struct {
	Segments int  // how many segments the chunk is split into (default 1)
	PageOff  int  // page offset of the client buffers (default 0)
	Inline   bool // send the data inline when it fits, as the Linux client does for small I/O
	// ChunkLen, for a READ, is the Write chunk's length (0: the READ's
	// size), so a chunk too small for the payload can be asked for.
	ChunkLen int
}

// Pattern is the data a WRITE preset sends at file offset off, for lab
// seed: recognisable bytes tests can compare server pages with.
func Pattern(seed int64, off, n int) []byte {
	b := make([]byte, n+7)
	x := uint64(seed)*0x9e3779b97f4a7c15 + uint64(off) + 1
	for i := 0; i < n; i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	return b[:n:n]
}

// pattern is Pattern(seed, 0, n), kept for the last size asked.
func (l *Lab) pattern(n int) []byte {
	if len(l.lastPattern) != n {
		l.lastPattern = Pattern(l.Set.Seed, 0, n)
	}
	return l.lastPattern
}

// segments splits n bytes into k segments of (nearly) equal length.
func segments(n int, o ChunkOpts) ([]xprt.SegSpec, error) {
	k := max(o.Segments, 1)
	if k > 64 {
		return nil, fmt.Errorf("at most 64 segments, not %d", k)
	}
	k = min(k, max(n, 1)) // no empty segments unless the data is empty
	if o.PageOff < 0 || o.PageOff >= 4096 {
		return nil, fmt.Errorf("page offset must be 0..4095, not %d", o.PageOff)
	}
	var out []xprt.SegSpec
	left := n
	for i := 0; i < k; i++ {
		l := left / (k - i)
		if i == k-1 {
			l = left
		}
		out = append(out, xprt.SegSpec{Len: l, PageOff: o.PageOff})
		left -= l
	}
	return out, nil
}

const maxIO = 16 << 20

func checkSize(what string, n int) error {
	if n < 0 || n > maxIO {
		return fmt.Errorf("%s size must be 0..%d bytes, not %d", what, maxIO, n)
	}
	return nil
}

// Write issues an NFSv3 WRITE of n bytes to the file "data"; the data goes
// in a Read chunk at its XDR position unless it fits inline and o.Inline.
// A WRITE of 0 bytes is always sent inline: there is no data to register
// as a chunk, and the Linux client sends such a call inline too.
func (l *Lab) Write(n int, o ChunkOpts) (*xprt.Call, error) {
	if err := checkSize("WRITE", n); err != nil {
		return nil, err
	}
	f := l.NFS.Lookup("data")
	label := fmt.Sprintf("NFSv3 WRITE %d", n)
	msg, pos := nfsd.WriteCallReduced(f.FH, 0, n)
	if whole := len(msg) + (n+3)&^3; (o.Inline || n == 0) && rpcrdma.HdrLenMin+whole <= l.Set.InlineThreshold {
		msg, _ := nfsd.WriteCall(f.FH, 0, l.pattern(n))
		return l.Call(xprt.CallSpec{Label: label, Msg: msg})
	}
	// The data stays where it is and is registered as the Read chunk.
	segs, err := segments(n, o)
	if err != nil {
		return nil, err
	}
	return l.Call(xprt.CallSpec{Label: label, Msg: msg,
		ReadChunks: []xprt.ReadChunkSpec{{Pos: pos, Len: n, Segments: segs, Data: l.pattern(n)}}})
}

// Read issues an NFSv3 READ of n bytes of "data", with a Write chunk for
// the data unless it fits inline and o.Inline. A READ of 0 bytes gets no
// Write chunk: an empty one cannot be registered, and its reply fits
// inline, which is what the Linux client does. o.ChunkLen asks for a
// Write chunk of that length whatever the READ's size.
func (l *Lab) Read(n int, o ChunkOpts) (*xprt.Call, error) {
	if err := checkSize("READ", n); err != nil {
		return nil, err
	}
	if o.ChunkLen < 0 || o.ChunkLen > maxIO {
		return nil, fmt.Errorf("Write chunk length must be 0..%d bytes, not %d", maxIO, o.ChunkLen)
	}
	f := l.NFS.Lookup("data")
	spec := xprt.CallSpec{Label: fmt.Sprintf("NFSv3 READ %d", n), Msg: nfsd.ReadCall(f.FH, 0, uint32(n))}
	chunk := n
	if o.ChunkLen > 0 {
		chunk = o.ChunkLen
		spec.Label += fmt.Sprintf(", %d-byte Write chunk", chunk)
	}
	if o.ChunkLen > 0 || !((o.Inline || n == 0) && n+200 <= l.Set.InlineThreshold) {
		segs, err := segments(chunk, o)
		if err != nil {
			return nil, err
		}
		spec.WriteChunks = []xprt.WriteChunkSpec{{Segments: segs}}
	}
	return l.Call(spec)
}

// Readdir issues an NFSv3 READDIR of up to count bytes with a Reply chunk
// of count bytes (RDMA_NOMSG reply).
func (l *Lab) Readdir(count int, o ChunkOpts) (*xprt.Call, error) {
	if err := checkSize("READDIR", count); err != nil {
		return nil, err
	}
	if count < 512 {
		return nil, fmt.Errorf("a Reply chunk under 512 bytes cannot hold a READDIR reply")
	}
	segs, err := segments(count, o)
	if err != nil {
		return nil, err
	}
	spec := xprt.CallSpec{Label: fmt.Sprintf("NFSv3 READDIR %d", count),
		Msg: nfsd.ReaddirCall(l.NFS.Root.FH, uint32(count)-512), ReplyChunk: &xprt.WriteChunkSpec{Segments: segs}}
	return l.Call(spec)
}

// LongCall issues an NFSv3 WRITE of n bytes sent entirely by RDMA Read: a
// position-zero Read chunk and RDMA_NOMSG, as the client does when a call
// is too large for inline and has no DDP-eligible part it could move.
func (l *Lab) LongCall(n int, o ChunkOpts) (*xprt.Call, error) {
	if err := checkSize("long call", n); err != nil {
		return nil, err
	}
	f := l.NFS.Lookup("data")
	msg, _ := nfsd.WriteCall(f.FH, 0, l.pattern(n))
	segs, err := segments(len(msg), o)
	if err != nil {
		return nil, err
	}
	return l.Call(xprt.CallSpec{Label: fmt.Sprintf("long call (WRITE %d in a PZRC)", n), Msg: msg, CallChunk: segs})
}
