package replay

import (
	"fmt"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// segKey names a segment of a call's chunk list.
type segKey struct{ chunk, seg int }

// readPlan is what svc_rdma_process_read_list must have built for a call:
// where each Read chunk segment lands in rc_pages, the R/W context of each
// segment, and the chain of RDMA READs posted at once.
type readPlan struct {
	id       int
	rpc      *decode.RPC
	fn       string // the svc_rdma_read_* function the Read list takes
	complete string // the svc_rdma_read_complete_* function that finishes it
	base     map[segKey]int
	inline   [][2]int // stream offset and length of inline ranges copied into rc_pages
	reads    []*decode.Message
	index    map[*decode.Message]int
	wqes     map[segKey]int
	snap     engine.ReadSnap
	chain    engine.ChainSnap
}

// planRead lays the Read list out as the kernel does: rc_pages filled in
// order from rc_curpage 0, rc_pageoff 0, one chunk after the other (with
// the inline bytes between them for several chunks).
func (b *builder) planRead(rpc *decode.RPC, id int) *readPlan {
	p := &readPlan{id: id, rpc: rpc, base: map[segKey]int{}, index: map[*decode.Message]int{}, wqes: map[segKey]int{}}
	chunks := rpc.ReadChunks
	inline := 0
	if rpc.Call != nil {
		inline = len(rpc.Call.Inline)
	}
	stream := 0
	lay := func(i int) {
		for j, s := range chunks[i].Segments {
			p.base[segKey{i, j}] = stream
			stream += int(s.Length)
		}
	}
	switch {
	case chunks[0].Position == 0 && len(chunks) == 1:
		p.fn, p.complete = "svc_rdma_read_special", "svc_rdma_read_complete_pzrc"
		lay(0)
	case chunks[0].Position == 0:
		// A call chunk with Read chunks: svc_rdma_read_call_chunk pulls
		// the call chunk in pieces around the Read chunks; drawn in order.
		p.fn, p.complete = "svc_rdma_read_call_chunk", "svc_rdma_read_complete_pzrc"
		for i := range chunks {
			lay(i)
		}
	case len(chunks) == 1:
		p.fn, p.complete = "svc_rdma_read_data_item", "svc_rdma_read_complete_one"
		lay(0)
	default:
		p.fn, p.complete = "svc_rdma_read_multiple_chunks", "svc_rdma_read_complete_multiple"
		at, gone := 0, 0 // where the next inline byte is; chunk bytes before it, XDR-rounded
		for i, c := range chunks {
			if pos := int(c.Position) - gone; pos > at && pos <= inline {
				p.inline = append(p.inline, [2]int{stream, pos - at})
				stream += pos - at
				at = pos
			}
			lay(i)
			gone += (chunksBytes([]*decode.Chunk{c}) + 3) &^ 3
		}
		if inline > at {
			p.inline = append(p.inline, [2]int{stream, inline - at})
			stream += inline - at
		}
	}
	ps := b.tl.pageSize
	for _, m := range rpc.Reads {
		if m.Chunk == nil || m.Chunk.Kind != decode.ChunkRead {
			continue
		}
		p.index[m] = len(p.reads)
		p.reads = append(p.reads, m)
		p.wqes[segKey{m.Chunk.Chunk, m.Chunk.Segment}]++
	}
	var wrs []engine.WRSnap
	sgl := map[segKey][]engine.SGESnap{}
	for i, m := range p.reads {
		k := segKey{m.Chunk.Chunk, m.Chunk.Segment}
		sges := pageSGEs(p.base[k]+int(m.Chunk.Offset), int(m.DMALen), ps, readSource(k))
		sgl[k] = append(sgl[k], sges...)
		w := engine.WRSnap{Opcode: "RDMA_READ", SGEs: sges, Bytes: int(m.DMALen), Remote: fmt.Sprintf("0x%x", m.VA), RKey: fmt.Sprintf("0x%x", m.RKey)}
		if i == len(p.reads)-1 {
			w.Signaled, w.CQE = true, "svc_rdma_wc_read_done"
		}
		wrs = append(wrs, w)
	}
	var ctxts []engine.RWCtxtSnap
	for i, c := range chunks {
		for j := range c.Segments {
			k := segKey{i, j}
			if len(sgl[k]) == 0 {
				continue
			}
			b.rwNext++
			ctxts = append(ctxts, engine.RWCtxtSnap{ID: b.rwNext, Type: rwType(len(sgl[k]), p.wqes[k]), NEnts: len(sgl[k]),
				SGL: sgl[k], Where: "read cc"})
		}
	}
	var lines []string
	for _, l := range chunkLines(rpc) {
		if len(lines) < len(chunks) {
			lines = append(lines, l)
		}
	}
	xid := hexXID(rpc.XID)
	p.snap = engine.ReadSnap{XID: xid, CurPage: stream / ps, PageOff: stream % ps, ReadBytes: readBytes(rpc),
		PageCount: (stream + ps - 1) / ps, SQECount: len(wrs), Chunks: lines, RWCtxts: ctxts}
	p.chain = engine.ChainSnap{Owner: "read chunk xid " + xid, Task: taskNfsd, SQECount: len(wrs), WRs: wrs}
	return p
}

func readSource(k segKey) string { return fmt.Sprintf("read chunk %d seg %d", k.chunk, k.seg) }

// rwType is the rdma_rw context type the kernel picks: one SGE is
// RDMA_RW_SINGLE_WR, more are RDMA_RW_MULTI_WR (MR registration, on iWARP
// or when forced, does not show on the wire).
func rwType(sges, wqes int) string {
	if sges > 1 || wqes > 1 {
		return "MULTI_WR"
	}
	return "SINGLE_WR"
}

// pageSGEs splits n bytes at off of the rc_pages stream into one SGE per
// page, as svc_rdma_build_read_segment calls sg_set_page.
func pageSGEs(off, n, ps int, src string) []engine.SGESnap {
	var out []engine.SGESnap
	for n > 0 {
		po := off % ps
		k := min(n, ps-po)
		out = append(out, engine.SGESnap{Page: pageName(off / ps), Off: po, Len: k, Source: src})
		off, n = off+k, n-k
	}
	return out
}

// readRequest is an RDMA READ request from the server: the first of a
// call's is where the whole Read list was built and posted.
func (b *builder) readRequest(r *record) {
	m := r.an.Msg
	if m == nil {
		b.other(r, "an RDMA READ request the analysis could not follow")
		return
	}
	if m.Chunk == nil || m.Chunk.Kind != decode.ChunkRead {
		b.other(r, fmt.Sprintf("RDMA READ of %d B at 0x%x, rkey 0x%x: no call in the capture advertised it as a Read chunk", m.DMALen, m.VA, m.RKey))
		return
	}
	rpc := m.Chunk.RPC
	id := b.rpcID(rpc)
	p := b.reads[rpc]
	if p == nil {
		b.postRead(r, rpc, id)
		return
	}
	k, ok := p.index[m]
	if !ok {
		b.other(r, "an RDMA READ outside the chain the Read list was posted as: "+readWhat(m))
		return
	}
	text := fmt.Sprintf("RDMA READ %d/%d on the wire: %s", k+1, len(p.reads), readWhat(m))
	b.wire(r, readWhat(m))
	b.step(r, KindRead, id, text, nil)
}

func readWhat(m *decode.Message) string {
	c := m.Chunk
	return fmt.Sprintf("%d B of read chunk %d segment %d at +%d (rkey 0x%x)", m.DMALen, c.Chunk, c.Segment, c.Offset, m.RKey)
}

// postRead is svc_rdma_process_read_list: the Read list laid out in
// rc_pages and posted as one chain.
func (b *builder) postRead(r *record, rpc *decode.RPC, id int) {
	p := b.planRead(rpc, id)
	b.reads[rpc] = p
	callChunks := 0
	if rpc.ReadChunks[0].Position == 0 {
		callChunks = 1
	}
	b.ev(taskNfsd, trace.Call, 0, "svc_rdma_process_read_list", "call_chunks", callChunks, "read_chunks", len(rpc.ReadChunks)-callChunks)
	b.ev(taskNfsd, trace.Call, 1, p.fn)
	for _, in := range p.inline {
		b.ev(taskNfsd, trace.Point, 2, "svc_rdma_copy_inline_range", "curpage", in[0]/b.tl.pageSize, "pageoff", in[0]%b.tl.pageSize, "length", in[1])
	}
	for i, c := range rpc.ReadChunks {
		b.ev(taskNfsd, trace.Call, 2, "svc_rdma_build_read_chunk", "position", c.Position, "length", chunksBytes([]*decode.Chunk{c}), "segments", len(c.Segments))
		for j, s := range c.Segments {
			k := segKey{i, j}
			end := p.base[k] + int(s.Length)
			b.ev(taskNfsd, trace.Point, 3, "svc_rdma_build_read_segment", "handle", fmt.Sprintf("0x%x", s.Handle), "length", s.Length,
				"offset", fmt.Sprintf("0x%x", s.Offset), "wqes", p.wqes[k], "curpage", end/b.tl.pageSize, "pageoff", end%b.tl.pageSize)
		}
		b.ev(taskNfsd, trace.Return, 2, "svc_rdma_build_read_chunk")
	}
	b.ev(taskNfsd, trace.Return, 1, p.fn)
	b.ev(taskNfsd, trace.Point, 1, "rc_readbytes", "readbytes", p.snap.ReadBytes)
	b.ev(taskNfsd, trace.Point, 1, "svcrdma_post_read_chunk", "sqecount", len(p.reads))
	b.ev(taskNfsd, trace.Call, 1, "svc_rdma_post_chunk_ctxt", "sqecount", len(p.reads))
	b.ev(taskNfsd, trace.Point, 2, "ib_post_send", "wrs", len(p.reads), "chain", chainArg(p.chain.WRs))
	b.ev(taskNfsd, trace.Return, 1, "svc_rdma_post_chunk_ctxt")
	b.ev(taskNfsd, trace.Return, 0, "svc_rdma_process_read_list")
	m := r.an.Msg
	k := p.index[m]
	b.wire(r, readWhat(m))
	posted := "1 RDMA READ posted"
	if len(p.reads) > 1 {
		posted = fmt.Sprintf("%d RDMA READs posted as one chain", len(p.reads))
	}
	text := fmt.Sprintf("svc_rdma_process_read_list (%s): %s, %d B into %s → %s; RDMA READ %d/%d: %s",
		p.fn, plural(len(rpc.ReadChunks), "chunk"), p.snap.ReadBytes, plural(p.snap.PageCount, "rc_page"), posted,
		k+1, len(p.reads), readWhat(m))
	snap, chain, rw := p.snap, p.chain, b.rwNext
	b.step(r, KindReadPost, id, text, func(s *state) {
		s.reads = append(s.reads, readState{rpc: id, snap: snap})
		s.chains = append(s.chains, chainState{rpc: id, snap: chain})
		s.rwCreated = rw
	})
}

// chainArg sums a chain up as the model's ib_post_send event does.
func chainArg(wrs []engine.WRSnap) string {
	if len(wrs) == 0 {
		return "empty"
	}
	var out string
	for i := 0; i < len(wrs); {
		j, bytes := i, 0
		for j < len(wrs) && wrs[j].Opcode == wrs[i].Opcode {
			bytes += wrs[j].Bytes
			j++
		}
		if out != "" {
			out += " + "
		}
		if j-i > 1 {
			out += fmt.Sprintf("%d×%s %dB", j-i, wrs[i].Opcode, bytes)
		} else {
			out += fmt.Sprintf("%s %dB", wrs[i].Opcode, bytes)
		}
		i = j
	}
	if last := wrs[len(wrs)-1]; last.Signaled {
		out += " signaled→" + last.CQE
	}
	return out
}

// readData is an RDMA READ response: its bytes land in rc_pages; the last
// one of the chain is the completion svc_rdma_wc_read_done handles.
func (b *builder) readData(r *record) {
	m := r.an.Msg
	var p *readPlan
	if m != nil && m.Chunk != nil && m.Chunk.Kind == decode.ChunkRead {
		p = b.reads[m.Chunk.RPC]
	}
	ackApply, acked := b.ackedMessages(r)
	if p == nil {
		text := "a READ response to an RDMA READ the capture did not show: the replay cannot place its bytes"
		if acked != "" {
			text += "; " + acked
		}
		b.wire(r, text)
		b.step(r, KindOther, 0, text, ackApply)
		return
	}
	ref := r.an.Chunk
	k := segKey{ref.Chunk, ref.Segment}
	off := p.base[k] + int(ref.Offset)
	n := ref.Len
	ps := b.tl.pageSize
	landed := n
	if rs := b.st.readOf(p.id); rs != nil {
		landed += rs.landed
	}
	wr := p.index[m]
	text := fmt.Sprintf("READ response %d/%d of RDMA READ %d/%d: %d B → read chunk %d segment %d +%d (%s+%d); %d of %d B landed",
		r.an.MsgIndex+1, m.RespPackets, wr+1, len(p.reads), n, ref.Chunk, ref.Segment, ref.Offset, pageName(off/ps), off%ps, landed, p.snap.ReadBytes)
	b.wire(r, fmt.Sprintf("%d B for read chunk %d segment %d +%d", n, ref.Chunk, ref.Segment, ref.Offset))
	src, id := readSource(k), p.id
	land := func(s *state) {
		if rs := s.readOf(id); rs != nil {
			rs.land(off, n, ps, src)
		}
		if ackApply != nil {
			ackApply(s)
		}
	}
	last := r.frame == m.RespLastFrame && m.RespDone && wr == len(p.reads)-1
	if !last {
		if acked != "" {
			text += "; " + acked
		}
		b.step(r, KindReadData, id, text, land)
		return
	}
	b.readDone(r, p, landed)
	text = fmt.Sprintf("svc_rdma_wc_read_done: the last READ response landed, %d of %d B in %s → %s: xid 0x%08x goes to nfsd",
		landed, p.snap.ReadBytes, plural(p.snap.PageCount, "rc_page"), p.complete, p.rpc.XID)
	if acked != "" {
		text += "; " + acked
	}
	owner := p.chain.Owner
	b.step(r, KindReadDone, id, text, func(s *state) {
		land(s)
		if rs := s.readOf(id); rs != nil {
			rs.done = true
		}
		s.removeChain(id, owner)
		s.setCall(id, callInNfsd)
	})
}

// readDone is the chain's completion and svc_rdma_read_complete.
func (b *builder) readDone(r *record, p *readPlan, landed int) {
	b.ev(taskCQ, trace.Call, 0, "svc_rdma_wc_read_done", "status", "SUCCESS")
	b.ev(taskCQ, trace.Point, 1, "svcrdma_wc_read", "readbytes", p.snap.ReadBytes)
	b.say(taskCQ, 1, "svc_xprt_enqueue", "XPT_DATA set: a thread will finish the call")
	b.ev(taskCQ, trace.Return, 0, "svc_rdma_wc_read_done")
	b.ev(taskNfsd, trace.Call, 0, "svc_rdma_recvfrom")
	b.ev(taskNfsd, trace.Call, 1, "svc_rdma_read_complete", "page_count", p.snap.PageCount, "readbytes", p.snap.ReadBytes)
	inline, head := 0, 0
	if p.rpc.Call != nil {
		inline = len(p.rpc.Call.Inline)
	}
	if len(p.rpc.ReadChunks) > 0 {
		head = min(int(p.rpc.ReadChunks[0].Position), inline)
	}
	switch p.complete {
	case "svc_rdma_read_complete_one":
		tail := inline - head
		b.ev(taskNfsd, trace.Point, 2, p.complete, "head", head, "page_len", p.snap.ReadBytes, "tail", tail, "len", head+p.snap.ReadBytes+tail)
	default:
		b.ev(taskNfsd, trace.Point, 2, p.complete, "page_len", landed)
	}
	b.ev(taskNfsd, trace.Return, 1, "svc_rdma_read_complete")
	b.ev(taskNfsd, trace.Return, 0, "svc_rdma_recvfrom", "ret", inline+p.snap.ReadBytes)
	b.say(taskNfsd, 0, "svc_process", clip(p.rpc.CallSummary)+" (what the procedure does is not on the wire)")
}
