package dfilter

import (
	"net/netip"
	"sort"
	"strings"
	"testing"
)

// testSchema is a few fields of each type.
type testSchema map[string]Field

var schema = testSchema{
	"ip":                    {ID: 0, Type: TypeNone, Raw: true},
	"rpc":                   {ID: 12, Type: TypeNone},
	"frame.len":             {ID: 13, Type: TypeUint, Bits: 32},
	"udp.length":            {ID: 14, Type: TypeUint, Bits: 16},
	"rpcordma":              {ID: 15, Type: TypeNone},
	"ip.src":                {ID: 1, Type: TypeIPv4},
	"ip.dst":                {ID: 2, Type: TypeIPv4},
	"infiniband.bth.psn":    {ID: 3, Type: TypeUint, Bits: 24},
	"infiniband.bth.se":     {ID: 4, Type: TypeBool},
	"rpcordma.rdma_handle":  {ID: 5, Type: TypeUint, Bits: 32},
	"rpc.auth.machinename":  {ID: 6, Type: TypeString},
	"eth.src":               {ID: 7, Type: TypeEther},
	"frame.time_relative":   {ID: 8, Type: TypeFloat},
	"infiniband.immdt":      {ID: 9, Type: TypeBytes},
	"ipv6.src":              {ID: 10, Type: TypeIPv6},
	"infiniband.bth.opcode": {ID: 11, Type: TypeUint, Bits: 8},
}

