package decode

// Where a packet's layers lie in its frame, from the slices the decoder
// kept of each: the detail tree gives each line the bytes of the layer or
// field it describes as it writes the line.

import (
	"math/bits"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// span is the bytes [start, end) of a frame; the zero span is no bytes.
type span struct{ start, end int }

// sub is the bytes [from, to) of s, cut to s.
func (s span) sub(from, to int) span {
	if s.end <= s.start {
		return span{}
	}
	from, to = min(s.start+from, s.end), min(s.start+to, s.end)
	return span{from, to}
}

// extSpans holds a span per extended transport header, by its bit in
// ib.Headers.
type extSpans [16]span

func (e *extSpans) set(h ib.Headers, s span) { e[bits.TrailingZeros16(uint16(h))] = s }

// of returns the span of the header h (the zero span when absent).
func (e *extSpans) of(h ib.Headers) span { return e[bits.TrailingZeros16(uint16(h))] }

// layout is where the layers of a packet lie; a layer the packet lacks,
// or whose bytes are not in the frame, is the zero span.
type layout struct {
	data    []byte
	frame   span
	ib      span // the first InfiniBand header to the end of the frame
	lrh     span
	grh     span
	bth     span
	ext     extSpans // the extended transport headers
	payload span     // the InfiniBand payload and its pad
	icrc    span
	vcrc    span
	mad     span
	madBody span
	rpcHdr  span // the RPC-over-RDMA header, when its whole message is in the packet
	rpcBody span // the RPC message after it
}

func layoutOf(p *analysis.Packet) *layout {
	l := new(layout)
	l.fill(p)
	return l
}

// fill sets l to the layout of p.
func (l *layout) fill(p *analysis.Packet) {
	n := len(p.Data)
	*l = layout{data: p.Data, frame: span{0, n}}
	if p.LRH != nil {
		l.lrh = l.of(p.LRH.Contents)
	}
	if p.GRH != nil {
		l.grh = l.of(p.GRH.Contents)
	}
	if b := p.BTH; b != nil {
		l.bth = l.of(b.Contents)
		at := l.bth.end
		for h := ib.HasRDETH; h <= ib.HasIETH; h <<= 1 {
			if b.Headers&h == 0 {
				continue
			}
			size := h.Len()
			if at+size > n {
				break
			}
			l.ext.set(h, span{at, at + size})
			at += size
		}
		if pl := l.of(b.Payload); pl.end > pl.start || len(b.Payload) == 0 && at <= n {
			if pl.end <= pl.start {
				pl = span{at, at}
			}
			end := min(pl.end+len(b.Pad), n)
			l.payload = span{pl.start, end}
			if p.ICRC.State == frame.CRCGood || p.ICRC.State == frame.CRCBad {
				l.icrc = span{end, min(end+4, n)}
			}
		}
	}
	if p.VCRC.State == frame.CRCGood || p.VCRC.State == frame.CRCBad {
		l.vcrc = span{max(n-2, 0), n}
	}
	for _, s := range []span{l.lrh, l.grh, l.bth} {
		if s.end > s.start {
			l.ib = span{s.start, n}
			break
		}
	}
	if m := p.MAD; m != nil {
		l.mad = l.of(m.Contents)
		l.madBody = l.of(m.Payload)
	}
	if r := p.Analysis.RPC; r != nil && r.FirstFrame == r.Frame && p.BTH != nil {
		// The whole message is in this packet: its header and RPC are
		// the payload's.
		pl := l.of(p.BTH.Payload)
		if r.HdrLen > 0 && pl.end-pl.start >= r.HdrLen {
			l.rpcHdr = pl.sub(0, r.HdrLen)
			l.rpcBody = span{l.rpcHdr.end, pl.end}
		}
	}
}

// of locates b, a subslice of the frame.
func (l *layout) of(b []byte) span {
	if len(b) == 0 || cap(b) > cap(l.data) {
		return span{}
	}
	start := frame.OffsetIn(l.data, b)
	end := start + len(b)
	if start < 0 || end > len(l.data) {
		return span{}
	}
	return span{start, end}
}

// malformed is the bytes from where decoding failed to the end of the
// frame.
func (l *layout) malformed(e *frame.FrameError) span {
	if e.Offset >= 0 && e.Offset <= len(l.data) {
		return span{e.Offset, len(l.data)}
	}
	return span{}
}
