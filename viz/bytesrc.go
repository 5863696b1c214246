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
		fmt.Sscanf(src, "read chunk %d seg %d", &b.chunk, &b.seg)
	case strings.HasPrefix(src, "call chunk"):
		b.kind = srcCall
		fmt.Sscanf(src, "call chunk seg %d", &b.seg)
	case strings.HasPrefix(src, "write chunk"):
		b.kind = srcWrite
		fmt.Sscanf(src, "write chunk %d", &b.chunk)
	case strings.HasPrefix(src, "reply"):
		b.kind = srcReply
	default:
		b.kind = srcOther
	}
	return b
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
