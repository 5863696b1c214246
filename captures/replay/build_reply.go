package replay

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// fillKey counts the bytes pushed into one chunk of one call.
type fillKey struct {
	rpc *analysis.RPC
	ck  chunkKey
}

// chunkKey names a Write chunk or the Reply chunk of a call.
type chunkKey struct {
	kind  analysis.ChunkKind
	chunk int
}

func (k chunkKey) String() string { return string(k.appendTo(nil)) }

func (k chunkKey) appendTo(b []byte) []byte {
	if k.kind == analysis.ChunkReply {
		return append(b, "reply chunk"...)
	}
	return appendtext.Int(append(b, "write chunk "...), k.chunk)
}

// replyPlan is the chain svc_rdma_sendto must have posted for a reply: the
// RDMA WRITEs that fill the Write and Reply chunks, then the Send.
type replyPlan struct {
	id     int
	rpc    *analysis.RPC
	pos    uint64 // its reply position (sc_post_seq after the post)
	owner  string
	index  map[*analysis.Message]int
	totals map[chunkKey]int // bytes the chain pushes into each chunk
	writes map[chunkKey]int // and its RDMA WRITEs
	send   *analysis.Message
	acked  int // the frame of the ACK of its Send, once built
	chain  snap.Chain
	ctxts  []snap.RWCtxt
}

// replyOfSend returns the plan whose Send m is.
func (b *builder) replyOfSend(m *analysis.Message) *replyPlan {
	if m.RPC == nil || m.RPC.RPC == nil {
		return nil
	}
	if p := b.replies[m.RPC.RPC]; p != nil && p.send == m {
		return p
	}
	return nil
}

// planReply builds the reply chain of rpc from what the wire shows of it.
func (b *builder) planReply(rpc *analysis.RPC, id int) *replyPlan {
	b.postSeq++
	p := &replyPlan{id: id, rpc: rpc, pos: b.postSeq, owner: "reply xid " + hexXID(rpc.XID),
		index: map[*analysis.Message]int{}, totals: map[chunkKey]int{}, writes: map[chunkKey]int{}}
	var wrs []snap.WR
	var run *snap.RWCtxt
	var runKey segKey
	var runChunk chunkKey
	runWRs := 0
	for _, w := range rpc.Writes {
		if w.Chunk == nil || w.Chunk.Kind == analysis.ChunkRead {
			continue
		}
		ck := chunkKey{w.Chunk.Kind, w.Chunk.Chunk}
		p.index[w] = len(wrs)
		p.totals[ck] += int(w.DMALen)
		p.writes[ck]++
		wrs = append(wrs, snap.WR{Opcode: "RDMA_WRITE", Bytes: int(w.DMALen), Remote: fmt.Sprintf("0x%x", w.VA), RKey: fmt.Sprintf("0x%x", w.RKey)})
		// One R/W context per segment the chain writes (svc_rdma_build_writes).
		sk := segKey{w.Chunk.Chunk, w.Chunk.Segment}
		if run == nil || runChunk != ck || runKey != sk {
			b.rwNext++
			p.ctxts = append(p.ctxts, snap.RWCtxt{ID: b.rwNext, Where: ck.String()})
			run, runChunk, runKey, runWRs = &p.ctxts[len(p.ctxts)-1], ck, sk, 0
		}
		// The source pages are not on the wire: count the pages the bytes
		// need at least.
		run.NEnts += (int(w.DMALen) + b.tl.pageSize - 1) / b.tl.pageSize
		runWRs++
		run.Type = rwType(run.NEnts, runWRs)
	}
	if rpc.Reply != nil && rpc.Reply.Msg != nil {
		m := rpc.Reply.Msg
		p.send = m
		op := "SEND"
		if m.HasInv {
			op = "SEND_WITH_INV"
		}
		p.index[m] = len(wrs)
		wrs = append(wrs, snap.WR{Opcode: op, Bytes: m.Len, Signaled: true, CQE: kernel.SvcRdmaWcSend.Name()})
	}
	p.chain = snap.Chain{Owner: p.owner, Task: taskNfsd, SQECount: len(wrs), Pos: p.pos, WRs: wrs}
	return p
}

