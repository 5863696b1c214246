// Package safe makes strings taken from a capture, a snapshot or a lesson
// fit to print on a terminal. A file name, an AUTH_UNIX machine name or an
// NFSv4 owner is whatever the sender put on the wire: left raw, an ESC
// sequence in it would drive the reader's terminal (clear it, move the
// cursor, ask it to answer), and a CR or LF would forge output lines.
//
// Text escapes what a terminal would act on, the way Wireshark's
// format_text does: the C escapes \a \b \t \n \v \f \r, other C0 and C1
// controls and DEL as \xNN or \u00NN, bytes that are not UTF-8 as \xNN,
// the bidirectional overrides that reorder a line as \uNNNN, and the
// backslash itself as \\ so that the result reads back unambiguously.
// Printable text, non-ASCII letters included, passes unchanged and, when
// nothing needs escaping, without an allocation.
//
// Display is Text for a string that may already hold such escapes (a
// decoded packet's summary, a message quoting one): it leaves backslashes
// as they are, so nothing is escaped twice, and escapes the rest.
//
// JSON output keeps every value exactly what the wire carried, and the
// same runes are escaped there as \uXXXX, which decode back to them
// (AppendJSON, JSON, NewJSONEncoder: json.go).
package safe

import (
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Text returns s with everything a terminal would act on escaped, and
// backslashes doubled.
func Text(s string) string { return escape(s, false) }

// Display returns s with everything a terminal would act on escaped and
// backslashes left alone: for text that may already be escaped.
func Display(s string) string { return escape(s, true) }

// AppendDisplay appends s to dst, escaped as Display escapes it.
func AppendDisplay(dst []byte, s string) []byte { return appendEscaped(dst, s, true) }

func escape(s string, keepBackslash bool) string {
	i := firstUnsafe(s, keepBackslash)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	b = append(b, s[:i]...)
	return string(appendFrom(b, s[i:], keepBackslash))
}

// Bytes is Text for a byte slice (an XDR string not yet copied).
func Bytes(b []byte) string {
	return Text(string(b))
}

// AppendText appends s to dst, escaped as Text escapes it.
func AppendText(dst []byte, s string) []byte { return appendEscaped(dst, s, false) }

func appendEscaped(dst []byte, s string, keepBackslash bool) []byte {
	i := firstUnsafe(s, keepBackslash)
	if i < 0 {
		return append(dst, s...)
	}
	dst = append(dst, s[:i]...)
	return appendFrom(dst, s[i:], keepBackslash)
}

// Typed is something a user typed (a file name, a word, a script line)
// fit to repeat on a terminal: s itself when nothing in it would act on
// one (a tab or a backslash stays as typed), else all of it escaped by
// Text, backslashes included, so that it reads back unambiguously.
func Typed(s string) string {
	if IsSafe(s) || IsSafe(strings.NewReplacer("\\", "", "\t", "").Replace(s)) {
		return s
	}
	return Text(s)
}

// IsSafe reports whether s prints as itself under Text.
func IsSafe(s string) bool { return firstUnsafe(s, false) < 0 }

// IsDisplayable reports whether s prints as itself under Display.
func IsDisplayable(s string) bool { return firstUnsafe(s, true) < 0 }

// firstUnsafe returns the index of the first byte of s that escaping
// would change, or -1.
func firstUnsafe(s string, keepBackslash bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '\\' && !keepBackslash {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return i
		}
		i += n
	}
	return -1
}

// unsafeRune reports the non-ASCII runes a terminal acts on or that
// reorder what is displayed: C1 controls (0x9b is a one-byte CSI to some
// terminals), the bidirectional embeddings, overrides and isolates, and
// the line and paragraph separators.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	}
	return false
}

func appendFrom(b []byte, s string, keepBackslash bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '\a':
				b = append(b, '\\', 'a')
			case '\b':
				b = append(b, '\\', 'b')
			case '\t':
				b = append(b, '\\', 't')
			case '\n':
				b = append(b, '\\', 'n')
			case '\v':
				b = append(b, '\\', 'v')
			case '\f':
				b = append(b, '\\', 'f')
			case '\r':
				b = append(b, '\\', 'r')
			case '\\':
				if keepBackslash {
					b = append(b, c)
				} else {
					b = append(b, '\\', '\\')
				}
			default:
				if c < 0x20 || c == 0x7f {
					b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
				} else {
					b = append(b, c)
				}
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		case unsafeRune(r):
			b = append(b, '\\', 'u',
				hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}
