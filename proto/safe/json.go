package safe

import (
	"encoding/json"
	"io"
	"unicode/utf8"
)

// One rule for every JSON rdmalab writes, encoded by hand or by
// encoding/json: a string value decodes to exactly what it held (bytes
// that are not UTF-8 become U+FFFD, as encoding/json makes them), and
// nothing a terminal acts on is left raw in the text — C0 and C1
// controls, DEL, the bidirectional embeddings, overrides, isolates and
// marks, the line and paragraph separators are \uXXXX escapes. JSON's
// escapes are exact, so the escaping changes what a terminal shows and
// nothing a reader decodes. encoding/json alone leaves DEL, C1 controls
// and the bidirectional controls raw.

// AppendJSON appends s to dst as a quoted JSON string under that rule.
func AppendJSON(dst []byte, s string) []byte {
	dst = append(dst, '"')
	// Most values need no escaping: copy the plain prefix at once.
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\' {
		i++
	}
	dst = append(dst, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20 || c == 0x7f:
				dst = appendU(dst, rune(c))
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, `\ufffd`...)
		case unsafeRune(r):
			dst = appendU(dst, r)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// appendU appends r (below U+10000) as \uXXXX.
func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// JSON applies the rule to encoded JSON (what encoding/json wrote): the
// runes it leaves raw — DEL, C1 controls, the bidirectional controls —
// become \uXXXX, and bytes that are not UTF-8 \ufffd. Outside its strings
// JSON is ASCII punctuation and whitespace, and inside them an escape is
// ASCII too, so each such rune stands in a string and the escape decodes
// to it. It returns b itself when nothing needs escaping.
func JSON(b []byte) []byte {
	i := firstJSONUnsafe(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				out = appendU(out, rune(c))
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case unsafeRune(r):
			out = appendU(out, r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// firstJSONUnsafe is where JSON would first change b, or -1.
func firstJSONUnsafe(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return i
		}
		i += n
	}
	return -1
}

// NewJSONEncoder is json.NewEncoder(w) with its output under the rule
// (JSON): an Encoder writes each value whole, in one Write.
func NewJSONEncoder(w io.Writer) *json.Encoder { return json.NewEncoder(jsonWriter{w}) }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// MarshalIndent is json.MarshalIndent with its output under the rule.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	b, err := json.MarshalIndent(v, prefix, indent)
	return JSON(b), err
}
