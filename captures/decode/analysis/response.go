package analysis

import (
	"github.com/rdmalab/rdmalab/proto/ib"
)

// response analyses a packet a responder sends for its peer's requests:
// an Acknowledge, an ATOMIC Acknowledge or an RDMA READ response. r is
// the flow it travels on; the requests it answers went on r.Peer.
func (a *Analyzer) response(p *Packet, r *Flow) {
	b := p.BTH
	q := a.requestFlow(r, b.PSN)
	switch b.Opcode.Kind() {
	case ib.KindReadResponse:
		a.readResponse(p, r, q)
	case ib.KindAtomicAck:
		a.atomicResponse(p, q)
		a.ack(p, q, b.PSN, true)
	case ib.KindAck:
		a.ack(p, q, b.PSN, true)
	}
}

// atomicResponse pairs an ATOMIC Acknowledge with the CmpSwap or FetchAdd
// it answers: the request of q with the same PSN.
func (a *Analyzer) atomicResponse(p *Packet, q *Flow) {
	b := p.BTH
	var m *Message
	if q != nil {
		for i, x := range q.atomics {
			if x.FirstPSN == b.PSN {
				m = x
				q.atomics = append(q.atomics[:i], q.atomics[i+1:]...)
				break
			}
		}
		if m == nil {
			// Answered already: a repeated acknowledge (the requester
			// retried, or the capture holds it twice).
			if x := q.findMsg(b.PSN); x != nil && x.Kind == ib.KindAtomic && x.FirstPSN == b.PSN && x.RespDone {
				p.Analysis.Msg = x
				a.note(p, NotePSNDuplicate, "ATOMIC Acknowledge of PSN %d again (the first in frame %d)", b.PSN, x.RespFirstFrame)
				return
			}
		}
	}
	if m == nil {
		kind := NoteResponseNoRequest
		if q == nil || !q.FromStart {
			kind = InfoMidStream
		}
		a.note(p, kind, "ATOMIC Acknowledge PSN %d answers no atomic request in the capture", b.PSN)
		return
	}
	m.Orig = b.AtomicAckETH.OrigRemDt
	m.RespFirstFrame, m.RespLastFrame, m.RespPackets, m.RespBytes = p.Frame, p.Frame, 1, 8
	m.RespDone, m.Complete = true, true
	p.Analysis.Msg = m
}

// requestFlow returns the flow whose requests r's responses answer,
// pairing the two from the traffic when CM did not.
func (a *Analyzer) requestFlow(r *Flow, psn uint32) *Flow {
	if r.Peer != nil {
		return r.Peer
	}
	cands := a.unpaired[addrPair{r.Key.Dst, r.Key.Src}]
	var cand *Flow
	switch {
	case len(cands) == 1:
		cand = cands[0]
	case len(cands) > 1:
		for _, g := range cands[:min(len(cands), 64)] {
			if g != r && g.findMsg(psn) != nil {
				cand = g
				break
			}
		}
	}
	if cand != nil && cand != r {
		a.pair(r, cand, true)
	}
	return r.Peer
}

