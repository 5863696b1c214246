package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/ib"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Task names of the events: the packet, the server's completion handlers,
// and the nfsd thread that ran the call (which one the wire cannot tell).
const (
	taskWire   = "wire"
	taskCQ     = "cq"
	taskNfsd   = "nfsd"
	taskCM     = "cm"
	taskReplay = "replay"
)

// builder turns records into steps, one transport (conn) at a time. It
// runs behind the decoder by a lookahead (source), so a chain the server
// posted at once is drawn whole when its first WR shows.
type builder struct {
	tl     *Timeline
	*conn  // the transport of the record being built
	conns  []*conn
	byFlow map[*analysis.Flow]*conn
	qp     uint32 // follow only the transport with this QP (0: every one)
	// events: the events beside each step are built (not for a text
	// transcript, which prints the steps' lines alone).
	events bool
	text   []byte // the lines of the most frequent steps are appended here
	others int    // frames of queue pairs not replayed

	rpcIDs map[*analysis.RPC]int
	inline map[*analysis.RPC]int // a call's inline length (the decoder may drop the bytes)

	evs       []trace.Event
	seq       uint64
	lastFrame int // of the newest step
	lastRel   time.Duration
}

// conn is one transport the replay follows: a queue pair carrying
// RPC-over-RDMA, drawn as its own svcxprt_rdma (its own picture).
type conn struct {
	id             int // 1-based, in the order of their first steps; 0 until then
	skip           bool
	cflow, sflow   *analysis.Flow
	server, client frame.Addr
	st             *state // the picture so far, for the narration
	dirty          bool   // st changed since the last checkpoint
	ck             *state // its copy in the last checkpoint

	reads   map[*analysis.RPC]*readPlan
	replies map[*analysis.RPC]*replyPlan
	filled  map[fillKey]int // Write and Reply chunk bytes pushed so far
	postSeq uint64
	rwNext  int
}

func newBuilder(tl *Timeline, qp uint32) *builder {
	return &builder{tl: tl, byFlow: map[*analysis.Flow]*conn{}, qp: qp, rpcIDs: map[*analysis.RPC]int{}, inline: map[*analysis.RPC]int{}}
}

// learn is called for each record as the decoder reads it, ahead of the
// build: an RPC message makes its queue pair a transport to follow.
func (b *builder) learn(r *record) {
	m := r.an.RPC
	f := r.an.Flow
	if m == nil || m.RPC == nil || f == nil {
		return
	}
	if m.Call && m.RPC.Call == m {
		b.inline[m.RPC] = len(m.Inline)
	}
	if b.connOf(f) != nil {
		return
	}
	c := &conn{reads: map[*analysis.RPC]*readPlan{}, replies: map[*analysis.RPC]*replyPlan{}, filled: map[fillKey]int{},
		server: m.RPC.Server, client: m.RPC.Client}
	if m.Call {
		c.cflow = f
	} else {
		c.sflow = f
	}
	b.byFlow[f] = c
	b.conns = append(b.conns, c)
	b.connOf(f) // its peer, if known
}

// qps names the queue pairs of the transports learned: "0x000013 and
// 0x000011", a transport's separated by semicolons, the first eight.
func (b *builder) qps() string {
	var parts []string
	for i, c := range b.conns {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("%d more", len(b.conns)-i))
			break
		}
		var qps []string
		for _, f := range []*analysis.Flow{c.cflow, c.sflow} {
			if f == nil {
				continue
			}
			if q := fmt.Sprintf("0x%06x", f.Key.QP); !slices.Contains(qps, q) {
				qps = append(qps, q)
			}
		}
		parts = append(parts, strings.Join(qps, " and "))
	}
	return strings.Join(parts, "; ")
}

// connOf is the transport of flow f, or nil; it learns f's peer.
func (b *builder) connOf(f *analysis.Flow) *conn {
	if f == nil {
		return nil
	}
	c := b.byFlow[f]
	if c == nil && f.Peer != nil {
		c = b.byFlow[f.Peer]
		if c != nil {
			b.byFlow[f] = c
		}
	}
	if c != nil && f.Peer != nil {
		if c.cflow == nil && c.sflow == f {
			c.cflow = f.Peer
			b.byFlow[f.Peer] = c
		}
		if c.sflow == nil && c.cflow == f {
			c.sflow = f.Peer
			b.byFlow[f.Peer] = c
		}
	}
	return c
}

