package live

import (
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"strings"

	"golang.org/x/net/bpf"
)

// The capture filter language is tcpdump's (pcap-filter(7)), the common
// part of it, compiled here because there is no libpcap to do it:
// host, net (A/LEN, a dotted prefix, A mask M), port, portrange, src and
// dst (and "src or dst", "src and dst"), the protocols ether, ip, ip6,
// arp, rarp, tcp, udp, sctp, icmp, icmp6, "proto N" after ether, ip and
// ip6, less and greater, and/or/not (&&, ||, !) and parentheses. As in
// tcpdump, "and" and "or" bind alike, left to right, and an address
// alone repeats the qualifiers before it ("host a or b"). The link is
// Ethernet, untagged (the kernel hands a packet socket its frames with
// the VLAN tag taken off). Everything else (names to resolve, vlan,
// mpls, proto[off:size] accessors, comparisons) is refused with its
// column.

// RoCEFilter is what a live capture keeps unless told otherwise: RoCEv2
// (UDP port 4791) and RoCEv1 (EtherType 0x8915).
const RoCEFilter = "udp port 4791 or ether proto 0x8915"

// FilterError is a capture filter's mistake: Col is the 1-based column
// of the word it is about.
type FilterError struct {
	Col int
	Msg string
}

func (e *FilterError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

const supported = "host, net, port, portrange, src/dst, ether/ip/ip6/arp/rarp/tcp/udp/sctp/icmp/icmp6, proto, less, greater, and/or/not, parentheses"

// node is a filter as a boolean tree over tests of the frame's bytes.
type node struct {
	op   byte // '&', '|', '!', 't' (a test)
	a, b *node
	t    test
}

// test loads a field of the frame, masks it, and compares it.
type test struct {
	load  loadKind
	off   uint32
	size  int // 1, 2, 4
	mask  uint32
	cond  bpf.JumpTest
	val   uint32
	extra *test // portrange: a second comparison of the same load
}

type loadKind uint8

const (
	loadAbs loadKind = iota
	loadInd          // at the IPv4 header's length + off
	loadLen          // the frame's length
)

func and(a, b *node) *node { return &node{op: '&', a: a, b: b} }
func or(a, b *node) *node  { return &node{op: '|', a: a, b: b} }
func not(a *node) *node    { return &node{op: '!', a: a} }
func eq(off uint32, size int, val uint32) *node {
	return &node{op: 't', t: test{off: off, size: size, cond: bpf.JumpEqual, val: val}}
}
func masked(off uint32, size int, mask, val uint32) *node {
	return &node{op: 't', t: test{off: off, size: size, mask: mask, cond: bpf.JumpEqual, val: val}}
}
func anyOf(ns ...*node) *node {
	r := ns[0]
	for _, n := range ns[1:] {
		r = or(r, n)
	}
	return r
}

// Frame offsets on Ethernet.
const (
	offType = 12
	offNet  = 14
)

const (
	typeIP   = 0x0800
	typeARP  = 0x0806
	typeRARP = 0x8035
	typeIP6  = 0x86dd
)

func etherType(t uint32) *node { return eq(offType, 2, t) }

// ipProto is an IPv4 packet of protocol p; ip6Proto an IPv6 one, its
// next header p directly or after a fragment header, as tcpdump has it.
func ipProto(p uint32) *node { return and(etherType(typeIP), eq(offNet+9, 1, p)) }
func ip6Proto(p uint32) *node {
	return and(etherType(typeIP6), or(eq(offNet+6, 1, p), and(eq(offNet+6, 1, 44), eq(offNet+40, 1, p))))
}

// dirs combines a test of the source and one of the destination as dir
// says.
func dirs(dir string, src, dst *node) *node {
	switch dir {
	case "src":
		return src
	case "dst":
		return dst
	case "src and dst":
		return and(src, dst)
	}
	return or(src, dst)
}

// CompileFilter compiles a filter in tcpdump's syntax for Ethernet
// frames; the program returns snaplen for a frame it keeps, 0 for one it
// drops. An empty expr keeps every frame.
func CompileFilter(expr string, snaplen uint32) ([]bpf.Instruction, error) {
	n, err := parseFilter(expr)
	if err != nil {
		return nil, err
	}
	return generate(n, snaplen)
}

func parseFilter(expr string) (*node, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, nil
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, p.errorf(p.toks[p.i], "%q: want and, or or the end", p.toks[p.i].s)
	}
	return n, nil
}

