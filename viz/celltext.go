package viz

import (
	"unicode/utf8"

	"github.com/rdmalab/rdmalab/captures/safe"
)

// Everything a pane draws reaches the screen through offscreen.Put, and
// offscreen.Put lets no rune a terminal would act on into a cell: the
// strings drawn come from captures, snapshot files and a socket, and tcell
// writes a cell's text to the terminal as it is (an ESC in a file name
// would clear the screen or move the cursor).
//
// The filter escapes what safe.Text escapes, rune by rune and with the
// same spelling (\x1b, \u202e, \xff for a byte that is not UTF-8), except
// the backslash: strings the decoder already escaped at their source keep
// their single backslashes, and the filter is idempotent.

// cellSafe reports whether s can go into cells as it is.
func cellSafe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		if !safe.IsSafe(s[i : i+n]) {
			return false
		}
		i += n
	}
	return true
}

// cellText is s with every rune a terminal would act on escaped.
func cellText(s string) string {
	if cellSafe(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		n := 1
		if s[i] >= utf8.RuneSelf {
			_, n = utf8.DecodeRuneInString(s[i:])
		}
		piece := s[i : i+n]
		if cellSafe(piece) {
			b = append(b, piece...)
		} else {
			b = safe.AppendText(b, piece)
		}
		i += n
	}
	return string(b)
}
