package decode

// Where a packet of an Index belongs in the RPC traffic, and the other
// packets of the same RPC or chunk: what a UI needs to link a packet to
// its RPC and back.

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
)

// Role is what a packet does for the RPC it belongs to.
type Role uint8

// Roles.
const (
	RoleNone  Role = iota // the packet belongs to no RPC
	RoleCall              // it carries (a part of) the call
	RoleReply             // it carries (a part of) the reply
	RoleChunk             // an RDMA READ request or response, or an RDMA WRITE, moving chunk data
	RoleAck               // an ACK of one of the above
)

var roleNames = [...]string{"", "call", "reply", "chunk", "ack"}

func (r Role) String() string { return roleNames[r] }

// Place is where a packet belongs. Packet numbers are indexes (frame-1).
type Place struct {
	Role  Role
	RPCID int // RPC.ID; 0 with RoleNone
	XID   uint32
	// What the call asked and the reply said ("V3 READ Call, ...").
	CallSummary, ReplySummary string
	// RoleChunk: the segment and where the packet's data lies in it.
	Chunk      analysis.ChunkKind
	ChunkIndex int
	Segment    int
	Offset     uint64
	Len        int
	Past       bool
	// The packets that complete the call and the reply; -1 when they
	// are not in the capture (or not indexed yet).
	Call, Reply int
	// The packets of the RPC, and (RoleChunk) of the same chunk, indexed
	// so far, and this packet's place among them (0-based).
	FramesInRPC, IndexInRPC     int
	FramesInChunk, IndexInChunk int
	Text                        string // the place in one line
}

// Scope selects the packets Related returns.
type Scope uint8

// Scopes.
const (
	ScopeRPC   Scope = iota // every packet of the RPC: call, chunk data, reply, their ACKs
	ScopeChunk              // the packets that moved the same chunk (all its segments)
)

// relCache keeps the last Related answer: moving through an RPC's packets
// asks for the same list again and again.
type relCache struct {
	rpc   *analysis.RPC
	kind  analysis.ChunkKind
	chunk int
	scope Scope
	n     int
	final bool // the scan ended past the RPC: later packets do not change it
	out   []int
}

// relWindow is how far past the last packet of an answered RPC related
// looks for more (its reply's ACK, a retransmission).
const relWindow = 4096

// belongs says which RPC frame i belongs to, how, and (chunk data) which
// chunk. It reads only what the index keeps.
func (x *Index) belongs(i int) (*analysis.RPC, Role, analysis.ChunkKind, int) {
	fr := x.rec(i)
	var m *analysis.Message
	var full *analysis.Analysis
	if fr.flags&recFull != 0 {
		full = x.fullOf(i)
		if r := full.RPC; r != nil && r.RPC != nil {
			if r.Call {
				return r.RPC, RoleCall, 0, 0
			}
			return r.RPC, RoleReply, 0, 0
		}
		if c := full.Chunk; c.RPC != nil {
			return c.RPC, RoleChunk, c.Kind, c.Chunk
		}
		m = full.Msg
	} else if fr.msg != 0 {
		m = x.msgs[fr.msg-1]
	}
	if m != nil {
		if c := m.Chunk; c != nil && c.RPC != nil {
			return c.RPC, RoleChunk, c.Kind, c.Chunk
		}
		if r := m.RPC; r != nil && r.RPC != nil {
			if r.Call {
				return r.RPC, RoleCall, 0, 0
			}
			return r.RPC, RoleReply, 0, 0
		}
	}
	switch {
	case full != nil && full.Ack != nil:
		for k := len(full.Ack.Acked) - 1; k >= 0; k-- {
			if r := ackedRPC(full.Ack.Acked[k]); r != nil {
				return r, RoleAck, 0, 0
			}
		}
	case fr.flags&recAck != 0:
		refs, _ := x.ackedOf(i)
		for k := len(refs) - 1; k >= 0; k-- {
			if r := ackedRPC(x.msgs[refs[k]-1]); r != nil {
				return r, RoleAck, 0, 0
			}
		}
	}
	return nil, RoleNone, 0, 0
}

// ackedRPC is the RPC an acknowledged message belongs to, if any.
func ackedRPC(m *analysis.Message) *analysis.RPC {
	if m.RPC != nil && m.RPC.RPC != nil {
		return m.RPC.RPC
	}
	if m.Chunk != nil && m.Chunk.RPC != nil {
		return m.Chunk.RPC
	}
	return nil
}