type token struct {
	s   string
	col int
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".:/-_\\", c) >= 0
}

func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '(' || c == ')':
			toks = append(toks, token{s[i : i+1], i + 1})
			i++
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			toks = append(toks, token{s[i : i+2], i + 1})
			i += 2
		case c == '!' && !strings.HasPrefix(s[i:], "!="):
			toks = append(toks, token{"!", i + 1})
			i++
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, token{s[i:j], i + 1})
			i = j
		default:
			what := fmt.Sprintf("%q", c)
			switch c {
			case '[':
				what = "proto[offset:size], reading a packet's bytes,"
			case '=', '<', '>', '!':
				what = "a comparison"
			}
			return nil, &FilterError{i + 1, what + " is not supported (supported: " + supported + ")"}
		}
	}
	return toks, nil
}

type parser struct {
	toks []token
	i    int
	// The qualifiers of the last primitive, which an address alone repeats.
	last *quals
}

type quals struct {
	proto, dir, typ string
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return &FilterError{t.col, fmt.Sprintf(format, args...)}
}

func (p *parser) peek(k int) string {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k].s
	}
	return ""
}

func (p *parser) end() token {
	if len(p.toks) == 0 {
		return token{col: 1}
	}
	t := p.toks[len(p.toks)-1]
	return token{col: t.col + len(t.s)}
}

func (p *parser) next() (token, bool) {
	if p.i >= len(p.toks) {
		return p.end(), false
	}
	p.i++
	return p.toks[p.i-1], true
}

func isAnd(s string) bool { return s == "and" || s == "&&" }
func isOr(s string) bool  { return s == "or" || s == "||" }

// expr is terms joined by and/or, which bind alike, left to right.
func (p *parser) expr() (*node, error) {
	n, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		s := p.peek(0)
		if !isAnd(s) && !isOr(s) {
			return n, nil
		}
		p.i++
		m, err := p.unary()
		if err != nil {
			return nil, err
		}
		if isAnd(s) {
			n = and(n, m)
		} else {
			n = or(n, m)
		}
	}
}

func (p *parser) unary() (*node, error) {
	t, ok := p.next()
	if !ok {
		return nil, p.errorf(t, "the filter ends where a primitive was wanted")
	}
	switch t.s {
	case "not", "!":
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return not(n), nil
	case "(":
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		if c, ok := p.next(); !ok || c.s != ")" {
			return nil, p.errorf(c, "want ) to close the ( at column %d", t.col)
		}
		return n, nil
	case ")", "and", "or", "&&", "||":
		return nil, p.errorf(t, "%q where a primitive was wanted", t.s)
	}
	p.i--
	return p.primitive()
}

var protoQuals = map[string]bool{"ether": true, "ip": true, "ip6": true, "arp": true, "rarp": true, "tcp": true, "udp": true, "sctp": true, "icmp": true, "icmp6": true}
var typeQuals = map[string]bool{"host": true, "net": true, "port": true, "portrange": true, "proto": true}

var unsupportedWords = map[string]bool{"vlan": true, "mpls": true, "pppoed": true, "pppoes": true, "geneve": true, "gateway": true, "broadcast": true, "multicast": true, "decnet": true, "atalk": true, "aarp": true, "ipx": true, "iso": true, "stp": true, "netbeui": true, "fddi": true, "tr": true, "wlan": true, "link": true, "inbound": true, "outbound": true, "ifname": true, "on": true, "rnr": true, "rulenum": true, "reason": true, "rset": true, "ruleset": true, "srnr": true, "subrulenum": true, "action": true, "type": true, "subtype": true, "len": true, "igmp": true, "igrp": true, "pim": true, "vrrp": true, "carp": true, "ah": true, "esp": true, "llc": true, "protochain": true, "sio": true, "opc": true, "dpc": true, "sls": true, "lane": true, "oam": true, "oamf4": true, "metac": true, "bcc": true, "sc": true, "ilmic": true, "connectmsg": true, "metaconnect": true, "vpi": true, "vci": true, "ra": true, "ta": true, "addr1": true, "addr2": true, "addr3": true, "addr4": true, "hsls": true}

