package repl

import (
	"bytes"
	"fmt"
)

// maxEventLine is the longest event line printed whole. A longer one (a
// 1 MiB WRITE's Read chain names its 52 WRs, rc_pages its 256 pages) is
// summarised: a long chain or list keeps its first items and its last.
// The events themselves, in JSON and in the views, stay whole.
const maxEventLine = 320

// Summaries keep keepHead items of a chain or list, and the last one.
const keepHead = 2

var (
	chainSep = []byte(" → ")
	itemSep  = []byte(",")
)

// summariseEvent shortens line when it is longer than maxEventLine: a
// chain (A → B → …) and a list ([a,b,…]) of many items keep their first
// and last ones and say how many went; what is still too long is cut.
func summariseEvent(line []byte) []byte {
	if len(line) <= maxEventLine {
		return line
	}
	line = summariseChain(line)
	line = summariseLists(line)
	if len(line) > maxEventLine {
		line = append(cutRunes(line, maxEventLine), " …"...)
	}
	return line
}

// summariseChain keeps the first and last parts of a line's " → " chain,
// looked for in the arguments: the arrow before a function's name marks
// its call.
func summariseChain(line []byte) []byte {
	at := bytes.IndexAny(line, "(=")
	if at < 0 {
		return line
	}
	parts := bytes.Split(line[at:], chainSep)
	if len(parts) <= keepHead+2 {
		return line
	}
	out := append([]byte(nil), line[:at]...)
	out = append(out, bytes.Join(parts[:keepHead], chainSep)...)
	out = fmt.Appendf(out, " → … %d more → ", len(parts)-keepHead-1)
	return append(out, parts[len(parts)-1]...)
}

// summariseLists shortens each [a,b,…] of many items.
func summariseLists(line []byte) []byte {
	var out []byte
	for {
		open := bytes.IndexByte(line, '[')
		if open < 0 {
			return append(out, line...)
		}
		end := bytes.IndexByte(line[open:], ']')
		if end < 0 {
			return append(out, line...)
		}
		end += open
		items := bytes.Split(line[open+1:end], itemSep)
		out = append(out, line[:open+1]...)
		if len(items) > keepHead+2 {
			out = append(out, bytes.Join(items[:keepHead], itemSep)...)
			out = fmt.Appendf(out, ",…,%s (%d)", items[len(items)-1], len(items))
		} else {
			out = append(out, line[open+1:end]...)
		}
		out = append(out, ']')
		line = line[end+1:]
	}
}

// cutRunes is line cut to at most n bytes, at a rune's start.
func cutRunes(line []byte, n int) []byte {
	for n > 0 && n < len(line) && line[n]&0xC0 == 0x80 {
		n--
	}
	return line[:n]
}
