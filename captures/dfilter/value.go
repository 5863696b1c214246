package dfilter

import (
	"net/netip"
	"strings"
)

// Type is the type of a field's values.
type Type uint8

// Types.
const (
	TypeNone   Type = iota // a protocol or marker: presence only
	TypeUint               // an unsigned integer of Field.Bits bits
	TypeBool               // true or false
	TypeFloat              // a decimal (seconds)
	TypeIPv4               // an IPv4 address
	TypeIPv6               // an IPv6 address
	TypeEther              // a MAC address
	TypeString             // text
	TypeBytes              // a byte string
)

var typeNames = [...]string{"protocol", "unsigned integer", "boolean", "decimal", "IPv4 address", "IPv6 address", "MAC address", "string", "byte string"}

// an is the type's name with its article: "an unsigned integer".
func (t Type) an() string {
	s := t.String()
	if strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func (t Type) String() string {
	if t == typeInt {
		return "signed integer"
	}
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "?"
}

// Value is one occurrence of a field. Which member holds it depends on
// the field's Type: U (Uint; Bool as 0 or 1; Ether in its low 48 bits),
// F (Float), A (IPv4, IPv6), S (String, Bytes).
type Value struct {
	U uint64
	F float64
	A netip.Addr
	S string
}

// Uint, Bool, Float, Addr, Ether, String and Bytes make Values.
func Uint(v uint64) Value     { return Value{U: v} }
func Float(v float64) Value   { return Value{F: v} }
func Addr(a netip.Addr) Value { return Value{A: a} }
func String(s string) Value   { return Value{S: s} }
func Bytes(b []byte) Value    { return Value{S: string(b)} }
func Ether(mac []byte) Value  { return Value{U: macUint(mac)} }
func Bool(v bool) Value {
	if v {
		return Value{U: 1}
	}
	return Value{}
}
func macUint(m []byte) uint64 {
	var u uint64
	for _, c := range m {
		u = u<<8 | uint64(c)
	}
	return u
}

// Field is what a Schema says of a field name.
type Field struct {
	ID   int  // the Schema's number for it, passed to Record.Values
	Type Type // of its values
	Bits int  // TypeUint: the width, which bounds the values it can hold
	Raw  bool // TypeNone: the Record is a RawRecord that gives its bytes
}

// Schema names the fields a filter may use.
type Schema interface {
	// Lookup returns the field called name.
	Lookup(name string) (Field, bool)
	// Names lists every field name, for did-you-mean suggestions.
	Names() []string
}

// Record is one packet: the values of its fields.
type Record interface {
	// Values appends to dst every occurrence of field id in the packet,
	// in order; none when the field is absent. A TypeNone field that is
	// present has one (zero) Value.
	Values(id int, dst []Value) []Value
}

// compare orders two values of type t: -1, 0 or 1.
func compare(t Type, a, b Value) int {
	switch t {
	case TypeFloat:
		switch {
		case a.F < b.F:
			return -1
		case a.F > b.F:
			return 1
		}
		return 0
	case TypeIPv4, TypeIPv6:
		return a.A.Compare(b.A)
	case TypeString, TypeBytes:
		return strings.Compare(a.S, b.S)
	}
	switch {
	case a.U < b.U:
		return -1
	case a.U > b.U:
		return 1
	}
	return 0
}