// primitive is [proto] [dir] [type] ID, a protocol alone, less/greater N,
// or an ID alone that repeats the qualifiers before it.
func (p *parser) primitive() (*node, error) {
	start := p.toks[p.i]
	if unsupportedWords[start.s] {
		return nil, p.errorf(start, "%q is not supported (supported: %s)", start.s, supported)
	}
	if start.s == "less" || start.s == "greater" {
		p.i++
		t, _ := p.next()
		v, err := parseUint(t.s, 0xffffffff)
		if err != nil {
			return nil, p.errorf(t, "%s wants a length in bytes, not %q", start.s, t.s)
		}
		cond := bpf.JumpLessOrEqual
		if start.s == "greater" {
			cond = bpf.JumpGreaterOrEqual
		}
		return &node{op: 't', t: test{load: loadLen, cond: cond, val: v}}, nil
	}
	var q quals
	qualified := false
	if protoQuals[p.peek(0)] {
		q.proto = p.peek(0)
		p.i++
		qualified = true
	}
	switch {
	case (p.peek(0) == "src" || p.peek(0) == "dst") && (isOr(p.peek(1)) || isAnd(p.peek(1))) && (p.peek(2) == "src" || p.peek(2) == "dst") && p.peek(2) != p.peek(0):
		word := "or"
		if isAnd(p.peek(1)) {
			word = "and"
		}
		q.dir = "src " + word + " dst"
		p.i += 3
		qualified = true
	case p.peek(0) == "src" || p.peek(0) == "dst":
		q.dir = p.peek(0)
		p.i++
		qualified = true
	}
	if typeQuals[p.peek(0)] {
		q.typ = p.peek(0)
		p.i++
		qualified = true
	}
	if !qualified {
		// An ID alone repeats the last primitive's qualifiers.
		if p.last == nil {
			return nil, p.errorf(start, "%q alone: say host %s, net %s or port %s", start.s, start.s, start.s, start.s)
		}
		q = *p.last
	} else if q.dir == "" && q.typ == "" {
		// A protocol alone, unless an ID follows ("ether 00:11:...").
		if s := p.peek(0); s == "" || s == ")" || isAnd(s) || isOr(s) {
			p.last = nil
			return protoAlone(q.proto), nil
		}
	}
	if q.typ == "" {
		q.typ = "host"
	}
	id, ok := p.next()
	if !ok || id.s == ")" || isAnd(id.s) || isOr(id.s) || id.s == "(" || id.s == "!" || id.s == "not" {
		return nil, p.errorf(id, "%s wants a value after it", strings.TrimSpace(q.proto+" "+q.dir+" "+q.typ))
	}
	p.last = &q
	return p.value(q, id)
}

func protoAlone(proto string) *node {
	switch proto {
	case "ether":
		return &node{op: 't', t: test{load: loadLen, cond: bpf.JumpGreaterOrEqual, val: 0}} // every frame
	case "ip":
		return etherType(typeIP)
	case "ip6":
		return etherType(typeIP6)
	case "arp":
		return etherType(typeARP)
	case "rarp":
		return etherType(typeRARP)
	case "icmp":
		return ipProto(1)
	case "icmp6":
		return ip6Proto(58)
	}
	n := transport[proto]
	return or(ipProto(n), ip6Proto(n))
}

var transport = map[string]uint32{"tcp": 6, "udp": 17, "sctp": 132}

func parseUint(s string, max uint64) (uint32, error) {
	v, err := strconv.ParseUint(s, 0, 32)
	if err != nil || v > max {
		return 0, fmt.Errorf("bad number")
	}
	return uint32(v), nil
}

