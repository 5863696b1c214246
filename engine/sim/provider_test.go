package sim

import (
	"errors"
	"testing"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// The Provider drives the Fabric through verbs.Provider: an idle fabric
// says ErrIdle, a declared fault and a chosen status complete the
// operations they name, and Disconnect says what it did.
func TestProvider(t *testing.T) {
	p := newPair(t, Config{Seed: 1}, defaultOpts())
	var prov verbs.Provider = NewProvider(p.f)
	if _, err := prov.DeliverNext(); !errors.Is(err, verbs.ErrIdle) {
		t.Fatalf("idle DeliverNext: %v", err)
	}
	_, mr := reg(t, p.a, 64, verbs.AccessLocalWrite, 1)
	for i := uint64(1); i <= 3; i++ {
		postRecv(t, p.b.qp, i, sge(mr, 0, 0))
		postSend(t, p.a.qp, &verbs.SendWR{WRID: i, Opcode: verbs.WRSend, Signaled: true})
	}
	if prov.PendingCount() != 3 || len(prov.Pending()) != 3 {
		t.Fatalf("pending %d", prov.PendingCount())
	}
	what, err := prov.(verbs.FaultInjector).FailNth(2, verbs.StatusRemOpErr)
	if err != nil || what != "operation 2 from now will complete with REM_OP_ERR" {
		t.Errorf("FailNth: %q, %v", what, err)
	}
	if op, err := prov.(verbs.StatusChooser).DeliverNextAs(verbs.StatusSuccess); err != nil || op.WRID != 1 || op.Status != verbs.StatusSuccess {
		t.Errorf("first: %v, %v", op, err)
	}
	if op, err := prov.DeliverNext(); err != nil || op.WRID != 2 || op.Status != verbs.StatusRemOpErr {
		t.Errorf("second: %v, %v", op, err)
	}
	if done, err := prov.Disconnect(); err != nil || done != "the link is down: both QPs are in ERR" {
		t.Errorf("Disconnect: %q, %v", done, err)
	}
	if p.a.qp.State() != verbs.QPSErr || p.b.qp.State() != verbs.QPSErr {
		t.Errorf("states %v %v", p.a.qp.State(), p.b.qp.State())
	}
}
