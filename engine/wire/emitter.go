package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// DefaultEpoch is the wall-clock time of virtual time 0 unless Options
// say otherwise: a fixed instant, 2026-01-01 UTC, so that captures are
// reproducible.
func DefaultEpoch() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// maxPktPerAck is RXE_MAX_PKT_PER_ACK (rxe_param.h).
const maxPktPerAck = 64

const psnMask = 1<<24 - 1

// Frame is one Ethernet frame and when it crossed the link.
type Frame struct {
	Time time.Time
	Data []byte
}

// Options shape the frames. The timing fields should be the fabric's
// (sim.Fabric.Config) so that packets are spaced as the sim spent the time.
type Options struct {
	// Epoch is the wall-clock time of virtual time 0 (zero: DefaultEpoch).
	Epoch time.Time
	// Start is the virtual time the capture begins: the CM exchange of
	// Conns ends there (its RTU; the REQ and REP are one and two latencies
	// before), and no other frame is stamped before it.
	Start time.Duration
	// LinkRate (bits per second; <= 0: sim.DefaultLinkRate) spaces the
	// packets of a message; Latency (0: sim.DefaultLatency; negative:
	// none) separates a packet from its response.
	LinkRate int64
	Latency  time.Duration
	// RNRTimer is the min_rnr_timer the RNR NAKs advertise (0:
	// sim.DefaultRNRTimer), rounded up to IBTA's Table 45.
	RNRTimer time.Duration
	// Conns are the connections the capture begins with: Prelude emits
	// their CM exchange on QP1, and their packets take RDMA-CM's UDP
	// source port.
	Conns []Conn
}

// qpKey names a QP fabric-wide: sim QP numbers are unique, but a node name
// keeps the key right for any other source of Transfers.
type qpKey struct {
	node string
	qpn  uint32
}

// Emitter turns sim Transfers into frames. It keeps what the wire needs
// to remember between them (IP identifications, responder MSNs, the last
// timestamp), so one Emitter must see a capture's Transfers in execution
// order. It is not safe for concurrent use.
type Emitter struct {
	opts    Options
	latency time.Duration
	rate    int64
	rnrCode uint8
	nodes   map[string]*node
	ports   map[qpKey]uint16 // UDP source port of a QP's packets, from its connection
	msn     map[qpKey]uint32 // the last MSN a responder QP acknowledged with
	last    time.Duration    // the latest timestamp given: frames never go back in time
	prelude bool
	zeros   []byte
	pending []response
	buf     gopacket.SerializeBuffer
	eth     layers.Ethernet
	ip      layers.IPv4
	udp     layers.UDP
	bth     ib.BTH
	payload gopacket.Payload
	ls      []gopacket.SerializableLayer
}

// NewEmitter returns an Emitter with opts.
func NewEmitter(opts Options) *Emitter {
	if opts.Epoch.IsZero() {
		opts.Epoch = DefaultEpoch()
	}
	e := &Emitter{opts: opts, latency: opts.Latency, rate: opts.LinkRate,
		nodes: map[string]*node{}, ports: map[qpKey]uint16{}, msn: map[qpKey]uint32{},
		last: math.MinInt64, buf: gopacket.NewSerializeBufferExpectedSize(128, 4096)}
	switch {
	case e.latency == 0:
		e.latency = sim.DefaultLatency
	case e.latency < 0:
		e.latency = 0
	}
	if e.rate <= 0 {
		e.rate = sim.DefaultLinkRate
	}
	rnr := opts.RNRTimer
	if rnr == 0 {
		rnr = sim.DefaultRNRTimer
	}
	e.rnrCode = RNRTimerCode(rnr)
	for _, c := range opts.Conns {
		sport := flowLabelPort(c.flowLabel())
		e.ports[qpKey{c.Active, c.ActiveQPN}] = sport
		e.ports[qpKey{c.Passive, c.PassiveQPN}] = sport
	}
	return e
}

// Prelude returns the CM exchange (REQ, REP, RTU on QP1) of every
// connection in Options.Conns, ending at Options.Start. Call it before the
// first Frames; later calls return nothing.
func (e *Emitter) Prelude() []Frame {
	var out []Frame
	// The callback never fails, and the CM messages of valid Conns always
	// serialize: a Conn with too much private data gets no frames.
	_ = e.EmitPrelude(func(f Frame) error {
		out = append(out, Frame{Time: f.Time, Data: append([]byte(nil), f.Data...)})
		return nil
	})
	return out
}

// EmitPrelude is Prelude calling fn with each frame; f.Data is only valid
// during the call.
func (e *Emitter) EmitPrelude(fn func(f Frame) error) error {
	if e.prelude {
		return nil
	}
	e.prelude = true
	for _, c := range e.opts.Conns {
		if err := e.connect(c, fn); err != nil {
			return err
		}
	}
	return nil
}

// Frames returns the frames of one executed operation, in the order they
// crossed the link: the request packets with the responder's ACKs, RDMA
// READ responses or NAK among them. A Transfer with nothing on the wire
// gives none.
func (e *Emitter) Frames(t sim.Transfer) []Frame {
	var out []Frame
	// Serializing well-formed layers into a growing buffer cannot fail, and
	// the callback does not: there is no error to report.
	_ = e.Emit(t, func(f Frame) error {
		out = append(out, Frame{Time: f.Time, Data: append([]byte(nil), f.Data...)})
		return nil
	})
	return out
}