// value is the primitive of qualifiers q and ID id.
func (p *parser) value(q quals, id token) (*node, error) {
	switch q.typ {
	case "port", "portrange":
		return p.port(q, id)
	case "proto":
		return p.proto(q, id)
	case "net":
		return p.net(q, id)
	}
	// host
	if q.proto == "ether" {
		mac, err := net.ParseMAC(id.s)
		if err != nil || len(mac) != 6 {
			return nil, p.errorf(id, "ether host wants a MAC address (00:11:22:33:44:55), not %q", id.s)
		}
		at := func(off uint32) *node {
			return and(eq(off+2, 4, binary.BigEndian.Uint32(mac[2:])), eq(off, 2, uint32(binary.BigEndian.Uint16(mac))))
		}
		return dirs(q.dir, at(6), at(0)), nil
	}
	ip := net.ParseIP(id.s)
	if ip == nil {
		if _, err := net.ParseMAC(id.s); err == nil {
			return nil, p.errorf(id, "%q is a MAC address: say ether host %s", id.s, id.s)
		}
		return nil, p.errorf(id, "%q is not an address: give an IPv4 or IPv6 address (host names are not resolved)", id.s)
	}
	return p.hostNet(q, id, ip, nil)
}

// hostNet tests an address (mask nil) or a network.
func (p *parser) hostNet(q quals, id token, ip net.IP, mask net.IPMask) (*node, error) {
	if ip4 := ip.To4(); ip4 != nil {
		var m uint32 = 0xffffffff
		if mask != nil {
			m = binary.BigEndian.Uint32(mask[len(mask)-4:])
		}
		a := binary.BigEndian.Uint32(ip4) & m
		cmp := func(off uint32) *node {
			if m == 0xffffffff {
				return eq(off, 4, a)
			}
			return masked(off, 4, m, a)
		}
		var alts []*node
		switch q.proto {
		case "", "ip":
			alts = append(alts, and(etherType(typeIP), dirs(q.dir, cmp(offNet+12), cmp(offNet+16))))
		}
		switch q.proto {
		case "", "arp", "rarp":
			types := or(etherType(typeARP), etherType(typeRARP))
			if q.proto == "arp" {
				types = etherType(typeARP)
			} else if q.proto == "rarp" {
				types = etherType(typeRARP)
			}
			alts = append(alts, and(types, dirs(q.dir, cmp(offNet+14), cmp(offNet+24))))
		}
		if alts == nil {
			return nil, p.errorf(id, "%s %s: an IPv4 address goes with ip, arp or rarp", q.proto, q.typ)
		}
		return anyOf(alts...), nil
	}
	if q.proto != "" && q.proto != "ip6" {
		return nil, p.errorf(id, "%s %s: an IPv6 address goes with ip6", q.proto, q.typ)
	}
	if mask == nil {
		mask = net.CIDRMask(128, 128)
	}
	cmp := func(off uint32) *node {
		var n *node
		for w := 0; w < 4; w++ {
			m := binary.BigEndian.Uint32(mask[4*w:])
			if m == 0 {
				continue
			}
			a := binary.BigEndian.Uint32(ip[4*w:]) & m
			t := eq(off+uint32(4*w), 4, a)
			if m != 0xffffffff {
				t = masked(off+uint32(4*w), 4, m, a)
			}
			if n == nil {
				n = t
			} else {
				n = and(n, t)
			}
		}
		if n == nil {
			return etherType(typeIP6)
		}
		return n
	}
	return and(etherType(typeIP6), dirs(q.dir, cmp(offNet+8), cmp(offNet+24))), nil
}