// inlineLen is the length of rpc's inline call.
func (b *builder) inlineLen(rpc *analysis.RPC) int {
	if n, ok := b.inline[rpc]; ok {
		return n
	}
	if rpc.Call != nil {
		return len(rpc.Call.Inline)
	}
	return 0
}

// route picks the transport of r: its queue pair's, or for a CM message
// the one between the two sides with that QP. nil: not replayed.
func (b *builder) route(r *record) *conn {
	var c *conn
	if r.cm == "" {
		c = b.connOf(r.an.Flow)
	} else if cm := r.an.CM; cm != nil {
		for _, k := range b.conns {
			if cm.Active == k.client && cm.Passive == k.server && (k.cflow == nil || cm.PassiveQPN == 0 || cm.PassiveQPN == k.cflow.Key.QP) {
				c = k
				break
			}
		}
	}
	if c == nil || c.skip {
		if r.cm == "" {
			b.others++
		}
		return nil
	}
	if c.id == 0 {
		if b.qp != 0 && !c.has(b.qp) {
			c.skip = true
			if r.cm == "" {
				b.others++
			}
			return nil
		}
		c.id = len(b.tl.Conns) + 1
		c.st = newState(b.tl.pageSize)
		c.dirty = true
		b.tl.Conns = append(b.tl.Conns, c.info())
		if c.id == 1 {
			b.tl.Server, b.tl.Client = c.server, c.client
		}
	}
	return c
}

// has reports whether either end of c is queue pair qp.
func (c *conn) has(qp uint32) bool {
	return (c.cflow != nil && c.cflow.Key.QP == qp) || (c.sflow != nil && c.sflow.Key.QP == qp)
}

// info is what a Timeline says of c.
func (c *conn) info() Conn {
	k := Conn{ID: c.id, Server: c.server, Client: c.client}
	if c.cflow != nil {
		k.ServerQP = c.cflow.Key.QP
	}
	if c.sflow != nil {
		k.ClientQP = c.sflow.Key.QP
	}
	return k
}

func (b *builder) fromClient(r *record) bool { return b.cflow != nil && r.an.Flow == b.cflow }

// record turns one packet into a step, if it changes the server's picture.
func (b *builder) record(r *record) {
	if r.cm != "" {
		b.connect(r)
		return
	}
	if st := r.an.PSN.Status; st == analysis.PSNDuplicate || st == analysis.PSNRetransmission {
		b.resent(r)
		return
	}
	kind := r.opcode.Kind()
	if b.fromClient(r) {
		switch kind {
		case ib.KindSend:
			b.clientSend(r)
		case ib.KindReadResponse:
			b.readData(r)
		case ib.KindAck, ib.KindAtomicAck:
			b.ack(r)
		default:
			b.other(r, fmt.Sprintf("the client sent %v: not part of RPC-over-RDMA", r.opcode))
		}
		return
	}
	switch kind {
	case ib.KindReadRequest:
		b.readRequest(r)
	case ib.KindWrite:
		b.write(r)
	case ib.KindSend:
		b.serverSend(r)
	case ib.KindAck:
		if a := r.an.Ack; a != nil && a.Syndrome.IsNAK() {
			b.other(r, fmt.Sprintf("the server's HCA answers the client's PSN %d with %v", a.PSN, a.Syndrome))
		}
	}
}

// ev adds an event to the step being built.
func (b *builder) ev(task string, kind trace.Kind, depth int, fn *trace.Func, kv ...any) {
	if !b.events {
		return
	}
	b.evs = append(b.evs, trace.Event{Task: task, Kind: kind, Depth: depth, Func: fn.Name(), Args: trace.Fmt(kv...)})
}

// say adds a trace point whose text explains.
func (b *builder) say(task string, depth int, fn *trace.Func, text string) {
	if !b.events {
		return
	}
	b.evs = append(b.evs, trace.Event{Task: task, Kind: trace.Point, Depth: depth, Func: fn.Name(), Text: text})
}

