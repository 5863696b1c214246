// Package dfilter is a display-filter language with Wireshark's syntax
// (as tshark 4.0 reads it) for the fields a Schema names. It knows no
// protocol: the capture decoder supplies the field names, their types and,
// for each packet, every occurrence of a field's value (a Record).
//
// What it reads:
//
//	field                          the field is present (a bare boolean
//	                               field too, as in Wireshark)
//	a OP b                         == != === !== ~= < <= > >=, or the words
//	                               eq ne all_eq any_ne gt ge lt le (any_eq,
//	                               all_ne are == and !=); booleans are
//	                               ordered (false < true)
//	a in {v1, v2, a..b, field}     a member of the set: elements separated
//	                               by commas (none after the last), ranges
//	                               inclusive, fields; not in, !in
//	a contains value               a substring (strings, bytes, protocols)
//	a matches "regexp"             a regular expression, case-insensitive
//	                               like Wireshark's (~ is the same)
//	! not && and || or ( )         logic; && binds tighter than ||
//
// where a side is a field, a value, or made of them:
//
//	field[i:n] [i-j] [i] [:n] [i:] the bytes of an address, byte string,
//	                               string or protocol; i < 0 counts from
//	                               the end; ranges joined by commas
//	field#N, field#[a-b]           the occurrences in layer N (a..b)
//	len() count() upper() lower()  Wireshark 4.0's functions; len of a
//	string() max() min() abs()     protocol is its length in bytes
//	+ - * / % &                    integer (signed) or decimal arithmetic;
//	                               & binds loosest, then + -, then * / %;
//	                               a bare "a & 4" tests for non-zero
//	-a +a                          signs
//
// A protocol or header (frame, eth, ip, infiniband.bth) compared with a
// byte string, sliced or searched with contains is its bytes in the
// packet, when the Schema marks it Raw and the Record is a RawRecord. The
// layer of an occurrence comes from a Layered Record; without it, all are
// in layer 1.
//
// Values: integers in decimal, 0x hex, 0 octal, 0b binary, negative ones
// too (an unsigned field equals none); character constants ('a',
// '\x04'); true/false (any case) or a number for booleans; IPv4 and IPv6
// addresses, with a /prefix for a subnet; MAC addresses
// (52:54:00:12:34:02, 52-54-…, 525400123402, 5254.0012.3402); byte
// strings (aa:bb:cc); "quoted strings" with C escapes; decimals for times
// (digits and a point: no exponent, as tshark 4.0). An unquoted word that
// is not a field is a value.
//
// A field that occurs several times in a packet matches a comparison if
// any occurrence does; != asks that none equals (all_ne), !== and ~= for
// one that differs (any_ne), === for all to be equal. A comparison with a
// missing field is false, != too: as in tshark 4.0, "a != 1" is not
// "!(a == 1)", which is true where a is absent.
//
// Tests of a plain field against a value, a set of values or a field of
// its type compile to their own nodes; the general operands (slices,
// layers, functions, arithmetic) only where they are written, so a filter
// without them costs what it did.
//
// Not read: macros, field references ($), raw fields (@), arithmetic
// grouping in { }, and value strings (infiniband.bth.opcode == "RC Send
// Only"): Compile says so at the column where they start.
//
// Errors name the column (from 1) of the mistake: *Error, whose Caret
// draws the expression with a caret line under it.
package dfilter
