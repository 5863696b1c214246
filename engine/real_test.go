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

// The device's attributes replace the sim's defaults; a lowered setting
// stays, a raised one is refused; the report names every difference.
func TestOnDevice(t *testing.T) {
	dev := ibv.AttrOf("rxe0", ibv.RawAttr{MaxQPWR: 1048576, MaxSGE: 30, MaxSGERd: 30, MaxCQE: 32767, MaxMR: 524287,
		MaxQPRdAtom: 128, MaxQPInitRdAtom: 128}, 4096)
	s := DefaultSettings()
	a, report, err := s.onDevice(dev)
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxSendSGE != 30 || a.MaxSGERd != 30 || a.MaxQPWR != 1048576 || a.PageSize != 4096 {
		t.Errorf("attr %+v", a)
	}
	joined := strings.Join(report, "\n")
	for _, want := range []string{"max_qp_wr 1048576 (the sim's default: 16384)", "max_send_sge 30 (the sim's default: 32)",
		"max_fast_reg_page_list_len 0 (the sim's default: 512)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("report lacks %q:\n%s", want, joined)
		}
	}
	s.MaxSendSGE, s.PageSize = 4, 8192
	if a, _, err = s.onDevice(dev); err != nil || a.MaxSendSGE != 4 || a.PageSize != 8192 {
		t.Errorf("lowered: %+v, %v", a, err)
	}
	s.MaxSendSGE = 31
	if _, _, err = s.onDevice(dev); err == nil || !strings.Contains(err.Error(), "max_send_sge 31 is over what rxe0 has (30)") {
		t.Errorf("raised: %v", err)
	}
	if sim.DefaultAttr().MaxSendSGE != DefaultSettings().MaxSendSGE {
		t.Fatal("the defaults drifted from the sim's")
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