// wire adds the event of the packet itself, and the analysis' notes on it.
func (b *builder) wire(r *record, text string) {
	if !b.events {
		return
	}
	b.evs = append(b.evs, trace.Event{Task: taskWire, Kind: trace.Note, Func: r.opcode.Info(),
		Args: trace.Fmt("frame", r.frame, "psn", r.psn), Text: text})
	if r.bad != "" {
		b.evs = append(b.evs, trace.Event{Task: taskWire, Kind: trace.Note, Func: "malformed", Text: r.bad})
	}
	for _, n := range r.an.Notes {
		b.evs = append(b.evs, trace.Event{Task: taskWire, Kind: trace.Note, Func: n.Kind.String(), Text: n.Text})
	}
}

// step ends the step being built: its events get their sequence numbers,
// a last one says the step in a line, and o changes the picture.
func (b *builder) step(r *record, kind Kind, rpc int, text string, o op) {
	b.stepAt(r.frame, r.rel, kind, rpc, text, o)
}

func (b *builder) stepAt(frame int, rel time.Duration, kind Kind, rpc int, text string, o op) {
	tl := b.tl
	i := tl.nsteps
	b.evs = append(b.evs, trace.Event{Task: taskReplay, Kind: trace.Note, Func: "frame " + strconv.Itoa(frame), Text: text})
	for k := range b.evs {
		b.seq++
		b.evs[k].Seq = b.seq
	}
	id := 0
	if b.conn != nil {
		id = b.id
		if tl.sink == nil && i%tl.ckEvery == 0 {
			tl.checkpoint(i, b.conns)
		}
		b.st.frame, b.st.rel = frame, rel
		_ = o.apply(b.st) // o is the builder's own: it reads
		b.dirty = true
	}
	b.lastFrame, b.lastRel = frame, rel
	s := Step{Index: i, Frame: frame, Time: rel, Kind: kind, RPC: rpc, Conn: id, op: o}
	tl.nsteps++
	if rpc > 0 {
		r := &tl.RPCs[rpc-1]
		if r.First < 0 {
			r.First = i
		}
		r.Last = i
	}
	if tl.sink != nil {
		var st *state
		if b.conn != nil {
			st = b.st
		}
		tl.sink(tl, &s, b.evs, st)
	} else {
		s.evFrom = tl.log.Len()
		for _, e := range b.evs {
			tl.log.add(e)
		}
		s.evTo = tl.log.Len()
		tl.steps.add(s)
	}
	b.evs = b.evs[:0]
}

// rpcID numbers RPCs in the order the replay meets them.
func (b *builder) rpcID(r *analysis.RPC) int {
	if r == nil {
		return 0
	}
	if id, ok := b.rpcIDs[r]; ok {
		return id
	}
	id := len(b.tl.RPCs) + 1
	b.rpcIDs[r] = id
	label := clip(r.CallSummary)
	if r.Call == nil {
		label = clip(r.ReplySummary) + " (its call is not in the capture)"
	}
	c := 0
	if b.conn != nil {
		c = b.id
	}
	b.tl.RPCs = append(b.tl.RPCs, RPC{ID: id, XID: r.XID, Label: label, First: -1, Last: -1, Conn: c, rpc: r})
	return id
}

// connect is a CM message between the two sides.
func (b *builder) connect(r *record) {
	c := r.an.CM
	var text string
	switch r.cm {
	case "REQ":
		text = fmt.Sprintf("CM REQ from %v QP 0x%06x: svc_rdma_listen_handler queues the connection; svc_rdma_accept will create its QP", c.Active, c.ActiveQPN)
		b.say(taskCM, 0, kernel.HandleConnectReq, fmt.Sprintf("connection request from %v, QP 0x%06x, starting PSN %d", c.Active, c.ActiveQPN, c.PassivePSN))
	case "REP":
		text = fmt.Sprintf("CM REP: svc_rdma_accept created QP 0x%06x, posted its Receives and accepts (rdma_accept)", c.PassiveQPN)
		b.ev(taskCM, trace.Call, 0, kernel.SvcRdmaAccept, "qp", fmt.Sprintf("0x%06x", c.PassiveQPN))
		b.say(taskCM, 1, kernel.RdmaAccept, fmt.Sprintf("REP: QP 0x%06x, starting PSN %d", c.PassiveQPN, c.ActivePSN))
		b.ev(taskCM, trace.Return, 0, kernel.SvcRdmaAccept)
	case "RTU":
		text = "CM RTU: RDMA_CM_EVENT_ESTABLISHED reaches svc_rdma_cma_handler: the transport is connected"
		b.say(taskCM, 0, kernel.SvcRdmaCmaHandler, "RDMA_CM_EVENT_ESTABLISHED")
	case "REJ":
		text = fmt.Sprintf("CM REJ, reason %d: the connection is refused", c.RejReason)
		b.say(taskCM, 0, kernel.SvcRdmaCmaHandler, text)
	case "DREQ", "DREP":
		text = fmt.Sprintf("CM %s: svc_rdma_cma_handler sees RDMA_CM_EVENT_DISCONNECTED: svc_xprt_deferred_close", r.cm)
		b.say(taskCM, 0, kernel.SvcRdmaCmaHandler, "RDMA_CM_EVENT_DISCONNECTED")
	}
	b.wire(r, "CM "+r.cm)
	b.step(r, KindConnect, 0, text, nil)
}

