package engine

import (
	"fmt"
	"time"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/snap"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Settings are what a learner can see and change; Reset applies them.
// The kernel profile and the bugs are svcrdma's types here; a snapshot
// carries the same fields as snap.Settings (Snap), with the same JSON
// names, so settings encode alike either way.
type Settings struct {
	Seed int64 `json:"seed"`
	// Engine is the provider: "" or "sim", or "ibv:DEV[,CLIENT_DEV]" for
	// real devices (ParseEngine).
	Engine string `json:"engine,omitempty"`

	// The device (sim: what rxe reports unless changed).
	PageSize     int  `json:"page_size"`
	MaxSendSGE   int  `json:"max_send_sge"`    // device max_send_sge = rw ctxt first_sgl_nents
	QPMaxSendSGE int  `json:"qp_max_send_sge"` // the least max_send_sge the provider grants a QP (0: what is asked)
	MaxSGERd     int  `json:"max_sge_rd"`
	MaxSGLRd     int  `json:"max_sgl_rd"`
	MaxQPWR      int  `json:"max_qp_wr"`
	IWARP        bool `json:"iwarp"`
	ForceMR      bool `json:"force_mr"`

	// The transport.
	SQDepth         int  `json:"sq_depth"`         // 0: sized as svc_rdma_accept does
	MaxSendSGEs     int  `json:"max_send_sges"`    // 0: sized as svc_rdma_accept does
	InlineThreshold int  `json:"inline_threshold"` // svcrdma_max_req_size
	Credits         int  `json:"credits"`          // svcrdma_max_requests
	SndWInv         bool `json:"send_with_inv"`

	Profile   svcrdma.Profile      `json:"profile"`
	Bugs      map[svcrdma.Bug]bool `json:"bugs,omitempty"` // on top of the profile
	Positions bool                 `json:"positions"`      // the reply-position patch
	PostLock  bool                 `json:"post_lock"`      // sc_post_lock (off: the race lesson)

	Threads      int           `json:"threads"`
	AutoComplete bool          `json:"auto_complete"`
	LinkRate     int64         `json:"link_rate"` // bits/s
	Latency      time.Duration `json:"latency"`
	PathMTU      int           `json:"path_mtu"`
}

// Snap is s as a snapshot carries it: the same fields, the profile and
// the bugs by name.
func (s Settings) Snap() snap.Settings {
	var bugs map[string]bool
	if s.Bugs != nil {
		bugs = make(map[string]bool, len(s.Bugs))
		for b, on := range s.Bugs {
			bugs[string(b)] = on
		}
	}
	return snap.Settings{
		Seed:            s.Seed,
		Engine:          s.Engine,
		PageSize:        s.PageSize,
		MaxSendSGE:      s.MaxSendSGE,
		QPMaxSendSGE:    s.QPMaxSendSGE,
		MaxSGERd:        s.MaxSGERd,
		MaxSGLRd:        s.MaxSGLRd,
		MaxQPWR:         s.MaxQPWR,
		IWARP:           s.IWARP,
		ForceMR:         s.ForceMR,
		SQDepth:         s.SQDepth,
		MaxSendSGEs:     s.MaxSendSGEs,
		InlineThreshold: s.InlineThreshold,
		Credits:         s.Credits,
		SndWInv:         s.SndWInv,
		Profile:         string(s.Profile),
		Bugs:            bugs,
		Positions:       s.Positions,
		PostLock:        s.PostLock,
		Threads:         s.Threads,
		AutoComplete:    s.AutoComplete,
		LinkRate:        s.LinkRate,
		Latency:         s.Latency,
		PathMTU:         s.PathMTU,
	}
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
		Profile:         svcrdma.ProfileFix2025,
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
	b := svcrdma.NewBehaviour(s.Profile)
	for _, bug := range svcrdma.AllBugs() {
		if on, ok := s.Bugs[bug]; ok {
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