func (s testSchema) Lookup(name string) (Field, bool) { f, ok := s[name]; return f, ok }
func (s testSchema) Names() []string {
	var n []string
	for k := range s {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// rec is a packet: field ID to its occurrences.
type rec map[int][]Value

func (r rec) Values(id int, dst []Value) []Value { return append(dst, r[id]...) }

// A protocol's bytes are at its ID+1000; the layers of a field's values
// at its ID+2000 (a field without them is in layer 1).
func (r rec) Raw(id int, dst []Value) []Value { return append(dst, r[id+1000]...) }
func (r rec) Layers(id int, dst []int) []int {
	l, ok := r[id+2000]
	for i := range r[id] {
		if ok {
			dst = append(dst, int(l[i].U))
		} else {
			dst = append(dst, 1)
		}
	}
	return dst
}

func ip(s string) Value { return Addr(netip.MustParseAddr(s)) }

var pkt = rec{
	0:  {{}},
	2:  {ip("192.0.2.2")},
	3:  {Uint(150)},
	4:  {Bool(false)},
	5:  {Uint(0xcf3), Uint(0xb66), Uint(0xacd)},
	6:  {String("client.example")},
	7:  {Ether([]byte{0x52, 0x54, 0, 0x12, 0x34, 2})},
	8:  {Float(0.25)},
	9:  {Bytes([]byte{0, 0, 0, 1})},
	11: {Uint(4)},
	13: {Uint(62)},
	14: {Uint(28)},
	// ip's bytes; ip.src is in layers 1 and 2 (a tunnel)
	1000: {Bytes([]byte{0x45, 0, 0, 0x30, 'n', 'f', 's'})},
	1:    {ip("192.0.2.1"), ip("10.0.0.1")},
	2001: {Uint(1), Uint(2)},
}

var empty = rec{}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		expr       string
		pkt, empty bool // the result on pkt, and on a packet with no fields
	}{
		{"", true, true},
		{"ip", true, false},
		{"!ip", false, true},
		{"not ip", false, true},
		{"infiniband.bth.se", true, false}, // a bare boolean is presence
		{"infiniband.bth.se == 0", true, false},
		{"infiniband.bth.se == False", true, false},
		{"infiniband.bth.se == true", false, false},
		{"infiniband.bth.se != 1", true, false},
		{"infiniband.bth.psn >= 100 && ip.src == 192.0.2.1", true, false},
		{"infiniband.bth.psn ge 100 and ip.src eq 192.0.2.2", false, false},
		{"infiniband.bth.psn > 150 || ip.dst == 192.0.2.2", true, false},
		{"infiniband.bth.psn < 0x97 and infiniband.bth.psn le 0226", true, false},
		{"infiniband.bth.psn == 0b10010110", true, false},
		{"ip.src == 192.0.2.0/24", true, false},
		{"ip.src == 192.0.3.0/24", false, false},
		{"ip.src != 192.0.3.0/24", true, false},
		{"ip.src in {192.0.2.0/31, 10.0.0.1}", true, false},
		{"ip.src in {192.0.2.0..192.0.2.9}", true, false},
		// What Wireshark 4.0 reads beyond the plain tests.
		{"infiniband.bth.se > 0", false, false},
		{"infiniband.bth.se < 1", true, false},
		{`ip contains "nfs"`, true, false},
		{"ip contains 30:6e", true, false},
		{"ip contains 31", false, false},
		{"ip[0] == 45", true, false},
		{"ip[-3:] == \"nfs\"", true, false},
		{"ip[1-3] == 00:00:30", true, false},
		{"ip[:2] == 45:00", true, false},
		{"ip[4:] == 6e:66:73", true, false},
		{"ip[0:2,4] == 45:00:6e", true, false},
		{"ip[6:2] == 73", false, false}, // beyond the end: no value
		{"eth.src[0:3] == 52:54:00", true, false},
		{"eth.src[-1] == 02", true, false},
		{"ip.src[0] == c0", true, false},
		{"ip.src#1 == 192.0.2.1", true, false},
		{"ip.src#2 == 192.0.2.1", false, false},
		{"ip.src#2 == 10.0.0.1", true, false},
		{"ip.src#[1-2] == 10.0.0.1", true, false},
		{"ip.src#[2:1] == 192.0.2.1", false, false},
		{"ip.src#3", false, false},
		{"ip#1 contains \"nfs\" && rpc#1", false, false},
		{"ip#1 contains \"nfs\" && !rpc#1", true, false},
		{"infiniband.bth.opcode == 'a'", false, false},
		{"infiniband.bth.opcode == '\\x04'", true, false},
		{"infiniband.bth.opcode == +4", true, false},
		{"infiniband.bth.opcode == -4", false, false},
		{"infiniband.bth.opcode != -4", true, false},
		// tshark 4.0: an unsigned value and a negative number only differ
		{"infiniband.bth.opcode > -4", false, false},
		{"infiniband.bth.opcode < -4", false, false},
		{"infiniband.bth.opcode#1 <= -4", false, false},
		{"infiniband.bth.opcode#1 != -4", true, false},
		{"infiniband.bth.opcode in {-4, 4}", true, false},
		{"infiniband.bth.opcode in {-4..5}", false, false},
		{"-frame.len < -4", true, false}, // arithmetic is signed
		{"infiniband.bth.opcode in {infiniband.bth.psn, 4}", true, false},
		{"infiniband.bth.psn in {infiniband.bth.opcode}", false, false},
		{"eth.src == 5254.0012.3402", true, false},
		{"len(eth.src) == 6", true, false},
		{"len(ip) == 7", true, false},
		{"len(ip.src) == 4", true, false},
		{"len(infiniband.bth.psn) == 3", true, false},
		{"len(rpc.auth.machinename) == 14", true, false},
		{"count(rpcordma.rdma_handle) == 3", true, false},
		{"count(rpcordma.rdma_handle) == 0", false, false},
		{`upper(rpc.auth.machinename) == "CLIENT.EXAMPLE"`, true, false},
		{"frame.len == 2 * 31", true, false},
		{`string(infiniband.bth.psn) == "150"`, true, false},
		{`string(ip.src) contains "192"`, true, false},
		{"max(rpcordma.rdma_handle) == 0xcf3", true, false},
		{"min(rpcordma.rdma_handle, rpcordma.rdma_handle) == 0xacd", true, false},
		{"abs(-frame.len) == 62", true, false},
		{"frame.len - 4 == 58", true, false},
		{"frame.len - 100 < 0", true, false},
		{"-frame.len == -62", true, false},
		{"+frame.len == 62", true, false},
		{"frame.len * 2 == 124", true, false},
		{"frame.len / 2 == 31", true, false},
		{"frame.len % 10 == 2", true, false},
		{"frame.len / 0 == 0", false, false},
		{"frame.len + 2 * 3 == 68", true, false},
		{"frame.len + frame.len == 124", true, false},
		{"infiniband.bth.opcode & 0x4", true, false},
		{"infiniband.bth.opcode & 0x10", false, false},
		{"infiniband.bth.opcode & 0x6 == 4", true, false},
		{"infiniband.bth.opcode & 0x4 + 1 == 4", true, false}, // & binds loosest
		{"frame.time_relative + 0.5 > 0.7", true, false},
		{"frame.time_relative - 0.5 < -0.2", true, false},
		{"frame.len > udp.length", true, false}, // integers of any width compare
		{"infiniband.bth.opcode in {4, 17}", true, false},
		{"infiniband.bth.opcode in {0..3, 5..255}", false, false},
		{"infiniband.bth.opcode not in {0..3, 5..255}", true, true},
		{"infiniband.bth.opcode !in {4}", false, true},
		// Several occurrences: == any, != none, === all, !== any differs.
		{"rpcordma.rdma_handle == 0xb66", true, false},
		{"rpcordma.rdma_handle != 0xb66", false, false},
		{"!(rpcordma.rdma_handle == 0xb66)", false, true},
		{"rpcordma.rdma_handle != 0x1", true, false},
		{"rpcordma.rdma_handle ~= 0xb66", true, false},
		{"rpcordma.rdma_handle !== 0xb66", true, false},
		{"rpcordma.rdma_handle any_ne 0xb66", true, false},
		{"rpcordma.rdma_handle === 0xb66", false, false},
		{"rpcordma.rdma_handle all_eq 0xb66", false, false},
		{"rpcordma.rdma_handle > 0xcf0", true, false},
		{"rpc.auth.machinename contains \"client\"", true, false},
		{"rpc.auth.machinename contains \"CLIENT\"", false, false},
		{"rpc.auth.machinename matches \"^CL.*EXAMPLE$\"", true, false},
		{"rpc.auth.machinename ~ \"ex.m\"", true, false},
		{`rpc.auth.machinename == "client\x2eexample"`, true, false},
		{`rpc.auth.machinename == r"client.example"`, true, false},
		{"eth.src == 52:54:00:12:34:02", true, false},
		{"eth.src == 52-54-00-12-34-02", true, false},
		{"eth.src == 525400123402", true, false},
		{"frame.time_relative > 0.2 && frame.time_relative < 1", true, false},
		{"infiniband.immdt == 00:00:00:01", true, false},
		{"ip.src == ip.dst", false, false},
		{"ip.src != ip.dst", true, false},
		{"ip.src < ip.dst", true, false},
		{"(ip or ipv6.src) && !(infiniband.bth.psn == 1 || rpc.auth.machinename)", false, false},
		{"!!ip", true, false},
	} {
		f, err := Compile(c.expr, schema)
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if got := f.Match(pkt); got != c.pkt {
			t.Errorf("%q on the packet: %v, want %v", c.expr, got, c.pkt)
		}
		if got := f.Match(empty); got != c.empty {
			t.Errorf("%q on an empty packet: %v, want %v", c.expr, got, c.empty)
		}
	}
}

