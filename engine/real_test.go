package engine

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/engine/ibv"
	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/engine/xprt"
)

func TestParseEngine(t *testing.T) {
	for _, c := range []struct{ in, srv, cli, err string }{
		{"", "", "", ""}, {"sim", "", "", ""}, {"ibv:rxe0", "rxe0", "", ""}, {"ibv:rxe0,rxe1", "rxe0", "rxe1", ""},
		{"ibv", "", "", "want sim"}, {"ibv:", "", "", "want sim"}, {"ibv:,rxe1", "", "", "want ibv:DEVICE"},
		{"ibv:a,b,c", "", "", "want ibv:DEVICE"}, {"rxe0", "", "", "want sim"},
	} {
		srv, cli, err := ParseEngine(c.in)
		if srv != c.srv || cli != c.cli || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseEngine(%q) = %q, %q, %v", c.in, srv, cli, err)
		}
	}
}

// A new engine starts from the device's limits (max_qp_wr held to
// max_cqe, the path MTU to the port's); a setting is honoured as given
// when lowered and refused when raised; the report names every
// difference from the sim.
func TestOnDevice(t *testing.T) {
	dev := ibv.AttrOf("rxe0", ibv.RawAttr{MaxQPWR: 1048576, MaxSGE: 30, MaxSGERd: 30, MaxCQE: 32767, MaxMR: 524287,
		MaxQPRdAtom: 128, MaxQPInitRdAtom: 128}, 4096)
	s := DefaultSettings()
	s.PathMTU = 4096
	s = s.fromDevice(dev, 1024)
	if s.MaxSendSGE != 30 || s.MaxSGERd != 30 || s.MaxQPWR != 32767 || s.PathMTU != 1024 || s.MaxSGLRd != 0 {
		t.Errorf("device defaults %+v", s)
	}
	a, report, err := s.onDevice(dev)
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxSendSGE != 30 || a.MaxSGERd != 30 || a.MaxQPWR != 32767 || a.PageSize != 4096 {
		t.Errorf("attr %+v", a)
	}
	joined := strings.Join(report, "\n")
	for _, want := range []string{"max_qp_wr 1048576 (the sim's default: 16384)", "max_send_sge 30 (the sim's default: 32)",
		"max_fast_reg_page_list_len 0 (the sim's default: 512)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("report lacks %q:\n%s", want, joined)
		}
	}
	s.MaxSendSGE, s.PageSize, s.MaxQPWR = 4, 8192, 16384
	if a, _, err = s.onDevice(dev); err != nil || a.MaxSendSGE != 4 || a.PageSize != 8192 || a.MaxQPWR != 16384 {
		t.Errorf("lowered: %+v, %v", a, err)
	}
	s.MaxSendSGE = 31
	if _, _, err = s.onDevice(dev); err == nil || !strings.Contains(err.Error(), "max_send_sge 31 is over what rxe0 has (30)") {
		t.Errorf("raised: %v", err)
	}
	s.MaxSendSGE, s.MaxQPWR = 30, 40000
	if _, _, err = s.onDevice(dev); err == nil || !strings.Contains(err.Error(), "more than its CQs hold (max_cqe 32767)") {
		t.Errorf("max_qp_wr over max_cqe: %v", err)
	}
	if sim.DefaultAttr().MaxSendSGE != DefaultSettings().MaxSendSGE {
		t.Fatal("the defaults drifted from the sim's")
	}
}

