package analysis

// Matching RDMA READs and WRITEs with the segments calls advertised. The
// server pulls a call's Read chunks with RDMA READ requests and pushes
// Write and Reply chunks with RDMA WRITEs, both aimed at the client's
// memory: a READ request or WRITE from S to C is looked up by (C, R_Key)
// and placed by its address inside a segment of a call C sent and S has not
// answered yet.

import (
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// lookup finds the segment of an unanswered call by owner that rkey and
// va fall in. When rkey is known but va is outside every segment it
// returns the most recent one, marked Past. nil when no call advertised
// rkey.
//
// Kernels give each segment its own rkey, so a handful share one. When a
// capture advertises more than maxScan under one rkey, an RDMA READ or
// WRITE is matched by the start of a segment, else among the maxScan most
// recent: each costs a bounded time, however many segments the capture's
// calls claim.
func (s *rpcState) lookup(owner frame.Addr, rkey uint32, va uint64, n int) *ChunkRef {
	refs := s.segs[segKey{Owner: owner, RKey: rkey}]
	if len(refs) > maxScan {
		if r, ok := s.starts[segStart{owner, rkey, va}]; ok {
			return r.ref(va, n)
		}
	}
	var fallback *segRef
	for i := len(refs) - 1; i >= max(len(refs)-maxScan, 0); i-- {
		r := &refs[i]
		sg := r.chunk.Segments[r.seg]
		if va >= sg.Offset && va-sg.Offset < uint64(max(sg.Length, 1)) {
			return r.ref(va, n)
		}
		if fallback == nil {
			fallback = r
		}
	}
	if fallback == nil {
		return nil
	}
	c := fallback.ref(va, n)
	c.Past = true
	return c
}

// maxScan bounds the segments under one rkey an RDMA READ or WRITE is
// compared with.
const maxScan = 256

func (r *segRef) ref(va uint64, n int) *ChunkRef {
	sg := r.chunk.Segments[r.seg]
	c := &ChunkRef{RPC: r.rpc, Kind: r.chunk.Kind, Chunk: r.chunk.Index, Segment: r.seg, Offset: va - sg.Offset, Len: n}
	c.Past = va < sg.Offset || c.Offset+uint64(n) > uint64(sg.Length)
	return c
}

// Seg returns the segment a reference points at.
func (c *ChunkRef) Seg() *Segment {
	var ch *Chunk
	switch c.Kind {
	case ChunkRead:
		ch = c.RPC.ReadChunks[c.Chunk]
	case ChunkWrite:
		ch = c.RPC.WriteChunks[c.Chunk]
	case ChunkReply:
		ch = c.RPC.ReplyChunk
	}
	return ch.Segments[c.Segment]
}

// unmatched reports an RDMA READ or WRITE no call advertised, when the
// peers speak RPC-over-RDMA.
func (s *rpcState) unmatched(a *Analyzer, p *Packet, what string, rkey uint32, va uint64) {
	peer := s.known(p.Src, p.Dst)
	if peer == nil {
		return // not RPC-over-RDMA traffic
	}
	kind := NoteUnknownRKey
	if !peer.fromStart {
		kind = InfoMidStream
	}
	a.note(p, kind, "%s to rkey 0x%08x at 0x%016x, which no unanswered call in the capture advertised", what, rkey, va)
}

// readRequest matches an RDMA READ request with a Read chunk segment.
func (s *rpcState) readRequest(a *Analyzer, p *Packet, m *Message) {
	c := s.lookup(p.Dst, m.RKey, m.VA, int(m.DMALen))
	if c == nil {
		s.unmatched(a, p, "RDMA READ", m.RKey, m.VA)
		return
	}
	m.Chunk = c
	p.Analysis.Chunk = *c
	c.RPC.Reads = append(c.RPC.Reads, m)
	if c.Kind != ChunkRead {
		a.note(p, NoteWritePastSegment, "RDMA READ of a %s chunk segment of XID 0x%08x", c.Kind, c.RPC.XID)
	} else if c.Past {
		a.note(p, NoteWritePastSegment, "RDMA READ of %d bytes at offset %d of a %d-byte segment of XID 0x%08x",
			m.DMALen, int64(c.Offset), c.Seg().Length, c.RPC.XID)
	}
}

// resent ties a resent RDMA READ request, or the first packet of a resent
// RDMA WRITE, to the segment its message was tied to: a requester's
// retransmission (its timer, under load) repeats the same operation, and
// its PSN note says it is one.
func (s *rpcState) resent(p *Packet, m *Message) {
	if m == nil || m.Chunk == nil || p.BTH.Headers&ib.HasRETH == 0 {
		return
	}
	c := *m.Chunk
	if m.Kind == ib.KindWrite {
		c.Len = len(p.BTH.Payload)
		c.Past = c.Offset+uint64(c.Len) > uint64(c.Seg().Length)
	}
	p.Analysis.Chunk = c
}

// readData places the data of a READ response at off in its READ.
func (s *rpcState) readData(a *Analyzer, p *Packet, m *Message, off int) {
	if m.Chunk == nil {
		return
	}
	c := *m.Chunk
	c.Offset += uint64(off)
	c.Len = len(p.BTH.Payload)
	c.Past = c.Offset+uint64(c.Len) > uint64(c.Seg().Length)
	n := c.Seg().put(c.Offset, p.BTH.Payload)
	if c.Kind == ChunkRead && c.RPC.ReadChunks[c.Chunk].Position == 0 {
		c.RPC.zeroPlaced += uint64(n)
	}
	p.Analysis.Chunk = c
}

// readDone summarises a call that travelled in a position-zero Read chunk
// once all of it has arrived. Whether it has is only looked at when the
// bytes placed reach what the chunk claims, and after a look that found a
// hole only once they have doubled again (the reply looks once more), so
// that a READ at a time of a chunk with a hole costs no rebuild each.
func (s *rpcState) readDone(a *Analyzer, p *Packet, m *Message) {
	if m.Chunk == nil {
		return
	}
	r := m.Chunk.RPC
	if r.zeroPlaced < r.zeroWant || r.zeroPlaced < 2*r.zeroTried {
		return
	}
	if !r.summarizeZero() {
		r.zeroTried = r.zeroPlaced
	}
}

// summarizeZero summarises a call that travelled in a position-zero Read
// chunk when the chunk is complete, and reports whether it is summarised.
func (r *RPC) summarizeZero() bool {
	if r.Call == nil || r.Call.Header.Proc != rpcrdma.ProcNoMsg || r.HaveProc {
		return r.HaveProc
	}
	if len(r.ReadChunks) == 0 || r.ReadChunks[0].Position != 0 || r.ReadChunks[0].missing(segLength) > 0 {
		return false
	}
	if b, err := r.CallBytes(); err == nil {
		r.summarizeCall(b)
	}
	return r.HaveProc
}

// writePacket matches an RDMA WRITE packet, off bytes into its message,
// with a Write or Reply chunk segment and places its data.
func (s *rpcState) writePacket(a *Analyzer, p *Packet, m *Message, off int) {
	if m.Packets == 1 && p.BTH.Headers&ib.HasRETH != 0 {
		c := s.lookup(p.Dst, m.RKey, m.VA, int(m.DMALen))
		if c == nil {
			s.unmatched(a, p, "RDMA WRITE", m.RKey, m.VA)
			return
		}
		m.Chunk = c
		c.RPC.Writes = append(c.RPC.Writes, m)
		switch {
		case c.Kind == ChunkRead:
			a.note(p, NoteWritePastSegment, "RDMA WRITE into a Read chunk segment of XID 0x%08x", c.RPC.XID)
		case c.Past:
			a.note(p, NoteWritePastSegment, "RDMA WRITE of %d bytes at offset %d of a %d-byte %s chunk segment of XID 0x%08x",
				m.DMALen, int64(c.Offset), c.Seg().Length, c.Kind, c.RPC.XID)
		}
	}
	if m.Chunk == nil {
		return
	}
	c := *m.Chunk
	c.Offset += uint64(off)
	c.Len = len(p.BTH.Payload)
	c.Past = c.Offset+uint64(c.Len) > uint64(c.Seg().Length)
	c.Seg().put(c.Offset, p.BTH.Payload)
	p.Analysis.Chunk = c
}
