package fields

// Short forms: the ways to select packets other than a display filter,
// compiled here, once, into the display-filter expression they mean.
// decode --filter, the REPL's packets and the view's filter bar all call
// CompileSelection, so a short form selects the same packets everywhere
// and can say what it means:
//
//	qp=N       the packet goes to QP N, or comes from it (its flow's peer,
//	           or the source QP of a datagram's DETH):
//	           infiniband.bth.destqp == N || infiniband.deth.srcqp == N || rdmalab.peer_qp == N
//	opcode=X   BTH opcode X: a number (4, 0x11) or a name, spaces,
//	           dashes and case ignored ("send-only", "RC Acknowledge", "ack"):
//	           infiniband.bth.opcode == X
//	xid=N      the packet belongs to the RPC with XID N: its call or reply
//	           SEND, the RDMA READs and WRITEs that moved its chunks, the
//	           ACKs of those: rdmalab.xid == N
//	rpc, rpcs  the calls and replies: rdmalab.rpc.role (rpc alone is the
//	           display filter's own rpc)
//	anomalies  packets with an anomaly: rdmalab.anomaly
//
// Numbers are decimal or 0x-prefixed hexadecimal. A term may list
// alternatives with "|": opcode=4|23 (terms of one key add alternatives
// too: qp=1,qp=2); terms are separated by commas, or by spaces ("qp=1
// opcode=4", as the REPL's words come); a packet must match every key.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Selection is what selects packets, compiled: a display filter, or short
// forms with the display filter they mean.
type Selection struct {
	// Expr is the display-filter expression; "" selects every packet.
	Expr string
	// Short says the selection was written in short forms: Expr is what
	// they mean.
	Short bool
	df    *DisplayFilter
	xids  []uint32 // the xid= terms: the RPCs the selection names
}

// IsShortForm reports whether s is short forms rather than a display
// filter. An empty s is short forms selecting everything.
func IsShortForm(s string) bool {
	ts := terms(s)
	if len(ts) == 1 && strings.EqualFold(ts[0], "rpc") && !strings.Contains(s, ",") {
		return false // the display filter's rpc
	}
	for _, t := range ts {
		if !isWord(t) && !isTerm(t) {
			return false
		}
	}
	return true
}

// terms splits s at its commas, and at the spaces before a word that
// starts a term: "qp=1 opcode=4" is two terms (as the REPL's words),
// "opcode=RC Acknowledge" one.
func terms(s string) []string {
	var out, cur []string
	for _, piece := range strings.Split(s, ",") {
		for _, tok := range strings.Fields(piece) {
			if len(cur) > 0 && (isWord(tok) || isTerm(tok)) {
				out, cur = append(out, strings.Join(cur, " ")), cur[:0]
			}
			cur = append(cur, tok) // a term's words are joined once, not copied at each
		}
		if len(cur) > 0 {
			out, cur = append(out, strings.Join(cur, " ")), cur[:0]
		}
	}
	return out
}

// isWord reports whether t is one of the words: rpc, anomalies.
func isWord(t string) bool {
	switch strings.ToLower(t) {
	case "rpc", "rpcs", "anomalies", "anomaly":
		return true
	}
	return false
}

// isTerm reports whether t reads as key=value rather than a comparison.
func isTerm(t string) bool {
	key, val, ok := strings.Cut(strings.TrimSpace(t), "=")
	return ok && !strings.HasPrefix(val, "=") && !strings.ContainsAny(key, " !<>~") // not a bare field, ==, !=, <=, >=
}

// CompileSelection compiles s, what decode --filter, the REPL's packets
// (its words joined by spaces) or the view's bar was given: short forms
// into the expression they mean, a display filter as it is. A display
// filter's mistake is a *dfilter.Error, which names the column.
func CompileSelection(s string) (*Selection, error) {
	sel := &Selection{Short: IsShortForm(s), Expr: s}
	if sel.Short {
		sf, err := parseShortForms(s)
		if err != nil {
			return nil, err
		}
		sel.Expr, sel.xids = sf.expr(), sf.xids
	}
	if sel.Expr == "" {
		return sel, nil
	}
	df, err := CompileDisplayFilter(sel.Expr)
	if err != nil {
		if sel.Short {
			return nil, fmt.Errorf("short form %q compiled to %q: %w", s, sel.Expr, err)
		}
		return nil, err
	}
	sel.df = df
	return sel, nil
}

// Match reports whether p is selected; a nil Selection selects every
// packet.
func (s *Selection) Match(p *analysis.Packet) bool {
	return s == nil || s.df.Match(p)
}

// MatchRPC reports whether r passes the xid= terms: the RPC table's
// selection (--rpc).
func (s *Selection) MatchRPC(r *analysis.RPC) bool {
	return s == nil || len(s.xids) == 0 || slices.Contains(s.xids, r.XID)
}

