package rpcrdma

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// Lines places each line of the dump on the encoded header: the title on
// all of it, each fixed word on the four bytes holding the value the line
// prints, the body's lines on the body.
func TestLinesBytes(t *testing.T) {
	for _, h := range []Header{frame86Header, frame40Header, msgpHeader, ErrorReply(1, 1, 1, ErrCodeVers)} {
		enc := h.AppendTo(nil)
		lines := h.Lines()
		for k, l := range lines {
			start, end := FixedHdrLen, len(enc)
			switch {
			case k == 0:
				start = 0
			case k <= 4:
				start, end = 4*(k-1), 4*k
				v := binary.BigEndian.Uint32(enc[start:end])
				if !strings.Contains(l.Text, fmt.Sprintf("%d", v)) && !strings.Contains(l.Text, fmt.Sprintf("0x%08x", v)) {
					t.Errorf("%s: line %q shows bytes [%d,%d), which hold %d", h.Proc, l.Text, l.Start, l.End, v)
				}
			}
			if l.Start != start || l.End != end {
				t.Errorf("%s: line %q shows [%d,%d), want [%d,%d)", h.Proc, l.Text, l.Start, l.End, start, end)
			}
		}
	}
}
