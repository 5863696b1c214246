package replay

import (
	"fmt"

	"github.com/rdmalab/rdmalab/captures/decode"
)

// unknowns fills Timeline.Unknown: what the picture leaves empty because
// the wire does not show it. first is the first frame of the connection.
func (b *builder) unknowns(first int, recs *collector) {
	tl := b.tl
	say := func(format string, a ...any) { tl.Unknown = append(tl.Unknown, fmt.Sprintf(format, a...)) }
	say("the capture does not show the server's CQ: completions are inferred from the wire (a READ's last response, the ACK of a Send)")
	say("sc_sq_depth is not on the wire: the Send Queue shows the WQEs in flight only")
	say("the server's page size is not on the wire: rc_pages are drawn as %d-byte pages", tl.pageSize)
	say("the pages the server sends RDMA WRITE and Send payloads from are not on the wire")
	say("which nfsd thread ran each call is not on the wire; reply positions count the reply chains in the order they were posted")
	writes := false
	for r := range recs.all() {
		if k := r.an.Chunk.Kind; k == decode.ChunkWrite || k == decode.ChunkReply {
			writes = true
			break
		}
	}
	if writes {
		say("whether a Write chunk's RDMA WRITEs went out as their own chain (svc_rdma_send_write_chunk) or chained before the Send is not on the wire: each reply is drawn as one chain")
	}
	if !b.fromStart(recs) {
		say("the capture starts mid-stream (no CM connection setup before frame %d): calls, chains and positions from before it are unknown; positions count from the first reply in the capture", first)
	}
	if b.others > 0 {
		say("%d frames of other queue pairs are not replayed: only %v ↔ %v", b.others, tl.Client, tl.Server)
	}
	if tl.Err != nil {
		say("the file is damaged: %v; the replay stops there", tl.Err)
	}
}

// fromStart reports whether the capture saw the connection set up.
func (b *builder) fromStart(recs *collector) bool {
	if b.cflow != nil && b.cflow.FromStart {
		return true
	}
	for r := range recs.all() {
		if r.cm == "REQ" && b.mine(r) {
			return true
		}
	}
	return false
}
