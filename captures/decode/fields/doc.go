// Package fields is the field registry: every field a display filter
// (-Y), -T fields and --json name, under Wireshark's names where
// Wireshark has the field (tshark 4.0's names and values) and rdmalab's
// where only the analysis knows it (fields_list.go). Each field reads its
// values from a decoded packet, its frame and its Analysis; package
// dfilter compiles filters against the registry (CompileDisplayFilter).
//
// CompileSelection (filter.go) turns the short forms of decode --filter,
// the REPL's packets and the view's / bar (qp=, opcode=, xid=, rpcs,
// anomalies) into the display filter they mean, for all three. It prints
// nothing: package decode's outputs use it.
package fields
