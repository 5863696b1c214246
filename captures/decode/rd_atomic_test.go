package decode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/captures/decode/internal/craft"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// jsonOf decodes path and returns each packet's --json object.
func jsonOf(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	var w jsonw
	if _, err := ReadFile(path, func(p *analysis.Packet) error {
		w.reset()
		appendJSON(&w, p)
		m := map[string]any{}
		if err := json.Unmarshal(w.b, &m); err != nil {
			t.Fatalf("frame %d: %v: %s", p.Frame, err, w.b)
		}
		out = append(out, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAtomicPairing pairs CmpSwap and FetchAdd requests with their ATOMIC
// Acknowledges by PSN: the original value, whether the CmpSwap swapped,
// the acknowledged position, and an atomic never answered.
func TestAtomicPairing(t *testing.T) {
	cmpSwap := func(psn uint32, cmp, swap uint64) []byte {
		return craft.RoCEFrame(t, 1, 2, &ib.BTH{Opcode: ib.OpcodeRCCompareSwap, DestQP: 0x12, PSN: psn, A: true,
			AtomicETH: ib.AtomicETH{VA: 0x1000, RKey: 0x77, SwapDt: swap, CmpDt: cmp}}, nil)
	}
	atomicAck := func(psn, msn uint32, orig uint64) []byte {
		return craft.RoCEFrame(t, 2, 1, &ib.BTH{Opcode: ib.OpcodeRCAtomicAcknowledge, DestQP: 0x11, PSN: psn,
			AETH: craft.AckAETH(msn), AtomicAckETH: ib.AtomicAckETH{OrigRemDt: orig}}, nil)
	}
	fetchAdd := craft.RoCEFrame(t, 1, 2, &ib.BTH{Opcode: ib.OpcodeRCFetchAdd, DestQP: 0x12, PSN: 101, A: true,
		AtomicETH: ib.AtomicETH{VA: 0x1008, RKey: 0x77, SwapDt: 3}}, nil)
	path := craft.WriteFrames(t,
		cmpSwap(100, 5, 9),   // 1
		atomicAck(100, 1, 5), // 2: found 5: swapped
		fetchAdd,             // 3
		atomicAck(101, 2, 9), // 4
		cmpSwap(102, 1, 2),   // 5: found 9: not swapped
		atomicAck(102, 3, 9), // 6
		atomicAck(102, 3, 9), // 7: again
		cmpSwap(103, 0, 0),   // 8: never answered
	)
	d := decodeFile(t, path)
	an := d.packets
	for _, c := range []struct {
		frame, req int
		orig       uint64
		swapped    bool
		text       string
	}{
		{2, 1, 5, true, "[answers the RC Compare Swap in 1: original 0x5, swapped]"},
		{4, 3, 9, false, "[answers the RC Fetch Add in 3: original 0x9]"},
		{6, 5, 9, false, "[answers the RC Compare Swap in 5: original 0x9, not swapped]"},
	} {
		m := an[c.frame-1].Analysis.Msg
		if m == nil || m.FirstFrame != c.req || m.Orig != c.orig || m.Swapped() != c.swapped || m.RespFirstFrame != c.frame {
			t.Errorf("frame %d: paired with %+v, want the atomic of frame %d, original %d, swapped %v", c.frame, m, c.req, c.orig, c.swapped)
		}
		if !strings.Contains(d.lines[c.frame-1], c.text) {
			t.Errorf("frame %d: line %q lacks %q", c.frame, d.lines[c.frame-1], c.text)
		}
		ak := an[c.frame-1].Analysis.Ack
		if ak == nil || len(ak.Acked) != 1 || ak.Acked[0] != m || ak.ExpectedMSN != ak.MSN {
			t.Errorf("frame %d: acknowledges %+v, want the atomic with a matching MSN", c.frame, ak)
		}
	}
	if m := an[6].Analysis.Msg; m == nil || m.FirstFrame != 5 || !hasNote(an[6].Analysis.Notes, analysis.NotePSNDuplicate) {
		t.Errorf("frame 7, a second acknowledge: msg %+v, notes %v", m, an[6].Analysis.Notes)
	}
	var unanswered []int
	for _, n := range d.an.Notes() {
		if n.Kind == analysis.NoteAtomicNoResponse {
			unanswered = append(unanswered, n.Frame)
		}
	}
	if len(unanswered) != 1 || unanswered[0] != 8 {
		t.Errorf("atomics without response at frames %v, want [8]", unanswered)
	}

	js := jsonOf(t, path)
	at := prefixed(js[1], "rdmalab.atomic.")
	if at["op"] != "CmpSwap" || at["request_frame"] != 1.0 || at["response_frame"] != 2.0 ||
		at["orig"] != "0x0000000000000005" || at["compare"] != "0x0000000000000005" || at["swapped"] != true {
		t.Errorf("frame 2 JSON atomic = %v", at)
	}
	if at := prefixed(js[2], "rdmalab.atomic."); at["op"] != "FetchAdd" || at["add"] != "0x0000000000000003" || at["response_frame"] != nil {
		t.Errorf("frame 3 JSON atomic (the request, streamed before its answer) = %v", at)
	}
}

func hasNote(ns []analysis.Note, k analysis.NoteKind) bool {
	for _, n := range ns {
		if n.Kind == k {
			return true
		}
	}
	return false
}

// TestReliableDatagramEEContexts checks that RD datagrams are followed per
// EE context: two QPs behind one EE context share its PSN sequence, a
// second EE context has its own, an RD Acknowledge acknowledges the
// messages of its context, and a RESYNC starts the sequence again.
func TestReliableDatagramEEContexts(t *testing.T) {
	const rdSendOnly, rdAck, rdResync = 0x44, 0x51, 0x55
	send := func(qp, eec, psn uint32) []byte {
		return craft.RoCEFrame(t, 1, 2, &ib.BTH{Opcode: rdSendOnly, DestQP: qp, PSN: psn, A: true,
			RDETH: ib.RDETH{EECnxt: eec}, DETH: ib.DETH{QKey: 0x11111111, SrcQP: 0x31}}, []byte("datagram"))
	}
	path := craft.WriteFrames(t,
		send(0x20, 5, 10), // 1: EEC 5
		send(0x21, 5, 11), // 2: another QP, same EE context: in sequence
		send(0x20, 6, 50), // 3: EEC 6: its own sequence
		send(0x22, 5, 13), // 4: EEC 5 skipped PSN 12
		craft.RoCEFrame(t, 2, 1, &ib.BTH{Opcode: rdAck, DestQP: 0x31, PSN: 11, RDETH: ib.RDETH{EECnxt: 9}, AETH: craft.AckAETH(2)}, nil),         // 5
		craft.RoCEFrame(t, 1, 2, &ib.BTH{Opcode: rdResync, DestQP: 0x20, PSN: 500, RDETH: ib.RDETH{EECnxt: 5}, DETH: ib.DETH{SrcQP: 0x31}}, nil), // 6
		send(0x21, 5, 501), // 7
	)
	d := decodeFile(t, path)
	p := d.packets
	want := []analysis.PSNStatus{analysis.PSNOK, analysis.PSNOK, analysis.PSNOK, analysis.PSNGap, analysis.PSNNotChecked, analysis.PSNOK, analysis.PSNOK}
	for i, w := range want {
		if got := p[i].Analysis.PSN.Status; got != w {
			t.Errorf("frame %d: PSN %s, want %s", i+1, got, w)
		}
	}
	f1, f3 := p[0].Analysis.Flow, p[2].Analysis.Flow
	if f1 == nil || p[1].Analysis.Flow != f1 || p[3].Analysis.Flow != f1 || p[6].Analysis.Flow != f1 || f3 == f1 {
		t.Fatalf("flows: %v %v %v %v", f1, p[1].Analysis.Flow, f3, p[3].Analysis.Flow)
	}
	if !f1.Key.EE || f1.Key.QP != 5 || f1.Key.String() != "10.0.0.1 → 10.0.0.2 EEC 0x000005" {
		t.Errorf("flow key %+v (%v)", f1.Key, f1.Key)
	}
	ak := p[4].Analysis.Ack
	if ak == nil || len(ak.Acked) != 2 || ak.Acked[0].FirstFrame != 1 || ak.Acked[1].FirstFrame != 2 {
		t.Errorf("the RD Acknowledge acknowledges %+v, want the SENDs of frames 1 and 2", ak)
	}
	if !strings.Contains(d.lines[1], "QP=0x000021 PSN=11 EEC=0x000005") {
		t.Errorf("line %q", d.lines[1])
	}
	js := jsonOf(t, path)
	if js[0]["rdmalab.ee_context"] != 5.0 || js[2]["rdmalab.ee_context"] != 6.0 || js[0]["rdmalab.flow"] != js[1]["rdmalab.flow"] {
		t.Errorf("JSON ee_context/flow: %v %v / %v %v", js[0]["rdmalab.ee_context"], js[0]["rdmalab.flow"], js[2]["rdmalab.ee_context"], js[1]["rdmalab.flow"])
	}
	f, err := fields.CompileSelection("qp=0x31")
	if err != nil {
		t.Fatal(err)
	}
	if n := filterCount(t, path, f); n != 7 {
		t.Errorf("qp=0x31 (the source QP of every datagram, the destination of the ACK) matches %d frames, want 7", n)
	}
}

func filterCount(t *testing.T, path string, f *fields.Selection) int {
	n := 0
	if _, err := ReadFile(path, func(p *analysis.Packet) error {
		if f.Match(p) {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// prefixed returns the fields of obj under prefix, without it.
func prefixed(obj map[string]any, prefix string) map[string]any {
	out := map[string]any{}
	for k, v := range obj {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			out[rest] = v
		}
	}
	return out
}
