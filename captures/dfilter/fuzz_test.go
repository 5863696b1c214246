package dfilter

import (
	"strings"
	"testing"
)

// FuzzCompile: any expression compiles or fails with an *Error whose
// place lies in the expression; what compiles matches without panicking.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"infiniband.bth.psn >= 100 && ip.src == 192.0.2.1",
		"rpcordma.rdma_handle in {0xb66, 1..3 7}",
		"!(ip.src == 192.0.2.0/24) || eth.src == 52:54:00:12:34:02",
		`rpc.auth.machinename matches "^cl" and rpc.auth.machinename contains "\x41\101"`,
		`rpc.auth.machinename == r"a\"b"`,
		"infiniband.immdt == 00:00:00:01 or frame.time_relative < 0.5",
		"ip.src != ip.dst", "ip.src in {1.2.3.4..1.2.3.9}", "((ip", "ip.src[0]", "\"",
		// the general path: slices, layers, functions, arithmetic, bytes
		"ip[-3:] == \"nfs\" && eth.src[1-2,0] == 54:00:52", "ip.src#[1-2] == 10.0.0.1",
		"len(ip) > 2 * 3 - 1", "count(rpcordma.rdma_handle) % 2 == 1",
		"max(frame.len, frame.len) / 0 == -frame.len", "abs(-frame.len) & 0x3e",
		`upper(rpc.auth.machinename) matches "^CL"`, `string(ip.src) contains "192"`,
		"infiniband.bth.opcode in {infiniband.bth.psn, 'a'..'z', -4}", "ip contains 'n'",
		"frame.time_relative + 2.0 >= 0.5", "eth.src == 5254.0012.3402",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		flt, err := Compile(expr, schema)
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("%q: %T %v", expr, err, err)
			}
			if e.Pos < 0 || e.End < e.Pos || e.End > len(expr) {
				t.Fatalf("%q: place %d..%d outside the expression", expr, e.Pos, e.End)
			}
			if !strings.Contains(e.Caret(), "^") {
				t.Fatalf("%q: no caret", expr)
			}
			return
		}
		flt.Match(pkt)
		flt.Match(empty)
	})
}