// postReply is svc_rdma_sendto building and posting the reply chain; it
// adds the events and returns the change to the picture.
func (b *builder) postReply(rpc *analysis.RPC, id int) (*replyPlan, op) {
	p := b.planReply(rpc, id)
	b.replies[rpc] = p
	xid := hexXID(rpc.XID)
	isErr := rpc.Reply != nil && rpc.Reply.Header.Proc == rpcrdma.ProcError
	if isErr {
		b.ev(taskNfsd, trace.Call, 0, kernel.SvcRdmaSendErrorMsg, "xid", xid, "err", rpc.Reply.Header.Err)
	} else {
		b.ev(taskNfsd, trace.Call, 0, kernel.SvcRdmaSendto, "xid", xid)
	}
	for _, ck := range p.chunkOrder() {
		n := p.writes[ck]
		if ck.kind == analysis.ChunkWrite {
			b.ev(taskNfsd, trace.Call, 1, kernel.SvcRdmaSendWriteChunk, "chunk", ck.chunk, "payload", p.totals[ck])
		} else {
			b.ev(taskNfsd, trace.Call, 1, kernel.SvcRdmaPrepareReplyChunk, "reply_len", p.totals[ck])
		}
		b.ev(taskNfsd, trace.Point, 2, kernel.SvcRdmaBuildWrites, "wqes", n)
		fn := kernel.SvcRdmaSendWriteChunk
		if ck.kind == analysis.ChunkReply {
			fn = kernel.SvcRdmaPrepareReplyChunk
		}
		b.ev(taskNfsd, trace.Return, 1, fn)
	}
	if rpc.Reply != nil {
		h := &rpc.Reply.Header
		b.ev(taskNfsd, trace.Point, 1, kernel.TraceSvcrdmaEncodeReply, "xid", xid, "proc", h.Proc, "hdrlen", rpc.Reply.HdrLen, "credits", h.Credit)
		b.ev(taskNfsd, trace.Call, 1, kernel.SvcRdmaSendReplyMsg)
	}
	b.ev(taskNfsd, trace.Call, 2, kernel.SvcRdmaPostSend, "sqecount", p.chain.SQECount)
	b.ev(taskNfsd, trace.Point, 3, kernel.ScPostSeq, "seq", p.pos)
	b.ev(taskNfsd, trace.Point, 3, kernel.IbPostSend, "wrs", p.chain.SQECount, "chain", chainArg(p.chain.WRs))
	b.ev(taskNfsd, trace.Point, 3, kernel.RqReplyPos, "pos", p.pos)
	b.ev(taskNfsd, trace.Return, 2, kernel.SvcRdmaPostSend)
	if rpc.Reply != nil {
		b.ev(taskNfsd, trace.Return, 1, kernel.SvcRdmaSendReplyMsg)
	}
	if isErr {
		b.ev(taskNfsd, trace.Return, 0, kernel.SvcRdmaSendErrorMsg)
	} else {
		b.ev(taskNfsd, trace.Return, 0, kernel.SvcRdmaSendto)
	}
	o := op(nil).addChain(id, p.chain, p.ctxts).postSeq(p.pos).rwCreated(b.rwNext)
	if p.send != nil {
		o = o.addReply(replyState{xid: rpc.XID, proc: safe.Display(procName(rpc)), pos: p.pos}) // for the picture: escaped
	}
	return p, o.setCall(id, callReplying).dropRead(id) // rq_pages go with the reply
}

