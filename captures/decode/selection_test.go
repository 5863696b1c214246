package decode

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/internal/testutil"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// refFilter is how --filter's terms and the REPL's words selected packets
// before they compiled to display filters (decode's Filter.Match and the
// REPL's selector.match, kept here as they were): the reference every
// compiled expression must agree with.
type refFilter struct {
	qps, xids  []uint32
	opcodes    []ib.Opcode
	rpc, anom  bool
	anomFrames map[int]bool // the REPL's: the whole analysis's notes, once indexing is over
}

// refOf parses words as the REPL did (decode --filter gave one word):
// commas and words separate terms, and the values of a key add up.
func refOf(t *testing.T, words []string) *refFilter {
	t.Helper()
	f := &refFilter{}
	for _, w := range words {
		for _, term := range strings.Split(w, ",") {
			term = strings.TrimSpace(term)
			switch strings.ToLower(term) {
			case "":
			case "rpc", "rpcs":
				f.rpc = true
			case "anomalies", "anomaly":
				f.anom = true
			default:
				key, val, _ := strings.Cut(term, "=")
				for _, v := range strings.Split(val, "|") {
					v = strings.TrimSpace(v)
					if k, rest, ok := strings.Cut(v, "="); ok && strings.EqualFold(strings.TrimSpace(k), strings.TrimSpace(key)) {
						v = strings.TrimSpace(rest)
					}
					switch strings.ToLower(strings.TrimSpace(key)) {
					case "qp":
						n, err := strconv.ParseUint(v, 0, 24)
						if err != nil {
							t.Fatal(err)
						}
						f.qps = append(f.qps, uint32(n))
					case "opcode":
						op, err := fields.ParseOpcode(v)
						if err != nil {
							t.Fatal(err)
						}
						f.opcodes = append(f.opcodes, op)
					case "xid":
						n, err := strconv.ParseUint(v, 0, 32)
						if err != nil {
							t.Fatal(err)
						}
						f.xids = append(f.xids, uint32(n))
					default:
						t.Fatalf("%q: key %q", words, key)
					}
				}
			}
		}
	}
	return f
}

func (f *refFilter) match(p *analysis.Packet) bool {
	if f.rpc && (p.Analysis.RPC == nil || p.Analysis.RPC.RPC == nil) {
		return false
	}
	if f.anom && !f.anomFrames[p.Frame] {
		return false
	}
	b := p.BTH
	if len(f.qps) > 0 && (b == nil || !f.matchQP(p)) {
		return false
	}
	if len(f.opcodes) > 0 && (b == nil || !slices.Contains(f.opcodes, b.Opcode)) {
		return false
	}
	return len(f.xids) == 0 || f.matchXID(p)
}

func (f *refFilter) matchQP(p *analysis.Packet) bool {
	b := p.BTH
	if slices.Contains(f.qps, b.DestQP) {
		return true
	}
	if b.Headers&ib.HasDETH != 0 && slices.Contains(f.qps, b.DETH.SrcQP) {
		return true
	}
	fl := p.Analysis.Flow
	return fl != nil && fl.Peer != nil && !fl.Peer.Key.EE && slices.Contains(f.qps, fl.Peer.Key.QP)
}

func (f *refFilter) matchXID(p *analysis.Packet) bool {
	an := &p.Analysis
	has := func(x uint32) bool { return slices.Contains(f.xids, x) }
	if an.RPC != nil && has(an.RPC.Header.XID) || an.Chunk.RPC != nil && has(an.Chunk.RPC.XID) {
		return true
	}
	if m := an.Msg; m != nil && m.Chunk != nil && has(m.Chunk.RPC.XID) {
		return true
	}
	if an.Ack != nil {
		for _, m := range an.Ack.Acked {
			if m.RPC != nil && has(m.RPC.Header.XID) || m.Chunk != nil && has(m.Chunk.RPC.XID) {
				return true
			}
		}
	}
	return false
}

