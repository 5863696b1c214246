package analysis

// RPC-over-RDMA version 1 (RFC 8166) on top of the reassembled SENDs.
// A complete SEND is taken for an RPC-over-RDMA message only when its
// transport header decodes (version 1, a known message type, well-formed
// chunk lists) and
//
//	RDMA_MSG     an RPC message follows whose XID is the header's
//	RDMA_MSGP    the same, after the padding alignment and threshold
//	             (RFC 5666 §4.3; RFC 8166 obsoleted it, as it did
//	             RDMA_DONE): decoded and tracked like RDMA_MSG
//	RDMA_NOMSG   it answers a call of ours, or is a call with a
//	             position-zero Read chunk
//	RDMA_ERROR   it answers a call, or the peers already spoke RPC-over-RDMA
//	RDMA_DONE    the peers already spoke RPC-over-RDMA
//
// so that plain verbs traffic (perftest, rping) is never claimed, and a
// SEND too short for the 16-byte fixed header is reported as short.

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// RPCMessage is an RPC-over-RDMA message: the transport header a SEND
// carried and the RPC message after it.
type RPCMessage struct {
	Frame      int // the packet that completed the SEND
	FirstFrame int
	Time       time.Time
	Header     rpcrdma.Header // a copy
	HdrLen     int
	Call       bool   // an RPC call; otherwise a reply (or RDMA_DONE)
	Inline     []byte // the bytes after the transport header (a copy)
	Msg        *Message
	RPC        *RPC // nil for RDMA_DONE
}

// Obsolete reports whether the message is of a type RFC 8166 removed
// from RPC-over-RDMA version 1 (RDMA_MSGP, RDMA_DONE): only peers of RFC
// 5666's day send them.
func (m *RPCMessage) Obsolete() bool {
	return m.Header.Proc == rpcrdma.ProcMsgp || m.Header.Proc == rpcrdma.ProcDone
}

// RPC is one RPC over RDMA: its call, the chunks the call advertised, the
// RDMA READs and WRITEs that moved their data, and its reply.
type RPC struct {
	ID             int
	XID            uint32
	Client, Server frame.Addr
	Call, Reply    *RPCMessage

	Prog, Vers, Proc uint32
	HaveProc         bool
	CallSummary      string
	ReplySummary     string
	// CallNFS and ReplyNFS are the NFS fields of an NFSv3 or NFSv4 call
	// and reply (nfs.procedure_v3, nfs.offset3, ...), when decoded.
	CallNFS, ReplyNFS *nfs.Fields
	// AuthSys is the call's AUTH_SYS credential, when it has one: its
	// machine name is as sent (escape it for a terminal).
	AuthSys *oncrpc.AuthSysParams

	ReadChunks  []*Chunk // by position, as the server processes them
	WriteChunks []*Chunk
	ReplyChunk  *Chunk

	Reads  []*Message // RDMA READ requests (with their responses) that pulled Read chunk data
	Writes []*Message // RDMA WRITEs that pushed Write or Reply chunk data

	keepData bool // its Read and Write chunks keep the bytes placed in them
	noFields bool // CallNFS and ReplyNFS stay nil (Options.SkipNFSFields)
	// rebuilt is what rebuilding the reply gave when it was summarised:
	// the detail tree says it, after the Reply chunk's bytes are dropped.
	rebuilt RebuiltReply
	// zeroWant and zeroPlaced are the bytes its position-zero Read chunk
	// claims and the bytes placed in it so far; zeroTried what was placed
	// when a look for a complete chunk last found a hole.
	zeroWant, zeroPlaced, zeroTried uint64
}

// Chunk is a chunk an RPC call advertised.
type Chunk struct {
	Kind     ChunkKind
	Index    int
	Position uint32 // Read chunks
	Segments []*Segment
}

// Segment is one advertised segment and what the capture saw land in it.
type Segment struct {
	rpcrdma.Segment
	Written uint32 // Write and Reply chunks: the length the reply echoed
	// prefix is the bytes placed in order from 0, when they are not
	// kept: the usual segment needs no pieces (3 MB of a million frames).
	prefix     uint32
	HasWritten bool
	keep       bool    // copy the bytes placed, not only where they went
	Placed     int     // bytes that RDMA READ responses or WRITEs placed in it
	pieces     []piece // what was placed after prefix, where it went
}