// chunkOrder lists the chunks the chain writes, Write chunks first.
func (p *replyPlan) chunkOrder() []chunkKey {
	var out []chunkKey
	for _, c := range p.rpc.WriteChunks {
		if k := (chunkKey{analysis.ChunkWrite, c.Index}); p.totals[k] > 0 {
			out = append(out, k)
		}
	}
	if k := (chunkKey{analysis.ChunkReply, 0}); p.totals[k] > 0 {
		out = append(out, k)
	}
	return out
}

// describe says what the chain holds in a few words.
func (p *replyPlan) describe() string {
	var parts []string
	for _, ck := range p.chunkOrder() {
		n := p.writes[ck]
		to := ck.String()
		if ck.kind == analysis.ChunkReply {
			to = "the " + to
		}
		parts = append(parts, fmt.Sprintf("%s to %s", plural(n, "RDMA WRITE"), to))
	}
	send := "a Send the capture does not show"
	if p.send != nil {
		send = "the " + p.chain.WRs[len(p.chain.WRs)-1].Opcode
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%s posted alone (1 WQE, reply position %d)", send, p.pos)
	}
	parts = append(parts, send)
	return fmt.Sprintf("%s posted as one chain (%s, reply position %d)", strings.Join(parts, " and "), plural(p.chain.SQECount, "WQE"), p.pos)
}

