package analysis

import (
	"fmt"
	"slices"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Options say what an Analyzer keeps once the packets it learnt it from
// are gone. The zero value keeps everything; a streaming consumer (rdmalab
// decode --json) drops what it does not print, so that its memory stays
// bounded whatever the size of the capture.
type Options struct {
	// DropRPCs forgets an RPC once it is answered and no recent message
	// refers to it: RPCs lists only the calls still waiting for a reply.
	// From the packet after its reply on, an answered RPC keeps no bytes
	// (inline messages, chunk data): CallBytes and ReplyBytes no longer
	// rebuild it.
	DropRPCs bool
	// DropNotes keeps no list of notes: Notes returns nothing, and each
	// packet's Analysis.Notes are the only record of them.
	DropNotes bool
	// DropChunkData keeps which byte ranges RDMA READ responses and
	// WRITEs placed in a call's Read and Write chunks, not the bytes:
	// CallBytes and ReplyBytes then read zeros in their place. Chunks
	// that carry a whole RPC message are kept: a position-zero Read
	// chunk always, a Reply chunk until its reply is summarised.
	DropChunkData bool
	// SkipCRCs leaves every ICRC and VCRC unchecked (CRCUnknown, with
	// the wire's value), and so unnoted: for an output that shows
	// neither, like --rpc without --check.
	SkipCRCs bool
	// ForgetIdle drops the acknowledged messages a flow remembers once
	// neither it nor its peer has carried a packet for IdleFrames frames:
	// a connection that ended keeps next to nothing, so a capture of many
	// connections, one after another, streams in bounded memory. A
	// retransmission after so long is then not matched with its message.
	ForgetIdle bool
	// SkipNFSFields leaves each RPC's CallNFS and ReplyNFS nil: the
	// summaries are made, not the fields (every string a READDIR reply
	// carries), for an output that shows no NFS field and has no display
	// filter to test one.
	SkipNFSFields bool
	// SkipText leaves each note's Text empty and puts a fixed word in a
	// SEND's NotRPC ("not RPC-over-RDMA"), for an output that prints
	// neither (decode's lines): formatting them was a fifth of the CPU
	// on captures with many notes.
	SkipText bool
	// MaxExpand bounds how far a gzip capture may decompress
	// (pcapfile.Options.MaxExpand; 0: pcapfile's default).
	MaxExpand int64
}

// Analyzer is the transport analysis of one capture, fed packet by packet
// in capture order.
type Analyzer struct {
	opt   Options
	flows map[FlowKey]*Flow
	Flows []*Flow // in order of first packet
	// unpaired lists, by (source, destination), the flows whose peer is
	// not known yet: the candidates for inferring one.
	unpaired map[addrPair][]*Flow
	limited  bool     // maxFlows was reached
	recent   [2]*Flow // the flows of the last packets: traffic goes back and forth
	cm       cmState
	rpc      rpcState
	tcp      tcpState
	notes    []Note
	slab     slab
	swept    int // the frame of the last look for idle flows (Options.ForgetIdle)
}

// slab hands out the records the analysis makes for many packets (ACKs,
// messages) from arrays allocated a few dozen at a time: one allocation
// instead of one per packet. A record stays valid as long as it is
// referenced, like any other.
//
// But a record keeps its whole array alive, and with it what the other
// records point to: a message its RPC, the RPC its other messages, in
// older arrays, and so on back to the start. So with Options.ForgetIdle,
// which must let go of old messages, each message is its own allocation.
type slab struct {
	acks       []AckInfo
	msgs       []Message
	singleMsgs bool
}

const slabLen = 64

func (s *slab) ack() *AckInfo {
	if len(s.acks) == 0 {
		s.acks = make([]AckInfo, slabLen)
	}
	x := &s.acks[0]
	s.acks = s.acks[1:]
	return x
}

func (s *slab) msg() *Message {
	if s.singleMsgs {
		return new(Message)
	}
	if len(s.msgs) == 0 {
		s.msgs = make([]Message, slabLen)
	}
	x := &s.msgs[0]
	s.msgs = s.msgs[1:]
	return x
}

type addrPair struct{ Src, Dst frame.Addr }

// NewAnalyzer returns an empty analysis that keeps everything.
func NewAnalyzer() *Analyzer { return NewAnalyzerWith(Options{}) }

// NewAnalyzerWith returns an empty analysis that keeps what opt says.
func NewAnalyzerWith(opt Options) *Analyzer {
	return &Analyzer{
		opt:      opt,
		flows:    map[FlowKey]*Flow{},
		unpaired: map[addrPair][]*Flow{},
		cm:       newCMState(),
		rpc:      newRPCState(),
		slab:     slab{singleMsgs: opt.ForgetIdle},
	}
}

// Notes returns every note so far, in frame order.
func (a *Analyzer) Notes() []Note { return a.notes }

// RPCs returns the RPCs seen, in the order of their calls (replies without
// a call come in the order of the replies). With Options.DropRPCs it
// returns the calls still unanswered.
func (a *Analyzer) RPCs() []*RPC {
	if a.opt.DropRPCs {
		return a.rpc.unanswered()
	}
	return a.rpc.list
}

// Connections returns what CM messages set up.
func (a *Analyzer) Connections() []*CMConn { return a.cm.list }

// Packet analyses p and fills p.Analysis.
func (a *Analyzer) Packet(p *Packet) {
	p.Analysis.reset()
	if len(a.rpc.answered) > 0 {
		a.rpc.release()
	}
	if a.opt.ForgetIdle && p.Frame-a.swept >= IdleFrames {
		a.forgetIdle(p.Frame)
	}
	if p.Err != nil {
		a.note(p, NoteMalformed, "%s at offset %d: %s", p.Err.Layer, p.Err.Offset, p.Err.Msg)
	}
	if p.ICRC.State == frame.CRCBad {
		a.note(p, NoteBadICRC, "ICRC 0x%08x on the wire, 0x%08x computed", p.ICRC.Wire, p.ICRC.Computed)
	}
	if p.VCRC.State == frame.CRCBad {
		a.note(p, NoteBadVCRC, "VCRC 0x%04x on the wire, 0x%04x computed", p.VCRC.Wire, p.VCRC.Computed)
	}
	b := p.BTH
	if b == nil && p.TCP != nil {
		a.tcp.segment(p)
	}
	if b == nil || (p.Err != nil && p.Err.Layer == "BTH") {
		return
	}
	if p.CM != nil {
		a.cm.message(a, p)
		return
	}
	op := b.Opcode
	switch op.Transport() {
	case ib.TransportUD, ib.TransportCNP:
		return
	}
	if !op.Known() {
		return
	}
	f := a.flow(p)
	if f == nil {
		return
	}
	f.Packets++
	f.lastFrame = p.Frame
	p.Analysis.Flow = f
	if op.IsRequest() {
		a.request(p, f)
	} else {
		a.response(p, f)
	}
}

// IdleFrames is how many frames without a packet make a flow idle, for
// Options.ForgetIdle: far longer than any wait for an ACK or a reply.
const IdleFrames = 1 << 16

// forgetIdle drops the messages of the flows idle at frame now. Each look
// walks every flow, so it comes once every IdleFrames frames.
func (a *Analyzer) forgetIdle(now int) {
	a.swept = now
	for _, f := range a.Flows {
		if f.unacked == 0 || now-f.lastFrame < IdleFrames || f.Peer != nil && now-f.Peer.lastFrame < IdleFrames {
			continue
		}
		f.forget()
	}
}

// maxFlows bounds the flows analysed, against captures (or damage) that
// make every packet a new flow.
const maxFlows = 1 << 16

// flow returns the flow of p, creating it; nil past maxFlows.
func (a *Analyzer) flow(p *Packet) *Flow {
	k := FlowKey{Src: p.Src, Dst: p.Dst, QP: p.BTH.DestQP}
	if p.BTH.Headers&ib.HasRDETH != 0 {
		k.QP, k.EE = p.BTH.RDETH.EECnxt, true
	}
	for _, f := range a.recent {
		if f != nil && f.Key == k {
			return f
		}
	}
	if f, ok := a.flows[k]; ok {
		a.recent[1], a.recent[0] = a.recent[0], f
		return f
	}
	if len(a.Flows) >= maxFlows {
		if !a.limited {
			a.limited = true
			a.note(p, InfoLimit, "more than %d queue pair flows: the ones after this are not analysed", maxFlows)
		}
		return nil
	}
	f := &Flow{Key: k, ID: len(a.Flows) + 1, Transport: p.BTH.Opcode.Transport()}
	a.flows[k] = f
	a.Flows = append(a.Flows, f)
	if c := a.cm.connOf(k); c != nil {
		f.FromStart = true
		f.pmtu = c.PMTU
		if peer := a.flows[c.peerKey(k)]; peer != nil && peer.Peer == nil {
			a.pair(f, peer, false)
			return f
		}
	}
	// The only unpaired flow the other way is the peer.
	if back := a.unpaired[addrPair{k.Dst, k.Src}]; len(back) == 1 && !f.FromStart && !back[0].FromStart {
		a.pair(f, back[0], true)
		return f
	}
	ap := addrPair{k.Src, k.Dst}
	a.unpaired[ap] = append(a.unpaired[ap], f)
	return f
}

// pair makes f and g each other's peer.
func (a *Analyzer) pair(f, g *Flow, inferred bool) {
	f.Peer, g.Peer = g, f
	f.Inferred, g.Inferred = inferred, inferred
	for _, x := range []*Flow{f, g} {
		ap := addrPair{x.Key.Src, x.Key.Dst}
		if l := slices.DeleteFunc(a.unpaired[ap], func(y *Flow) bool { return y == x }); len(l) > 0 {
			a.unpaired[ap] = l
		} else {
			delete(a.unpaired, ap)
		}
	}
}

// Finish runs the end-of-capture checks: READs never answered, RPC calls
// never answered, messages never finished.
func (a *Analyzer) Finish() {
	for _, f := range a.Flows {
		for _, m := range f.reads {
			a.keepNote(Note{Frame: m.FirstFrame, Kind: NoteReadNoResponse,
				Text: fmt.Sprintf("RDMA READ of %d bytes at PSN %d on %v got %d of its response bytes",
					m.DMALen, m.FirstPSN, f.Key, m.RespBytes)})
		}
		for _, m := range f.atomics {
			a.keepNote(Note{Frame: m.FirstFrame, Kind: NoteAtomicNoResponse,
				Text: fmt.Sprintf("%s at PSN %d on %v got no ATOMIC Acknowledge", m.Opcode.Info(), m.FirstPSN, f.Key)})
		}
		if m := f.cur; m != nil {
			a.keepNote(Note{Frame: m.FirstFrame, Kind: InfoMidStream,
				Text: fmt.Sprintf("%s on %v: the capture ends before its last packet", m.Name(), f.Key)})
		}
	}
	a.rpc.finish(a)
	sortNotes(a.notes)
}

// note records an anomaly or unknown about p.
func (a *Analyzer) note(p *Packet, kind NoteKind, format string, args ...any) {
	n := Note{Frame: p.Frame, Kind: kind}
	if !a.opt.SkipText {
		n.Text = fmt.Sprintf(format, args...)
	}
	p.Analysis.Notes = append(p.Analysis.Notes, n)
	a.keepNote(n)
}

func (a *Analyzer) keepNote(n Note) {
	if !a.opt.DropNotes {
		a.notes = append(a.notes, n)
	}
}

// noteMid records what the capture cannot tell because f's traffic began
// before it.
func (a *Analyzer) noteMid(p *Packet, f *Flow, format string, args ...any) {
	kind := InfoMidStream
	if f.FromStart {
		kind = NoteIncompleteMessage
	}
	a.note(p, kind, format, args...)
}