// Place says where packet i belongs.
func (x *Index) Place(i int) Place {
	x.lock()
	defer x.mu.Unlock()
	pl := Place{Call: -1, Reply: -1}
	if i < 0 || i >= x.n {
		return pl
	}
	r, role, kind, chunk := x.belongs(i)
	if r == nil {
		return pl
	}
	pl.Role, pl.RPCID, pl.XID = role, r.ID, r.XID
	pl.CallSummary, pl.ReplySummary = r.CallSummary, r.ReplySummary
	if r.Call != nil && r.Call.Frame <= x.n {
		pl.Call = r.Call.Frame - 1
	}
	if r.Reply != nil && r.Reply.Frame <= x.n {
		pl.Reply = r.Reply.Frame - 1
	}
	if role == RoleChunk {
		pl.Chunk, pl.ChunkIndex = kind, chunk
		// The chunk's length may be the payload's: read the packet.
		var c analysis.ChunkRef
		if p, err := x.load(i); err == nil {
			c = p.Analysis.Chunk
		}
		if c.RPC == r {
			pl.Segment, pl.Offset, pl.Len, pl.Past = c.Segment, c.Offset, c.Len, c.Past
		} else if m := x.msgOf(i); m != nil && m.Chunk != nil {
			pl.Segment, pl.Offset = m.Chunk.Segment, m.Chunk.Offset
		}
		chunkFrames := x.related(r, ScopeChunk, kind, chunk)
		pl.FramesInChunk, pl.IndexInChunk = len(chunkFrames), indexOf(chunkFrames, i)
	}
	rpcFrames := x.related(r, ScopeRPC, 0, 0)
	pl.FramesInRPC, pl.IndexInRPC = len(rpcFrames), indexOf(rpcFrames, i)
	pl.Text = pl.text()
	return pl
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// text is the one-line description of the place.
func (pl *Place) text() string {
	var sb strings.Builder
	switch pl.Role {
	case RoleCall:
		fmt.Fprintf(&sb, "call of XID 0x%08x", pl.XID)
	case RoleReply:
		fmt.Fprintf(&sb, "reply of XID 0x%08x", pl.XID)
	case RoleChunk:
		fmt.Fprintf(&sb, "%s chunk %d segment %d +%d", pl.Chunk, pl.ChunkIndex, pl.Segment, pl.Offset)
		if pl.Len > 0 {
			fmt.Fprintf(&sb, " (%d bytes)", pl.Len)
		}
		if pl.Past {
			sb.WriteString(" past its end")
		}
		fmt.Fprintf(&sb, " of XID 0x%08x", pl.XID)
	case RoleAck:
		fmt.Fprintf(&sb, "ACK for XID 0x%08x", pl.XID)
	}
	switch {
	case pl.Role == RoleReply && pl.ReplySummary != "":
		fmt.Fprintf(&sb, ": %s", pl.ReplySummary)
	case pl.CallSummary != "":
		fmt.Fprintf(&sb, ": %s", pl.CallSummary)
	}
	if pl.Call >= 0 {
		fmt.Fprintf(&sb, " · call %d", pl.Call+1)
	} else {
		sb.WriteString(" · call not in the capture")
	}
	if pl.Reply >= 0 {
		fmt.Fprintf(&sb, " · reply %d", pl.Reply+1)
	} else {
		sb.WriteString(" · no reply yet")
	}
	return sb.String()
}

// Related lists the packets (indexes, in order) that belong to the same
// RPC as packet i (ScopeRPC), or that moved the same chunk (ScopeChunk);
// nil when it belongs to none.
func (x *Index) Related(i int, scope Scope) []int {
	x.lock()
	defer x.mu.Unlock()
	if i < 0 || i >= x.n {
		return nil
	}
	r, role, kind, chunk := x.belongs(i)
	if r == nil || scope == ScopeChunk && role != RoleChunk {
		return nil
	}
	return x.related(r, scope, kind, chunk)
}

// related scans the frames indexed for those of r (and of one chunk of
// it). The caller holds mu; the result is shared with the cache.
func (x *Index) related(r *analysis.RPC, scope Scope, kind analysis.ChunkKind, chunk int) []int {
	if scope == ScopeRPC {
		kind, chunk = 0, 0
	}
	c := &x.rel[scope]
	if c.rpc == r && c.scope == scope && c.kind == kind && c.chunk == chunk && (c.n == x.n || c.final) {
		return c.out
	}
	var out []int
	// An RPC's packets lie between its call and the ACK of its reply:
	// start at the call, and stop once well past the reply.
	from, final := 0, false
	if r.Call != nil {
		from = max(r.Call.FirstFrame-1, 0)
	}
	last := from
	for i := from; i < x.n; i++ {
		if r.Reply != nil && i >= r.Reply.Frame && i-last > relWindow {
			final = true
			break
		}
		if fr := x.rec(i); fr.msg == 0 && fr.flags&(recFull|recAck) == 0 {
			continue
		}
		rr, role, k, ch := x.belongs(i)
		if rr != r || scope == ScopeChunk && (role != RoleChunk || k != kind || ch != chunk) {
			continue
		}
		out, last = append(out, i), i
	}
	*c = relCache{rpc: r, kind: kind, chunk: chunk, scope: scope, n: x.n, final: final, out: out}
	return out
}
