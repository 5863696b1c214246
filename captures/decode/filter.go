package decode

// The --filter expression: comma-separated terms, all of which a packet
// must match:
//
//	qp=N       the packet goes to QP N, or comes from it (its flow's peer,
//	           or the source QP of a datagram's DETH)
//	opcode=X   BTH opcode X: a number (4, 0x11) or a name, spaces,
//	           dashes and case ignored ("send-only", "RC Acknowledge", "ack")
//	xid=N      the packet belongs to the RPC with XID N: its call or reply
//	           SEND, the RDMA READs and WRITEs that moved its chunks, the
//	           ACKs of those
//
// Numbers are decimal or 0x-prefixed hexadecimal. A term may list
// alternatives with "|": opcode=4|23.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/proto/ib"
)

// IsTermFilter reports whether s is written in --filter's own terms
// (qp=, opcode=, xid=) rather than as a display filter.
func IsTermFilter(s string) bool {
	if strings.TrimSpace(s) == "" {
		return true
	}
	for _, term := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(term), "=")
		if !ok || strings.HasPrefix(val, "=") || strings.ContainsAny(key, " !<>~") {
			return false // a bare field, ==, !=, <=, >=
		}
	}
	return true
}

// Filter selects packets.
type Filter struct {
	qps     []uint32
	opcodes []ib.Opcode
	xids    []uint32
}

// ParseFilter parses a --filter expression.
func ParseFilter(s string) (*Filter, error) {
	f := &Filter{}
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	for _, term := range strings.Split(s, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(term), "=")
		if !ok {
			return nil, fmt.Errorf("filter term %q: want key=value (qp, opcode, xid)", term)
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
					return nil, fmt.Errorf("filter qp=%s: %w", v, err)
				}
				f.qps = append(f.qps, uint32(n))
			case "opcode":
				op, err := parseOpcode(v)
				if err != nil {
					return nil, fmt.Errorf("filter opcode=%s: %w", v, err)
				}
				f.opcodes = append(f.opcodes, op)
			case "xid":
				n, err := parseNum(v, 32)
				if err != nil {
					return nil, fmt.Errorf("filter xid=%s: %w", v, err)
				}
				f.xids = append(f.xids, uint32(n))
			default:
				return nil, fmt.Errorf("filter key %q: want qp, opcode or xid", key)
			}
		}
	}
	return f, nil
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

func parseOpcode(s string) (ib.Opcode, error) {
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

// Match reports whether p passes the filter.
func (f *Filter) Match(p *Packet) bool {
	if f == nil {
		return true
	}
	b := p.BTH
	if len(f.qps) > 0 && (b == nil || !f.matchQP(p)) {
		return false
	}
	if len(f.opcodes) > 0 && (b == nil || !contains(f.opcodes, b.Opcode)) {
		return false
	}
	if len(f.xids) > 0 && !f.matchXID(p) {
		return false
	}
	return true
}

// MatchRPC reports whether r passes the XID part of the filter.
func (f *Filter) MatchRPC(r *RPC) bool {
	return f == nil || len(f.xids) == 0 || contains(f.xids, r.XID)
}

func (f *Filter) matchQP(p *Packet) bool {
	b := p.BTH
	if contains(f.qps, b.DestQP) {
		return true
	}
	if b.Headers&ib.HasDETH != 0 && contains(f.qps, b.DETH.SrcQP) {
		return true // a datagram (UD, RD) names the QP that sent it
	}
	fl := p.Analysis.Flow
	return fl != nil && fl.Peer != nil && !fl.Peer.Key.EE && contains(f.qps, fl.Peer.Key.QP)
}

func (f *Filter) matchXID(p *Packet) bool {
	an := &p.Analysis
	if an.RPC != nil && contains(f.xids, an.RPC.Header.XID) {
		return true
	}
	if an.Chunk.RPC != nil && contains(f.xids, an.Chunk.RPC.XID) {
		return true
	}
	if m := an.Msg; m != nil && m.Chunk != nil && contains(f.xids, m.Chunk.RPC.XID) {
		return true
	}
	if an.Ack != nil {
		for _, m := range an.Ack.Acked {
			if m.RPC != nil && contains(f.xids, m.RPC.Header.XID) || m.Chunk != nil && contains(f.xids, m.Chunk.RPC.XID) {
				return true
			}
		}
	}
	return false
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