// resent is a packet the requester's HCA sent again.
func (b *builder) resent(r *record) {
	b.wire(r, r.an.PSN.Status.String())
	b.other(r, fmt.Sprintf("%v PSN %d again (%v): the HCA retransmits, the server's software does nothing new", r.opcode, r.psn, r.an.PSN.Status))
}

// other is a step that changes nothing but is worth saying.
func (b *builder) other(r *record, text string) {
	if len(b.evs) == 0 {
		b.wire(r, text)
	}
	b.step(r, KindOther, 0, text, nil)
}

// clientSend is a complete SEND from the client: a call (or an RPC-over-RDMA
// message that is not one, or not RPC-over-RDMA at all).
func (b *builder) clientSend(r *record) {
	an := &r.an
	switch {
	case an.RPC != nil && an.RPC.Call && an.RPC.RPC != nil:
		b.call(r, an.RPC)
	case an.RPC != nil:
		b.wire(r, fmt.Sprintf("%v, xid 0x%08x", an.RPC.Header.Proc, an.RPC.Header.XID))
		b.recv(r)
		b.say(taskNfsd, 1, kernel.TraceSvcrdmaDecodeRqst, fmt.Sprintf("%v carries no call", an.RPC.Header.Proc))
		b.ev(taskNfsd, trace.Return, 0, kernel.SvcRdmaRecvfrom, "ret", 0)
		b.step(r, KindOther, 0, fmt.Sprintf("svc_rdma_recvfrom: %v from the client, xid 0x%08x: no call to run", an.RPC.Header.Proc, an.RPC.Header.XID), nil)
	case an.Short || an.NotRPC != "":
		why := an.NotRPC
		if an.Short {
			why = "too short for an RPC-over-RDMA header"
		}
		b.wire(r, why)
		b.recv(r)
		b.say(taskNfsd, 1, kernel.TraceSvcrdmaDecodeDrop, why)
		b.ev(taskNfsd, trace.Return, 0, kernel.SvcRdmaRecvfrom, "ret", 0)
		b.step(r, KindOther, 0, "svc_rdma_recvfrom drops a SEND that does not decode: "+why, nil)
	}
}

// recv is the Receive completion and svc_rdma_recvfrom taking it.
func (b *builder) recv(r *record) {
	n := int(r.payload)
	if m := r.an.Msg; m != nil {
		n = m.Len
	}
	b.ev(taskCQ, trace.Call, 0, kernel.SvcRdmaWcReceive, "byte_len", n, "status", "SUCCESS")
	b.ev(taskCQ, trace.Return, 0, kernel.SvcRdmaWcReceive)
	b.ev(taskNfsd, trace.Call, 0, kernel.SvcRdmaRecvfrom)
}

