// Package xprt is the client peer of the lab: what the Linux NFS client's
// RPC-over-RDMA transport (xprtrdma) does on the wire, reduced to what a
// learner drives by hand. It registers memory for the chunks a call
// advertises, builds the RPC-over-RDMA v1 header (RFC 8166) with the
// shared codec, posts the Send, and rebuilds replies from the Receive and
// the data the server wrote into its chunks.
package xprt

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// SegSpec asks for one segment: Len bytes in a buffer that starts PageOff
// bytes into a page (so a Read lands, or a Write comes from, mid-page).
type SegSpec struct {
	Len     int
	PageOff int
}

// ReadChunkSpec moves Len bytes of the call message, starting at XDR
// position Pos, into a Read chunk split into the given segments (their
// lengths must add up to Len). Pos 0 is the position-zero Read chunk: it
// carries the message less what the other Read chunks carry, and the call
// goes as RDMA_NOMSG (as CallChunk).
//
// A chunk whose Len is not a multiple of 4 leaves bytes of the XDR stream
// under its roundup. With one Read chunk and no call chunk the server
// rounds the chunk up when it puts it back (svc_rdma_read_complete_one),
// so those bytes are not sent inline: if they are the item's XDR pad
// (EndsItem) nothing carries them (RFC 8166 §3.4.5.2), otherwise they are
// message bytes and the chunk carries them, its length rounded up. With
// several chunks, or a call chunk, the server rebuilds the message from the
// positions alone (svc_rdma_read_multiple_chunks, _read_call_chunk), so
// the pad stays in the stream the chunks were cut from.
type ReadChunkSpec struct {
	Pos      int
	Len      int
	Segments []SegSpec
	// EndsItem says the chunk ends its XDR data item: Msg holds the item's
	// roundup right after it.
	EndsItem bool
	// Data, when set, holds the chunk's bytes and Msg is already the
	// reduced message (the chunk and its XDR pad left out), as a client
	// that registers the data where it lies, without copying it, builds
	// it. Either every Read chunk of a call has Data or none has.
	Data []byte
}

// WriteChunkSpec provisions a Write chunk (or the Reply chunk) of segments.
type WriteChunkSpec struct {
	Segments []SegSpec
}

// CallSpec is one RPC call as the client will put it on the wire.
type CallSpec struct {
	Label      string // "NFSv3 WRITE 1048576", for notes and views
	Msg        []byte // the whole RPC call message (XDR), before chunking; the call takes it over
	ReadChunks []ReadChunkSpec
	// CallChunk sends the message by RDMA Read (RDMA_NOMSG): a
	// position-zero chunk of these segments carries Msg less what the
	// ReadChunks carry, whose positions count in the whole Msg.
	CallChunk   []SegSpec
	WriteChunks []WriteChunkSpec
	ReplyChunk  *WriteChunkSpec
	// Vers overrides rdma_vers (to provoke ERR_VERS); 0 means 1.
	Vers uint32
	// Proc overrides rdma_proc; nil means RDMA_MSG, or RDMA_NOMSG with a
	// call chunk.
	Proc *rpcrdma.Proc
}

// The client keeps the calls in flight and a window of the ones that
// finished, so a long session's memory does not grow with its calls.
const (
	// RecentCalls is how many finished calls the client remembers
	// (Calls, CallByXID).
	RecentCalls = 256
	// wholeCalls is how many of the newest finished calls it keeps whole;
	// older ones shrink to summaries.
	wholeCalls = 4
	// SummaryHead is how many bytes of each segment a summary keeps.
	SummaryHead = 64
)

// Segment is a segment the client registered for a call.
type Segment struct {
	rpcrdma.Segment
	Position uint32 // Read list entries only
	// Buf is the registered buffer (PageOff bytes of padding first); in a
	// summary, only the first SummaryHead bytes of the data. Read it after
	// Data or once the call is released: until then a recycled sink may
	// still hold an older call's bytes where the server has not written.
	Buf     []byte
	PageOff int
	MR      verbs.MR // deregistered once the call finished
	Kind    string   // "read chunk 1", "call chunk", "write chunk 0", "reply chunk"
	summary bool
	own     bool // Buf was made by the client, not the caller's data
	// log is set while Buf is a recycled sink not cleared yet: the bytes
	// it (the MR's RDMA Writes) does not cover are an older call's until
	// settle.
	log *verbs.WriteLog
}

