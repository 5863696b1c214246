package decode

import (
	"strconv"
	"unicode/utf8"
)

// jsonw appends one JSON object to a byte slice without reflection, so
// that --json costs no allocation per field.
type jsonw struct {
	b     []byte
	first []bool // per open object or array: nothing written in it yet
}

func (w *jsonw) reset() { w.b, w.first = w.b[:0], w.first[:0] }

func (w *jsonw) open(c byte) {
	w.b = append(w.b, c)
	w.first = append(w.first, true)
}

func (w *jsonw) close(c byte) {
	w.b = append(w.b, c)
	w.first = w.first[:len(w.first)-1]
}

// sep writes the comma before an element and, in an object, its key.
func (w *jsonw) sep(key string) {
	n := len(w.first) - 1
	if !w.first[n] {
		w.b = append(w.b, ',')
	}
	w.first[n] = false
	if key != "" {
		w.b = appendJSONString(w.b, key)
		w.b = append(w.b, ':')
	}
}

func (w *jsonw) beginObject(key string) { w.sep(key); w.open('{') }
func (w *jsonw) endObject()             { w.close('}') }
func (w *jsonw) beginArray(key string)  { w.sep(key); w.open('[') }
func (w *jsonw) endArray()              { w.close(']') }

func (w *jsonw) uint(key string, v uint64) { w.sep(key); w.b = strconv.AppendUint(w.b, v, 10) }
func (w *jsonw) int(key string, v int)     { w.sep(key); w.b = strconv.AppendInt(w.b, int64(v), 10) }
func (w *jsonw) str(key, v string)         { w.sep(key); w.b = appendJSONString(w.b, v) }

func (w *jsonw) float(key string, v float64) {
	w.sep(key)
	w.b = strconv.AppendFloat(w.b, v, 'f', 9, 64)
}

// epoch writes a time as seconds since 1970 with nine decimals, exactly.
func (w *jsonw) epoch(key string, sec int64, nsec int) {
	w.sep(key)
	w.b = strconv.AppendInt(w.b, sec, 10)
	w.b = append(w.b, '.')
	var d [9]byte
	for i := 8; i >= 0; i-- {
		d[i] = byte('0' + nsec%10)
		nsec /= 10
	}
	w.b = append(w.b, d[:]...)
}

func (w *jsonw) bool(key string, v bool) { w.sep(key); w.b = strconv.AppendBool(w.b, v) }

func (w *jsonw) null(key string) { w.sep(key); w.b = append(w.b, "null"...) }

// hex writes v as a string "0x…" of width hex digits: 64-bit values do not
// survive JSON numbers in every reader.
func (w *jsonw) hex(key string, v uint64, width int) {
	w.sep(key)
	w.b = append(w.b, '"', '0', 'x')
	w.b = appendHex(w.b, v, width)
	w.b = append(w.b, '"')
}

func appendHex(b []byte, v uint64, width int) []byte {
	const digits = "0123456789abcdef"
	for i := width - 1; i >= 0; i-- {
		b = append(b, digits[v>>(4*uint(i))&0xf])
	}
	return b
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
