package decode

// The -V tree as lines a UI can select, each with the bytes of the frame
// it shows, so that a hex dump can highlight the field under the cursor.
// The text is appendTree's, line for line; the ranges come from where each
// layer's bytes lie in the frame, matched to the lines by their labels.
// A line this file does not know shows its parent's bytes.

import (
	"strings"

	"github.com/rdmalab/rdmalab/proto/ib"
)

// TreeLine is one line of a packet's detail tree.
type TreeLine struct {
	Depth int    `json:"depth"` // 0 for a layer, 1 for its fields, ...
	Text  string `json:"text"`  // without the indentation
	// Start and End are the bytes of the frame the line shows (End
	// exclusive); Start == End when it shows none of its own (the
	// capture's metadata, rdmalab's analysis).
	Start int `json:"start"`
	End   int `json:"end"`
}

// Tree returns the detail tree of p (as `rdmalab decode -V` prints it)
// with the byte range of each line.
func Tree(p *Packet) []TreeLine {
	var sb strings.Builder
	appendTree(&sb, p)
	text := strings.TrimRight(sb.String(), "\n")
	loc := newLocator(p)
	var out []TreeLine
	var stack []span // the range of the nearest line at each depth
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		depth := (len(l) - len(trimmed)) / 4
		if len(stack) > depth {
			stack = stack[:depth]
		}
		parent := span{}
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		sp, ok := loc.line(depth, trimmed)
		if !ok {
			sp = parent
		}
		for len(stack) < depth {
			stack = append(stack, parent) // a jump of more than one level
		}
		stack = append(stack, sp)
		out = append(out, TreeLine{Depth: depth, Text: trimmed, Start: sp.start, End: sp.end})
	}
	return out
}

// span is a byte range of a frame; the zero span is no bytes.
type span struct{ start, end int }

func (s span) sub(from, to int) span {
	if s.end <= s.start {
		return span{}
	}
	from, to = min(s.start+from, s.end), min(s.start+to, s.end)
	return span{from, to}
}

// locator knows where p's layers lie and which section of the tree the
// lines being read belong to.
type locator struct {
	p       *Packet
	n       int
	section string // the depth-0 line being read, by kind
	sub     string // the depth-1 line being read, under InfiniBand
	ib      span
	lrh     span
	grh     span
	bth     span
	ext     map[ib.Headers]span
	payload span // the InfiniBand payload and its pad
	icrc    span
	vcrc    span
	mad     span
	madBody span
	rpcHdr  span
	rpcBody span
}

