package sim

import (
	"fmt"
	"time"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Provider is a Fabric as the engine drives it: a verbs.Provider for the
// pair of nodes "server" and "client", with what only a simulation can do
// as the optional capabilities verbs.FaultInjector, verbs.StatusChooser
// and verbs.Link, and its virtual wire (SetTap, SetPayloadAlloc, Config,
// QPInfo) for the engine's captures.
type Provider struct {
	f *Fabric
}

// NewProvider drives f as a verbs.Provider.
func NewProvider(f *Fabric) *Provider { return &Provider{f: f} }

// The capabilities a Provider has beyond verbs.Provider.
var (
	_ verbs.FaultInjector = (*Provider)(nil)
	_ verbs.StatusChooser = (*Provider)(nil)
	_ verbs.Link          = (*Provider)(nil)
)

// Now is the virtual clock.
func (p *Provider) Now() time.Duration { return p.f.Now() }

// Pending lists the operations not yet executed (Fabric.Pending).
func (p *Provider) Pending() []verbs.Op { return p.f.Pending() }

// PendingCount is len(Pending()) without the copy.
func (p *Provider) PendingCount() int { return p.f.PendingCount() }

// DeliverNext executes the next pending operation (Fabric.DeliverNext).
func (p *Provider) DeliverNext() (verbs.Op, error) { return idleIfNot(p.f.DeliverNext()) }

// DeliverNextAs executes the next pending operation with status st
// (Fabric.DeliverNextAs).
func (p *Provider) DeliverNextAs(st verbs.Status) (verbs.Op, error) {
	return idleIfNot(p.f.DeliverNextAs(st))
}

func idleIfNot(o verbs.Op, ok bool) (verbs.Op, error) {
	if !ok {
		return o, verbs.ErrIdle
	}
	return o, nil
}

// FailNth makes the nth operation executed from now, on any QP, complete
// with st (Fabric.FailNth): the sim declares the outcome, whatever it is.
func (p *Provider) FailNth(n int, st verbs.Status) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("n must be 1 or more, not %d", n)
	}
	p.f.FailNth(n, 0, st)
	return fmt.Sprintf("operation %d from now will complete with %v", n, st), nil
}

// Disconnect takes the link down under the client: both QPs go to ERR.
func (p *Provider) Disconnect() (string, error) {
	p.f.Disconnect("client")
	return "the link is down: both QPs are in ERR", nil
}

// Close has nothing to let go of: the fabric is memory.
func (p *Provider) Close() error { return nil }

// SetLinkRate is Fabric.SetLinkRate.
func (p *Provider) SetLinkRate(bps int64) { p.f.SetLinkRate(bps) }

// SetLatency is Fabric.SetLatency.
func (p *Provider) SetLatency(d time.Duration) { p.f.SetLatency(d) }

// SetTap is Fabric.SetTap: the virtual wire's seam.
func (p *Provider) SetTap(t Tap) { p.f.SetTap(t) }

// SetPayloadAlloc is Fabric.SetPayloadAlloc.
func (p *Provider) SetPayloadAlloc(alloc func(n int) []byte) { p.f.SetPayloadAlloc(alloc) }

// Config is Fabric.Config: the virtual link's timing.
func (p *Provider) Config() Config { return p.f.Config() }

// QPInfo is Fabric.QPInfo.
func (p *Provider) QPInfo(qpn uint32) (QPInfo, bool) { return p.f.QPInfo(qpn) }