// call is an RPC call arriving.
func (b *builder) call(r *record, m *analysis.RPCMessage) {
	rpc := m.RPC
	id := b.rpcID(rpc)
	h := &m.Header
	b.wire(r, fmt.Sprintf("%v call, xid 0x%08x, %d bytes", h.Proc, h.XID, m.Msg.Len))
	b.recv(r)
	b.ev(taskNfsd, trace.Point, 1, kernel.TraceSvcrdmaDecodeRqst, "xid", hexXID(h.XID), "proc", h.Proc, "hdrlen", m.HdrLen,
		"credits", h.Credit, "read_chunks", len(rpc.ReadChunks), "write_chunks", len(rpc.WriteChunks), "reply_chunk", boolInt(rpc.ReplyChunk != nil))
	chunks := chunkLines(rpc)
	st := callReceived
	if len(rpc.ReadChunks) > 0 {
		st = callPulling
		b.say(taskNfsd, 1, kernel.SvcRdmaRecvfrom, fmt.Sprintf("the Read list comes first: svc_rdma_process_read_list pulls %d bytes", readBytes(rpc)))
	} else {
		st = callInNfsd
		b.ev(taskNfsd, trace.Return, 0, kernel.SvcRdmaRecvfrom, "ret", b.inlineLen(rpc))
		b.say(taskNfsd, 0, kernel.SvcProcess, clip(rpc.CallSummary)+" (what the procedure does is not on the wire)")
	}
	text := fmt.Sprintf("svc_rdma_recvfrom: call xid 0x%08x %v, %s%s", h.XID, h.Proc, clip(rpc.CallSummary), chunkSummary(rpc))
	cs := &snap.CallHeader{XID: hexXID(h.XID), Proc: h.Proc.String(), Chunks: chunks}
	// The picture is for a terminal: its strings are escaped once, here.
	call := callState{rpc: id, xid: h.XID, label: safe.Display(rpc.CallSummary), proc: h.Proc.String(), state: st}
	b.step(r, KindCall, id, text, op(nil).call(call, cs))
}

// chunkSummary says a call's chunks in a few words.
func chunkSummary(rpc *analysis.RPC) string {
	var parts []string
	if n := len(rpc.ReadChunks); n > 0 {
		c := rpc.ReadChunks[0]
		parts = append(parts, fmt.Sprintf("Read list: %s, %s at position %d, %d B", plural(n, "chunk"),
			plural(segCount(rpc.ReadChunks), "segment"), c.Position, readBytes(rpc)))
	}
	if n := len(rpc.WriteChunks); n > 0 {
		parts = append(parts, fmt.Sprintf("Write list: %s, %s, %d B", plural(n, "chunk"), plural(segCount(rpc.WriteChunks), "segment"), chunksBytes(rpc.WriteChunks)))
	}
	if c := rpc.ReplyChunk; c != nil {
		parts = append(parts, fmt.Sprintf("Reply chunk: %s, %d B", plural(len(c.Segments), "segment"), chunksBytes([]*analysis.Chunk{c})))
	}
	if len(parts) == 0 {
		return " (inline)"
	}
	return " · " + strings.Join(parts, " · ")
}

// chunkLines are a call's chunks as the engine's snap.CallHeader lists them.
func chunkLines(rpc *analysis.RPC) []string {
	var out []string
	for i, c := range rpc.ReadChunks {
		out = append(out, fmt.Sprintf("read chunk %d: position %d, %d bytes in %d segments %s", i, c.Position, chunksBytes([]*analysis.Chunk{c}), len(c.Segments), segList(c)))
	}
	for i, c := range rpc.WriteChunks {
		out = append(out, fmt.Sprintf("write chunk %d: %d bytes in %d segments %s", i, chunksBytes([]*analysis.Chunk{c}), len(c.Segments), segList(c)))
	}
	if c := rpc.ReplyChunk; c != nil {
		out = append(out, fmt.Sprintf("reply chunk: %d bytes in %d segments %s", chunksBytes([]*analysis.Chunk{c}), len(c.Segments), segList(c)))
	}
	return out
}