// piece is a run of bytes placed in a segment; data is nil when the
// segment does not keep its bytes.
type piece struct {
	off  uint64
	n    int
	data []byte
}

// KeptBytes returns how many of the bytes placed in the segment the
// analysis still holds (Options.DropChunkData, or a summarised reply, lets
// them go).
func (s *Segment) KeptBytes() int {
	n := 0
	for _, p := range s.pieces {
		n += len(p.data)
	}
	return n
}

// Want returns how many bytes the segment should end up holding: its
// length, or for Write and Reply chunks what the reply said was written.
func (s *Segment) Want() uint32 {
	if s.HasWritten {
		return s.Written
	}
	return s.Length
}

// put places data at off, keeping a copy of what falls inside the
// segment, or only where it went, and returns how many bytes fell inside.
func (s *Segment) put(off uint64, data []byte) int {
	if off >= uint64(s.Length) || len(data) == 0 {
		return 0
	}
	n := int(min(uint64(len(data)), uint64(s.Length)-off))
	s.Placed += n
	if !s.keep {
		if len(s.pieces) == 0 && off == uint64(s.prefix) {
			s.prefix += uint32(n) // off+n is at most Length, a uint32
			return n
		}
		if k := len(s.pieces) - 1; k >= 0 && s.pieces[k].off+uint64(s.pieces[k].n) == off {
			s.pieces[k].n += n // the usual case: right after the last one
			return n
		}
		s.pieces = append(s.pieces, piece{off: off, n: n})
		return n
	}
	s.pieces = append(s.pieces, piece{off: off, n: n, data: append([]byte(nil), data[:n]...)})
	return n
}

type rpcKey struct {
	Client, Server frame.Addr
	XID            uint32
}

type segKey struct {
	Owner frame.Addr
	RKey  uint32
}

// segStart is where a segment starts: rkey and address.
type segStart struct {
	Owner  frame.Addr
	RKey   uint32
	Offset uint64
}

type segRef struct {
	rpc   *RPC
	chunk *Chunk
	seg   int
}

// rpcPeer is what is known of the RPC-over-RDMA traffic between a client
// and a server.
type rpcPeer struct {
	outstanding int
	credits     uint32
	haveCredits bool
	fromStart   bool
}

type rpcState struct {
	calls  map[rpcKey]*RPC // calls not answered yet, by XID
	segs   map[segKey][]segRef
	starts map[segStart]segRef   // the most recent segment starting there
	peers  map[addrPair]*rpcPeer // (client, server)
	open   map[int]*RPC          // calls not answered yet, by ID
	list   []*RPC                // every RPC, unless Options.DropRPCs
	n      int                   // RPCs seen
	hdr    rpcrdma.Header
	chunks []rpcrdma.ReadChunk
	bufs   RebuildBufs // a rebuilt reply, while it is summarised
	// answered are the RPCs the last packet answered: with
	// Options.DropRPCs their bytes go at the next packet, once the
	// packet's output (which may rebuild the reply) is written.
	answered []*RPC
}

func newRPCState() rpcState {
	return rpcState{calls: map[rpcKey]*RPC{}, segs: map[segKey][]segRef{}, starts: map[segStart]segRef{},
		peers: map[addrPair]*rpcPeer{}, open: map[int]*RPC{}}
}

// add numbers a new RPC and lists it.
func (s *rpcState) add(a *Analyzer, r *RPC) {
	s.n++
	r.ID = s.n
	if !a.opt.DropRPCs {
		s.list = append(s.list, r)
	}
}

// unanswered returns the calls without a reply, in call order.
func (s *rpcState) unanswered() []*RPC {
	l := make([]*RPC, 0, len(s.open))
	for _, r := range s.open {
		l = append(l, r)
	}
	slices.SortFunc(l, func(x, y *RPC) int { return x.ID - y.ID })
	return l
}

// peer returns the state between client and server, if they spoke
// RPC-over-RDMA; create makes it.
func (s *rpcState) peer(a *Analyzer, client, server frame.Addr, create bool) *rpcPeer {
	k := addrPair{client, server}
	if p := s.peers[k]; p != nil || !create {
		return p
	}
	p := &rpcPeer{fromStart: a.cm.started(client, server)}
	s.peers[k] = p
	return p
}

