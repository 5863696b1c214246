package dfilter

import "testing"

// BenchmarkMatch is Match on one packet: the plain tests (field against
// a value or a set, contains) and the general path (slices, functions,
// arithmetic) side by side.
func BenchmarkMatch(b *testing.B) {
	p := rec{
		0: {{}}, 1: {ip("192.0.2.1")}, 2: {ip("192.0.2.2")}, 3: {Uint(150)},
		6: {String("client.example")}, 7: {Ether([]byte{0x52, 0x54, 0, 0x12, 0x34, 2})},
		11: {Uint(4)}, 13: {Uint(62)},
	}
	for _, c := range []struct{ name, expr string }{
		{"cmp", "infiniband.bth.psn >= 100 && ip.src == 192.0.2.1"},
		{"set", "infiniband.bth.opcode in {4, 17, 100..110}"},
		{"contains", `rpc.auth.machinename contains "example"`},
		{"fields", "ip.src != ip.dst"},
		{"slice", "eth.src[0:3] == 52:54:00"},
		{"arith", "frame.len - 4 == 58"},
		{"len", "len(rpc.auth.machinename) == 14"},
	} {
		f, err := Compile(c.expr, schema)
		if err != nil {
			if _, ok := err.(*Error); ok {
				continue // not read by this version
			}
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if !f.Match(p) {
					b.Fatal("no match")
				}
			}
		})
	}
}