func segList(c *analysis.Chunk) string {
	parts := make([]string, len(c.Segments))
	for i, s := range c.Segments {
		parts[i] = fmt.Sprintf("0x%x:%d@0x%x", s.Handle, s.Length, s.Offset)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func segCount(cs []*analysis.Chunk) int {
	n := 0
	for _, c := range cs {
		n += len(c.Segments)
	}
	return n
}

func chunksBytes(cs []*analysis.Chunk) int {
	n := 0
	for _, c := range cs {
		for _, s := range c.Segments {
			n += int(s.Length)
		}
	}
	return n
}

func readBytes(rpc *analysis.RPC) int { return chunksBytes(rpc.ReadChunks) }

// maxSummary bounds the NFS summaries a step quotes (a READDIR reply
// lists every name).
const maxSummary = 96

// clip cuts a summary to maxSummary runes.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= maxSummary {
		return s
	}
	return string(r[:maxSummary-1]) + "…"
}

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ackedMessages handles what an AETH acknowledges of the server's
// messages: a reply's Send completes its chain and advances the acked
// position; WRITEs are unsignaled and complete nothing. It returns the
// change to the picture and a phrase for the step's text.
func (b *builder) ackedMessages(r *record) (op, string) {
	a := r.an.Ack
	if a == nil {
		return nil, ""
	}
	var o op
	var names []string
	acked := b.st.ackedPos
	for _, m := range a.Acked {
		if m.Flow != b.sflow || m.Kind == ib.KindReadRequest {
			continue
		}
		names = append(names, fmt.Sprintf("%s (frame %d)", m.Name(), m.FirstFrame))
		if m.Kind != ib.KindSend {
			continue
		}
		rp := b.replyOfSend(m)
		if rp == nil {
			b.ev(taskCQ, trace.Call, 0, kernel.SvcRdmaWcSend, "status", "SUCCESS")
			b.ev(taskCQ, trace.Return, 0, kernel.SvcRdmaWcSend)
			o = o.sent(0, true)
			continue
		}
		if rp.acked == 0 {
			rp.acked = r.frame
		}
		was := acked
		now := max(was, rp.pos)
		acked = now
		b.ev(taskCQ, trace.Call, 0, kernel.SvcRdmaWcSend, "status", "SUCCESS", "pos", rp.pos)
		b.ev(taskCQ, trace.Point, 1, kernel.SvcXprtAdvanceAcked, "pos", rp.pos, "xpt_acked_pos", now, "was", was)
		b.ev(taskCQ, trace.Return, 0, kernel.SvcRdmaWcSend)
		o = o.sent(rp.pos, true).removeChain(rp.id, rp.owner).acked(rp.pos).setCall(rp.id, callDelivered)
	}
	if len(names) == 0 {
		return nil, ""
	}
	text := fmt.Sprintf("AETH MSN %d acknowledges %s", a.MSN, strings.Join(names, ", "))
	if len(o) > 0 {
		text += fmt.Sprintf(" → svc_rdma_wc_send, xpt_acked_pos %d", acked)
	}
	return o, text
}

// ack is an Acknowledge from the client.
func (b *builder) ack(r *record) {
	a := r.an.Ack
	if a == nil {
		return
	}
	if a.Syndrome.IsNAK() {
		b.wire(r, fmt.Sprintf("%v at PSN %d", a.Syndrome, a.PSN))
		apply, acked := b.ackedMessages(r)
		text := fmt.Sprintf("%v at PSN %d: the server's HCA must resend from there (or the QP goes to error)", a.Syndrome, a.PSN)
		if acked != "" {
			text += "; " + acked
		}
		b.step(r, KindNAK, 0, text, apply)
		return
	}
	before := len(b.evs)
	b.wire(r, fmt.Sprintf("ACK PSN %d MSN %d", a.PSN, a.MSN))
	apply, acked := b.ackedMessages(r)
	if acked == "" {
		b.evs = b.evs[:before] // acknowledges nothing of the server's: no step
		return
	}
	b.step(r, KindAck, b.rpcOfAck(r), acked, apply)
}

// rpcOfAck is the RPC the newest message an ACK acknowledges belongs to.
func (b *builder) rpcOfAck(r *record) int {
	acked := r.an.Ack.Acked
	for i := len(acked) - 1; i >= 0; i-- {
		m := acked[i]
		if m.Flow != b.sflow {
			continue
		}
		if m.RPC != nil && m.RPC.RPC != nil {
			return b.rpcID(m.RPC.RPC)
		}
		if m.Chunk != nil {
			return b.rpcID(m.Chunk.RPC)
		}
	}
	return 0
}

// brk is the last step of a damaged capture: where it broke.
func (b *builder) brk() {
	frame, off, gz, ok := breakPlace(b.tl.Err)
	frame = max(frame, b.lastFrame+1, b.tl.Frames+1)
	text := fmt.Sprintf("the capture breaks here: %v", b.tl.Err)
	if ok {
		where := "byte offset"
		if gz {
			where = "uncompressed byte offset"
		}
		text = fmt.Sprintf("the capture breaks at frame %d, %s %d: what follows is not in the file (%v)", frame, where, off, b.tl.Err)
	}
	b.evs = append(b.evs, trace.Event{Task: taskReplay, Kind: trace.Note, Func: "truncated", Text: b.tl.Err.Error()})
	b.stepAt(frame, b.lastRel, KindBreak, 0, text, nil)
}
