package engine

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/wire"
)

// captureState is what the Lab does with the transfers the fabric taps:
// keep them (Transfers, WriteCapture) and stream them (StartCapture).
type captureState struct {
	keep    bool // SetCapture
	paused  bool // keep was off at some point: the kept transfers have a hole
	dropped int  // transfers the bounds pushed out of Transfers
	stream  *wire.PcapWriter
	err     error // the stream's first error, reported by StopCapture
}

// virtualWire is the capability of a provider with a wire of its own
// (sim.Provider): it hands every executed operation to a tap as it crossed
// the link, and says the link's timing and each QP's connection, which a
// capture needs to draw the frames. Its vocabulary is the sim's Transfer,
// not libibverbs', so it is declared here, where it is used, rather than
// in engine/verbs. A real device has none: its traffic is captured where
// it runs.
type virtualWire interface {
	SetTap(sim.Tap)
	SetPayloadAlloc(alloc func(n int) []byte)
	Config() sim.Config
	QPInfo(qpn uint32) (sim.QPInfo, bool)
}

// wire is the provider's virtual wire, if it has one.
func (l *Lab) wire() (virtualWire, bool) {
	w, ok := l.Provider.(virtualWire)
	return w, ok
}

// tap is the fabric's tap while either is wanted.
func (l *Lab) tap(t sim.Transfer) {
	if l.capture.keep {
		l.keepTransfer(t)
	}
	if s := l.capture.stream; s != nil && l.capture.err == nil {
		l.capture.err = s.Write(t)
	}
}

// setTap installs the tap when something wants the transfers and removes
// it otherwise, so the fabric copies no payload nobody reads.
func (l *Lab) setTap() {
	if !l.capture.keep {
		l.capture.paused = true
	}
	w, ok := l.wire()
	if !ok {
		return
	}
	if l.capture.keep || l.capture.stream != nil {
		w.SetTap(l.tap)
	} else {
		w.SetTap(nil)
	}
	// Kept payloads are cut from reused chunks; streamed ones are written
	// at once and let go.
	if l.capture.keep {
		w.SetPayloadAlloc(l.payloads.alloc)
	} else {
		w.SetPayloadAlloc(nil)
	}
}

// CaptureDropped is how many transfers the bounds on Transfers (100 000
// operations, 64 MiB of payload) pushed out: WriteCapture cannot write
// them. Use StartCapture to keep everything.
func (l *Lab) CaptureDropped() int { return l.capture.dropped }

// WriteCapture writes every transfer kept (Transfers) to w as a pcap of
// RoCEv2 frames, starting with the connection's CM exchange, and returns
// how many frames it wrote. When transfers were dropped (CaptureDropped)
// or recording was off for a while, the file starts where the kept ones do.
func (l *Lab) WriteCapture(w io.Writer) (packets int, err error) {
	vw, ok := l.wire()
	if !ok {
		return 0, ErrNoWire
	}
	kept := l.transfers.items()
	opts := l.captureOptions(vw, kept)
	if len(kept) > 0 && (l.capture.dropped > 0 || l.capture.paused) {
		opts.Start = kept[0].Due
	}
	pw, err := wire.NewPcapWriter(w, opts)
	if err != nil {
		return 0, err
	}
	for _, t := range kept {
		if err := pw.Write(t); err != nil {
			return pw.Packets(), err
		}
	}
	return pw.Packets(), pw.Flush()
}

// ErrCapturing and ErrNotCapturing refuse a second StartCapture and a
// StopCapture without one.
var (
	ErrCapturing    = errors.New("a capture is already running")
	ErrNotCapturing = errors.New("no capture is running")
)

// StartCapture streams every transfer from now on to w as a pcap, from the
// connection's CM exchange on, holding one frame at a time; StopCapture
// ends it. It works whether or not SetCapture keeps transfers.
func (l *Lab) StartCapture(w io.Writer) error {
	if l.capture.stream != nil {
		return ErrCapturing
	}
	vw, ok := l.wire()
	if !ok {
		return ErrNoWire
	}
	opts := l.captureOptions(vw, nil)
	opts.Start = l.Now()
	pw, err := wire.NewPcapWriter(w, opts)
	if err != nil {
		return err
	}
	l.capture.stream, l.capture.err = pw, nil
	l.setTap()
	return nil
}

// StopCapture ends the capture StartCapture began, flushes it, and returns
// how many frames it holds and the first error writing it met.
func (l *Lab) StopCapture() (packets int, err error) {
	pw := l.capture.stream
	if pw == nil {
		return 0, ErrNotCapturing
	}
	l.capture.stream = nil
	l.setTap()
	err = l.capture.err
	if ferr := pw.Flush(); err == nil {
		err = ferr
	}
	l.capture.err = nil
	if err != nil {
		err = fmt.Errorf("capture: %w", err)
	}
	return pw.Packets(), err
}

// CapturePackets is how many frames the running StartCapture has written
// so far (0 when none runs).
func (l *Lab) CapturePackets() int {
	if l.capture.stream == nil {
		return 0
	}
	return l.capture.stream.Packets()
}

// captureOptions are the wire options of this lab: the fabric's timing
// and the client-server connection, whose starting PSNs are those of the
// first transfers given (else the next PSN each QP uses).
func (l *Lab) captureOptions(w virtualWire, ts []sim.Transfer) wire.Options {
	cfg := w.Config()
	lat := cfg.Latency
	if lat == 0 {
		lat = -time.Nanosecond // none (Options' zero means the default)
	}
	opts := wire.Options{LinkRate: cfg.LinkRate, Latency: lat, RNRTimer: cfg.RNRTimer}
	cq, sq := l.Client.QP().Num(), l.Server.QP().Num()
	ci, ok1 := w.QPInfo(cq)
	si, ok2 := w.QPInfo(sq)
	if !ok1 || !ok2 {
		return opts
	}
	c := wire.Conn{Active: ci.Node, Passive: si.Node, ActiveQPN: cq, PassiveQPN: sq,
		ActivePSN: l.firstPSN(w, cq, ts), PassivePSN: l.firstPSN(w, sq, ts),
		PathMTU: ci.PathMTU, RetryCount: ci.RetryCnt, RNRRetry: ci.RNRRetry,
		ReqPrivate: wire.RPCRDMAPrivate(true, l.Set.InlineThreshold, l.Set.InlineThreshold),
		RepPrivate: wire.RPCRDMAPrivate(false, l.Set.InlineThreshold, l.Set.InlineThreshold)}
	opts.Conns = []wire.Conn{c}
	return opts
}

// firstPSN is the PSN of QP qpn's first request in ts, or else of its
// first pending operation (PSNs are given at posting), or else the PSN its
// next post will take.
func (l *Lab) firstPSN(w virtualWire, qpn uint32, ts []sim.Transfer) uint32 {
	for _, t := range ts {
		if t.QPNum == qpn {
			return t.PSN.First
		}
	}
	for _, o := range l.Pending() {
		if o.QPNum == qpn {
			return o.PSN.First
		}
	}
	info, _ := w.QPInfo(qpn)
	return info.SQPSN
}