// known reports whether x and y spoke RPC-over-RDMA, either way round.
func (s *rpcState) known(x, y frame.Addr) *rpcPeer {
	if p := s.peers[addrPair{x, y}]; p != nil {
		return p
	}
	return s.peers[addrPair{y, x}]
}

// sendDone looks at a complete SEND message for RPC-over-RDMA.
func (a *Analyzer) sendDone(p *Packet, m *Message) {
	if !m.Complete {
		p.Analysis.NotRPC = "incomplete SEND: not checked for RPC-over-RDMA"
	} else {
		a.rpc.send(a, p, m)
	}
	m.Data = nil // an RPC-over-RDMA message keeps a copy of what it needs
}

// notRPC is NotRPC under Options.SkipText.
const notRPC = "not RPC-over-RDMA"

func (s *rpcState) send(a *Analyzer, p *Packet, m *Message) {
	an := &p.Analysis
	data := m.Data
	if len(data) < rpcrdma.FixedHdrLen {
		an.Short = true
		if a.opt.SkipText {
			an.NotRPC = notRPC
		} else {
			an.NotRPC = fmt.Sprintf("short SEND (%d bytes): no room for an RPC-over-RDMA header", len(data))
		}
		if s.known(p.Src, p.Dst) != nil {
			a.note(p, InfoShortSend, "%s", an.NotRPC)
		}
		return
	}
	if a.opt.SkipText && binary.BigEndian.Uint32(data[4:]) != rpcrdma.Version {
		// Decode would fail on rdma_vers, building the words nobody
		// reads: the SENDs of verbs traffic (rping) all end here.
		an.NotRPC = notRPC
		return
	}
	h := &s.hdr
	n, err := h.Decode(data, rpcrdma.DecodeOptions{})
	if err != nil {
		if a.opt.SkipText {
			an.NotRPC = notRPC
		} else {
			an.NotRPC = "not RPC-over-RDMA: " + err.Error()
		}
		return
	}
	call, ok, why := s.role(p, h, data[n:])
	if !ok {
		an.NotRPC = "not RPC-over-RDMA: " + why
		return
	}
	msg := &RPCMessage{Frame: p.Frame, FirstFrame: m.FirstFrame, Time: p.Time, Header: h.Clone(),
		HdrLen: n, Call: call, Msg: m}
	if h.Proc == rpcrdma.ProcMsg || h.Proc == rpcrdma.ProcMsgp {
		msg.Inline = append([]byte(nil), data[n:]...)
	}
	m.RPC, an.RPC = msg, msg
	switch {
	case h.Proc == rpcrdma.ProcDone:
		// Obsolete, and it carries no RPC: shown, not tracked.
	case call:
		s.call(a, p, msg)
	default:
		s.reply(a, p, msg)
	}
}

// role decides whether a decoded header is RPC-over-RDMA and whether it
// carries a call.
func (s *rpcState) role(p *Packet, h *rpcrdma.Header, rest []byte) (call, ok bool, why string) {
	answering := s.calls[rpcKey{Client: p.Dst, Server: p.Src, XID: h.XID}]
	open := answering != nil && answering.Reply == nil
	known := s.known(p.Src, p.Dst) != nil
	switch h.Proc {
	case rpcrdma.ProcMsg, rpcrdma.ProcMsgp:
		xid, mt, ok := oncrpc.PeekMsgType(rest)
		if !ok {
			return false, false, fmt.Sprintf("%v without an RPC call or reply after the header", h.Proc)
		}
		if xid != h.XID {
			return false, false, fmt.Sprintf("RPC XID 0x%08x differs from the header's 0x%08x", xid, h.XID)
		}
		return mt == oncrpc.Call, true, ""
	case rpcrdma.ProcNoMsg:
		if open {
			return false, true, ""
		}
		for _, r := range h.ReadList {
			if r.Position == 0 {
				return true, true, ""
			}
		}
		if h.ReplyChunk != nil && known {
			return false, true, ""
		}
		return false, false, "RDMA_NOMSG that answers no call and has no position-zero Read chunk"
	case rpcrdma.ProcError:
		if open || known {
			return false, true, ""
		}
		return false, false, "RDMA_ERROR between peers that never spoke RPC-over-RDMA"
	}
	if known {
		return false, true, "" // RDMA_DONE
	}
	return false, false, fmt.Sprintf("%v between peers that never spoke RPC-over-RDMA", h.Proc)
}

