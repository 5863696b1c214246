package fields

import "testing"

// TestReadsText: a filter that names a note's text or NotRPC says so,
// and one that does not lets the analysis skip building them.
func TestReadsText(t *testing.T) {
	for expr, want := range map[string]bool{
		`rdmalab.note.text contains "PSN"`:              true,
		`rdmalab.not_rpc`:                               true,
		`infiniband.bth.opcode == 4 || rdmalab.not_rpc`: true,
		`rdmalab.note`:                                  false,
		`rdmalab.note.kind == "PSN gap"`:                false,
		`infiniband.bth.opcode == 4 || rpcordma`:        false,
	} {
		d, err := CompileDisplayFilter(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := d.ReadsText(); got != want {
			t.Errorf("%s: ReadsText %v, want %v", expr, got, want)
		}
	}
	if (*DisplayFilter)(nil).ReadsText() {
		t.Error("no filter reads text")
	}
}
