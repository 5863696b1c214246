package fields

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/captures/dfilter"
	"github.com/rdmalab/rdmalab/internal/testutil"
)

// What the short forms compile to, and which strings are not short forms.
func TestCompileSelection(t *testing.T) {
	for _, tc := range []struct {
		in    string
		short bool
		expr  string
	}{
		{"", true, ""},
		{"  ", true, ""},
		{" , ,", true, ""},
		{"qp=17", true, "infiniband.bth.destqp == 17 || infiniband.deth.srcqp == 17 || rdmalab.peer_qp == 17"},
		{"opcode=send-only|opcode=ack", true, "infiniband.bth.opcode in {4, 17}"},
		{"xid=1187829349,opcode=RC Acknowledge", true, "infiniband.bth.opcode == 17 && rdmalab.xid == 0x46ccd665"},
		{"opcode=RC  Acknowledge qp=3", true, "(infiniband.bth.destqp == 3 || infiniband.deth.srcqp == 3 || rdmalab.peer_qp == 3) && infiniband.bth.opcode == 17"},
		{"qp=1 QP=0x1|2 anomalies", true, "(infiniband.bth.destqp in {1, 2} || infiniband.deth.srcqp in {1, 2} || rdmalab.peer_qp in {1, 2}) && rdmalab.anomaly"},
		{"rpc xid=5", true, "rdmalab.xid == 0x00000005 && rdmalab.rpc.role"},
		{"rpc,", true, "rdmalab.rpc.role"},
		{"rpc", false, "rpc"},
		{"rpcordma.xid == 5", false, "rpcordma.xid == 5"},
		{"infiniband.bth.psn>=3", false, "infiniband.bth.psn>=3"},
		{"rdmalab.icrc_bad", false, "rdmalab.icrc_bad"},
		{`nfs.name contains "a=b"`, false, `nfs.name contains "a=b"`},
	} {
		sel, err := CompileSelection(tc.in)
		if err != nil || sel.Short != tc.short || sel.Expr != tc.expr {
			t.Errorf("%q: %+v, %v; want short %v, %q", tc.in, sel, err, tc.short, tc.expr)
		}
	}
	for in, want := range map[string]string{
		"qp=nope":           "filter qp=nope: not a 24-bit number",
		"qp=0x1000000":      "filter qp=0x1000000: not a 24-bit number",
		"color=red":         `filter key "color": want qp, opcode or xid`,
		"opcode=frobnicate": "unknown opcode name",
		"bogus":             `unknown field "bogus"`,
	} {
		if _, err := CompileSelection(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, err := CompileSelection("ip.src =="); err == nil {
		t.Error("a display filter's mistake compiled")
	} else if _, ok := err.(*dfilter.Error); !ok {
		t.Errorf("a display filter's mistake is %T, not a *dfilter.Error: its column would be lost", err)
	}
}

// FuzzShortForm: compiling never panics, and a short form always compiles
// to an expression the display-filter parser takes.
func FuzzShortForm(f *testing.F) {
	for _, s := range []string{"qp=17", "opcode=send-only|opcode=ack", "xid=0x4bdbd665,rpc", "qp=1 opcode=4 anomalies",
		"opcode=RC Acknowledge", "rpc,", ",,", "qp=0b101|0o17|1_0", "QP = 3", "opcode=0xff", "xid=4294967295", "a=b=c", "rpc rpcs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := CompileSelection(s)
		if err != nil || !sel.Short {
			return
		}
		if _, err := dfilter.Compile(sel.Expr, registry); err != nil {
			t.Fatalf("%q compiled to %q, which does not parse: %v", s, sel.Expr, err)
		}
		// and what it compiled to is a display filter, not short forms
		if sel.Expr != "" && IsShortForm(sel.Expr) {
			t.Fatalf("%q compiled to %q, which reads as short forms", s, sel.Expr)
		}
	})
}

// A term of many words (a long "opcode=..." typed in the view's bar) is
// split in time linear in its length: its words are joined once, not
// added to the term one by one (quadratic).
func TestTermsGrowLinearly(t *testing.T) {
	cost := func(n int) uint64 {
		s := "opcode=" + strings.Repeat("x ", n)
		return testutil.Allocated(func() { _ = terms(s) })
	}
	if small, big := cost(20_000), cost(40_000); big > 3*small {
		t.Errorf("twice the words allocated %d bytes against %d: more than three times", big, small)
	}
}
