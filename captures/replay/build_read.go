package replay

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
)

// segKey names a segment of a call's chunk list.
type segKey struct{ chunk, seg int }

// readPlan is what svc_rdma_process_read_list must have built for a call:
// where each Read chunk segment lands in rc_pages, the R/W context of each
// segment, and the chain of RDMA READs posted at once.
type readPlan struct {
	id       int
	rpc      *analysis.RPC
	fn       *trace.Func // the svc_rdma_read_* function the Read list takes
	complete *trace.Func // the svc_rdma_read_complete_* function that finishes it
	base     map[segKey]int
	inline   [][2]int // stream offset and length of inline ranges copied into rc_pages
	reads    []*analysis.Message
	index    map[*analysis.Message]int
	wqes     map[segKey]int
	snap     snap.Read
	chain    snap.Chain
	outside  map[*analysis.Message]string // READs outside their segment: why
	srcs     map[segKey]string            // each segment's source name, made once
	dense    bool                         // the capture holds the whole layout's bytes
	planned  []int                        // the pages the SGLs point into, sorted
}

// maxUnbacked is how far past the bytes a READ's responses brought its SGL
// is drawn: a capture cut before the responses still shows the pages they
// were to fill, but a length the wire claims never sizes the picture.
const maxUnbacked = 64 << 10

// src is the source name of segment k's bytes.
func (p *readPlan) src(k segKey) string {
	s, ok := p.srcs[k]
	if !ok {
		s = readSource(k)
		p.srcs[k] = s
	}
	return s
}

// readSegment returns segment seg of Read chunk chunk of rpc, or nil when
// the call has none.
func readSegment(rpc *analysis.RPC, chunk, seg int) *analysis.Segment {
	if chunk < 0 || chunk >= len(rpc.ReadChunks) {
		return nil
	}
	c := rpc.ReadChunks[chunk]
	if seg < 0 || seg >= len(c.Segments) {
		return nil
	}
	return c.Segments[seg]
}

// outsideSegment says why the c.Len bytes a READ (or its response) moves
// at c.Offset do not fit the Read chunk segment c names, or "" when they
// do. Both numbers come off the wire: only bytes inside the segment are
// placed in rc_pages.
func outsideSegment(rpc *analysis.RPC, c analysis.ChunkRef) string {
	sg := readSegment(rpc, c.Chunk, c.Segment)
	if sg == nil {
		return "the call has no such segment"
	}
	if c.Past || c.Offset > uint64(sg.Length) || uint64(c.Len) > uint64(sg.Length)-c.Offset {
		return fmt.Sprintf("outside the %d-byte segment the call advertised", sg.Length)
	}
	return ""
}

// chunkPlace is "N B at +OFF of read chunk C segment S", OFF signed: a
// place below its segment wraps.
func chunkPlace(c analysis.ChunkRef) string {
	return fmt.Sprintf("%d B at %+d of read chunk %d segment %d", c.Len, int64(c.Offset), c.Chunk, c.Segment)
}

