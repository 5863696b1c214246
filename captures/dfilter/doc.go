// Package dfilter is a display-filter language with Wireshark's syntax
// (as tshark 4.0 reads it) for the fields a Schema names. It knows no
// protocol: the capture decoder supplies the field names, their types and,
// for each packet, every occurrence of a field's value (a Record).
//
// What it reads:
//
//	field                          the field is present (a bare boolean
//	                               field too, as in Wireshark)
//	field OP value                 == != === !== ~= < <= > >=, or the words
//	                               eq ne all_eq any_ne gt ge lt le (any_eq,
//	                               all_ne are == and !=)
//	field OP field                 the two fields compared
//	field in {v1, v2, a..b}        a member of the set (ranges inclusive;
//	                               elements may also be separated by spaces,
//	                               as Wireshark 3 wrote them); not in, !in
//	field contains value           a substring (strings, bytes)
//	field matches "regexp"         a regular expression, case-insensitive
//	                               like Wireshark's (~ is the same)
//	! not && and || or ( )         logic; && binds tighter than ||
//
// Values: integers in decimal, 0x hex, 0 octal, 0b binary; true/false (any
// case) or a number for booleans; IPv4 and IPv6 addresses, with a /prefix
// for a subnet; MAC addresses (52:54:00:12:34:02, 52-54-…, 525400123402);
// byte strings (aa:bb:cc); "quoted strings" with C escapes; decimals for
// times. An unquoted word that is not a field is a value.
//
// A field that occurs several times in a packet matches a comparison if
// any occurrence does; != asks that none equals (all_ne), !== and ~= for
// one that differs (any_ne), === for all to be equal. A comparison with a
// missing field is false, != too: as in tshark 4.0, "a != 1" is not
// "!(a == 1)", which is true where a is absent.
//
// Not read: slices (eth.src[0:3]), functions (len(), upper()), arithmetic,
// layer operators (ip.src#2), macros, and value strings
// (infiniband.bth.opcode == "RC Send Only"): Compile says so at the
// column where they start.
//
// Errors name the column (from 1) of the mistake: *Error, whose Caret
// draws the expression with a caret line under it.
package dfilter
