package engine

import (
	"fmt"
	"maps"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Settings are what a learner can see and change; Reset applies them.
// The fields are declared once, as snap.Settings (what a snapshot says
// the lab was built with): the kernel profile and the bugs are their
// names there, which Behaviour turns into svcrdma's types. The settings
// table (settingdefs.go) is what reads and writes them.
type Settings snap.Settings

// Snap is s as a snapshot carries it, with a map of bugs of its own.
func (s Settings) Snap() snap.Settings {
	c := snap.Settings(s)
	c.Bugs = maps.Clone(s.Bugs)
	return c
}

// DefaultSettings is the lab as `go run .` starts it: the fixed kernel of
// late 2025 on an rxe-like device, one thread, completions by hand.
func DefaultSettings() Settings {
	a := sim.DefaultAttr()
	return Settings{
		Seed:            1,
		PageSize:        a.PageSize,
		MaxSendSGE:      a.MaxSendSGE,
		MaxSGERd:        a.MaxSGERd,
		MaxSGLRd:        a.MaxSGLRd,
		MaxQPWR:         a.MaxQPWR,
		InlineThreshold: 4096,
		Credits:         64,
		Profile:         string(svcrdma.ProfileFix2025),
		Positions:       true,
		PostLock:        true,
		Threads:         1,
		LinkRate:        sim.DefaultLinkRate,
		Latency:         sim.DefaultLatency,
		PathMTU:         1024,
	}
}

// Validate reports, in plain words, settings the lab could not be built
// with or that would fail deep inside the model: ranges that depend on
// the device or on another setting.
func (s Settings) Validate() error {
	a := s.deviceAttr()
	switch {
	case s.Threads < 1 || s.Threads > 64:
		return fmt.Errorf("threads must be 1..64, not %d", s.Threads)
	case s.SQDepth < 0 || s.SQDepth > a.MaxCQE:
		return fmt.Errorf("sq_depth must be 0..%d, not %d: svc_rdma_accept gives the Send CQ one entry per SQ slot, and the device's CQs hold at most max_cqe = %d",
			a.MaxCQE, s.SQDepth, a.MaxCQE)
	case s.SQDepth > a.MaxQPWR:
		return fmt.Errorf("sq_depth %d is over max_qp_wr %d: the QP's Send Queue holds at most max_qp_wr WRs, and svc_rdma_accept never sizes sc_sq_depth above it (sq_depth 0 sizes it at accept)",
			s.SQDepth, a.MaxQPWR)
	case s.MaxQPWR > a.MaxCQE:
		return fmt.Errorf("max_qp_wr must be at most %d, not %d: svc_rdma_accept sizes the Send CQ from the queue depths max_qp_wr bounds, and the device's CQs hold at most max_cqe = %d",
			a.MaxCQE, s.MaxQPWR, a.MaxCQE)
	case s.MaxSendSGEs < 0 || s.MaxSendSGEs > a.MaxSendSGE:
		return fmt.Errorf("max_send_sges %d is over the device's max_send_sge %d: ib_create_qp refuses a QP that asks for more SGEs than the device has (max_send_sges 0 sizes it at accept)",
			s.MaxSendSGEs, a.MaxSendSGE)
	case s.QPMaxSendSGE < 0 || s.QPMaxSendSGE > a.MaxSendSGE:
		return fmt.Errorf("qp_max_send_sge %d is over the device's max_send_sge %d: a provider grants no more SGEs than the device has",
			s.QPMaxSendSGE, a.MaxSendSGE)
	}
	return nil
}

// DeviceAttr is the server device these settings describe: what rxe
// reports, changed by the device settings.
func (s Settings) DeviceAttr() verbs.DeviceAttr { return s.deviceAttr() }

func (s Settings) deviceAttr() verbs.DeviceAttr {
	a := sim.DefaultAttr()
	a.PageSize = s.PageSize
	a.MaxSendSGE = s.MaxSendSGE
	a.MaxSGERd = s.MaxSGERd
	a.MaxSGLRd = s.MaxSGLRd
	if s.MaxQPWR > 0 {
		a.MaxQPWR = s.MaxQPWR
	}
	a.IWARP = s.IWARP
	return a
}

// Behaviour is the kernel s makes the server: the profile, and the bugs
// switched one at a time on top of it.
func (s Settings) Behaviour() svcrdma.Behaviour {
	b := svcrdma.NewBehaviour(svcrdma.Profile(s.Profile))
	for _, bug := range svcrdma.AllBugs() {
		if on, ok := s.Bugs[string(bug)]; ok {
			b = b.With(bug, on)
		}
	}
	return b
}

func (s Settings) xprtConfig() svcrdma.Config {
	return svcrdma.Config{
		MaxReqSize:  s.InlineThreshold,
		MaxRequests: s.Credits,
		SQDepth:     s.SQDepth,
		MaxSendSGEs: s.MaxSendSGEs,
		ForceMR:     s.ForceMR,
		SndWInv:     s.SndWInv,
		Positions:   s.Positions,
		NoPostLock:  !s.PostLock,
	}
}
