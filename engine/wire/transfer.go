package wire

import (
	"time"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// AETH syndromes (IBTA Table 44): an ACK without a credit count (rxe's
// AETH_ACK_UNLIMITED), an RNR NAK, a NAK.
const (
	synACK    = ib.Syndrome(ib.CreditsInvalid)
	synRNRNAK = ib.Syndrome(1 << 5)
	synNAK    = ib.Syndrome(3 << 5)
)

// response is an ACK or NAK the responder sends at a given time.
type response struct {
	at  time.Duration
	psn uint32
	syn ib.Syndrome
	msn uint32
}

// link is one direction of a transfer: who sends, to which QP, from which
// UDP port.
type link struct {
	src, dst *node
	sport    uint16
	destQP   uint32
}

func (e *Emitter) links(t sim.Transfer) (req, resp link) {
	a, b := e.node(t.Node), e.node(t.PeerNode)
	req = link{src: a, dst: b, sport: e.sport(t.Node, t.QPNum, t.PeerQPNum), destQP: t.PeerQPNum}
	resp = link{src: b, dst: a, sport: e.sport(t.PeerNode, t.PeerQPNum, t.QPNum), destQP: t.QPNum}
	return req, resp
}

// msnBefore is the responder's MSN before t: what an ACK in the middle of
// its message, or a NAK of it, carries.
func (e *Emitter) msnBefore(t sim.Transfer) uint32 {
	k := qpKey{t.PeerNode, t.PeerQPNum}
	if t.Response == sim.ACK {
		e.msn[k] = t.MSN
		return (t.MSN - 1) & psnMask
	}
	if m, ok := e.msn[k]; ok {
		return m
	}
	// The sim gives a NAK the responder's MSN, except for an injected RNR
	// NAK; before any ACK the capture cannot tell better.
	return t.MSN
}

// nakOf returns the syndrome of a negative answer and the index of the
// packet it names, or ok false for an ACK or no answer.
func (e *Emitter) nakOf(t sim.Transfer, n int) (syn ib.Syndrome, at int, ok bool) {
	switch t.Response {
	case sim.RNRNAK:
		// The receive is needed by a SEND's first packet, by a WRITE with
		// immediate's last (rxe's check_resource).
		if t.Opcode == verbs.WRRDMAWriteWithImm {
			return synRNRNAK | ib.Syndrome(e.rnrCode), n - 1, true
		}
		return synRNRNAK | ib.Syndrome(e.rnrCode), 0, true
	case sim.NAKRemoteAccess:
		return synNAK | ib.Syndrome(ib.NakRemoteAccessError), 0, true
	case sim.NAKRemoteOp:
		return synNAK | ib.Syndrome(ib.NakRemoteOperationalErr), 0, true
	case sim.NAKInvalidRequest:
		return synNAK | ib.Syndrome(ib.NakInvalidRequest), n - 1, true
	}
	return 0, 0, false
}

func pathMTU(t sim.Transfer) int {
	if t.PathMTU <= 0 {
		return 1024
	}
	return t.PathMTU
}

// packets is how many packets a message of n bytes takes at mtu.
func packets(n, mtu int) int { return max(1, (n+mtu-1)/mtu) }

// chunk returns the payload of the packet at byte offset off: the
// Transfer's bytes, zero-filled past what it carries.
func (e *Emitter) chunk(t sim.Transfer, off, n int) []byte {
	if off+n <= len(t.Payload) {
		return t.Payload[off : off+n]
	}
	if len(e.zeros) < n {
		e.zeros = make([]byte, n)
	}
	b := e.zeros[:n]
	clear(b)
	if off < len(t.Payload) {
		copy(b, t.Payload[off:])
	}
	return b
}

// message emits a SEND or RDMA WRITE and the responder's answers.
//
// Timing: the message started leaving at Due minus its cost (the sim's
// cost: serialization plus one latency), so its last bit lands at Due.
// Packet i leaves when the bytes before it are out; the responder answers
// a packet when it has landed.
func (e *Emitter) message(t sim.Transfer, fn func(Frame) error) error {
	mtu := pathMTU(t)
	n := packets(t.Bytes, mtu)
	start := t.Due - e.ser(t.Bytes) - e.latency
	req, resp := e.links(t)
	before := e.msnBefore(t)
	nakSyn, nakAt, nak := e.nakOf(t, n)
	answered := t.Response != sim.NoResponse
	e.pending = e.pending[:0]
	noack := 0
	for i := 0; i < n; i++ {
		off := i * mtu
		size := min(mtu, t.Bytes-off)
		at := start + e.ser(off)
		if err := e.flushResponses(at, resp, fn); err != nil {
			return err
		}
		last := i == n-1
		b := &e.bth
		*b = ib.BTH{Opcode: dataOpcode(t.Opcode, i, n), PKey: 0xffff, DestQP: req.destQP,
			PSN: (t.PSN.First + uint32(i)) & psnMask}
		// rxe_req.c: AckReq on the last packet, and after more than
		// RXE_MAX_PKT_PER_ACK packets without one.
		switch {
		case last:
			b.A = true
		case noack > maxPktPerAck:
			b.A, noack = true, 0
		default:
			noack++
		}
		if i == 0 && isWrite(t.Opcode) {
			b.RETH = ib.RETH{VA: t.RemoteAddr, RKey: t.RKey, DMALen: uint32(t.Bytes)}
		}
		if last {
			b.ImmDt.Data = t.ImmData
			b.IETH.RKey = t.InvalidateRKey
		}
		e.payload = e.chunk(t, off, size)
		data, err := e.frame(req.src, req.dst, req.sport, &e.payload)
		if err != nil {
			return err
		}
		if err := e.out(at, data, fn); err != nil {
			return err
		}
		landed := start + e.ser(off+size) + e.latency
		switch {
		case !answered || (nak && i > nakAt):
			// The responder said nothing, or stopped at its NAK.
		case nak && i == nakAt:
			e.pending = append(e.pending, response{at: landed, psn: b.PSN, syn: nakSyn, msn: before})
		case b.A && last && !nak:
			e.pending = append(e.pending, response{at: landed, psn: b.PSN, syn: synACK, msn: t.MSN})
		case b.A:
			e.pending = append(e.pending, response{at: landed, psn: b.PSN, syn: synACK, msn: before})
		}
	}
	return e.flushResponses(-1, resp, fn)
}

// flushResponses emits the pending responses due by at (all for at < 0).
func (e *Emitter) flushResponses(at time.Duration, l link, fn func(Frame) error) error {
	k := 0
	for ; k < len(e.pending) && (at < 0 || e.pending[k].at <= at); k++ {
		r := e.pending[k]
		b := &e.bth
		*b = ib.BTH{Opcode: ib.OpcodeRCAcknowledge, PKey: 0xffff, DestQP: l.destQP, PSN: r.psn}
		b.AETH = ib.AETH{Syndrome: r.syn, MSN: r.msn & psnMask}
		e.payload = nil
		data, err := e.frame(l.src, l.dst, l.sport, &e.payload)
		if err != nil {
			return err
		}
		if err := e.out(r.at, data, fn); err != nil {
			return err
		}
	}
	e.pending = append(e.pending[:0], e.pending[k:]...)
	return nil
}

// read emits an RDMA READ request and its responses (or its NAK).
//
// Timing: the sim's cost of a READ is its serialization plus two
// latencies; the request leaves at Due minus that, the responses leave one
// latency later, back to back, and the last lands at Due.
func (e *Emitter) read(t sim.Transfer, fn func(Frame) error) error {
	start := t.Due - e.ser(t.Bytes) - 2*e.latency
	req, resp := e.links(t)
	before := e.msnBefore(t)
	b := &e.bth
	*b = ib.BTH{Opcode: ib.OpcodeRCReadRequest, PKey: 0xffff, DestQP: req.destQP, A: true, PSN: t.PSN.First & psnMask}
	b.RETH = ib.RETH{VA: t.RemoteAddr, RKey: t.RKey, DMALen: uint32(t.Bytes)}
	e.payload = nil
	data, err := e.frame(req.src, req.dst, req.sport, &e.payload)
	if err != nil {
		return err
	}
	if err := e.out(start, data, fn); err != nil {
		return err
	}
	respAt := start + e.latency
	if syn, _, ok := e.nakOf(t, 1); ok {
		e.pending = append(e.pending[:0], response{at: respAt, psn: b.PSN, syn: syn, msn: before})
		return e.flushResponses(-1, resp, fn)
	}
	if t.Response != sim.ACK {
		return nil
	}
	mtu := pathMTU(t)
	n := t.RespPSN.Count
	if n <= 0 {
		n = packets(t.Bytes, mtu)
	}
	first := t.RespPSN.First
	if t.RespPSN.Count <= 0 {
		first = t.PSN.First
	}
	for i := 0; i < n; i++ {
		off := i * mtu
		size := max(0, min(mtu, t.Bytes-off))
		*b = ib.BTH{Opcode: readResponseOpcode(i, n), PKey: 0xffff, DestQP: resp.destQP,
			PSN: (first + uint32(i)) & psnMask}
		b.AETH = ib.AETH{Syndrome: synACK, MSN: t.MSN & psnMask}
		e.payload = e.chunk(t, off, size)
		data, err := e.frame(resp.src, resp.dst, resp.sport, &e.payload)
		if err != nil {
			return err
		}
		if err := e.out(respAt+e.ser(off), data, fn); err != nil {
			return err
		}
	}
	return nil
}

func isWrite(o verbs.WROpcode) bool {
	return o == verbs.WRRDMAWrite || o == verbs.WRRDMAWriteWithImm
}

// dataOpcode is the RC opcode of packet i of an n-packet SEND or WRITE.
func dataOpcode(o verbs.WROpcode, i, n int) ib.Opcode {
	first, last := i == 0, i == n-1
	type ops struct{ only, first, middle, last ib.Opcode }
	var x ops
	switch o {
	case verbs.WRSend:
		x = ops{ib.OpcodeRCSendOnly, ib.OpcodeRCSendFirst, ib.OpcodeRCSendMiddle, ib.OpcodeRCSendLast}
	case verbs.WRSendWithImm:
		x = ops{ib.OpcodeRCSendOnlyImm, ib.OpcodeRCSendFirst, ib.OpcodeRCSendMiddle, ib.OpcodeRCSendLastImm}
	case verbs.WRSendWithInv:
		x = ops{ib.OpcodeRCSendOnlyInv, ib.OpcodeRCSendFirst, ib.OpcodeRCSendMiddle, ib.OpcodeRCSendLastInv}
	case verbs.WRRDMAWrite:
		x = ops{ib.OpcodeRCWriteOnly, ib.OpcodeRCWriteFirst, ib.OpcodeRCWriteMiddle, ib.OpcodeRCWriteLast}
	default: // WRRDMAWriteWithImm
		x = ops{ib.OpcodeRCWriteOnlyImm, ib.OpcodeRCWriteFirst, ib.OpcodeRCWriteMiddle, ib.OpcodeRCWriteLastImm}
	}
	switch {
	case first && last:
		return x.only
	case first:
		return x.first
	case last:
		return x.last
	}
	return x.middle
}

func readResponseOpcode(i, n int) ib.Opcode {
	switch {
	case n == 1:
		return ib.OpcodeRCReadResponseOnly
	case i == 0:
		return ib.OpcodeRCReadResponseFirst
	case i == n-1:
		return ib.OpcodeRCReadResponseLast
	}
	return ib.OpcodeRCReadResponseMid
}