// On a real device, what only the sim has is refused at the command with
// the reason, and the virtual link's settings show as "-".
func TestRealSettingsRefused(t *testing.T) {
	s := DefaultSettings()
	s.Engine = "ibv:rxe0"
	for _, c := range []struct{ name, value, want string }{
		{"link_rate", "25G", "virtual link"}, {"latency", "10us", "virtual link"},
		{"iwarp", "on", "sim only"}, {"force_mr", "on", "sim only"}, {"max_sgl_rd", "8", "MR path"},
	} {
		st, _ := FindSetting(c.name)
		if _, _, err := st.Change(s, c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("set %s %s on ibv: %v", c.name, c.value, err)
		}
	}
	for _, n := range []string{"link_rate", "latency"} {
		st, _ := FindSetting(n)
		if got := st.InUse(s, nil); got != "-" {
			t.Errorf("%s on ibv shows %q", n, got)
		}
	}
	st, _ := FindSetting("max_sgl_rd")
	if _, _, err := st.Change(DefaultSettings(), "8"); err != nil {
		t.Errorf("max_sgl_rd on the sim: %v", err)
	}
}

// Without a real provider in the binary (or a device), a lab on ibv is
// refused with the provider's reason; the sim-only choices are refused
// before any device is opened.
func TestRealLabRefused(t *testing.T) {
	s := DefaultSettings()
	s.Engine = "ibv:rdmalab_no_such0"
	_, err := New(s)
	if err == nil {
		t.Fatal("a lab on a device that does not exist")
	}
	if !ibv.Built() && !strings.Contains(err.Error(), "-tags ibv") {
		t.Errorf("stub build: %v", err)
	}
	s.ForceMR = true
	if _, err := New(s); err == nil || !strings.Contains(err.Error(), "sim only") {
		t.Errorf("force_mr on ibv: %v", err)
	}
}

func TestErrSimOnly(t *testing.T) {
	if got := ErrSimOnly("injecting").Error(); !strings.HasPrefix(got, "injecting needs the sim") {
		t.Error(got)
	}
}

// bare is a provider with none of the sim's capabilities: only
// verbs.Provider's methods show through.
type bare struct{ verbs.Provider }

// The Lab drives any verbs.Provider: what a provider lacks, it finds by
// asking for the capability and refuses with the error that names it.
func TestLabOnABareProvider(t *testing.T) {
	l, err := New(DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Provider = bare{l.Provider}
	k, err := l.Call(xprt.CallSpec{Label: "NFSv3 GETATTR", Msg: nfsd.GetattrCall(l.NFS.Lookup("data").FH)})
	if err != nil {
		t.Fatal(err)
	}
	if l.PendingCount() == 0 {
		t.Fatal("the call's SEND is not pending")
	}
	st := verbs.StatusRemAccessErr
	var simOnly ErrSimOnly
	if _, err := l.Complete(1, &st); !errors.As(err, &simOnly) {
		t.Errorf("complete with a status: %v", err)
	}
	if err := l.FailNth(1, st); !errors.As(err, &simOnly) {
		t.Errorf("FailNth: %v", err)
	}
	if err := l.StartCapture(io.Discard); !errors.Is(err, ErrNoWire) {
		t.Errorf("StartCapture: %v", err)
	}
	if _, err := l.WriteCapture(io.Discard); !errors.Is(err, ErrNoWire) {
		t.Errorf("WriteCapture: %v", err)
	}
	if l.Can(OwnWire) {
		t.Error("a provider without a wire: Can(OwnWire) true")
	}
	// The call's SEND, then the reply's.
	for i := 0; i < 10 && l.PendingCount() > 0; i++ {
		if _, err := l.Complete(-1, nil); err != nil {
			t.Fatal(err)
		}
		l.Continue()
	}
	if k.Reply == nil || l.PendingCount() != 0 {
		t.Errorf("no reply through the bare provider (%d pending)", l.PendingCount())
	}
}

// The sim's provider has the capabilities a real device lacks.
func TestSimCapabilities(t *testing.T) {
	l, err := New(DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, ok := l.Provider.(verbs.StatusChooser); !ok {
		t.Error("no StatusChooser")
	}
	if _, ok := l.Provider.(verbs.Link); !ok {
		t.Error("no Link")
	}
	if _, ok := l.Provider.(verbs.FaultInjector); !ok {
		t.Error("no FaultInjector")
	}
	if _, ok := l.wire(); !ok {
		t.Error("no virtual wire")
	}
}
