package analysis

import (
	"fmt"
	"slices"

	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// FlowKey identifies one direction of a queue pair's traffic: packets from
// Src to the queue pair QP at Dst. Reliable Datagram traffic runs on End-to-
// End contexts rather than queue pairs (IBTA 9.7.1): its flows are keyed by
// the EE context at Dst that the RDETH names (EE set, QP the EE context
// number), whose PSN sequence all its datagrams share whatever their QP.
type FlowKey struct {
	Src, Dst frame.Addr
	QP       uint32
	EE       bool // QP is an EE context number (RD)
}

func (k FlowKey) String() string { return string(k.AppendTo(nil)) }

// AppendTo appends the text of k to b: "192.0.2.1 → 192.0.2.2 QP 0x000011".
func (k FlowKey) AppendTo(b []byte) []byte {
	b = k.Src.AppendTo(b)
	b = k.Dst.AppendTo(append(b, " → "...))
	if k.EE {
		b = append(b, " EEC "...)
	} else {
		b = append(b, " QP "...)
	}
	return appendtext.Hex0x(b, uint64(k.QP), 6)
}

// Flow is one direction of a queue pair's traffic: every packet from Src
// to the QP DestQP at Dst. The requests of one requester travel on it (SENDs,
// RDMA WRITEs, READ requests, atomics) together with the responses that
// requester's node sends for its peer's requests (ACKs, READ responses);
// the two use different PSN spaces. Peer is the opposite direction of the
// same connection, when known.
type Flow struct {
	Key       FlowKey
	ID        int
	Peer      *Flow
	Transport ib.Transport
	FromStart bool // the capture saw the connection set up (CM) before this flow's traffic
	Inferred  bool // Peer was inferred from the traffic, not learnt from CM
	Packets   int

	// Requests sent on this flow: the most recent ones (at most
	// 2*keepMsgs; the dropped older ones are counted in Dropped).
	Msgs       []*Message
	Dropped    int
	expect     uint32 // the next request PSN expected
	expectHi   uint32 // after a READ of unknown packet count: any PSN in [expect, expectHi] is in order
	haveExpect bool
	cur        *Message   // the SEND or RDMA WRITE being received
	unacked    int        // index in Msgs of the first message not yet acknowledged
	reads      []*Message // READ requests waiting for their responses (at most keepMsgs)
	atomics    []*Message // atomics waiting for their ATOMIC Acknowledge (at most keepMsgs)
	lastRead   *Message   // the last READ request, while its PSN count is unknown
	sendBuf    []byte     // reused to reassemble multi-packet SENDs
	firstPSN   uint32     // the first request PSN seen
	holes      [][2]uint32
	last       psnSeen
	haveLast   bool
	gaps       int

	// What the peer's ACKs told about this flow's requests.
	msnBase      uint32
	msnKnown     bool
	lastAck      uint32
	lastAckFrame int
	haveAck      bool

	pmtu int // path MTU, learnt from full-sized packets or from CM

	lastFrame int // the frame of its last packet
}

type psnSeen struct {
	psn    uint32
	frame  int
	opcode ib.Opcode
	size   int
}

// mtu returns the path MTU of the connection, or 0 when unknown.
func (f *Flow) mtu() int {
	if f.pmtu != 0 {
		return f.pmtu
	}
	if f.Peer != nil {
		return f.Peer.pmtu
	}
	return 0
}

// learnMTU records the size of a full (FIRST or MIDDLE) packet.
func (f *Flow) learnMTU(n int) {
	if n > 0 && (f.pmtu == 0 || n > f.pmtu) {
		f.pmtu = n
	}
}

// readPackets returns how many response packets a READ of n bytes takes,
// or 0 if the MTU is unknown.
func (f *Flow) readPackets(n uint32) int {
	mtu := f.mtu()
	if mtu == 0 {
		return 0
	}
	return max(1, int((uint64(n)+uint64(mtu)-1)/uint64(mtu)))
}

// maxHoles bounds the PSN ranges a flow remembers as missing.
const maxHoles = 32

// checkPSN classifies the PSN of a request packet against the next new
// PSN the flow expects, and moves that on for new packets. An earlier PSN
// is a duplicate (the same packet again at once), a late packet (it falls
// in a range that was missing) or a retransmission (go back N).
func (f *Flow) checkPSN(p *Packet, psn uint32) PSNCheck {
	op := p.BTH.Opcode
	seen := psnSeen{psn: psn, frame: p.Frame, opcode: op, size: len(p.BTH.Payload)}
	last, haveLast := f.last, f.haveLast
	f.last, f.haveLast = seen, true
	if !f.haveExpect {
		f.firstPSN = psn
		f.advance(p, psn)
		return PSNCheck{Status: PSNOK, Expected: psn}
	}
	c := PSNCheck{Expected: f.expect}
	d := PSNDiff(psn, f.expect)
	switch {
	case d == 0 || (d > 0 && PSNDiff(psn, f.expectHi) <= 0):
		c.Status = PSNOK
		if r := f.lastRead; r != nil && d > 0 && r.LastPSN == r.FirstPSN && !r.RespDone {
			r.LastPSN = psnAdd(psn, -1) // the READ took the PSNs up to this one
		}
		f.advance(p, psn)
	case d > 0:
		c.Status, c.Missing = PSNGap, d
		f.gaps++
		if len(f.holes) == maxHoles {
			f.holes = append(f.holes[:0], f.holes[1:]...)
		}
		f.holes = append(f.holes, [2]uint32{f.expect, psn})
		f.advance(p, psn)
	case haveLast && last.psn == psn && last.opcode == op && last.size == seen.size:
		c.Status = PSNDuplicate
	case f.fillHole(psn):
		c.Status = PSNOutOfOrder
	default:
		c.Status = PSNRetransmission
	}
	return c
}

// fillHole reports whether psn was missing, and marks it seen.
func (f *Flow) fillHole(psn uint32) bool {
	for i, h := range f.holes {
		if PSNDiff(psn, h[0]) < 0 || PSNDiff(psn, h[1]) >= 0 {
			continue
		}
		switch {
		case psn == h[0]:
			f.holes[i][0] = psnAdd(psn, 1)
		case psnAdd(psn, 1) == h[1]:
			f.holes[i][1] = psn
		default: // split the hole
			f.holes[i][1] = psn
			f.holes = slices.Insert(f.holes, i+1, [2]uint32{psnAdd(psn, 1), h[1]})
			if len(f.holes) > maxHoles {
				f.holes = f.holes[1:]
			}
		}
		if f.holes[i][0] == f.holes[i][1] {
			f.holes = slices.Delete(f.holes, i, i+1)
		}
		return true
	}
	return false
}

// advance sets the PSN expected after the request packet p with PSN psn.
func (f *Flow) advance(p *Packet, psn uint32) {
	f.haveExpect = true
	f.lastRead = nil
	n := 1
	if p.BTH.Opcode.Kind() == ib.KindReadRequest {
		l := p.BTH.RETH.DMALen
		if n = f.readPackets(l); n == 0 {
			// Unknown MTU: between 4096-byte and 256-byte packets.
			lo := max(1, int((uint64(l)+4095)/4096))
			hi := max(1, int((uint64(l)+255)/256))
			f.expect, f.expectHi = psnAdd(psn, lo), psnAdd(psn, hi)
			return
		}
	}
	f.expect = psnAdd(psn, n)
	f.expectHi = f.expect
}

// findMsg returns the request message that used psn, searching from the
// most recent.
func (f *Flow) findMsg(psn uint32) *Message {
	for i := len(f.Msgs) - 1; i >= 0 && i >= len(f.Msgs)-256; i-- {
		if f.Msgs[i].contains(psn) {
			return f.Msgs[i]
		}
	}
	return nil
}

// forget drops the messages f remembers that are acknowledged, as
// dropping old ones does: they stay counted (Seq, the MSN check). Those
// still waiting for an ACK stay.
func (f *Flow) forget() {
	n := f.unacked
	f.Dropped += n
	rest := copy(f.Msgs, f.Msgs[n:])
	clear(f.Msgs[rest:])
	f.Msgs, f.unacked = f.Msgs[:rest], 0
	if f.cur == nil {
		f.sendBuf = nil
	}
}

// keepMsgs bounds the messages a flow remembers: a long capture keeps the
// recent ones (ACKs and retransmissions only look back that far).
const keepMsgs = 4096

func (f *Flow) newMessage(p *Packet, kind ib.Kind, s *slab) *Message {
	if len(f.Msgs) >= 2*keepMsgs {
		n := len(f.Msgs) - keepMsgs
		copy(f.Msgs, f.Msgs[n:])
		clear(f.Msgs[keepMsgs:])
		f.Msgs = f.Msgs[:keepMsgs]
		f.Dropped += n
		f.unacked = max(0, f.unacked-n)
	}
	m := s.msg()
	*m = Message{Flow: f, Seq: f.Dropped + len(f.Msgs) + 1, Kind: kind, Opcode: p.BTH.Opcode,
		FirstPSN: p.BTH.PSN, LastPSN: p.BTH.PSN, FirstFrame: p.Frame, LastFrame: p.Frame}
	f.Msgs = append(f.Msgs, m)
	return m
}

// request analyses a request packet on f.
func (a *Analyzer) request(p *Packet, f *Flow) {
	b := p.BTH
	an := &p.Analysis
	if b.Opcode.Kind() == ib.KindResync {
		// RD RESYNC: the requester's EE context starts its PSNs again
		// from this one; whatever was expected before is moot.
		f.haveExpect, f.holes = false, f.holes[:0]
	}
	an.PSN = f.checkPSN(p, b.PSN)
	switch an.PSN.Status {
	case PSNDuplicate, PSNRetransmission, PSNOutOfOrder:
		a.note(p, psnNoteKind(an.PSN.Status), "PSN %d (0x%06x), expected %d", b.PSN, b.PSN, an.PSN.Expected)
		// A resent packet is the same packet of the same message: its
		// place is its PSN's distance from the message's first.
		if an.Msg = f.findMsg(b.PSN); an.Msg != nil {
			an.MsgIndex = PSNDiff(b.PSN, an.Msg.FirstPSN)
			a.rpc.resent(p, an.Msg)
		}
		return
	case PSNGap:
		a.note(p, NotePSNGap, "PSN %d, expected %d: %d packet(s) missing on %v", b.PSN, an.PSN.Expected, an.PSN.Missing, f.Key)
		if f.cur != nil {
			f.cur.Partial = true
		}
	}
	kind := b.Opcode.Kind()
	switch kind {
	case ib.KindSend, ib.KindWrite:
		a.dataPacket(p, f, kind)
	case ib.KindReadRequest:
		m := f.newMessage(p, kind, &a.slab)
		m.VA, m.RKey, m.DMALen, m.Len = b.RETH.VA, b.RETH.RKey, b.RETH.DMALen, int(b.RETH.DMALen)
		m.Packets = 1
		if n := f.readPackets(m.DMALen); n > 0 {
			m.LastPSN = psnAdd(m.FirstPSN, n-1)
		}
		if len(f.reads) == keepMsgs {
			// Thousands of READs unanswered: give up on the oldest.
			old := f.reads[0]
			a.keepNote(Note{Frame: old.FirstFrame, Kind: NoteReadNoResponse,
				Text: fmt.Sprintf("RDMA READ of %d bytes at PSN %d on %v got %d of its response bytes before %d later READs",
					old.DMALen, old.FirstPSN, f.Key, old.RespBytes, keepMsgs)})
			f.reads = append(f.reads[:0], f.reads[1:]...)
		}
		f.reads = append(f.reads, m)
		if m.LastPSN == m.FirstPSN && m.DMALen > 0 && f.readPackets(m.DMALen) == 0 {
			f.lastRead = m
		}
		an.Msg = m
		a.rpc.readRequest(a, p, m)
	case ib.KindAtomic:
		// Answered by an ATOMIC Acknowledge with the same PSN, which
		// carries the value the responder found.
		m := f.newMessage(p, kind, &a.slab)
		e := &b.AtomicETH
		m.Packets, m.Len, m.DMALen = 1, 8, 8
		m.VA, m.RKey, m.SwapAdd, m.Compare = e.VA, e.RKey, e.SwapDt, e.CmpDt
		if len(f.atomics) == keepMsgs {
			old := f.atomics[0]
			a.keepNote(Note{Frame: old.FirstFrame, Kind: NoteAtomicNoResponse,
				Text: fmt.Sprintf("%s at PSN %d on %v got no ATOMIC Acknowledge before %d later atomics",
					old.Opcode.Info(), old.FirstPSN, f.Key, keepMsgs)})
			f.atomics = append(f.atomics[:0], f.atomics[1:]...)
		}
		f.atomics = append(f.atomics, m)
		an.Msg = m
	default: // FLUSH, ATOMIC WRITE, RESYNC: one packet, one message
		m := f.newMessage(p, kind, &a.slab)
		m.Packets, m.Complete, m.Len = 1, true, len(b.Payload)
		an.Msg = m
		f.ackedEarly(m)
	}
}

func psnNoteKind(s PSNStatus) NoteKind {
	switch s {
	case PSNDuplicate:
		return NotePSNDuplicate
	case PSNRetransmission:
		return NotePSNRetransmission
	}
	return NotePSNOutOfOrder
}

// dataPacket reassembles SEND and RDMA WRITE messages.
func (a *Analyzer) dataPacket(p *Packet, f *Flow, kind ib.Kind) {
	b := p.BTH
	an := &p.Analysis
	pos := b.Opcode.Position()
	m := f.cur
	if m != nil && (pos == ib.PosFirst || pos == ib.PosOnly || m.Kind != kind) {
		a.note(p, NoteIncompleteMessage, "%s from frame %d never got its last packet", m.Name(), m.FirstFrame)
		m.Partial, m.Data = true, nil
		f.cur, m = nil, nil
	}
	if m == nil {
		m = f.newMessage(p, kind, &a.slab)
		if pos == ib.PosMiddle || pos == ib.PosLast {
			m.Partial = true
			a.noteMid(p, f, "%s %s without its first packet: the capture starts inside it", kind, pos)
		}
		if b.Headers&ib.HasRETH != 0 {
			m.VA, m.RKey, m.DMALen = b.RETH.VA, b.RETH.RKey, b.RETH.DMALen
		}
	}
	an.Msg, an.MsgIndex = m, m.Packets
	m.Packets++
	m.LastPSN, m.LastFrame = b.PSN, p.Frame
	if pos == ib.PosFirst || pos == ib.PosMiddle {
		f.learnMTU(len(b.Payload))
	}
	if b.Headers&ib.HasImmDt != 0 {
		m.Imm, m.HasImm = b.ImmDt.Data, true
	}
	if b.Headers&ib.HasIETH != 0 {
		m.IETH, m.HasInv = b.IETH.RKey, true
	}
	switch {
	case kind != ib.KindSend:
	case pos == ib.PosOnly:
		m.Data = b.Payload // used before the next packet: no copy
	case len(m.Data)+len(b.Payload) <= MaxSendData:
		if m.Data == nil {
			m.Data = f.sendBuf[:0]
		}
		m.Data = append(m.Data, b.Payload...)
	}
	if kind == ib.KindWrite {
		a.rpc.writePacket(a, p, m, m.Len)
	}
	m.Len += len(b.Payload)
	if pos == ib.PosLast || pos == ib.PosOnly {
		f.cur = nil
		m.Complete = !m.Partial
		f.ackedEarly(m)
		if kind == ib.KindSend {
			if pos == ib.PosLast && cap(m.Data) <= maxSendBuf {
				f.sendBuf = m.Data[:0]
			}
			a.sendDone(p, m)
		}
		return
	}
	f.cur = m
}

// ackedEarly marks m acknowledged when an ACK the capture showed before it
// already covered it (the capture reordered the two, or missed packets).
func (f *Flow) ackedEarly(m *Message) {
	if f.haveAck && f.unacked == len(f.Msgs)-1 && f.Msgs[f.unacked] == m && psnLE(m.LastPSN, f.lastAck) {
		m.AckFrame = f.lastAckFrame
		f.unacked++
	}
}