// procName is the procedure a reply position is listed under.
func procName(rpc *analysis.RPC) string {
	s := rpc.CallSummary
	if s == "" {
		s = rpc.ReplySummary
	}
	s, _, _ = strings.Cut(s, ",")
	var words []string
	for _, w := range strings.Fields(s) {
		switch w {
		case "Call", "Reply", "V2", "V3", "V4":
		default:
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return "?"
	}
	return words[0]
}

// write is an RDMA WRITE packet from the server: part of a reply chain,
// posted whole with its first packet.
func (b *builder) write(r *record) {
	m := r.an.Msg
	if m == nil || m.Chunk == nil || m.Chunk.Kind == analysis.ChunkRead {
		what := "an RDMA WRITE the analysis could not follow"
		if m != nil {
			what = fmt.Sprintf("RDMA WRITE of %d B to 0x%x, rkey 0x%x: no call in the capture advertised it as a Write or Reply chunk", m.DMALen, m.VA, m.RKey)
		}
		b.other(r, what)
		return
	}
	rpc := m.Chunk.RPC
	id := b.rpcID(rpc)
	p := b.replies[rpc]
	var post op
	if p == nil {
		p, post = b.postReply(rpc, id)
	}
	ref := r.an.Chunk
	ck := chunkKey{ref.Kind, ref.Chunk}
	fk := fillKey{rpc, ck}
	b.filled[fk] += ref.Len
	// The line of every WRITE packet: appended, not formatted ("RDMA WRITE
	// %d/%d packet %s: %d B → %s segment %d +%d (%d of %d B filled)").
	t := append(b.text[:0], "RDMA WRITE "...)
	t = append(appendtext.Int(t, p.index[m]+1), '/')
	t = appendtext.Int(t, len(p.index)-boolInt(p.send != nil))
	t = appendPacketOf(append(t, " packet "...), r, m)
	t = appendtext.Int(append(t, ": "...), ref.Len)
	t = ck.appendTo(append(t, " B → "...))
	t = appendtext.Int(append(t, " segment "...), ref.Segment)
	t = appendtext.Uint(append(t, " +"...), ref.Offset)
	t = appendtext.Int(append(t, " ("...), b.filled[fk])
	t = appendtext.Int(append(t, " of "...), p.totals[ck])
	t = append(t, " B filled)"...)
	b.text = t
	what := string(t)
	if b.events {
		b.wire(r, fmt.Sprintf("%d B for %s segment %d %+d", ref.Len, ck, ref.Segment, int64(ref.Offset)))
	}
	if why := writeOutside(rpc, ref); why != "" {
		what += fmt.Sprintf("; frame %d: %s", r.frame, why)
		b.evs = append(b.evs, trace.Event{Task: taskWire, Kind: trace.Note, Func: "outside_segment",
			Text: fmt.Sprintf("frame %d: RDMA WRITE of %s", r.frame, why)})
	}
	if post != nil {
		b.step(r, KindReplyPost, id, fmt.Sprintf("svc_rdma_sendto xid 0x%08x: %s; %s", rpc.XID, p.describe(), what), post)
		return
	}
	b.step(r, KindWrite, id, what, nil)
}

// writeOutside says why the bytes a WRITE packet moves do not fit the
// Write or Reply chunk segment it names, or "" when they do.
func writeOutside(rpc *analysis.RPC, c analysis.ChunkRef) string {
	var ch *analysis.Chunk
	switch {
	case c.Kind == analysis.ChunkReply:
		ch = rpc.ReplyChunk
	case c.Chunk >= 0 && c.Chunk < len(rpc.WriteChunks):
		ch = rpc.WriteChunks[c.Chunk]
	}
	place := func() string {
		return fmt.Sprintf("%d B at %+d of %s segment %d", c.Len, int64(c.Offset), chunkKey{c.Kind, c.Chunk}, c.Segment)
	}
	if ch == nil || c.Segment < 0 || c.Segment >= len(ch.Segments) {
		return place() + ": the call has no such segment"
	}
	sg := ch.Segments[c.Segment]
	if c.Past || c.Offset > uint64(sg.Length) || uint64(c.Len) > uint64(sg.Length)-c.Offset {
		return fmt.Sprintf("%s: outside the %d-byte segment the call advertised", place(), sg.Length)
	}
	return ""
}

// packetOf is "k/n", the packet's place in its message ("k/?" when the
// capture did not see the message's last packet).
func packetOf(r *record, m *analysis.Message) string { return string(appendPacketOf(nil, r, m)) }

func appendPacketOf(b []byte, r *record, m *analysis.Message) []byte {
	b = append(appendtext.Int(b, r.an.MsgIndex+1), '/')
	if !m.Complete {
		return append(b, '?')
	}
	return appendtext.Int(b, m.Packets)
}

// serverSend is a SEND from the server: a reply (or RDMA_ERROR).
func (b *builder) serverSend(r *record) {
	m := r.an.Msg
	if m == nil || m.RPC == nil || m.RPC.Call || m.RPC.RPC == nil {
		b.other(r, "a SEND from the server that is not an RPC-over-RDMA reply")
		return
	}
	rm := m.RPC
	rpc := rm.RPC
	id := b.rpcID(rpc)
	p := b.replies[rpc]
	var post op
	if p == nil {
		p, post = b.postReply(rpc, id)
	}
	if p.send != m {
		b.other(r, fmt.Sprintf("another reply SEND for xid 0x%08x: a retransmitted or duplicate reply", rpc.XID))
		return
	}
	h := &rm.Header
	op := p.chain.WRs[len(p.chain.WRs)-1].Opcode
	what := fmt.Sprintf("%s %d B, the reply to xid 0x%08x: %v, credits %d, %s", op, m.Len, h.XID, h.Proc, h.Credit, clip(rpc.ReplySummary))
	if m.HasInv {
		what += fmt.Sprintf(" (invalidates rkey 0x%x)", m.IETH)
	}
	if m.Packets > 1 || !m.Complete {
		what = fmt.Sprintf("packet %s of the %s", packetOf(r, m), what)
	}
	b.wire(r, fmt.Sprintf("%v reply, xid 0x%08x, %d bytes", h.Proc, h.XID, m.Len))
	last := r.an.MsgIndex == m.Packets-1
	apply := post
	if last {
		apply = post.setCall(id, callReplied)
	}
	if post != nil {
		b.step(r, KindReplyPost, id, fmt.Sprintf("svc_rdma_sendto xid 0x%08x: %s; %s", rpc.XID, p.describe(), what), apply)
		return
	}
	b.step(r, KindSend, id, what, apply)
}