// call records an RPC call and the segments it advertises.
func (s *rpcState) call(a *Analyzer, p *Packet, msg *RPCMessage) {
	h := &msg.Header
	r := &RPC{XID: h.XID, Client: p.Src, Server: p.Dst, Call: msg, keepData: !a.opt.DropChunkData, noFields: a.opt.SkipNFSFields}
	msg.RPC = r
	s.chunks = h.ReadChunks(s.chunks)
	for i, c := range s.chunks {
		ch := &Chunk{Kind: ChunkRead, Index: i, Position: c.Position}
		// A position-zero Read chunk is the call itself: always kept.
		keep := r.keepData || c.Position == 0
		for _, sg := range c.Segments {
			ch.Segments = append(ch.Segments, &Segment{Segment: sg, keep: keep})
			if c.Position == 0 && i == 0 {
				r.zeroWant += uint64(sg.Length)
			}
		}
		r.ReadChunks = append(r.ReadChunks, ch)
	}
	for i := range h.WriteList {
		r.WriteChunks = append(r.WriteChunks, newChunk(ChunkWrite, i, &h.WriteList[i], r.keepData))
	}
	if h.ReplyChunk != nil {
		r.ReplyChunk = newChunk(ChunkReply, 0, h.ReplyChunk, true) // the reply itself
	}
	for _, c := range r.Chunks() {
		for j, sg := range c.Segments {
			k := segKey{Owner: r.Client, RKey: sg.Handle}
			ref := segRef{rpc: r, chunk: c, seg: j}
			s.segs[k] = append(s.segs[k], ref)
			s.starts[segStart{r.Client, sg.Handle, sg.Offset}] = ref
		}
	}
	if h.Proc == rpcrdma.ProcMsg || h.Proc == rpcrdma.ProcMsgp {
		r.summarizeCall(msg.Inline)
	} else {
		r.CallSummary = "RPC call in a position-zero Read chunk"
	}
	if old := s.calls[rpcKey{r.Client, r.Server, r.XID}]; old != nil && old.Reply == nil {
		a.note(p, NoteCallNoReply, "XID 0x%08x reused while its call of frame %d is unanswered", r.XID, old.Call.Frame)
	}
	s.calls[rpcKey{r.Client, r.Server, r.XID}] = r
	s.add(a, r)
	s.open[r.ID] = r
	peer := s.peer(a, r.Client, r.Server, true)
	peer.outstanding++
	if peer.haveCredits && peer.outstanding > int(peer.credits) {
		a.note(p, NoteCreditsExceeded, "%d calls outstanding, %d credits granted", peer.outstanding, peer.credits)
	}
}

func newChunk(kind ChunkKind, i int, wc *rpcrdma.WriteChunk, keep bool) *Chunk {
	c := &Chunk{Kind: kind, Index: i, Segments: make([]*Segment, len(wc.Segments))}
	for j, sg := range wc.Segments {
		c.Segments[j] = &Segment{Segment: sg, keep: keep}
	}
	return c
}

// Chunks returns every chunk of r: Read chunks, Write chunks, Reply chunk.
func (r *RPC) Chunks() []*Chunk {
	cs := append(append([]*Chunk(nil), r.ReadChunks...), r.WriteChunks...)
	if r.ReplyChunk != nil {
		cs = append(cs, r.ReplyChunk)
	}
	return cs
}

// reply matches a reply (or RDMA_ERROR) with its call.
func (s *rpcState) reply(a *Analyzer, p *Packet, msg *RPCMessage) {
	h := &msg.Header
	client, server := p.Dst, p.Src
	r := s.calls[rpcKey{client, server, h.XID}]
	peer := s.peer(a, client, server, true)
	if r == nil || r.Reply != nil {
		kind := InfoMidStream
		if peer.fromStart {
			kind = NoteReplyNoCall
		}
		a.note(p, kind, "reply to XID 0x%08x, whose call is not in the capture", h.XID)
		r = &RPC{XID: h.XID, Client: client, Server: server, noFields: a.opt.SkipNFSFields}
		s.add(a, r)
	} else {
		peer.outstanding--
		s.forget(r)
	}
	r.Reply, msg.RPC = msg, r
	peer.credits, peer.haveCredits = h.Credit, true
	if h.Proc == rpcrdma.ProcError {
		a.note(p, NoteRPCError, "RDMA_ERROR %v for XID 0x%08x", h.Err, h.XID)
		r.ReplySummary = fmt.Sprintf("RDMA_ERROR %v", h.Err)
		return
	}
	if a.opt.DropRPCs {
		s.answered = append(s.answered, r)
	}
	r.summarizeZero() // the last look at a call whose chunk had a hole
	r.echo(h)
	b, err := r.rebuildReply(&s.bufs)
	r.rebuilt = RebuiltReply{N: len(b), Err: err, Some: b != nil, set: true}
	if err != nil && b == nil {
		r.ReplySummary = "RPC reply: " + err.Error()
		return
	}
	r.summarizeReply(b)
	if a.opt.DropChunkData && r.ReplyChunk != nil {
		// Summarised: nothing reads its bytes again (answered, it takes
		// no more WRITEs). An index kept them to its end (3 MB of READDIR
		// replies in a million frames).
		for _, sg := range r.ReplyChunk.Segments {
			sg.settle()
		}
	}
}