// Data is the segment's bytes (what the server reads or has written); in
// a summary, their first SummaryHead bytes.
func (s *Segment) Data() []byte {
	if s.summary {
		return s.Buf
	}
	s.settle()
	return s.Buf[s.PageOff : s.PageOff+int(s.Length)]
}

// settle clears the bytes of a recycled sink that no RDMA Write stored
// since it was registered, leaving Buf as clearing it before registering
// would have: a READ shorter than the last one into it shows zeroes, not
// the older data. Writes that land later only add to that state.
func (s *Segment) settle() {
	if s.log == nil {
		return
	}
	at := 0
	for _, w := range s.log.Spans() {
		off := min(w.Off, len(s.Buf))
		if off > at {
			clear(s.Buf[at:off])
		}
		at = max(at, min(off+w.Len, len(s.Buf)))
	}
	clear(s.Buf[at:])
	s.log = nil
}

// Call is an RPC in flight, answered or failed.
type Call struct {
	XID  uint32
	Spec CallSpec
	// Prog, Vers and RPCProc are the call's RPC program, version and
	// procedure, to read the reply's results by (0 when Msg is no call).
	Prog, Vers, RPCProc uint32
	Header              rpcrdma.Header
	Inline              []byte // RPC bytes sent in the Send after the header
	Segs                []*Segment
	Sent                bool
	Done                bool
	Reply               *Reply
	Err                 string // a failure the client saw (send error, RDMA_ERROR, disconnect)
	// Summary marks the copy the client keeps of an older finished call:
	// no message (Spec.Msg, Read chunk Data), segments cut to their head,
	// no reply chunk data. The caller's own *Call stays whole, unless the
	// client recycles (Client.Recycle).
	Summary  bool
	sendBuf  []byte
	sendMR   verbs.MR
	seq      uint64 // order made
	bytes    int64  // what it carries (CallBytes), while in flight
	finished bool   // memory released, out of the calls in flight
}

// Reply is what came back for a call.
type Reply struct {
	Header      rpcrdma.Header
	Inline      []byte   // RPC bytes after the header in the Receive
	WriteChunks [][]byte // data the server wrote into each Write chunk, cut to the lengths it reported
	ReplyChunk  []byte   // RDMA_NOMSG: the reply message itself
	Invalidated uint32   // the rkey a SEND_WITH_INV invalidated
	// RPC is the reply's RPC header and Results the first bytes after it
	// (the procedure's status word first); RPCErr says why the header did
	// not decode. Summaries keep them.
	RPC     oncrpc.ReplyHeader
	Results []byte
	RPCErr  string
	summary bool
}

// resultsHead is how many bytes of the results a Reply keeps.
const resultsHead = 8

// decodeRPC reads the RPC reply header at the start of msg.
func (r *Reply) decodeRPC(msg []byte) {
	n, err := r.RPC.Decode(msg)
	if err != nil {
		r.RPCErr = err.Error()
		return
	}
	r.RPC.Verf.Body = slices.Clone(r.RPC.Verf.Body)
	r.Results = slices.Clone(msg[n:min(len(msg), n+resultsHead)])
}

// Message is the RPC reply message the client rebuilds: the Reply chunk
// for RDMA_NOMSG, otherwise the inline bytes with each Write chunk's data
// inserted at the position the caller's decoder says (positions, in order,
// one per non-empty Write chunk). It is nil for a summary (Call.Summary),
// which keeps no chunk data.
func (r *Reply) Message(positions ...int) []byte {
	if r.summary {
		return nil
	}
	if r.Header.Proc == rpcrdma.ProcNoMsg {
		return r.ReplyChunk
	}
	out := append([]byte(nil), r.Inline...)
	shift := 0
	for i, data := range r.WriteChunks {
		if i >= len(positions) || len(data) == 0 {
			continue
		}
		at := min(positions[i]+shift, len(out))
		pad := (4 - len(data)%4) % 4
		ins := append(append([]byte(nil), data...), make([]byte, pad)...)
		out = append(out[:at], append(ins, out[at:]...)...)
		shift += len(ins)
	}
	return out
}

