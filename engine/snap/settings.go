package snap

import "time"

// Settings are the lab's settings as data: what a snapshot says the lab
// was built with. They are declared here once: engine.Settings is this
// type with the lab's methods (validation, the settings table), so the
// picture needs no simulator. The kernel profile and the bugs are their
// names ("fix2025", "B1").
type Settings struct {
	Seed   int64  `json:"seed"`
	Engine string `json:"engine,omitempty"` // the provider: "" (the sim) or "ibv:DEV[,DEV]"

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

	Profile   string          `json:"profile"`        // the kernel: "seed", "fix2025", "new2026"
	Bugs      map[string]bool `json:"bugs,omitempty"` // "B1": on or off, on top of the profile
	Positions bool            `json:"positions"`      // the reply-position patch
	PostLock  bool            `json:"post_lock"`      // sc_post_lock (off: the race lesson)

	Threads      int           `json:"threads"`
	AutoComplete bool          `json:"auto_complete"`
	LinkRate     int64         `json:"link_rate"` // bits/s
	Latency      time.Duration `json:"latency"`
	PathMTU      int           `json:"path_mtu"`
}
