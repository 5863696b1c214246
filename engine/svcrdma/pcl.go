package svcrdma

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// Segment is struct svc_rdma_segment: one RDMA segment a client advertised.
type Segment struct {
	Handle uint32
	Length uint32
	Offset uint64
}

func (s Segment) String() string {
	return fmt.Sprintf("0x%x:%d@0x%x", s.Handle, s.Length, s.Offset)
}

// Chunk is struct svc_rdma_chunk.
type Chunk struct {
	Position      uint32 // ch_position: Read: XDR position; Write: set by result_payload
	Length        uint32 // ch_length: sum of segment lengths
	PayloadLength uint32 // ch_payload_length: Write/Reply bytes actually conveyed
	Segments      []Segment
	// Index is the chunk's place in its list, for naming ("read chunk 1").
	Index int
}

// PCL is struct svc_rdma_pcl: a parsed chunk list.
type PCL struct {
	Chunks []*Chunk
}

// Count is cl_count.
func (p *PCL) Count() int { return len(p.Chunks) }

// IsEmpty is pcl_is_empty.
func (p *PCL) IsEmpty() bool { return len(p.Chunks) == 0 }

// First is pcl_first_chunk.
func (p *PCL) First() *Chunk {
	if len(p.Chunks) == 0 {
		return nil
	}
	return p.Chunks[0]
}

// Next is pcl_next_chunk.
func (p *PCL) Next(c *Chunk) *Chunk {
	for i, x := range p.Chunks {
		if x == c && i+1 < len(p.Chunks) {
			return p.Chunks[i+1]
		}
	}
	return nil
}

// chunkEndOffset is pcl_chunk_end_offset.
func chunkEndOffset(c *Chunk) int { return align4(int(c.Position) + int(c.PayloadLength)) }

// pclAllocCall is pcl_alloc_call: every position-zero segment, in list
// order, goes into one call chunk.
func pclAllocCall(rl []rpcrdma.ReadSegment) PCL {
	var c *Chunk
	for _, rs := range rl {
		if rs.Position != 0 {
			continue
		}
		if c == nil {
			c = &Chunk{}
		}
		c.Segments = append(c.Segments, Segment{rs.Handle, rs.Length, rs.Offset})
		c.Length += rs.Length
	}
	if c == nil {
		return PCL{}
	}
	return PCL{Chunks: []*Chunk{c}}
}

// pclAllocRead is pcl_alloc_read: segments with the same non-zero position
// form one chunk; chunks are kept sorted by position.
func pclAllocRead(rl []rpcrdma.ReadSegment) PCL {
	var p PCL
	for _, rs := range rl {
		if rs.Position == 0 {
			continue
		}
		var c *Chunk
		at := len(p.Chunks)
		for i, x := range p.Chunks {
			if x.Position == rs.Position {
				c = x
				break
			}
			if x.Position > rs.Position {
				at = i
				break
			}
		}
		if c == nil {
			c = &Chunk{Position: rs.Position}
			p.Chunks = append(p.Chunks, nil)
			copy(p.Chunks[at+1:], p.Chunks[at:])
			p.Chunks[at] = c
		}
		c.Segments = append(c.Segments, Segment{rs.Handle, rs.Length, rs.Offset})
		c.Length += rs.Length
	}
	for i, c := range p.Chunks {
		c.Index = i
	}
	return p
}

// pclAllocWrite is pcl_alloc_write, for the Write list and the Reply chunk.
func pclAllocWrite(wl []rpcrdma.WriteChunk) PCL {
	var p PCL
	for i, wc := range wl {
		c := &Chunk{Index: i}
		for _, s := range wc.Segments {
			c.Segments = append(c.Segments, Segment{s.Handle, s.Length, s.Offset})
			c.Length += s.Length
		}
		p.Chunks = append(p.Chunks, c)
	}
	return p
}

// pclProcessNonpayloads is pcl_process_nonpayloads: run actor on every
// region of xdr that no Write chunk payload carries.
func pclProcessNonpayloads(p *PCL, xdr *XdrBuf, actor func(*XdrBuf) error) error {
	c := p.First()
	if c == nil || c.PayloadLength == 0 {
		return actor(xdr)
	}
	if c.Position > 0 {
		sub, ok := xdr.subsegment(0, int(c.Position))
		if !ok {
			return errMsgSize
		}
		if err := actor(&sub); err != nil {
			return err
		}
	}
	for n := p.Next(c); n != nil && n.PayloadLength != 0; n = p.Next(c) {
		start := chunkEndOffset(c)
		if int(n.Position) > start {
			sub, ok := xdr.subsegment(start, int(n.Position)-start)
			if !ok {
				return errMsgSize
			}
			if err := actor(&sub); err != nil {
				return err
			}
		}
		c = n
	}
	start := chunkEndOffset(c)
	if xdr.Len > start {
		sub, ok := xdr.subsegment(start, xdr.Len-start)
		if !ok {
			return errMsgSize
		}
		if err := actor(&sub); err != nil {
			return err
		}
	}
	return nil
}