// && binds tighter than ||, as in Wireshark.
func TestPrecedence(t *testing.T) {
	f, err := Compile("ip.src == 10.9.9.9 || ip.src == 192.0.2.1 && infiniband.bth.psn == 1", schema)
	if err != nil {
		t.Fatal(err)
	}
	if f.Match(pkt) {
		t.Error("a || b && c read as (a || b) && c")
	}
	g, _ := Compile("infiniband.bth.psn == 1 && ip.src == 10.9.9.9 || ip.src == 192.0.2.1", schema)
	if !g.Match(pkt) {
		t.Error("a && b || c read as a && (b || c)")
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		expr, err string
		col       int
	}{
		{"infiniband.bth.psnn >= 1", `unknown field "infiniband.bth.psnn" (did you mean infiniband.bth.psn?)`, 1},
		{"ip.src == 192.0.2.1 && infiniband.bth.psnn", `unknown field "infiniband.bth.psnn" (did you mean infiniband.bth.psn?)`, 24},
		{"ip.src == ip.dts", `unknown field "ip.dts" (did you mean ip.dst?)`, 11},
		{"nosuch", `unknown field "nosuch"`, 1},
		{"infiniband.bth.psn ==", "the expression ends too early", 22},
		{"infiniband.bth.psn == 1 &&", "the expression ends too early", 27},
		{"infiniband.bth.psn == 1 and or 2", `"or" was unexpected here`, 29},
		{"infiniband.bth.psn = 1", `"=" is not an operator: use "==" or "eq"`, 20},
		{"infiniband.bth.psn == x1", `"x1" is not a valid number (infiniband.bth.psn is an unsigned integer)`, 23},
		{"infiniband.bth.psn == 0x1000000", "0x1000000 does not fit in infiniband.bth.psn (24 bits)", 23},
		{"infiniband.bth.opcode == 256", "256 does not fit in infiniband.bth.opcode (8 bits)", 26},
		{"infiniband.bth.psn == \"1\"", "infiniband.bth.psn is an unsigned integer: it cannot be compared with a string", 23},
		{"rpc == 1", "rpc is a protocol whose bytes rdmalab does not keep: it can only be tested for presence", 1},
		{"infiniband.bth.opcode in {4 17}", `"17" was unexpected here`, 29},
		{"infiniband.bth.opcode in {4, 17,}", `"}" was unexpected here`, 33},
		{"infiniband.bth.opcode in {4,, 17}", `"," was unexpected here`, 29},
		{"frame.time_relative > 1e-3", `"1e-3" is not a valid decimal (frame.time_relative is a decimal)`, 23},
		{"frame.time_relative > .5", `".5" is not a valid decimal (frame.time_relative is a decimal)`, 23},
		{"infiniband.bth.psn[0] == 1", "infiniband.bth.psn is an unsigned integer: it cannot be sliced", 19},
		{"eth.src[x] == 1", `"[x]" is not a slice: bad offset (write [i], [i:n], [i-j], [:n] or [i:])`, 8},
		{"eth.src[0 == 1", "this [ is not closed", 8},
		{"ip.src#x == 1.2.3.4", "# wants a layer number (ip.src#2) or a range (#[1-2])", 7},
		{"upper(ip.src) == 1", "upper() takes a string field; ip.src is an IPv4 address", 7},
		{"count(4) == 1", "only a field can be the argument of count()", 7},
		{`string(infiniband.bth.se) == "1"`, "string() of a boolean is not supported (numbers, addresses and strings are)", 8},
		{"rpc#1 == 1", "rpc#1 is a protocol whose bytes rdmalab does not keep: it can only be tested for presence", 1},
		{"rpc#1 in {1}", "rpc#1 is a protocol whose bytes rdmalab does not keep: it can only be tested for presence", 1},
		{"len(ip[1:]) == 1", "only a field can be the argument of len()", 5},
		{`lower(upper(rpc.auth.machinename)) == "a"`, "only a field can be the argument of lower()", 7},
		{"nosuch(ip) == 1", `"nosuch" is not a function (Wireshark 4.0 has len, count, upper, lower, string, max, min, abs)`, 1},
		{"max(frame.len, udp.length) == 1", "the arguments of max() must have the same type", 16},
		{"ip.src + 1 == 1", "+ takes numbers: ip.src is an IPv4 address", 8},
		{"infiniband.bth.opcode == 'ab'", "a character constant is one character in single quotes ('a', '\\x04')", 26},
		{"ip.src == 'a'", "ip.src is an IPv4 address: it cannot be compared with a character", 11},
		{"1 == 2", "the left side of == must be a field or a function, not 1", 1},
		{"62 == frame.len", "the left side of == must be a field or a function, not 62", 1},
		{"2 * frame.len == 124", "arithmetic on the left side must start with a field, not a constant", 1},
		{"frame.time_relative * 2 > 1", "* takes integers: a time takes + and - only", 21},
		{"frame.len == -4294967234", "-4294967234 is below the 32-bit integers", 14},
		{"ip.src == 192.0.2.300", `"192.0.2.300" is not an IPv4 address (ip.src is an IPv4 address)`, 11},
		{"(ip", "this ( is not closed", 1},
		{"ip)", `")" was unexpected here`, 3},
		{"infiniband.bth.opcode in {4", "this { is not closed", 26},
		{"infiniband.bth.opcode in {}", "the set is empty", 27},
		{"infiniband.bth.opcode in 4", "a set in { } must follow in", 26},
		{"rpc.auth.machinename == \"abc", `the string is not closed (a " is missing)`, 25},
		{"rpc.auth.machinename matches \"(\"", "bad regular expression: error parsing regexp: missing closing ): `(?i)(`", 30},
		{"ip.src contains 1", "contains takes a string, bytes or a protocol; ip.src is an IPv4 address", 8},
		{"ip.src == 1.2.3.4 ^^ ip", "xor is not supported", 19},
		{"ip.src == ip.src ==", `"==" was unexpected here`, 18},
		{"ip.src == infiniband.bth.psn", "ip.src is an IPv4 address, infiniband.bth.psn is an unsigned integer: they cannot be compared", 11},
		{"ip.src == 10.0.0.1 ~ \"x\"", `"~" was unexpected here`, 20},
		{"ip § 1", `unexpected character '§'`, 4},
	} {
		_, err := Compile(c.expr, schema)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%q: error %v, want *Error %q", c.expr, err, c.err)
			continue
		}
		if e.Msg != c.err || e.Column() != c.col {
			t.Errorf("%q:\n got column %d: %s\nwant column %d: %s", c.expr, e.Column(), e.Msg, c.col, c.err)
		}
		if !strings.HasPrefix(e.Error(), "column ") {
			t.Errorf("%q: %q does not name the column", c.expr, e.Error())
		}
	}
}

func TestCaret(t *testing.T) {
	_, err := Compile("ip.src == 192.0.2.1 && infiniband.bth.psnn >= 100", schema)
	e := err.(*Error)
	want := "ip.src == 192.0.2.1 && infiniband.bth.psnn >= 100\n" +
		"                       ^~~~~~~~~~~~~~~~~~~"
	if e.Caret() != want {
		t.Errorf("caret:\n%s\nwant:\n%s", e.Caret(), want)
	}
	if e.Error() != `column 24: unknown field "infiniband.bth.psnn" (did you mean infiniband.bth.psn?)` {
		t.Errorf("error: %s", e)
	}
}

// A nil filter passes everything, and the expression is kept.
func TestNilAndString(t *testing.T) {
	var f *Filter
	if !f.Match(pkt) {
		t.Error("nil filter refused a packet")
	}
	g, _ := Compile(" ip ", schema)
	if g.String() != " ip " {
		t.Errorf("String %q", g.String())
	}
}