// Emit is Frames calling fn with each frame instead of collecting them;
// f.Data is only valid during the call. It stops at fn's first error.
func (e *Emitter) Emit(t sim.Transfer, fn func(f Frame) error) error {
	if !t.OnWire || t.PeerNode == "" || t.Flush {
		return nil
	}
	e.last = max(e.last, e.opts.Start)
	var err error
	switch t.Opcode {
	case verbs.WRRDMARead, verbs.WRRDMAReadWithInv:
		err = e.read(t, fn)
	case verbs.WRSend, verbs.WRSendWithImm, verbs.WRSendWithInv, verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm:
		err = e.message(t, fn)
	default: // atomics are not modelled; local operations never get here
		return nil
	}
	if err != nil {
		return fmt.Errorf("wire: %v: %w", t.Op, err)
	}
	return nil
}

// RNRTimerCode returns the RNR NAK timer code (IBTA Table 45) of the
// smallest delay at least d; code 0, 655.36 ms, stands for anything
// longer than 491.52 ms.
func RNRTimerCode(d time.Duration) uint8 {
	for c := uint8(1); c < 32; c++ {
		if rnrTimes[c] >= d {
			return c
		}
	}
	return 0
}

// rnrTimes is Table 45: the delay of each RNR timer code.
var rnrTimes = [32]time.Duration{
	655360 * time.Microsecond, 10 * time.Microsecond, 20 * time.Microsecond, 30 * time.Microsecond,
	40 * time.Microsecond, 60 * time.Microsecond, 80 * time.Microsecond, 120 * time.Microsecond,
	160 * time.Microsecond, 240 * time.Microsecond, 320 * time.Microsecond, 480 * time.Microsecond,
	640 * time.Microsecond, 960 * time.Microsecond, 1280 * time.Microsecond, 1920 * time.Microsecond,
	2560 * time.Microsecond, 3840 * time.Microsecond, 5120 * time.Microsecond, 7680 * time.Microsecond,
	10240 * time.Microsecond, 15360 * time.Microsecond, 20480 * time.Microsecond, 30720 * time.Microsecond,
	40960 * time.Microsecond, 61440 * time.Microsecond, 81920 * time.Microsecond, 122880 * time.Microsecond,
	163840 * time.Microsecond, 245760 * time.Microsecond, 327680 * time.Microsecond, 491520 * time.Microsecond,
}

func (e *Emitter) node(name string) *node {
	n := e.nodes[name]
	if n == nil {
		n = newNode(name)
		e.nodes[name] = n
	}
	return n
}

// sport is the UDP source port of QP qpn of node talking to QP peer.
func (e *Emitter) sport(name string, qpn, peer uint32) uint16 {
	if p, ok := e.ports[qpKey{name, qpn}]; ok {
		return p
	}
	return flowLabelPort(qpFlowLabel(qpn, peer))
}

// ser is the time n bytes take on the link, rounded up as the sim does.
func (e *Emitter) ser(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	bits := uint64(n) * 8
	return time.Duration((bits*uint64(time.Second) + uint64(e.rate) - 1) / uint64(e.rate))
}

// out stamps a frame and hands it to fn: at, but never before the frame
// before it, so that a capture reads in time order.
func (e *Emitter) out(at time.Duration, data []byte, fn func(Frame) error) error {
	e.last = max(e.last, at)
	return fn(Frame{Time: e.opts.Epoch.Add(e.last), Data: data})
}

// frame serializes Ethernet, IPv4, UDP, e.bth and inner from src to dst,
// with the IPv4 header checksum and the ICRC set. The result is valid until
// the next call.
func (e *Emitter) frame(src, dst *node, sport uint16, inner ...gopacket.SerializableLayer) ([]byte, error) {
	e.eth = layers.Ethernet{SrcMAC: src.mac, DstMAC: dst.mac, EthernetType: layers.EthernetTypeIPv4}
	e.ip = layers.IPv4{Version: 4, IHL: 5, Id: src.ipID, Flags: layers.IPv4DontFragment, TTL: 64,
		Protocol: layers.IPProtocolUDP, SrcIP: src.ip, DstIP: dst.ip}
	src.ipID++
	e.udp = layers.UDP{SrcPort: layers.UDPPort(sport), DstPort: ib.UDPPortRoCEv2}
	e.ls = append(e.ls[:0], &e.eth, &e.ip, &e.udp, &e.bth)
	e.ls = append(e.ls, inner...)
	// Checksums by hand: gopacket's UDP checksum would need the pseudo
	// header and RoCEv2 leaves it zero; the ICRC covers the finished IP
	// and UDP headers, so it comes last.
	if err := gopacket.SerializeLayers(e.buf, gopacket.SerializeOptions{FixLengths: true}, e.ls...); err != nil {
		return nil, err
	}
	data := e.buf.Bytes()
	ipHdr := data[14:34]
	binary.BigEndian.PutUint16(ipHdr[10:], ipv4Checksum(ipHdr))
	if err := ib.SetRoCEv2ICRC(data[14:]); err != nil {
		return nil, err
	}
	return data, nil
}

// ipv4Checksum is the header checksum of h (RFC 791), its checksum field
// counted as zero.
func ipv4Checksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		if i != 10 {
			sum += uint32(binary.BigEndian.Uint16(h[i:]))
		}
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}
