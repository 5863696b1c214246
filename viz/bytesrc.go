package viz

import (
	"fmt"
	"strings"
)

// srcKind is where the bytes of a page range came from.
type srcKind uint8

const (
	srcNone   srcKind = iota // nothing yet
	srcInline                // copied from the Receive buffer (svc_rdma_copy_inline_range)
	srcRead                  // pulled by an RDMA Read of a Read chunk segment
	srcCall                  // pulled from the call chunk of a Long Message
	srcWrite                 // payload an RDMA Write sends to a Write chunk
	srcReply                 // reply bytes an RDMA Write sends to the Reply chunk
	srcOther                 // anything the view does not know
)

// byteSource is a parsed Extent.Source or SGE source.
type byteSource struct {
	kind       srcKind
	chunk, seg int
}

// parseSource reads the engine's source strings ("inline", "read chunk 1
// seg 0", "call chunk seg 2"); an empty source takes its meaning from the
// owner of the R/W context ("write chunk 0", "reply chunk").
func parseSource(src, owner string) byteSource {
	if src == "" {
		src = owner
	}
	var b byteSource
	switch {
	case src == "":
		return b
	case src == "inline":
		b.kind = srcInline
	case strings.HasPrefix(src, "read chunk"):
		b.kind = srcRead
		rest, ok := "", false
		if b.chunk, rest, ok = leadingInt(src[len("read chunk"):]); ok {
			if rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " "), "seg"); ok {
				b.seg, _, _ = leadingInt(rest)
			}
		}
	case strings.HasPrefix(src, "call chunk"):
		b.kind = srcCall
		if rest, ok := strings.CutPrefix(strings.TrimLeft(src[len("call chunk"):], " "), "seg"); ok {
			b.seg, _, _ = leadingInt(rest)
		}
	case strings.HasPrefix(src, "write chunk"):
		b.kind = srcWrite
		b.chunk, _, _ = leadingInt(src[len("write chunk"):])
	case strings.HasPrefix(src, "reply"):
		b.kind = srcReply
	default:
		b.kind = srcOther
	}
	return b
}

// leadingInt reads the number s starts with after spaces, as Sscanf's %d
// would, and what follows it: without fmt's scanner, which cost a
// microsecond a source and made a snapshot of 2^18 ranges slow to draw.
// More than 9 digits read as no number.
func leadingInt(s string) (int, string, bool) {
	s = strings.TrimLeft(s, " ")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	n, i := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if i == 0 || i > 9 {
		return 0, s, false
	}
	if neg {
		n = -n
	}
	return n, s[i:], true
}

// glyph is the letter that says where bytes came from without colour:
// i inline, 0-9 the Read chunk's index, c call chunk, w write payload,
// r reply chunk.
// pendingGlyph marks bytes planned but not landed (a Read posted, not
// completed): a shape, not only a colour, so that it reads under NO_COLOR
// and on a projector.
const pendingGlyph = '░'

// mark is the glyph of a byte from b: its source's once landed, the
// pending shade before.
func (b byteSource) mark(landed bool) rune {
	if !landed && b.kind != srcNone {
		return pendingGlyph
	}
	return b.glyph()
}

func (b byteSource) glyph() rune {
	switch b.kind {
	case srcInline:
		return 'i'
	case srcRead:
		if b.chunk >= 0 && b.chunk <= 9 {
			return rune('0' + b.chunk)
		}
		return '+'
	case srcCall:
		return 'c'
	case srcWrite:
		return 'w'
	case srcReply:
		return 'r'
	case srcOther:
		return '?'
	}
	return '·'
}

// label is the short name the SGL lists print.
func (b byteSource) label() string {
	switch b.kind {
	case srcInline:
		return "inline"
	case srcRead:
		return fmt.Sprintf("ch%d seg%d", b.chunk, b.seg)
	case srcCall:
		return fmt.Sprintf("call seg%d", b.seg)
	case srcWrite:
		return fmt.Sprintf("write ch%d", b.chunk)
	case srcReply:
		return "reply"
	case srcOther:
		return "?"
	}
	return ""
}