func newLocator(p *Packet) *locator {
	l := &locator{p: p, n: len(p.Data)}
	l.lrh = l.of(contents(p.LRH != nil, func() []byte { return p.LRH.Contents }))
	l.grh = l.of(contents(p.GRH != nil, func() []byte { return p.GRH.Contents }))
	if b := p.BTH; b != nil {
		l.bth = l.of(b.Contents)
		l.ext = map[ib.Headers]span{}
		at := l.bth.end
		for h := ib.HasRDETH; h <= ib.HasIETH; h <<= 1 {
			if b.Headers&h == 0 {
				continue
			}
			n := h.Len()
			if at+n > l.n {
				break
			}
			l.ext[h] = span{at, at + n}
			at += n
		}
		if pl := l.of(b.Payload); pl.end > pl.start || len(b.Payload) == 0 && at <= l.n {
			if pl.end <= pl.start {
				pl = span{at, at}
			}
			end := min(pl.end+len(b.Pad), l.n)
			l.payload = span{pl.start, end}
			if p.ICRC.State == CRCGood || p.ICRC.State == CRCBad {
				l.icrc = span{end, min(end+4, l.n)}
			}
		}
	}
	if p.VCRC.State == CRCGood || p.VCRC.State == CRCBad {
		l.vcrc = span{max(l.n-2, 0), l.n}
	}
	for _, s := range []span{l.lrh, l.grh, l.bth} {
		if s.end > s.start {
			l.ib = span{s.start, l.n}
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
	return l
}

func contents(ok bool, f func() []byte) []byte {
	if !ok {
		return nil
	}
	return f()
}

// of locates b, a subslice of the frame.
func (l *locator) of(b []byte) span {
	if len(b) == 0 || cap(b) > cap(l.p.Data) {
		return span{}
	}
	start := offsetIn(l.p.Data, b)
	end := start + len(b)
	if start < 0 || end > l.n {
		return span{}
	}
	return span{start, end}
}

// line returns the bytes of a line; ok false means "as its parent".
func (l *locator) line(depth int, text string) (span, bool) {
	has := func(prefix string) bool { return strings.HasPrefix(text, prefix) }
	p := l.p
	if depth == 0 {
		l.sub = ""
		switch {
		case has("Frame "):
			l.section = "frame"
			return span{0, l.n}, true
		case has("Extensible Record Format"):
			l.section = "erf"
			if p.ERF != nil {
				return l.of(p.ERF.Contents), true
			}
		case has("Ethernet II"):
			l.section = "eth"
			if p.Eth != nil {
				return l.of(p.Eth.Contents), true
			}
		case has("Internet Protocol Version 4"):
			l.section = "ip"
			if p.IPv4 != nil {
				return l.of(p.IPv4.Contents), true
			}
		case has("Internet Protocol Version 6"):
			l.section = "ip"
			if p.IPv6 != nil {
				return l.of(p.IPv6.Contents), true
			}
		case has("User Datagram Protocol"):
			l.section = "udp"
			if p.UDP != nil {
				return l.of(p.UDP.Contents), true
			}
		case text == "InfiniBand":
			l.section = "ib"
			return l.ib, true
		case has("MAD Header"):
			l.section = "mad"
			return l.mad, true
		case has("CM "):
			l.section = "cm"
			return l.madBody, true
		case has("Remote Procedure Call"):
			l.section = "rpc"
			return l.rpcBody, true
		case has("[rdmalab analysis]"):
			l.section = "analysis"
			return span{}, true
		case has("[Malformed"):
			l.section = "malformed"
			if e := p.Err; e != nil && e.Offset >= 0 && e.Offset <= l.n {
				return span{e.Offset, l.n}, true
			}
			return span{}, true
		case p.Analysis.RPC != nil && (l.section == "ib" || l.section == "mad" || l.section == "cm" || l.section == "rpcrdma"):
			// rpcrdma.Header.String: its first line is the header's.
			l.section = "rpcrdma"
			return l.rpcHdr, true
		}
		return span{}, true
	}
	switch l.section {
	case "frame":
		return span{}, true
	case "ib":
		return l.ibLine(depth, text)
	case "mad":
		if depth == 1 {
			if has("Base Version") {
				return l.mad.sub(0, 4), true
			}
			return l.mad.sub(4, 24), true
		}
	case "rpcrdma":
		if depth == 1 {
			for i, f := range []string{"XID:", "Version:", "Flow Control:", "Message Type:"} {
				if has(f) {
					return l.rpcHdr.sub(4*i, 4*i+4), true
				}
			}
			return l.rpcHdr.sub(16, l.rpcHdr.end-l.rpcHdr.start), true
		}
	case "analysis":
		if depth == 1 {
			switch {
			case has("PSN:"):
				return l.bth.sub(8, 12), true
			case has("Acknowledges up to"):
				return l.ext[ib.HasAETH], true
			case has("RPC XID"):
				if p.BTH != nil && p.BTH.Opcode.Kind() == ib.KindReadRequest {
					return l.ext[ib.HasRETH], true
				}
				return l.payload, true
			}
			return span{}, true
		}
	}
	return span{}, false
}

// ibLine places the lines under "InfiniBand".
func (l *locator) ibLine(depth int, text string) (span, bool) {
	has := func(prefix string) bool { return strings.HasPrefix(text, prefix) }
	if depth == 1 {
		l.sub = ""
		headers := []struct {
			prefix string
			h      ib.Headers
		}{
			{"RDETH", ib.HasRDETH}, {"DETH", ib.HasDETH}, {"XRCETH", ib.HasXRCETH}, {"FETH", ib.HasFETH},
			{"RETH", ib.HasRETH}, {"AtomicETH", ib.HasAtomicETH}, {"AETH", ib.HasAETH},
			{"AtomicAckETH", ib.HasAtomicAckETH}, {"Immediate Data", ib.HasImmDt}, {"IETH", ib.HasIETH},
		}
		switch {
		case has("Local Route Header"):
			l.sub = "lrh"
			return l.lrh, true
		case has("Global Route Header"):
			l.sub = "grh"
			return l.grh, true
		case has("Base Transport Header"):
			l.sub = "bth"
			return l.bth, true
		case has("Payload:"):
			return l.payload, true
		case has("Invariant CRC"):
			return l.icrc, true
		case has("Variant CRC"):
			return l.vcrc, true
		}
		for _, h := range headers {
			if has(h.prefix+" ") || has(h.prefix+":") {
				l.sub = h.prefix
				return l.ext[h.h], true
			}
		}
		return span{}, false
	}
	if depth != 2 {
		return span{}, false
	}
	has2 := func(fields ...string) (int, bool) {
		for i, f := range fields {
			if has(f) {
				return i, true
			}
		}
		return 0, false
	}
	switch l.sub {
	case "lrh":
		if _, ok := has2("Virtual Lane"); ok {
			return l.lrh.sub(0, 2), true
		}
		if _, ok := has2("Destination Local ID"); ok {
			return l.lrh.sub(2, 8), true
		}
	case "grh":
		switch {
		case has("IP Version"):
			return l.grh.sub(0, 8), true
		case has("Source GID"):
			return l.grh.sub(8, 24), true
		case has("Destination GID"):
			return l.grh.sub(24, 40), true
		}
	case "bth":
		bounds := [][2]int{{0, 1}, {1, 4}, {4, 8}, {8, 12}}
		if i, ok := has2("Opcode:", "Solicited Event:", "FECN:", "Acknowledge Request:"); ok {
			return l.bth.sub(bounds[i][0], bounds[i][1]), true
		}
	case "AtomicETH":
		s := l.ext[ib.HasAtomicETH]
		if has("Virtual Address") {
			return s.sub(0, 12), true
		}
		if has("Swap") {
			return s.sub(12, 28), true
		}
	}
	return span{}, false
}