// ack turns an AETH into acknowledged messages of q. psn is the BTH PSN;
// final says whether the packet completes what it answers (an ACK, a READ
// response Last or Only) so that its own PSN is acknowledged and its MSN
// counts it.
func (a *Analyzer) ack(p *Packet, q *Flow, psn uint32, final bool) {
	aeth := p.BTH.AETH
	syn := aeth.Syndrome
	info := a.slab.ack()
	*info = AckInfo{Syndrome: syn, PSN: psn, MSN: aeth.MSN}
	info.Acked = info.acked[:0]
	p.Analysis.Ack = info
	upTo := psn
	if syn.IsNAK() || !final {
		upTo = psnAdd(psn, -1) // a NAK names the PSN in error: the ones before it are acknowledged
	}
	switch syn.Type() {
	case ib.AckTypeNAK:
		a.note(p, NoteNAK, "%v at PSN %d", syn, psn)
	case ib.AckTypeRNRNak:
		a.note(p, NoteRNRNAK, "%v at PSN %d: the responder had no receive buffer", syn, psn)
	}
	if q == nil {
		return
	}
	for q.unacked < len(q.Msgs) {
		m := q.Msgs[q.unacked]
		if m == q.cur || (m.Kind == ib.KindReadRequest || m.Kind == ib.KindAtomic) && !m.RespDone || !psnLE(m.LastPSN, upTo) {
			break // an unfinished message, or a READ or atomic before its response
		}
		m.AckFrame = p.Frame
		info.Acked = append(info.Acked, m)
		q.unacked++
	}
	if len(info.Acked) == 0 && q.haveAck && PSNDiff(psn, q.lastAck) <= 0 && !syn.IsNAK() {
		info.Old = true
		a.note(p, InfoOldAck, "ACK of PSN %d acknowledges nothing new (the last ACK was of PSN %d)", psn, q.lastAck)
	}
	if !q.haveAck || PSNDiff(upTo, q.lastAck) > 0 {
		q.lastAck, q.lastAckFrame, q.haveAck = upTo, p.Frame, true
	}
	if q.haveExpect && PSNDiff(upTo, psnAdd(q.expectHi, -1)) > 0 {
		a.note(p, InfoMidStream, "ACK of PSN %d, which the capture has not shown yet (reordered or missed)", upTo)
		return
	}
	if !final && !syn.IsNAK() {
		return // a READ response First: its MSN is not checked
	}
	count := uint32(q.Dropped + q.unacked)
	if !q.msnKnown {
		q.msnBase, q.msnKnown = (aeth.MSN-count)&psnMask, true
	}
	info.ExpectedMSN, info.MSNKnown = (q.msnBase+count)&psnMask, true
	if info.ExpectedMSN != aeth.MSN {
		kind := NoteMSNMismatch
		if q.gaps > 0 || !q.FromStart {
			kind = InfoMidStream
		}
		a.note(p, kind, "MSN %d, but %d messages were acknowledged (expected MSN %d)",
			aeth.MSN, count, info.ExpectedMSN)
		q.msnBase = (aeth.MSN - count) & psnMask // resynchronise
	}
}

// readResponse pairs an RDMA READ response with its request and places
// its data.
func (a *Analyzer) readResponse(p *Packet, r, q *Flow) {
	b := p.BTH
	pos := b.Opcode.Position()
	if pos == ib.PosFirst || pos == ib.PosMiddle {
		r.learnMTU(len(b.Payload))
	}
	var m *Message
	if q != nil {
		for _, rd := range q.reads {
			if PSNDiff(b.PSN, rd.FirstPSN) >= 0 && (PSNDiff(b.PSN, rd.LastPSN) <= 0 || !rd.RespDone && rd.LastPSN == rd.FirstPSN) {
				m = rd
				break
			}
		}
	}
	final := pos == ib.PosLast || pos == ib.PosOnly
	if m == nil {
		kind := NoteResponseNoRequest
		if q == nil || !q.FromStart {
			kind = InfoMidStream
		}
		a.note(p, kind, "RDMA READ response PSN %d answers no READ request in the capture", b.PSN)
	} else {
		a.readPacket(p, r, q, m, final)
	}
	if b.Headers&ib.HasAETH != 0 {
		a.ack(p, q, b.PSN, final)
	}
}

// readPacket places one READ response packet in its READ.
func (a *Analyzer) readPacket(p *Packet, r, q *Flow, m *Message, final bool) {
	b := p.BTH
	an := &p.Analysis
	an.Msg, an.MsgIndex = m, m.RespPackets
	want := psnAdd(m.FirstPSN, m.RespPackets)
	if b.PSN != want {
		a.note(p, NotePSNGap, "READ response PSN %d, expected %d", b.PSN, want)
	}
	off := m.RespBytes
	if mtu := r.mtu(); mtu > 0 {
		off = PSNDiff(b.PSN, m.FirstPSN) * mtu
	}
	if m.RespPackets == 0 {
		m.RespFirstFrame = p.Frame
	}
	m.RespPackets++
	m.RespBytes += len(b.Payload)
	m.RespLastFrame = p.Frame
	a.rpc.readData(a, p, m, off)
	if !final {
		return
	}
	m.RespDone, m.Complete, m.LastPSN = true, true, b.PSN
	if uint32(m.RespBytes) != m.DMALen {
		a.note(p, NoteReadShort, "RDMA READ of %d bytes (frame %d) answered with %d", m.DMALen, m.FirstFrame, m.RespBytes)
	}
	for i, rd := range q.reads {
		if rd == m {
			q.reads = append(q.reads[:i], q.reads[i+1:]...)
			break
		}
	}
	a.rpc.readDone(a, p, m)
}