// shortForms is short forms parsed: the alternatives of each key.
type shortForms struct {
	qps, xids []uint32
	opcodes   []ib.Opcode
	rpc, anom bool
}

func parseShortForms(s string) (*shortForms, error) {
	sf := &shortForms{}
	for _, t := range terms(s) {
		switch strings.ToLower(t) {
		case "rpc", "rpcs":
			sf.rpc = true
		case "anomalies", "anomaly":
			sf.anom = true
		default:
			if err := sf.term(t); err != nil {
				return nil, err
			}
		}
	}
	return sf, nil
}

// term adds key=value's alternatives.
func (sf *shortForms) term(term string) error {
	key, val, ok := strings.Cut(term, "=")
	if !ok {
		return fmt.Errorf("filter term %q: want key=value (qp, opcode, xid), rpc or anomalies", term)
	}
	for _, v := range strings.Split(val, "|") {
		v = strings.TrimSpace(v)
		// opcode=send-only|opcode=ack names the key again.
		if k, rest, ok := strings.Cut(v, "="); ok && strings.EqualFold(strings.TrimSpace(k), strings.TrimSpace(key)) {
			v = strings.TrimSpace(rest)
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "qp":
			n, err := parseNum(v, 24)
			if err != nil {
				return fmt.Errorf("filter qp=%s: %w", v, err)
			}
			sf.qps = appendNew(sf.qps, uint32(n))
		case "opcode":
			op, err := ParseOpcode(v)
			if err != nil {
				return fmt.Errorf("filter opcode=%s: %w", v, err)
			}
			sf.opcodes = appendNew(sf.opcodes, op)
		case "xid":
			n, err := parseNum(v, 32)
			if err != nil {
				return fmt.Errorf("filter xid=%s: %w", v, err)
			}
			sf.xids = appendNew(sf.xids, uint32(n))
		default:
			return fmt.Errorf("filter key %q: want qp, opcode or xid", key)
		}
	}
	return nil
}

func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// expr is the display-filter expression: every key's test, and-ed.
func (sf *shortForms) expr() string {
	var parts []string
	if len(sf.qps) > 0 {
		dec := func(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
		parts = append(parts, "("+strings.Join([]string{
			oneOf("infiniband.bth.destqp", sf.qps, dec),
			oneOf("infiniband.deth.srcqp", sf.qps, dec),
			oneOf("rdmalab.peer_qp", sf.qps, dec),
		}, " || ")+")")
	}
	if len(sf.opcodes) > 0 {
		parts = append(parts, oneOf("infiniband.bth.opcode", sf.opcodes, func(op ib.Opcode) string { return strconv.Itoa(int(op)) }))
	}
	if len(sf.xids) > 0 {
		parts = append(parts, oneOf("rdmalab.xid", sf.xids, func(n uint32) string { return fmt.Sprintf("0x%08x", n) }))
	}
	if sf.rpc {
		parts = append(parts, "rdmalab.rpc.role")
	}
	if sf.anom {
		parts = append(parts, "rdmalab.anomaly")
	}
	if len(parts) == 1 {
		return strings.TrimSuffix(strings.TrimPrefix(parts[0], "("), ")")
	}
	return strings.Join(parts, " && ")
}

// oneOf is field == v, or field in {v, w} for alternatives.
func oneOf[T any](field string, vs []T, format func(T) string) string {
	if len(vs) == 1 {
		return field + " == " + format(vs[0])
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = format(v)
	}
	return field + " in {" + strings.Join(s, ", ") + "}"
}

func parseNum(s string, bits int) (uint64, error) {
	n, err := strconv.ParseUint(s, 0, bits)
	if err != nil {
		return 0, fmt.Errorf("not a %d-bit number", bits)
	}
	return n, nil
}

func normName(s string) string {
	return strings.NewReplacer(" ", "", "-", "", "_", "").Replace(strings.ToLower(s))
}

// ParseOpcode reads an opcode as the short forms take it: a number, or a
// name as Opcode.Info gives it, case, spaces, hyphens and underscores
// aside ("RC Send Only", "send-only": RC's without their "RC"), or "ack".
func ParseOpcode(s string) (ib.Opcode, error) {
	if n, err := strconv.ParseUint(s, 0, 8); err == nil {
		return ib.Opcode(n), nil
	}
	want := normName(s)
	for i := 0; i < 256; i++ {
		op := ib.Opcode(i)
		if !op.Known() {
			continue
		}
		info := normName(op.Info()) // "rcsendonly"
		if info == want || op.Transport() == ib.TransportRC && strings.TrimPrefix(info, "rc") == want {
			return op, nil
		}
	}
	if want == "ack" {
		return ib.OpcodeRCAcknowledge, nil
	}
	return 0, fmt.Errorf("unknown opcode name (try a number, or a name like %q)", "send-only")
}