// shortFormsOf lists short forms worth trying on the capture at path: the
// QPs, opcodes and XIDs it has, one it has not, and the words, alone and
// together.
func shortFormsOf(t *testing.T, path string) [][]string {
	t.Helper()
	var qps, xids []uint32
	var ops []ib.Opcode
	if _, err := ReadFile(path, func(p *analysis.Packet) error {
		if b := p.BTH; b != nil {
			qps = addNew(qps, b.DestQP)
			ops = addNew(ops, b.Opcode)
			if b.Headers&ib.HasDETH != 0 {
				qps = addNew(qps, b.DETH.SrcQP)
			}
		}
		if m := p.Analysis.RPC; m != nil {
			xids = addNew(xids, m.Header.XID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	forms := [][]string{{}, {""}, {"rpcs"}, {"rpc", "anomalies"}, {"anomalies"}, {"qp=0xabcdef"}, {"xid=7"},
		{"opcode=send-only|opcode=ack"}, {"opcode=RC Send Only|23"}}
	for i, q := range qps[:min(len(qps), 8)] {
		forms = append(forms, []string{fmt.Sprintf("qp=%d", q)}, []string{fmt.Sprintf("qp=%#x,anomaly", q)})
		if i > 0 {
			forms = append(forms, []string{fmt.Sprintf("qp=%d|%d", qps[i-1], q)}, []string{fmt.Sprintf("qp=%d,qp=%d", qps[i-1], q)})
		}
	}
	for _, op := range ops {
		forms = append(forms, []string{fmt.Sprintf("opcode=%d", op)}, []string{fmt.Sprintf("qp=%d", qps[0]), fmt.Sprintf("opcode=%#x", uint8(op))})
	}
	for i, x := range xids[:min(len(xids), 12)] {
		forms = append(forms, []string{fmt.Sprintf("xid=%#x", x)}, []string{fmt.Sprintf("xid=%d,rpc", x)})
		if i > 0 {
			forms = append(forms, []string{fmt.Sprintf("xid=%#x|xid=%#x", xids[i-1], x), "opcode=ack|4|17"})
		}
	}
	return forms
}

// selectionCaptures is every capture under captures/testdata and
// ../shared/captures, and one whose call is never answered (an anomaly
// only the end of the capture finds).
func selectionCaptures(t *testing.T) []string {
	paths := testdataCaptures(t)
	shared, _ := filepath.Glob(filepath.Join(testutil.SharedDir(t), "captures", "*.pcap"))
	if len(shared) == 0 {
		t.Logf("%s not present: its captures are not tested", filepath.Join(testutil.SharedDir(t), "captures"))
	}
	paths = append(paths, shared...)
	return append(paths, craft.Mutate(t, func(fs []craft.Frame) []craft.Frame { return craft.Drop(fs, 69) }, 0))
}

// Every short form compiles to an expression that selects the packets its
// terms and words selected before, read as decode --filter reads them
// (streamed) and as the REPL and the view do (an Index, once read).
func TestShortFormsSelectAsBefore(t *testing.T) {
	total, anomalies := 0, 0
	for _, path := range selectionCaptures(t) {
		name := filepath.Base(path)
		forms := shortFormsOf(t, path)
		sels := make([]*fields.Selection, len(forms))
		refs := make([]*refFilter, len(forms))
		for i, words := range forms {
			sel, err := fields.CompileSelection(strings.Join(words, " "))
			if err != nil || !sel.Short {
				t.Fatalf("%s: %q: %+v, %v", name, words, sel, err)
			}
			sels[i], refs[i] = sel, refOf(t, words)
		}
		check := func(how string, p *analysis.Packet) {
			for i, sel := range sels {
				got, want := sel.Match(p), refs[i].match(p)
				if got != want {
					t.Errorf("%s %s frame %d: %q (%s) selects %v, before %v", name, how, p.Frame, forms[i], sel.Expr, got, want)
				}
				if got && len(forms[i]) > 0 && forms[i][0] != "" {
					total++
					if refs[i].anom {
						anomalies++
					}
				}
			}
		}
		// decode --filter: streamed, an anomaly is a packet's own.
		if _, err := ReadFile(path, func(p *analysis.Packet) error {
			for _, r := range refs {
				r.anomFrames = ownAnomaly(p)
			}
			check("streamed", p)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// The REPL and the view: the Index, read to the end.
		x, err := OpenIndex(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.Wait(t.Context(), -1); err != nil {
			t.Fatal(err)
		}
		frames := map[int]bool{}
		for _, n := range x.Analyzer().Notes() {
			if n.Kind.Anomaly() {
				frames[n.Frame] = true
			}
		}
		for _, r := range refs {
			r.anomFrames = frames
		}
		if _, err := x.Scan(0, func(p *analysis.Packet) bool { check("indexed", p); return true }); err != nil {
			t.Fatal(err)
		}
		x.Close()
	}
	if total < 1000 || anomalies == 0 {
		t.Errorf("%d packets selected, %d of them anomalies: the comparison missed most of it", total, anomalies)
	}
}

func ownAnomaly(p *analysis.Packet) map[int]bool {
	for _, n := range p.Analysis.Notes {
		if n.Kind.Anomaly() {
			return map[int]bool{p.Frame: true}
		}
	}
	return nil
}

// addNew appends v to s unless s has it.
func addNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