func (p *parser) net(q quals, id token) (*node, error) {
	if q.proto == "ether" {
		return nil, p.errorf(id, "ether net is not a thing: ether host takes a MAC address")
	}
	if ip, n, err := net.ParseCIDR(id.s); err == nil {
		if !ip.Equal(n.IP) {
			return nil, p.errorf(id, "%s has bits outside its prefix (the network is %s)", id.s, n)
		}
		return p.hostNet(q, id, n.IP, n.Mask)
	}
	if p.peek(0) == "mask" {
		p.i++
		mt, _ := p.next()
		ip, m := net.ParseIP(id.s).To4(), net.ParseIP(mt.s).To4()
		if ip == nil || m == nil {
			return nil, p.errorf(mt, "net A mask M wants two IPv4 addresses")
		}
		return p.hostNet(q, id, ip, net.IPMask(m))
	}
	// A dotted prefix: "10", "10.1", "10.1.2" are /8, /16, /24.
	parts := strings.Split(id.s, ".")
	if len(parts) <= 4 {
		var b [4]byte
		ok := true
		for i, s := range parts {
			v, err := strconv.ParseUint(s, 10, 8)
			if err != nil {
				ok = false
				break
			}
			b[i] = byte(v)
		}
		if ok {
			return p.hostNet(q, id, net.IP(b[:]), net.CIDRMask(8*len(parts), 32))
		}
	}
	return nil, p.errorf(id, "net wants a network (10.0.0.0/8, 10.0, 2001:db8::/32), not %q", id.s)
}

func (p *parser) proto(q quals, id token) (*node, error) {
	name := strings.TrimPrefix(id.s, "\\")
	switch q.proto {
	case "ether":
		types := map[string]uint32{"ip": typeIP, "ip6": typeIP6, "arp": typeARP, "rarp": typeRARP}
		v, ok := types[name]
		if !ok {
			var err error
			if v, err = parseUint(id.s, 0xffff); err != nil {
				return nil, p.errorf(id, "ether proto wants an EtherType (0x8915, \\ip, \\ip6, \\arp), not %q", id.s)
			}
		}
		if v <= 1500 {
			return nil, p.errorf(id, "ether proto %d is an 802.3 length, and LLC protocols are not supported", v)
		}
		return etherType(v), nil
	case "", "ip", "ip6":
		protos := map[string]uint32{"icmp": 1, "tcp": 6, "udp": 17, "sctp": 132, "icmp6": 58}
		v, ok := protos[name]
		if !ok {
			var err error
			if v, err = parseUint(id.s, 0xff); err != nil {
				return nil, p.errorf(id, "proto wants an IP protocol number or \\tcp, \\udp, \\icmp, \\sctp, not %q", id.s)
			}
		}
		switch q.proto {
		case "ip":
			return ipProto(v), nil
		case "ip6":
			return ip6Proto(v), nil
		}
		return or(ipProto(v), ip6Proto(v)), nil
	}
	return nil, p.errorf(id, "%s proto is not supported: proto goes after ether, ip or ip6", q.proto)
}

func (p *parser) port(q quals, id token) (*node, error) {
	var lo, hi uint32
	var err error
	if q.typ == "portrange" {
		a, b, ok := strings.Cut(id.s, "-")
		var e2 error
		lo, err = parseUint(a, 0xffff)
		hi, e2 = parseUint(b, 0xffff)
		if !ok || err != nil || e2 != nil {
			return nil, p.errorf(id, "portrange wants LOW-HIGH (4791-4792), not %q", id.s)
		}
		if lo > hi {
			lo, hi = hi, lo
		}
	} else if lo, err = parseUint(id.s, 0xffff); err != nil {
		return nil, p.errorf(id, "port wants a number (service names are not looked up), not %q", id.s)
	} else {
		hi = lo
	}
	protos := []uint32{132, 6, 17}
	switch q.proto {
	case "":
	case "tcp", "udp", "sctp":
		protos = []uint32{transport[q.proto]}
	default:
		return nil, p.errorf(id, "%s port: ports go with tcp, udp or sctp", q.proto)
	}
	cmp := func(load loadKind, off uint32) *node {
		if lo == hi {
			return &node{op: 't', t: test{load: load, off: off, size: 2, cond: bpf.JumpEqual, val: lo}}
		}
		return &node{op: 't', t: test{load: load, off: off, size: 2, cond: bpf.JumpGreaterOrEqual, val: lo,
			extra: &test{cond: bpf.JumpLessOrEqual, val: hi}}}
	}
	var v4, v6 []*node
	for _, pr := range protos {
		v4 = append(v4, eq(offNet+9, 1, pr))
		v6 = append(v6, eq(offNet+6, 1, pr))
	}
	ip4 := and(and(etherType(typeIP), anyOf(v4...)),
		and(not(&node{op: 't', t: test{off: offNet + 6, size: 2, cond: bpf.JumpBitsSet, val: 0x1fff}}),
			dirs(q.dir, cmp(loadInd, offNet), cmp(loadInd, offNet+2))))
	ip6 := and(and(etherType(typeIP6), anyOf(v6...)), dirs(q.dir, cmp(loadAbs, offNet+40), cmp(loadAbs, offNet+42)))
	return or(ip6, ip4), nil
}