// planRead lays the Read list out as the kernel does: rc_pages filled in
// order from rc_curpage 0, rc_pageoff 0, one chunk after the other (with
// the inline bytes between them for several chunks).
func (b *builder) planRead(rpc *analysis.RPC, id int) *readPlan {
	p := &readPlan{id: id, rpc: rpc, base: map[segKey]int{}, index: map[*analysis.Message]int{}, wqes: map[segKey]int{},
		outside: map[*analysis.Message]string{}, srcs: map[segKey]string{}}
	chunks := rpc.ReadChunks
	inline := b.inlineLen(rpc)
	stream := 0
	lay := func(i int) {
		for j, s := range chunks[i].Segments {
			p.base[segKey{i, j}] = stream
			stream += int(s.Length)
		}
	}
	switch {
	case chunks[0].Position == 0 && len(chunks) == 1:
		p.fn, p.complete = kernel.SvcRdmaReadSpecial, kernel.SvcRdmaReadCompletePzrc
		lay(0)
	case chunks[0].Position == 0:
		// A call chunk with Read chunks: svc_rdma_read_call_chunk pulls
		// the call chunk in pieces around the Read chunks; drawn in order.
		p.fn, p.complete = kernel.SvcRdmaReadCallChunk, kernel.SvcRdmaReadCompletePzrc
		for i := range chunks {
			lay(i)
		}
	case len(chunks) == 1:
		p.fn, p.complete = kernel.SvcRdmaReadDataItem, kernel.SvcRdmaReadCompleteOne
		lay(0)
	default:
		p.fn, p.complete = kernel.SvcRdmaReadMultipleChunks, kernel.SvcRdmaReadCompleteMultiple
		at, gone := 0, 0 // where the next inline byte is; chunk bytes before it, XDR-rounded
		for i, c := range chunks {
			if pos := int(c.Position) - gone; pos > at && pos <= inline {
				p.inline = append(p.inline, [2]int{stream, pos - at})
				stream += pos - at
				at = pos
			}
			lay(i)
			gone += (chunksBytes([]*analysis.Chunk{c}) + 3) &^ 3
		}
		if inline > at {
			p.inline = append(p.inline, [2]int{stream, inline - at})
			stream += inline - at
		}
	}
	ps := b.tl.pageSize
	for _, m := range rpc.Reads {
		if m.Chunk == nil || m.Chunk.Kind != analysis.ChunkRead {
			continue
		}
		p.index[m] = len(p.reads)
		p.reads = append(p.reads, m)
		if why := outsideSegment(rpc, *m.Chunk); why != "" {
			p.outside[m] = why
			continue
		}
		p.wqes[segKey{m.Chunk.Chunk, m.Chunk.Segment}]++
	}
	// The bytes the capture holds of the layout: the inline ranges, and
	// what each READ's responses brought.
	backed := 0
	for _, in := range p.inline {
		backed += in[1]
	}
	var wrs []snap.WR
	sgl := map[segKey][]snap.SGE{}
	planned := map[int]bool{}
	for i, m := range p.reads {
		w := snap.WR{Opcode: "RDMA_READ", Bytes: int(m.DMALen), Remote: fmt.Sprintf("0x%x", m.VA), RKey: fmt.Sprintf("0x%x", m.RKey)}
		if p.outside[m] == "" {
			k := segKey{m.Chunk.Chunk, m.Chunk.Segment}
			got := min(int(m.DMALen), max(m.RespBytes, 0))
			backed += got
			off, n := p.base[k]+int(m.Chunk.Offset), min(int(m.DMALen), got+maxUnbacked)
			w.SGEs = pageSGEs(off, n, ps, p.src(k))
			sgl[k] = append(sgl[k], w.SGEs...)
			for pg := off / ps; pg*ps < off+n; pg++ {
				planned[pg] = true
			}
		}
		if i == len(p.reads)-1 {
			w.Signaled, w.CQE = true, kernel.SvcRdmaWcReadDone.Name()
		}
		wrs = append(wrs, w)
	}
	var ctxts []snap.RWCtxt
	for i, c := range chunks {
		for j := range c.Segments {
			k := segKey{i, j}
			if len(sgl[k]) == 0 {
				continue
			}
			b.rwNext++
			ctxts = append(ctxts, snap.RWCtxt{ID: b.rwNext, Type: rwType(len(sgl[k]), p.wqes[k]), NEnts: len(sgl[k]),
				SGL: sgl[k], Where: "read cc"})
		}
	}
	var lines []string
	for _, l := range chunkLines(rpc) {
		if len(lines) < len(chunks) {
			lines = append(lines, l)
		}
	}
	// Every page of the layout is drawn only when the capture holds its
	// bytes; else the layout's length is a claim, and only the pages
	// planned or landed in are.
	p.dense = stream <= backed+maxUnbacked
	if !p.dense {
		p.planned = slices.Sorted(maps.Keys(planned))
	}
	xid := hexXID(rpc.XID)
	p.snap = snap.Read{XID: xid, CurPage: stream / ps, PageOff: stream % ps, ReadBytes: readBytes(rpc),
		PageCount: (stream + ps - 1) / ps, SQECount: len(wrs), Chunks: lines, RWCtxts: ctxts}
	p.chain = snap.Chain{Owner: "read chunk xid " + xid, Task: taskNfsd, SQECount: len(wrs), WRs: wrs}
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
func pageSGEs(off, n, ps int, src string) []snap.SGE {
	var out []snap.SGE
	for n > 0 {
		po := off % ps
		k := min(n, ps-po)
		out = append(out, snap.SGE{Page: pageName(off / ps), Off: po, Len: k, Source: src})
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
	if m.Chunk == nil || m.Chunk.Kind != analysis.ChunkRead || len(m.Chunk.RPC.ReadChunks) == 0 {
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
	text += b.readOutside(r, p, m)
	b.step(r, KindRead, id, text, nil)
}

func readWhat(m *analysis.Message) string {
	c := m.Chunk
	return fmt.Sprintf("%d B of read chunk %d segment %d at %+d (rkey 0x%x)", m.DMALen, c.Chunk, c.Segment, int64(c.Offset), m.RKey)
}

// readOutside adds the anomaly of a READ request outside its segment and
// returns the words for its step ("" when it is inside).
func (b *builder) readOutside(r *record, p *readPlan, m *analysis.Message) string {
	why := p.outside[m]
	if why == "" {
		return ""
	}
	b.evs = append(b.evs, trace.Event{Task: taskWire, Kind: trace.Note, Func: "outside_segment",
		Text: fmt.Sprintf("frame %d: RDMA READ of %s: %s; its bytes are not placed in rc_pages", r.frame, chunkPlace(*m.Chunk), why)})
	return fmt.Sprintf("; frame %d: %s, not placed in rc_pages", r.frame, why)
}

// postRead is svc_rdma_process_read_list: the Read list laid out in
// rc_pages and posted as one chain.
func (b *builder) postRead(r *record, rpc *analysis.RPC, id int) {
	p := b.planRead(rpc, id)
	b.reads[rpc] = p
	callChunks := 0
	if rpc.ReadChunks[0].Position == 0 {
		callChunks = 1
	}
	b.ev(taskNfsd, trace.Call, 0, kernel.SvcRdmaProcessReadList, "call_chunks", callChunks, "read_chunks", len(rpc.ReadChunks)-callChunks)
	b.ev(taskNfsd, trace.Call, 1, p.fn)
	for _, in := range p.inline {
		b.ev(taskNfsd, trace.Point, 2, kernel.SvcRdmaCopyInlineRange, "curpage", in[0]/b.tl.pageSize, "pageoff", in[0]%b.tl.pageSize, "length", in[1])
	}
	for i, c := range rpc.ReadChunks {
		b.ev(taskNfsd, trace.Call, 2, kernel.SvcRdmaBuildReadChunk, "position", c.Position, "length", chunksBytes([]*analysis.Chunk{c}), "segments", len(c.Segments))
		for j, s := range c.Segments {
			k := segKey{i, j}
			end := p.base[k] + int(s.Length)
			b.ev(taskNfsd, trace.Point, 3, kernel.SvcRdmaBuildReadSegment, "handle", fmt.Sprintf("0x%x", s.Handle), "length", s.Length,
				"offset", fmt.Sprintf("0x%x", s.Offset), "wqes", p.wqes[k], "curpage", end/b.tl.pageSize, "pageoff", end%b.tl.pageSize)
		}
		b.ev(taskNfsd, trace.Return, 2, kernel.SvcRdmaBuildReadChunk)
	}
	b.ev(taskNfsd, trace.Return, 1, p.fn)
	b.ev(taskNfsd, trace.Point, 1, kernel.RcReadbytes, "readbytes", p.snap.ReadBytes)
	b.ev(taskNfsd, trace.Point, 1, kernel.TraceSvcrdmaPostReadChunk, "sqecount", len(p.reads))
	b.ev(taskNfsd, trace.Call, 1, kernel.SvcRdmaPostChunkCtxt, "sqecount", len(p.reads))
	b.ev(taskNfsd, trace.Point, 2, kernel.IbPostSend, "wrs", len(p.reads), "chain", chainArg(p.chain.WRs))
	b.ev(taskNfsd, trace.Return, 1, kernel.SvcRdmaPostChunkCtxt)
	b.ev(taskNfsd, trace.Return, 0, kernel.SvcRdmaProcessReadList)
	m := r.an.Msg
	k := p.index[m]
	b.wire(r, readWhat(m))
	outside := b.readOutside(r, p, m)
	posted := "1 RDMA READ posted"
	if len(p.reads) > 1 {
		posted = fmt.Sprintf("%d RDMA READs posted as one chain", len(p.reads))
	}
	text := fmt.Sprintf("svc_rdma_process_read_list (%s): %s, %d B into %s → %s; RDMA READ %d/%d: %s",
		p.fn, plural(len(rpc.ReadChunks), "chunk"), p.snap.ReadBytes, plural(p.snap.PageCount, "rc_page"), posted,
		k+1, len(p.reads), readWhat(m)) + outside
	b.step(r, KindReadPost, id, text, op(nil).addRead(id, p.snap, p.dense, p.planned).addChain(id, p.chain, nil).rwCreated(b.rwNext))
}

// chainArg sums a chain up as the model's ib_post_send event does.
func chainArg(wrs []snap.WR) string {
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
	if m != nil && m.Chunk != nil && m.Chunk.Kind == analysis.ChunkRead {
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
	ps := b.tl.pageSize
	wr := p.index[m]
	before := 0
	if rs := b.st.readOf(p.id); rs != nil {
		before = rs.landed
	}
	var text, odd string
	var land op
	if why := outsideSegment(p.rpc, ref); why != "" {
		// An anomaly to show, never a place in rc_pages.
		odd = fmt.Sprintf("frame %d: %s: %s; not placed in rc_pages", r.frame, chunkPlace(ref), why)
		text = fmt.Sprintf("READ response %d/%d of RDMA READ %d/%d, %s (%d of %d B landed)",
			r.an.MsgIndex+1, m.RespPackets, wr+1, len(p.reads), odd, before, p.snap.ReadBytes)
		b.wire(r, chunkPlace(ref)+": "+why)
		b.evs = append(b.evs, trace.Event{Task: taskWire, Kind: trace.Note, Func: "outside_segment", Text: "READ response, " + odd})
		land = ackApply
	} else {
		off, n := p.base[k]+int(ref.Offset), ref.Len
		// The line of every READ response: appended, not formatted ("READ
		// response %d/%d of RDMA READ %d/%d: %d B → read chunk %d segment
		// %d +%d (pg%d+%d); %d of %d B landed").
		t := appendtext.Int(append(b.text[:0], "READ response "...), r.an.MsgIndex+1)
		t = appendtext.Int(append(t, '/'), m.RespPackets)
		t = appendtext.Int(append(t, " of RDMA READ "...), wr+1)
		t = appendtext.Int(append(t, '/'), len(p.reads))
		t = appendtext.Int(append(t, ": "...), n)
		t = appendtext.Int(append(t, " B → read chunk "...), ref.Chunk)
		t = appendtext.Int(append(t, " segment "...), ref.Segment)
		t = appendtext.Uint(append(t, " +"...), ref.Offset)
		t = appendtext.Int(append(t, " (pg"...), off/ps)
		t = appendtext.Int(append(t, '+'), off%ps)
		t = appendtext.Int(append(t, "); "...), before+n)
		t = appendtext.Int(append(t, " of "...), p.snap.ReadBytes)
		b.text = append(t, " B landed"...)
		text = string(b.text)
		if b.events {
			b.wire(r, fmt.Sprintf("%d B for read chunk %d segment %d +%d", n, ref.Chunk, ref.Segment, ref.Offset))
		}
		before += n
		land = append(op(nil).land(p.id, off, n, p.src(k)), ackApply...)
	}
	landed, id := before, p.id
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
	if odd != "" {
		text += "; its READ response, " + odd
	}
	if acked != "" {
		text += "; " + acked
	}
	b.step(r, KindReadDone, id, text, land.readDone(id).removeChain(id, p.chain.Owner).setCall(id, callInNfsd))
}

// readDone is the chain's completion and svc_rdma_read_complete.
func (b *builder) readDone(r *record, p *readPlan, landed int) {
	b.ev(taskCQ, trace.Call, 0, kernel.SvcRdmaWcReadDone, "status", "SUCCESS")
	b.ev(taskCQ, trace.Point, 1, kernel.TraceSvcrdmaWcRead, "readbytes", p.snap.ReadBytes)
	b.say(taskCQ, 1, kernel.SvcXprtEnqueue, "XPT_DATA set: a thread will finish the call")
	b.ev(taskCQ, trace.Return, 0, kernel.SvcRdmaWcReadDone)
	b.ev(taskNfsd, trace.Call, 0, kernel.SvcRdmaRecvfrom)
	b.ev(taskNfsd, trace.Call, 1, kernel.SvcRdmaReadComplete, "page_count", p.snap.PageCount, "readbytes", p.snap.ReadBytes)
	inline, head := b.inlineLen(p.rpc), 0
	if len(p.rpc.ReadChunks) > 0 {
		head = min(int(p.rpc.ReadChunks[0].Position), inline)
	}
	switch p.complete {
	case kernel.SvcRdmaReadCompleteOne:
		tail := inline - head
		b.ev(taskNfsd, trace.Point, 2, p.complete, "head", head, "page_len", p.snap.ReadBytes, "tail", tail, "len", head+p.snap.ReadBytes+tail)
	default:
		b.ev(taskNfsd, trace.Point, 2, p.complete, "page_len", landed)
	}
	b.ev(taskNfsd, trace.Return, 1, kernel.SvcRdmaReadComplete)
	b.ev(taskNfsd, trace.Return, 0, kernel.SvcRdmaRecvfrom, "ret", inline+p.snap.ReadBytes)
	b.say(taskNfsd, 0, kernel.SvcProcess, clip(p.rpc.CallSummary)+" (what the procedure does is not on the wire)")
}
