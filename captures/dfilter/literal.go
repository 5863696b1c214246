package dfilter

import (
	"net/netip"
	"strconv"
	"strings"
)

// literal is a value written in an expression, converted to the type of
// the field it is compared with. An address may be a subnet.
type literal struct {
	v      Value
	prefix bool
	bits   int  // the prefix length of a subnet
	neg    bool // an integer below 0 (v.U holds its int64 bits)
}

// value converts the word or string t to a value of f's type.
func (p *parser) value(f fieldRef, t token) (literal, error) {
	s := t.text
	bad := func(what string) (literal, error) {
		if t.kind == tWord && looksLikeField(s) {
			if _, ok := p.schema.Lookup(s); !ok {
				if sg := suggest(s, p.schema.Names()); sg != "" {
					return literal{}, p.unknownField(t)
				}
			}
		}
		return literal{}, p.errTok(t, "%q is not %s (%s is %s)", s, what, f.name, f.Type.an())
	}
	if t.kind == tString && f.Type != TypeString && f.Type != TypeBytes {
		return literal{}, p.errTok(t, "%s is %s: it cannot be compared with a string", f.name, f.Type.an())
	}
	if t.kind == tChar {
		switch f.Type {
		case TypeUint, typeInt, TypeBool:
			return literal{v: Uint(uint64(s[0]))}, nil
		case TypeString, TypeBytes:
			return literal{v: String(s)}, nil
		}
		return literal{}, p.errTok(t, "%s is %s: it cannot be compared with a character", f.name, f.Type.an())
	}
	switch f.Type {
	case TypeUint, typeInt:
		if rest, ok := strings.CutPrefix(s, "-"); ok {
			n, ok := parseUint(rest)
			if !ok {
				return bad("a valid number")
			}
			if f.Type == TypeUint && n > 1<<31 {
				// tshark 4.0 reads it as a gint32
				return literal{}, p.errTok(t, "%s is below the 32-bit integers", s)
			}
			if n > 1<<63 {
				return bad("a valid number")
			}
			return literal{v: Uint(-n), neg: n != 0}, nil
		}
		n, ok := parseUint(s)
		if !ok {
			return bad("a valid number")
		}
		if f.Type == typeInt {
			return literal{v: Uint(n)}, nil
		}
		if f.Bits > 0 && f.Bits < 64 && n>>uint(f.Bits) != 0 {
			return literal{}, p.errTok(t, "%s does not fit in %s (%d bits)", s, f.name, f.Bits)
		}
		return literal{v: Uint(n)}, nil
	case TypeBool:
		switch strings.ToLower(s) {
		case "true":
			return literal{v: Bool(true)}, nil
		case "false":
			return literal{v: Bool(false)}, nil
		}
		n, ok := parseUint(s)
		if !ok {
			return bad("true, false or a number")
		}
		return literal{v: Bool(n != 0)}, nil
	case TypeFloat:
		// As tshark 4.0: digits, a point, digits; no exponent, no
		// leading point.
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || strings.ContainsAny(s, "_xXpPeEiInN") || strings.HasPrefix(strings.TrimPrefix(s, "-"), ".") {
			return bad("a valid decimal")
		}
		return literal{v: Float(x)}, nil
	case TypeIPv4, TypeIPv6:
		if pf, err := netip.ParsePrefix(s); err == nil && pf.Addr().Is4() == (f.Type == TypeIPv4) {
			return literal{v: Addr(pf.Masked().Addr()), prefix: true, bits: pf.Bits()}, nil
		}
		if a, err := netip.ParseAddr(s); err == nil && a.Is4() == (f.Type == TypeIPv4) && a.Zone() == "" {
			return literal{v: Addr(a)}, nil
		}
		return bad(f.Type.an())
	case TypeEther:
		b, ok := parseBytes(s)
		if !ok && len(s) == 14 && s[4] == '.' && s[9] == '.' {
			// Cisco's xxxx.xxxx.xxxx
			b, ok = parseBytes(s[:4] + s[5:9] + s[10:])
		}
		if !ok || len(b) != 6 {
			return bad("a MAC address")
		}
		return literal{v: Ether(b)}, nil
	case TypeString:
		return literal{v: String(s)}, nil
	case TypeBytes:
		if t.kind == tString {
			return literal{v: String(s)}, nil
		}
		b, ok := parseBytes(s)
		if !ok {
			return bad("a byte string (aa:bb:cc)")
		}
		return literal{v: Bytes(b)}, nil
	}
	return literal{}, p.errTok(t, "%s cannot be compared", f.name)
}

// parseUint reads a decimal, 0x hexadecimal, 0 octal or 0b binary
// number, as Wireshark does.
func parseUint(s string) (uint64, bool) {
	if s == "" || strings.Contains(s, "_") {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 0, 64)
	return n, err == nil
}

// parseBytes reads bytes written as hex pairs separated by ':', '-' or
// '.' (one kind in a string; a pair may be one digit), or as one run of
// hex digits of even length.
func parseBytes(s string) ([]byte, bool) {
	sep := strings.IndexAny(s, ":-.")
	if sep < 0 {
		if len(s) == 0 || len(s)%2 != 0 {
			return nil, false
		}
		b := make([]byte, 0, len(s)/2)
		for i := 0; i < len(s); i += 2 {
			hi, lo := hexVal(s[i]), hexVal(s[i+1])
			if hi < 0 || lo < 0 {
				return nil, false
			}
			b = append(b, byte(hi<<4|lo))
		}
		return b, true
	}
	parts := strings.Split(s, s[sep:sep+1])
	b := make([]byte, 0, len(parts))
	for _, part := range parts {
		v := 0
		if len(part) == 0 || len(part) > 2 {
			return nil, false
		}
		for i := 0; i < len(part); i++ {
			d := hexVal(part[i])
			if d < 0 {
				return nil, false
			}
			v = v<<4 | d
		}
		b = append(b, byte(v))
	}
	return b, true
}