// generate lays the tree out as a program: each node jumps to its true
// or false target, the labels resolved at the end.
func generate(n *node, snaplen uint32) ([]bpf.Instruction, error) {
	if n == nil {
		return []bpf.Instruction{bpf.RetConstant{Val: snaplen}}, nil
	}
	g := &gen{}
	accept, reject := g.label(), g.label()
	g.node(n, accept, reject)
	g.place(accept)
	g.emit(bpf.RetConstant{Val: snaplen})
	g.place(reject)
	g.emit(bpf.RetConstant{Val: 0})
	return g.resolve()
}

type gen struct {
	ins    []genIns
	labels []int
}

type genIns struct {
	op   bpf.Instruction
	jump bool // op is a JumpIf whose skips come from t and f
	t, f int
}

func (g *gen) label() int {
	g.labels = append(g.labels, -1)
	return len(g.labels) - 1
}
func (g *gen) place(l int)             { g.labels[l] = len(g.ins) }
func (g *gen) emit(op bpf.Instruction) { g.ins = append(g.ins, genIns{op: op}) }
func (g *gen) branch(t test, tl, fl int) {
	g.ins = append(g.ins, genIns{op: bpf.JumpIf{Cond: t.cond, Val: t.val}, jump: true, t: tl, f: fl})
}

func (g *gen) node(n *node, t, f int) {
	switch n.op {
	case '&':
		mid := g.label()
		g.node(n.a, mid, f)
		g.place(mid)
		g.node(n.b, t, f)
	case '|':
		mid := g.label()
		g.node(n.a, t, mid)
		g.place(mid)
		g.node(n.b, t, f)
	case '!':
		g.node(n.a, f, t)
	default:
		g.test(n.t, t, f)
	}
}

func (g *gen) test(t test, tl, fl int) {
	switch t.load {
	case loadLen:
		g.emit(bpf.LoadExtension{Num: bpf.ExtLen})
	case loadInd:
		g.emit(bpf.LoadMemShift{Off: offNet})
		g.emit(bpf.LoadIndirect{Off: t.off, Size: t.size})
	default:
		g.emit(bpf.LoadAbsolute{Off: t.off, Size: t.size})
	}
	if t.mask != 0 {
		g.emit(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: t.mask})
	}
	if t.extra != nil {
		mid := g.label()
		g.branch(t, mid, fl)
		g.place(mid)
		g.branch(*t.extra, tl, fl)
		return
	}
	g.branch(t, tl, fl)
}

// maxProgram is the kernel's BPF_MAXINSNS.
const maxProgram = 4096

func (g *gen) resolve() ([]bpf.Instruction, error) {
	if len(g.ins) > maxProgram {
		return nil, fmt.Errorf("the filter compiles to %d instructions, more than the kernel's %d", len(g.ins), maxProgram)
	}
	out := make([]bpf.Instruction, len(g.ins))
	for i, in := range g.ins {
		switch {
		case in.jump:
			j := in.op.(bpf.JumpIf)
			st, sf := g.labels[in.t]-i-1, g.labels[in.f]-i-1
			if st > 255 || sf > 255 {
				return nil, fmt.Errorf("the filter is too long: a jump of %d instructions (at most 255)", max(st, sf))
			}
			j.SkipTrue, j.SkipFalse = uint8(st), uint8(sf)
			out[i] = j
		default:
			out[i] = in.op
		}
	}
	return out, nil
}