// Client is one RPC-over-RDMA connection's client end.
type Client struct {
	dev    verbs.Device
	pd     verbs.PD
	qp     verbs.QP
	SendCQ verbs.CQ
	RecvCQ verbs.CQ

	// Inline is the largest Send the server accepts (its Receive size).
	Inline int
	// Recycle lets the client reuse the buffers it made for a call's
	// chunks once the call shrinks to a summary, as a client reuses the
	// pages of a finished I/O: set it only when no caller keeps a *Call
	// (or its data) past the next few finished calls, as the REPL, which
	// reads calls through Calls and CallByXID, does not.
	Recycle bool
	Credits uint32 // credits the server granted in its last reply
	nextXID uint32
	made    uint64
	live    []*Call          // prepared and not finished, in the order made
	recent  []*Call          // finished, oldest first, at most RecentCalls
	byXID   map[uint32]*Call // live and recent
	recvs   map[uint64][]byte
	recvMRs map[uint64]verbs.MR
	spare   []byte   // a handled reply's receive buffer, for postRecv
	free    [][]byte // chunk buffers of summarized calls, with Recycle
	nextWR  uint64
}

// New creates the client's QP on dev; connect it with Connect.
func New(dev verbs.Device, inline, credits int, firstXID uint32) (*Client, error) {
	pd, err := dev.AllocPD()
	if err != nil {
		return nil, fmt.Errorf("xprt: alloc PD: %w", err)
	}
	c := &Client{dev: dev, pd: pd, Inline: inline, Credits: uint32(credits), nextXID: firstXID,
		byXID: map[uint32]*Call{}, recvs: map[uint64][]byte{}, recvMRs: map[uint64]verbs.MR{}}
	if c.SendCQ, err = dev.CreateCQ(256); err != nil {
		return nil, fmt.Errorf("xprt: create send CQ: %w", err)
	}
	if c.RecvCQ, err = dev.CreateCQ(256); err != nil {
		return nil, fmt.Errorf("xprt: create receive CQ: %w", err)
	}
	c.qp, err = pd.CreateQP(verbs.QPInitAttr{SendCQ: c.SendCQ, RecvCQ: c.RecvCQ,
		Cap: verbs.QPCap{MaxSendWR: 128, MaxRecvWR: 128, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		return nil, fmt.Errorf("xprt: create QP: %w", err)
	}
	return c, nil
}

// QP is the client's queue pair.
func (c *Client) QP() verbs.QP { return c.qp }

// Connect moves the QP to RTS towards the server and posts Receives.
func (c *Client) Connect(remoteNode string, remoteQPN uint32, mtu, receives int) error {
	for _, a := range []verbs.QPAttr{
		{State: verbs.QPSInit},
		{State: verbs.QPSRTR, DestQPNum: remoteQPN, RemoteNode: remoteNode, PathMTU: mtu},
		{State: verbs.QPSRTS, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 16},
	} {
		if err := c.qp.Modify(a); err != nil {
			return fmt.Errorf("xprt: QP to %v: %w", a.State, err)
		}
	}
	for i := 0; i < receives; i++ {
		if err := c.postRecv(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Client) postRecv() error {
	// A handled reply's buffer is posted again, as xprtrdma reposts its
	// rpcrdma_rep buffers.
	buf := c.spare
	c.spare = nil
	if len(buf) != c.Inline {
		buf = make([]byte, c.Inline)
	}
	mr, err := c.pd.RegMR(buf, verbs.AccessLocalWrite)
	if err != nil {
		return fmt.Errorf("xprt: register receive buffer: %w", err)
	}
	c.nextWR++
	id := c.nextWR
	wr := &verbs.RecvWR{WRID: id, SGList: []verbs.SGE{{Addr: mr.Addr(), Length: uint32(len(buf)), LKey: mr.LKey()}}}
	if _, err := c.qp.PostRecv(wr); err != nil {
		return fmt.Errorf("xprt: post receive: %w", err)
	}
	c.recvs[id], c.recvMRs[id] = buf, mr
	return nil
}

// Calls lists the calls in flight and the last RecentCalls finished ones,
// in the order they were made. Finished calls but the newest few are
// summaries (Call.Summary).
func (c *Client) Calls() []*Call {
	out := make([]*Call, 0, len(c.recent)+len(c.live))
	out = append(append(out, c.recent...), c.live...)
	slices.SortFunc(out, func(a, b *Call) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// CallByXID finds a call in flight or among the recent finished ones.
func (c *Client) CallByXID(xid uint32) *Call { return c.byXID[xid] }

// Outstanding counts calls sent and not finished.
func (c *Client) Outstanding() int {
	n := 0
	for _, k := range c.live {
		if k.Sent {
			n++
		}
	}
	return n
}

// NextXID is the XID the next call will carry.
func (c *Client) NextXID() uint32 { return c.nextXID }

// register makes a segment buffer holding data (or zeroes) with access.
// A segment at page offset 0 registers data itself, as the client
// registers the pages an RPC's data already sits in.
func (c *Client) register(kind string, data []byte, s SegSpec, access verbs.Access) (*Segment, error) {
	if s.Len < 0 || s.PageOff < 0 || s.PageOff >= 1<<20 {
		return nil, fmt.Errorf("xprt: %s: bad segment length %d / page offset %d", kind, s.Len, s.PageOff)
	}
	var buf []byte
	own := !(s.PageOff == 0 && len(data) == s.Len)
	sink := access&verbs.AccessRemoteWrite != 0
	used := false
	if !own {
		buf = data
	} else {
		buf, used = c.buffer(s.PageOff + s.Len)
		n := copy(buf[s.PageOff:], data)
		if used && !sink {
			clear(buf[:s.PageOff])
			clear(buf[s.PageOff+n:])
		}
	}
	mr, err := c.pd.RegMR(buf, access)
	if err != nil {
		return nil, fmt.Errorf("xprt: register %s: %w", kind, err)
	}
	seg := &Segment{Segment: rpcrdma.Segment{Handle: mr.RKey(), Length: uint32(s.Len), Offset: mr.Addr() + uint64(s.PageOff)},
		Buf: buf, PageOff: s.PageOff, MR: mr, Kind: kind, own: own}
	if used && sink {
		// A READ's megabyte is mostly overwritten: clear only what the
		// server's writes leave, once known, where the provider logs them.
		if l, ok := mr.(verbs.LoggedMR); ok {
			seg.log = l.WriteLog()
		} else {
			clear(buf)
		}
	}
	return seg, nil
}

// Recycled chunk buffers are kept up to maxFree of them, each at most
// maxFreeLen bytes.
const (
	maxFree    = 8
	maxFreeLen = 4 << 20
)

// buffer is n bytes: the smallest recycled buffer that holds them without
// being over twice their size, still holding an older call's bytes (used),
// else a new, zeroed one.
func (c *Client) buffer(n int) (buf []byte, used bool) {
	best := -1
	for i, b := range c.free {
		if cap(b) >= n && cap(b) <= 2*n && (best < 0 || cap(b) < cap(c.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]byte, n), false
	}
	buf = c.free[best][:n]
	c.free = slices.Delete(c.free, best, best+1)
	return buf, true
}

// recycle keeps the chunk buffers the client made for k, a whole call
// that has just shrunk to a summary, for later calls.
func (c *Client) recycle(k *Call) {
	for _, s := range k.Segs {
		if !s.own || cap(s.Buf) > maxFreeLen {
			continue
		}
		s.settle() // never later: the buffer is another call's then
		if len(c.free) == maxFree {
			c.free = slices.Delete(c.free, 0, 1) // the oldest goes
		}
		c.free = append(c.free, s.Buf[:0])
	}
}

// split cuts data across segments; their lengths must cover it exactly.
func split(data []byte, segs []SegSpec, what string) ([][]byte, error) {
	total := 0
	for _, s := range segs {
		total += s.Len
	}
	if total != len(data) {
		return nil, fmt.Errorf("xprt: %s: segments hold %d bytes, the data is %d", what, total, len(data))
	}
	var out [][]byte
	off := 0
	for _, s := range segs {
		out = append(out, data[off:off+s.Len])
		off += s.Len
	}
	return out, nil
}

// Prepare registers memory and encodes the header for spec; Send posts it.
func (c *Client) Prepare(spec CallSpec) (*Call, error) {
	if len(spec.Msg) < 4 {
		return nil, errors.New("xprt: call message shorter than an XID")
	}
	k := &Call{XID: c.nextXID, Spec: spec}
	var ch oncrpc.CallHeader
	if _, err := ch.Decode(spec.Msg); err == nil {
		k.Prog, k.Vers, k.RPCProc = ch.Prog, ch.Vers, ch.Proc
	}
	if err := c.prepare(k); err != nil {
		k.release() // what was registered before the failure
		return nil, err
	}
	c.nextXID++
	c.made++
	k.seq = c.made
	c.live = append(c.live, k)
	c.byXID[k.XID] = k
	return k, nil
}

// prepare registers k's memory and encodes its header.
func (c *Client) prepare(k *Call) error {
	spec, xid := k.Spec, k.XID
	msg := spec.Msg // owned by the call from now on
	msg[0], msg[1], msg[2], msg[3] = byte(xid>>24), byte(xid>>16), byte(xid>>8), byte(xid)
	vers := spec.Vers
	if vers == 0 {
		vers = rpcrdma.Version
	}
	h := rpcrdma.Header{XID: xid, Vers: vers, Credit: c.Credits, Proc: rpcrdma.ProcMsg}
	reads, callSegs, err := callChunkOf(spec)
	if err != nil {
		return err
	}
	// Bound the call before registering (allocating) any of it.
	if err := CheckSize(len(msg), spec); err != nil {
		return fmt.Errorf("xprt: %w", err)
	}
	k.bytes = CallBytes(len(msg), spec)
	if err := c.checkLive(k.bytes); err != nil {
		return fmt.Errorf("xprt: %w", err)
	}
	if n := headerLen(spec, reads, callSegs); n > c.Inline {
		return fmt.Errorf("xprt: the transport header alone would be %d bytes with these %d segments, over the server's %d-byte inline threshold: use fewer segments",
			n, segCount(spec), c.Inline)
	}
	reduced := len(reads) > 0 && reads[0].Data != nil
	for i, rc := range reads {
		if (rc.Data != nil) != reduced {
			return fmt.Errorf("xprt: read chunk %d: either every Read chunk carries its Data or none does", i)
		}
		if !reduced && (rc.Pos < 0 || rc.Len < 0 || rc.Pos+rc.Len > len(msg)) {
			return fmt.Errorf("xprt: read chunk %d: [%d,+%d) is outside the %d-byte message", i, rc.Pos, rc.Len, len(msg))
		}
	}
	// One data item alone is rounded up by the server; otherwise the
	// positions alone place the chunks (see ReadChunkSpec).
	lone := len(callSegs) == 0 && len(reads) == 1 && !reduced
	stream := msg // what is sent inline, or in the call chunk
	if len(reads) > 0 && !reduced {
		var b bytes.Buffer
		at := 0
		for _, rc := range reads {
			if rc.Pos < at {
				continue // overlapping chunks: a lesson on B5; send what is left
			}
			b.Write(msg[at:rc.Pos])
			at = rc.Pos + rc.Len
			if lone {
				at += pad4(rc.Len)
			}
			at = min(at, len(msg))
		}
		b.Write(msg[at:])
		stream = b.Bytes()
	}
	inline := stream
	if len(callSegs) > 0 {
		h.Proc = rpcrdma.ProcNoMsg
		total := 0
		for _, sg := range callSegs {
			total += sg.Len
		}
		if total != len(stream) {
			return fmt.Errorf("xprt: call chunk: segments hold %d bytes, the message less its Read chunks is %d (the %d-byte message less %d bytes)",
				total, len(stream), len(msg), len(msg)-len(stream))
		}
		parts, _ := split(stream, callSegs, "call chunk")
		for i, sg := range callSegs {
			seg, err := c.register("call chunk", parts[i], sg, verbs.AccessRemoteRead)
			if err != nil {
				return err
			}
			k.Segs = append(k.Segs, seg)
			h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: 0, Segment: seg.Segment})
		}
		inline = nil
	}
	for i, rc := range reads {
		data, segs := rc.Data, rc.Segments
		if !reduced {
			n := rc.Len
			if lone && !rc.EndsItem {
				// Stream bytes under the roundup the server adds ride in
				// the chunk, which the server then leaves as it is.
				n = min(rc.Len+pad4(rc.Len), len(msg)-rc.Pos)
			}
			data = msg[rc.Pos : rc.Pos+n]
			if extra := n - rc.Len; extra > 0 && len(segs) > 0 {
				segs = slices.Clone(segs)
				segs[len(segs)-1].Len += extra
			}
		}
		parts, err := split(data, segs, fmt.Sprintf("read chunk %d", i))
		if err != nil {
			return err
		}
		for j, sg := range segs {
			seg, err := c.register(fmt.Sprintf("read chunk %d", i), parts[j], sg, verbs.AccessRemoteRead)
			if err != nil {
				return err
			}
			seg.Position = uint32(rc.Pos)
			k.Segs = append(k.Segs, seg)
			h.ReadList = append(h.ReadList, rpcrdma.ReadSegment{Position: uint32(rc.Pos), Segment: seg.Segment})
		}
	}
	for i, wc := range spec.WriteChunks {
		var chunk rpcrdma.WriteChunk
		for _, s := range wc.Segments {
			seg, err := c.register(fmt.Sprintf("write chunk %d", i), nil, s, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
			if err != nil {
				return err
			}
			k.Segs = append(k.Segs, seg)
			chunk.Segments = append(chunk.Segments, seg.Segment)
		}
		h.WriteList = append(h.WriteList, chunk)
	}
	if spec.ReplyChunk != nil {
		var chunk rpcrdma.WriteChunk
		for _, s := range spec.ReplyChunk.Segments {
			seg, err := c.register("reply chunk", nil, s, verbs.AccessLocalWrite|verbs.AccessRemoteWrite)
			if err != nil {
				return err
			}
			k.Segs = append(k.Segs, seg)
			chunk.Segments = append(chunk.Segments, seg.Segment)
		}
		h.ReplyChunk = &chunk
	}
	if spec.Proc != nil {
		h.Proc = *spec.Proc
	}
	k.Header = h
	k.Inline = inline
	// Room for a header with a few chunks: it would grow word by word.
	k.sendBuf = append(h.AppendTo(make([]byte, 0, 256+len(inline))), inline...)
	if len(k.sendBuf) > c.Inline {
		return fmt.Errorf("xprt: the Send would be %d bytes, over the server's %d-byte inline threshold: move data to chunks", len(k.sendBuf), c.Inline)
	}
	mr, err := c.pd.RegMR(k.sendBuf, 0)
	if err != nil {
		return fmt.Errorf("xprt: register send buffer: %w", err)
	}
	k.sendMR = mr
	return nil
}

// callChunkOf separates the position-zero Read chunk, if spec names one
// among its ReadChunks, from the data-item chunks: xprtrdma sends a call
// with a call chunk as RDMA_NOMSG.
func callChunkOf(spec CallSpec) (reads []ReadChunkSpec, call []SegSpec, err error) {
	call = spec.CallChunk
	for i, rc := range spec.ReadChunks {
		if rc.Pos != 0 || rc.Data != nil {
			reads = append(reads, rc)
			continue
		}
		if len(call) > 0 {
			return nil, nil, fmt.Errorf("xprt: read chunk %d: a second position-zero chunk (one call chunk carries the message; give it more segments)", i)
		}
		call = rc.Segments
	}
	return reads, call, nil
}

// pad4 is the XDR roundup after n bytes.
func pad4(n int) int { return (4 - n%4) % 4 }

// Send posts the call's Send.
func (c *Client) Send(k *Call) error {
	c.nextWR++
	wr := &verbs.SendWR{WRID: c.nextWR | 1<<62, Opcode: verbs.WRSend, Signaled: true,
		SGList: []verbs.SGE{{Addr: k.sendMR.Addr(), Length: uint32(len(k.sendBuf)), LKey: k.sendMR.LKey()}}}
	if _, err := c.qp.PostSend(wr); err != nil {
		k.Err = "send: " + err.Error()
		c.finish(k) // no reply can come
		return fmt.Errorf("xprt: post send of xid %#x: %w", k.XID, err)
	}
	k.Sent = true
	return nil
}

// HandleSendWC takes a completion of the client's Send Queue and says what
// it means.
func (c *Client) HandleSendWC(wc verbs.WC) string {
	if wc.Status != verbs.StatusSuccess {
		// The QP is in ERR. A reply already received still waits in the
		// Receive CQ: the calls finish when their Receives flush.
		for _, k := range c.live {
			if k.Sent && k.Err == "" {
				k.Err = "send " + wc.Status.String()
			}
		}
		return fmt.Sprintf("Send completed with %v: %s", wc.Status, wc.Status.Meaning())
	}
	return "Send acknowledged by the server's HCA"
}

// HandleRecvWC takes a Receive completion: the server's reply.
func (c *Client) HandleRecvWC(wc verbs.WC) string {
	buf, ok := c.recvs[wc.WRID]
	if !ok {
		return fmt.Sprintf("unknown receive wr_id %#x", wc.WRID)
	}
	delete(c.recvs, wc.WRID)
	if mr := c.recvMRs[wc.WRID]; mr != nil {
		_ = mr.Dereg()
		delete(c.recvMRs, wc.WRID)
	}
	if wc.Status != verbs.StatusSuccess {
		// The connection is gone and the Receives before this one are
		// handled: no call in flight will get its reply.
		c.abandon("no reply: the connection was lost (receive " + wc.Status.String() + ")")
		return fmt.Sprintf("Receive %v", wc.Status)
	}
	if err := c.postRecv(); err != nil {
		return err.Error()
	}
	// Everything kept of the reply is copied out of buf: the next Receive
	// may take it.
	defer func() { c.spare = buf }()
	data := buf[:wc.ByteLen]
	var h rpcrdma.Header
	n, err := h.Decode(data, rpcrdma.DecodeOptions{})
	if err != nil {
		return fmt.Sprintf("malformed reply header: %v", err)
	}
	k := c.byXID[h.XID]
	if k == nil || k.finished {
		return fmt.Sprintf("reply for unknown xid %#x", h.XID)
	}
	r := &Reply{Header: h.Clone(), Inline: append([]byte(nil), data[n:]...)}
	if wc.WithInv {
		r.Invalidated = wc.InvalidatedRKey
	}
	k.Reply, k.Done = r, true
	c.Credits = h.Credit
	switch h.Proc {
	case rpcrdma.ProcError:
		k.Err = fmt.Sprintf("RDMA_ERROR %v", h.Err)
		c.finish(k)
		return fmt.Sprintf("xid %#x: RDMA_ERROR %v", h.XID, h.Err)
	}
	// Collect what the server wrote, segment by segment, as its echo of
	// each chunk says.
	for ci, wc := range h.WriteList {
		r.WriteChunks = append(r.WriteChunks, written(c.segsOf(k, fmt.Sprintf("write chunk %d", ci)), wc.Segments))
	}
	if h.ReplyChunk != nil {
		r.ReplyChunk = written(c.segsOf(k, "reply chunk"), h.ReplyChunk.Segments)
	}
	if h.Proc == rpcrdma.ProcNoMsg {
		r.decodeRPC(r.ReplyChunk)
	} else {
		r.decodeRPC(r.Inline)
	}
	c.finish(k)
	return fmt.Sprintf("xid %#x: %v reply, %d inline bytes, %d write chunks, reply chunk %d bytes",
		h.XID, h.Proc, len(r.Inline), len(r.WriteChunks), len(r.ReplyChunk))
}

// written is what the server wrote into segs, as its echo of the chunk
// (echo) says: one segment's bytes in place, several joined.
func written(segs []*Segment, echo []rpcrdma.Segment) []byte {
	part := func(i int) []byte {
		s := segs[i]
		s.settle()
		return s.Buf[s.PageOff : s.PageOff+int(min(echo[i].Length, s.Length))]
	}
	n := min(len(segs), len(echo))
	if n == 1 {
		return part(0)
	}
	var out []byte
	for i := 0; i < n; i++ {
		out = append(out, part(i)...)
	}
	return out
}

func (c *Client) segsOf(k *Call, kind string) []*Segment {
	var out []*Segment
	for _, s := range k.Segs {
		if s.Kind == kind {
			out = append(out, s)
		}
	}
	return out
}

// release deregisters the call's memory, as the client does when a call
// ends: its rkeys stop working at once. The buffers stay readable, each
// settled first: no RDMA Write lands after Dereg, so the log is final.
func (k *Call) release() {
	for _, s := range k.Segs {
		s.settle()
		if s.MR != nil {
			_ = s.MR.Dereg()
		}
	}
	if k.sendMR != nil {
		_ = k.sendMR.Dereg()
	}
}

// finish ends a call: its memory is released and it leaves the calls in
// flight for the window of recent ones, where the older calls shrink to
// summaries and the oldest go.
func (c *Client) finish(k *Call) {
	if k.finished {
		return
	}
	k.finished = true
	k.release()
	if i := slices.Index(c.live, k); i >= 0 {
		c.live = slices.Delete(c.live, i, i+1)
	}
	c.recent = append(c.recent, k)
	if i := len(c.recent) - 1 - wholeCalls; i >= 0 && !c.recent[i].Summary {
		old := c.recent[i]
		sum := old.summary()
		if c.Recycle {
			c.recycle(old)
		}
		c.recent[i] = sum
		if c.byXID[old.XID] == old {
			c.byXID[old.XID] = sum
		}
	}
	if len(c.recent) > RecentCalls {
		old := c.recent[0]
		if c.byXID[old.XID] == old {
			delete(c.byXID, old.XID)
		}
		c.recent = slices.Delete(c.recent, 0, 1)
	}
}

// abandon finishes every call in flight with the failure why.
func (c *Client) abandon(why string) {
	for len(c.live) > 0 {
		k := c.live[0]
		if k.Err == "" {
			k.Err = why
		}
		c.finish(k)
	}
}

// summary is a copy of a finished call that holds on to no large buffer.
func (k *Call) summary() *Call {
	s := &Call{XID: k.XID, Spec: k.Spec, Prog: k.Prog, Vers: k.Vers, RPCProc: k.RPCProc, Header: k.Header,
		Inline: append([]byte(nil), k.Inline...), Sent: k.Sent, Done: k.Done, Err: k.Err, Summary: true, seq: k.seq, finished: true}
	s.Spec.Msg = nil
	s.Spec.ReadChunks = slices.Clone(s.Spec.ReadChunks)
	for i := range s.Spec.ReadChunks {
		s.Spec.ReadChunks[i].Data = nil
	}
	for _, g := range k.Segs {
		d := g.Data()
		h := *g
		h.Buf, h.summary = append([]byte(nil), d[:min(len(d), SummaryHead)]...), true
		s.Segs = append(s.Segs, &h)
	}
	if r := k.Reply; r != nil {
		s.Reply = &Reply{Header: r.Header, Inline: r.Inline, Invalidated: r.Invalidated,
			RPC: r.RPC, Results: r.Results, RPCErr: r.RPCErr, summary: true}
	}
	return s
}
