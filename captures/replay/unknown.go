package replay

import (
	"fmt"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
)

// unknowns fills Timeline.Unknown: what the picture leaves empty because
// the wire does not show it, as far as the lookahead shows (the queue).
func (b *builder) unknowns(src *source) {
	tl := b.tl
	say := func(format string, a ...any) { tl.Unknown = append(tl.Unknown, fmt.Sprintf(format, a...)) }
	say("the capture does not show the server's CQ: completions are inferred from the wire (a READ's last response, the ACK of a Send)")
	say("sc_sq_depth is not on the wire: the Send Queue shows the WQEs in flight only")
	say("the server's page size is not on the wire: rc_pages are drawn as %d-byte pages", tl.pageSize)
	say("the pages the server sends RDMA WRITE and Send payloads from are not on the wire")
	say("which nfsd thread ran each call is not on the wire; reply positions count the reply chains in the order they were posted")
	writes := false
	queued := src.q[src.head:]
	for i := range queued {
		if k := queued[i].an.Chunk.Kind; k == analysis.ChunkWrite || k == analysis.ChunkReply {
			writes = true
			break
		}
	}
	if writes || !src.eof {
		say("whether a Write chunk's RDMA WRITEs went out as their own chain (svc_rdma_send_write_chunk) or chained before the Send is not on the wire: each reply is drawn as one chain")
	}
	// A transport whose setup the capture did not see.
	for _, c := range b.conns {
		if b.qp != 0 && !c.has(b.qp) {
			continue
		}
		if first, ok := b.midStream(c, queued); ok {
			say("the capture starts mid-stream (no CM connection setup before frame %d): calls, chains and positions from before it are unknown; positions count from the first reply in the capture", first)
			break
		}
	}
	if tl.Err != nil {
		say("the file is damaged: %v; the replay stops there", tl.Err)
	}
}

// midStream reports whether the capture did not see c set up, and c's
// first frame.
func (b *builder) midStream(c *conn, queued []record) (int, bool) {
	first := 0
	for i := range queued {
		r := &queued[i]
		if r.cm == "" {
			if k := b.connOf(r.an.Flow); k == c && first == 0 {
				first = r.frame
			}
			continue
		}
		if cm := r.an.CM; r.cm == "REQ" && cm != nil && cm.Active == c.client && cm.Passive == c.server &&
			(c.cflow == nil || cm.PassiveQPN == 0 || cm.PassiveQPN == c.cflow.Key.QP) {
			return 0, false
		}
	}
	if c.cflow != nil && c.cflow.FromStart {
		return 0, false
	}
	return first, true
}
