// Package appendtext appends text for the decoder's outputs' hot paths:
// what fmt's verbs do for the few shapes the lines and trees use, into a
// reused buffer, without fmt's interfaces and allocations. Each function
// names the verb it replaces, and its tests hold it to that verb.
package appendtext

import (
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// PadLeft right-aligns b[start:] in width columns (fmt's %Nd, %Ns).
func PadLeft(b []byte, start, width int) []byte { return fillLeft(b, start, width, ' ') }

// fillLeft puts fill before b[start:] until it takes width columns.
func fillLeft(b []byte, start, width int, fill byte) []byte {
	n := width - columns(b[start:])
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

// PadRight left-aligns b[start:] in width columns (fmt's %-Ns).
func PadRight(b []byte, start, width int) []byte {
	for n := width - columns(b[start:]); n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// columns is the runes in b, as fmt's width counts them; the columns are
// mostly ASCII, which needs no decoding.
func columns(b []byte) int {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return utf8.RuneCount(b)
		}
	}
	return len(b)
}

// Int is fmt's %d.
func Int(b []byte, v int) []byte {
	if v < 0 {
		return Uint(append(b, '-'), uint64(-int64(v)))
	}
	return Uint(b, uint64(v))
}

// Uint is fmt's %d for unsigned values. It writes the digits in
// place, two at a time: strconv formats into a scratch array and copies,
// which costs more than the digits on the outputs' many small numbers.
func Uint(b []byte, v uint64) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	return UintPad(b, v, 0)
}

// UintPad is fmt's %0Nd for unsigned values: at least width digits.
// It splits v into groups of eight and four digits whose pairs do not wait
// on each other's divisions, rather than taking two digits at a time off
// the end, each division waiting on the one before.
func UintPad(b []byte, v uint64, width int) []byte {
	n := max(decimalLen(v), width)
	b = slices.Grow(b, n)
	start := len(b)
	b = b[:start+n]
	d := b[start:]
	i := n
	for v >= 1e8 {
		q := v / 1e8
		put8(d[i-8:i], uint32(v-q*1e8))
		v = q
		i -= 8
	}
	u := uint32(v)
	if u >= 1e4 {
		q := u / 1e4
		put4(d[i-4:i], u-q*1e4)
		u = q
		i -= 4
	}
	if u >= 100 {
		q := u / 100
		put2(d[i-2:i], u-q*100)
		u = q
		i -= 2
	}
	if u >= 10 {
		put2(d[i-2:i], u)
		i -= 2
	} else {
		i--
		d[i] = byte('0' + u)
	}
	for i > 0 {
		i--
		d[i] = '0'
	}
	return b
}

// put2 writes u < 100 as two digits.
func put2(d []byte, u uint32) {
	_ = d[1]
	d[0], d[1] = digitPairs[2*u], digitPairs[2*u+1]
}

// put4 writes u < 10000 as four digits.
func put4(d []byte, u uint32) {
	hi := u / 100
	put2(d[0:2], hi)
	put2(d[2:4], u-hi*100)
}

// put8 writes u < 10^8 as eight digits.
func put8(d []byte, u uint32) {
	hi := u / 1e4
	put4(d[0:4], hi)
	put4(d[4:8], u-hi*1e4)
}

const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" + "60616263646566676869" +
	"70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// decimalLen is how many decimal digits v has.
func decimalLen(v uint64) int {
	n := 1
	for ; v >= 10000; v /= 10000 {
		n += 4
	}
	switch {
	case v >= 1000:
		return n + 3
	case v >= 100:
		return n + 2
	case v >= 10:
		return n + 1
	}
	return n
}

// appendHexPad is fmt's %0Nx: at least width lower-case hex digits.
func appendHexPad(b []byte, v uint64, width int) []byte {
	const digits = "0123456789abcdef"
	var d [16]byte
	i := len(d)
	for v >= 16 {
		i--
		d[i] = digits[v&0xf]
		v >>= 4
	}
	i--
	d[i] = digits[v]
	for n := len(d) - i; n < width; n++ {
		b = append(b, '0')
	}
	return append(b, d[i:]...)
}

// HexFixed appends the low width hex digits of v, zeros included (the
// fixed-width fields of JSON and tshark -x).
func HexFixed(b []byte, v uint64, width int) []byte {
	const digits = "0123456789abcdef"
	b = slices.Grow(b, width)
	n := len(b)
	b = b[:n+width]
	d := b[n:]
	for i := width - 1; i >= 0; i-- {
		d[i] = digits[v&0xf]
		v >>= 4
	}
	return b
}

// Hex0x is fmt's 0x%0Nx.
func Hex0x(b []byte, v uint64, width int) []byte {
	return appendHexPad(append(b, '0', 'x'), v, width)
}

// Seconds is fmt's %.Nf of d.Seconds(). It works in integers except
// where the float's rounding decides: a value exactly halfway between
// two printed ones, which float64 may hold a little above or below, and
// past 11 days, where a float64 of seconds no longer holds nanoseconds.
func Seconds(b []byte, d time.Duration, prec int) []byte {
	if prec != 6 || d < 0 || d >= 1e6*time.Second {
		return strconv.AppendFloat(b, d.Seconds(), 'f', prec, 64)
	}
	us, rest := d/time.Microsecond, d%time.Microsecond
	switch {
	case rest == 500:
		return strconv.AppendFloat(b, d.Seconds(), 'f', prec, 64)
	case rest > 500:
		us++
	}
	b = Uint(b, uint64(us/1e6))
	frac := int64(us % 1e6)
	return append(b, '.', byte('0'+frac/1e5), byte('0'+frac/1e4%10), byte('0'+frac/1e3%10),
		byte('0'+frac/100%10), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendBool is fmt's %v of a bool.
func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// MAC is a net.HardwareAddr's String: "02:00:00:00:00:01".
func MAC(b []byte, m []byte) []byte {
	const digits = "0123456789abcdef"
	for i, c := range m {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, digits[c>>4], digits[c&0xf])
	}
	return b
}