// RebuiltReply is the length and error of a rebuilt reply, and whether
// there was one.
type RebuiltReply struct {
	N         int
	Err       error
	Some, set bool
}

// ReplyRebuilt says what rebuilding the reply gives: as when it was
// summarised, else rebuilt now.
func (r *RPC) ReplyRebuilt(bufs *RebuildBufs) RebuiltReply {
	if r.rebuilt.set {
		return r.rebuilt
	}
	b, err := r.rebuildReply(bufs)
	return RebuiltReply{N: len(b), Err: err, Some: b != nil}
}

// echo records the lengths the reply says were written into each segment.
func (r *RPC) echo(h *rpcrdma.Header) {
	for i := range h.WriteList {
		if i < len(r.WriteChunks) {
			setWritten(r.WriteChunks[i], h.WriteList[i].Segments)
		}
	}
	if h.ReplyChunk != nil && r.ReplyChunk != nil {
		setWritten(r.ReplyChunk, h.ReplyChunk.Segments)
	}
}

func setWritten(c *Chunk, segs []rpcrdma.Segment) {
	for j, sg := range segs {
		if j < len(c.Segments) {
			c.Segments[j].Written, c.Segments[j].HasWritten = sg.Length, true
		}
	}
}

// release drops the bytes the RPCs answered by the previous packet kept
// (inline messages, chunk data), keeping what their packets and the
// --rpc table show: lengths, ranges, summaries.
func (s *rpcState) release() {
	for _, r := range s.answered {
		for _, m := range []*RPCMessage{r.Call, r.Reply} {
			if m != nil {
				m.Inline = nil
			}
		}
		for _, c := range r.Chunks() {
			for _, sg := range c.Segments {
				sg.settle()
			}
		}
	}
	clear(s.answered)
	s.answered = s.answered[:0]
}

// forget removes an answered call and its segments from the indexes: no
// reply, RDMA READ or WRITE may use them any more. Each rkey's list is
// walked once, however many of the call's segments share it.
func (s *rpcState) forget(r *RPC) {
	if k := (rpcKey{r.Client, r.Server, r.XID}); s.calls[k] == r {
		delete(s.calls, k)
	}
	delete(s.open, r.ID)
	cs := r.Chunks()
	var walked map[segKey]bool // rkeys whose list is done, when the call has several segments
	for _, c := range cs {
		for _, sg := range c.Segments {
			if st := (segStart{r.Client, sg.Handle, sg.Offset}); s.starts[st].rpc == r {
				delete(s.starts, st)
			}
			k := segKey{Owner: r.Client, RKey: sg.Handle}
			if walked[k] {
				continue
			}
			if len(cs) > 1 || len(c.Segments) > 1 {
				if walked == nil {
					walked = map[segKey]bool{}
				}
				walked[k] = true
			}
			refs := slices.DeleteFunc(s.segs[k], func(x segRef) bool { return x.rpc == r })
			if len(refs) == 0 {
				delete(s.segs, k)
			} else {
				s.segs[k] = refs
			}
		}
	}
}

func (s *rpcState) finish(a *Analyzer) {
	for _, r := range s.unanswered() {
		a.keepNote(Note{Frame: r.Call.Frame, Kind: NoteCallNoReply,
			Text: fmt.Sprintf("call XID 0x%08x (%s) has no reply in the capture", r.XID, r.CallSummary)})
	}
}
