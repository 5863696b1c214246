package decode

// Append-only text helpers for the outputs' hot paths: what fmt's verbs
// do for the few shapes the lines and trees use, into a reused buffer,
// without fmt's interfaces and allocations.

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// padLeft right-aligns b[start:] in width columns (fmt's %Nd, %Ns).
func padLeft(b []byte, start, width int) []byte { return fillLeft(b, start, width, ' ') }

// fillLeft puts fill before b[start:] until it takes width columns.
func fillLeft(b []byte, start, width int, fill byte) []byte {
	n := width - utf8.RuneCount(b[start:])
	if n <= 0 {
		return b
	}
	for i := 0; i < n; i++ {
		b = append(b, fill)
	}
	copy(b[start+n:], b[start:len(b)-n])
	for i := start; i < start+n; i++ {
		b[i] = fill
	}
	return b
}

// padRight left-aligns b[start:] in width columns (fmt's %-Ns).
func padRight(b []byte, start, width int) []byte {
	for n := width - utf8.RuneCount(b[start:]); n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// appendInt is fmt's %d.
func appendInt(b []byte, v int) []byte { return strconv.AppendInt(b, int64(v), 10) }

// appendUint is fmt's %d for unsigned values.
func appendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

// appendHexPad is fmt's %0Nx: at least width lower-case hex digits.
func appendHexPad(b []byte, v uint64, width int) []byte {
	start := len(b)
	return fillLeft(strconv.AppendUint(b, v, 16), start, width, '0')
}

// append0x is fmt's 0x%0Nx.
func append0x(b []byte, v uint64, width int) []byte {
	return appendHexPad(append(b, '0', 'x'), v, width)
}

// appendSeconds is fmt's %.Nf of d.Seconds().
func appendSeconds(b []byte, d time.Duration, prec int) []byte {
	return strconv.AppendFloat(b, d.Seconds(), 'f', prec, 64)
}

// appendBool is fmt's %v of a bool.
func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// appendMAC is a net.HardwareAddr's String: "02:00:00:00:00:01".
func appendMAC(b []byte, m []byte) []byte {
	const digits = "0123456789abcdef"
	for i, c := range m {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, digits[c>>4], digits[c&0xf])
	}
	return b
}
