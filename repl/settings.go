package repl

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// setting is one row of the settings table: a field of engine.Settings
// under its JSON name, or one bug (B1..B13) on top of the profile.
type setting struct {
	Name   string       // engine.Settings' JSON tag, or "B4"
	Short  string       // one line
	Range  string       // what it accepts, for help and errors
	Values []Suggestion // what Tab offers
	get    func(engine.Settings) string
	set    func(*engine.Settings, string) error
	// live applies the new settings to the running lab and says how; nil
	// (or a false return) means the transport must be rebuilt.
	live func(s *Session, next engine.Settings) (bool, error)
	// unlessLive, when set, says when live rebuilds all the same ("it
	// switches B9 ...").
	unlessLive string
	// effective says what the lab uses when the setting means "auto".
	effective func(*engine.Lab) string
	// rangeOf, when set, is Range given the other settings: a limit that
	// depends on the device or on another setting.
	rangeOf func(engine.Settings) string
}

// accepts is what the setting accepts with the settings s.
func (st setting) accepts(s engine.Settings) string {
	if st.rangeOf != nil {
		return st.rangeOf(s)
	}
	return st.Range
}

// capped bounds an integer setting by the real limit, which the device or
// another setting decides; a value over it is refused with the reason.
func capped(st setting, lo int64, field func(*engine.Settings) *int, limit func(engine.Settings) (hi int64, why string)) setting {
	st.rangeOf = func(s engine.Settings) string {
		hi, _ := limit(s)
		return fmt.Sprintf("%d..%d", lo, hi)
	}
	st.Range = st.rangeOf(engine.DefaultSettings())
	st.set = func(s *engine.Settings, v string) error {
		hi, why := limit(*s)
		n, err := parseInt(st.Name, v, lo, hi)
		var re *rangeError
		if errors.As(err, &re) && n > hi {
			return fmt.Errorf("%w: %s", err, why)
		}
		if err != nil {
			return err
		}
		*field(s) = int(n)
		return nil
	}
	return st
}

// maxCQE is the limit of every CQ of the server's device.
func maxCQE(s engine.Settings) int64 { return int64(s.DeviceAttr().MaxCQE) }

// settingsTable lists every setting in display order.
func settingsTable() []setting {
	onOffVals := []Suggestion{{"on", "switch on"}, {"off", "switch off"}}
	intSetting := func(name, short string, lo, hi int64, field func(*engine.Settings) *int, vals ...string) setting {
		st := setting{Name: name, Short: short, Range: fmt.Sprintf("%d..%d", lo, hi),
			get: func(s engine.Settings) string { return strconv.Itoa(*field(&s)) },
			set: func(s *engine.Settings, v string) error {
				n, err := parseInt(name, v, lo, hi)
				*field(s) = int(n)
				return err
			}}
		for _, v := range vals {
			st.Values = append(st.Values, Suggestion{v, ""})
		}
		return st
	}
	boolSetting := func(name, short string, field func(*engine.Settings) *bool) setting {
		return setting{Name: name, Short: short, Range: "on|off", Values: onOffVals,
			get: func(s engine.Settings) string { return onOff(*field(&s)) },
			set: func(s *engine.Settings, v string) error {
				b, err := parseOnOff(name, v)
				*field(s) = b
				return err
			}}
	}
	pageSize := intSetting("page_size", "PAGE_SIZE: size of rq_pages and SGL pages", 4096, 65536,
		func(s *engine.Settings) *int { return &s.PageSize }, "4096", "8192", "16384", "65536")
	pageSize.Range = "4096, 8192, 16384, 32768 or 65536"
	pageSize.set = func(s *engine.Settings, v string) error {
		n, err := parseInt("page_size", v, 4096, 65536)
		if err != nil {
			return err
		}
		if n&(n-1) != 0 {
			return fmt.Errorf("page_size must be a power of two from 4096 to 65536, not %s", shown(v))
		}
		s.PageSize = int(n)
		return nil
	}
	sqDepthField := func(s *engine.Settings) *int { return &s.SQDepth }
	sqDepth := capped(intSetting("sq_depth", "sc_sq_depth: SQ slots (0: sized at accept)", 0, 0, sqDepthField, "0", "16", "64", "256"),
		0, sqDepthField, func(s engine.Settings) (int64, string) {
			if qp := int64(s.DeviceAttr().MaxQPWR); qp < maxCQE(s) {
				return qp, fmt.Sprintf("the QP's Send Queue holds at most max_qp_wr = %d WRs (set max_qp_wr raises it)", qp)
			}
			return maxCQE(s), fmt.Sprintf("svc_rdma_accept gives the Send CQ one entry per SQ slot, and the device's CQs hold at most max_cqe = %d", maxCQE(s))
		})
	sqDepth.effective = func(l *engine.Lab) string { return strconv.Itoa(l.Server.SQDepth) }
	sendSGEsField := func(s *engine.Settings) *int { return &s.MaxSendSGEs }
	maxSendSGEs := capped(intSetting("max_send_sges", "sc_max_send_sges (0: sized at accept)", 0, 0, sendSGEsField, "0", "2", "3", "5"),
		0, sendSGEsField, func(s engine.Settings) (int64, string) {
			return int64(s.MaxSendSGE), fmt.Sprintf("the device's max_send_sge is %d (set max_send_sge raises it), and ib_create_qp refuses a QP that asks for more", s.MaxSendSGE)
		})
	maxSendSGEs.effective = func(l *engine.Lab) string { return strconv.Itoa(l.Server.MaxSendSGEs) }
	qpWRField := func(s *engine.Settings) *int { return &s.MaxQPWR }
	maxQPWR := capped(intSetting("max_qp_wr", "device max_qp_wr: limit on SQ and RQ depth", 16, 0, qpWRField, "16384", "128"),
		16, qpWRField, func(s engine.Settings) (int64, string) {
			return maxCQE(s), fmt.Sprintf("svc_rdma_accept sizes the CQs from queue depths up to max_qp_wr, and the device's CQs hold at most max_cqe = %d", maxCQE(s))
		})
	qpSGEField := func(s *engine.Settings) *int { return &s.QPMaxSendSGE }
	qpSGE := capped(intSetting("qp_max_send_sge", "the QP's max_send_sge, at least (0: as asked)", 0, 0, qpSGEField, "0", "8", "16"),
		0, qpSGEField, func(s engine.Settings) (int64, string) {
			return int64(s.MaxSendSGE), fmt.Sprintf("the device's max_send_sge is %d (set max_send_sge raises it), and a provider grants no more", s.MaxSendSGE)
		})
	qpSGE.effective = func(l *engine.Lab) string { return strconv.Itoa(l.Server.QPMaxWriteSGE) }

	table := []setting{
		pageSize,
		intSetting("max_send_sge", "device max_send_sge: rw ctxt first_sgl_nents", 1, 256,
			func(s *engine.Settings) *int { return &s.MaxSendSGE }, "32", "4", "2"),
		qpSGE,
		intSetting("max_sge_rd", "device max_sge_rd: SGEs per RDMA READ", 1, 256,
			func(s *engine.Settings) *int { return &s.MaxSGERd }, "32", "4", "1"),
		intSetting("max_sgl_rd", "device max_sgl_rd: longer READs use an MR", 0, 4096,
			func(s *engine.Settings) *int { return &s.MaxSGLRd }, "0", "8"),
		maxQPWR,
		boolSetting("iwarp", "iWARP device: READ sinks need an MR",
			func(s *engine.Settings) *bool { return &s.IWARP }),
		boolSetting("force_mr", "rdma_rw force_mr: always register for R/W",
			func(s *engine.Settings) *bool { return &s.ForceMR }),
		sqDepth,
		maxSendSGEs,
		intSetting("inline_threshold", "svcrdma_max_req_size: the Receive size", 1024, 65536,
			func(s *engine.Settings) *int { return &s.InlineThreshold }, "4096", "1024", "8192"),
		intSetting("credits", "svcrdma_max_requests: credits, Receives", 1, 512,
			func(s *engine.Settings) *int { return &s.Credits }, "64", "8", "2"),
		liveBool(boolSetting("send_with_inv", "the client asks for Send With Invalidate",
			func(s *engine.Settings) *bool { return &s.SndWInv }), func(s *Session, next engine.Settings) {
			s.lab.Server.Cfg.SndWInv = next.SndWInv
		}),
		postSetting(boolSetting("positions", "the reply-position patch (xpt_acked_pos)",
			func(s *engine.Settings) *bool { return &s.Positions })),
		postSetting(boolSetting("post_lock", "sc_post_lock (off: the posting race)",
			func(s *engine.Settings) *bool { return &s.PostLock })),
		profileSetting(),
	}
	for _, b := range svcrdma.AllBugs() {
		table = append(table, bugSetting(b))
	}
	threads := intSetting("threads", "nfsd threads serving the transport", 1, 64,
		func(s *engine.Settings) *int { return &s.Threads }, "1", "2", "4")
	auto := liveBool(boolSetting("auto_complete", "deliver completions without `complete`",
		func(s *engine.Settings) *bool { return &s.AutoComplete }), func(s *Session, next engine.Settings) {})
	table = append(table, threads, auto, linkRateSetting(), latencySetting(), pathMTUSetting(),
		setting{Name: "seed", Short: "random seed: keys, addresses, QPNs, XIDs", Range: "0..9007199254740992",
			Values: []Suggestion{{"1", "the default"}, {"2", ""}, {"42", ""}},
			get:    func(s engine.Settings) string { return strconv.FormatInt(s.Seed, 10) },
			set: func(s *engine.Settings, v string) error {
				n, err := parseInt("seed", v, 0, 1<<53)
				s.Seed = n
				return err
			}})
	return table
}

// liveBool makes a setting change the running lab through apply.
func liveBool(st setting, apply func(*Session, engine.Settings)) setting {
	st.live = func(s *Session, next engine.Settings) (bool, error) {
		apply(s, next)
		return true, nil
	}
	return st
}

// postSetting is positions or post_lock: live unless a thread is between
// taking sc_post_lock and releasing it.
func postSetting(st setting) setting {
	st.live = func(s *Session, next engine.Settings) (bool, error) {
		if who := insidePost(s.lab); who != "" {
			return false, fmt.Errorf("%s can change only while no thread is inside svc_rdma_post_send, and %s is: step it out first (finish), or reset", st.Name, who)
		}
		s.lab.Server.Cfg.Positions = next.Positions
		s.lab.Server.Cfg.NoPostLock = !next.PostLock
		return true, nil
	}
	return st
}

// insidePost names a thread inside svc_rdma_post_send, or "".
func insidePost(l *engine.Lab) string {
	if h := l.Server.PostLock.Holder(); h != "" {
		return h
	}
	for _, t := range l.Sched.Tasks() {
		for _, f := range t.Frames() {
			if f == kernel.SvcRdmaPostSend.Name() {
				return t.Name
			}
		}
	}
	return ""
}

func profileSetting() setting {
	var vals []Suggestion
	for _, p := range svcrdma.Profiles() {
		vals = append(vals, Suggestion{string(p), profileDesc(p)})
	}
	return setting{Name: "profile", Short: "which kernel the model behaves as", Range: "seed|fix2025|new2026",
		Values: vals,
		get:    func(s engine.Settings) string { return string(s.Profile) },
		set: func(s *engine.Settings, v string) error {
			p, err := svcrdma.ParseProfile(strings.ToLower(v))
			if err != nil {
				return err
			}
			s.Profile = p
			s.Bugs = nil // the profile's own bugs
			return nil
		},
		live:       liveBehaviour,
		unlessLive: b9Rebuilds,
	}
}

// b9Rebuilds is when a profile change rebuilds the lab: liveBehaviour.
const b9Rebuilds = "it switches B9 (the SQ sizing at accept)"

func profileDesc(p svcrdma.Profile) string {
	switch p {
	case svcrdma.ProfileSeed:
		return "the seed svc_rdma_rw.c, bugs B1..B13 included"
	case svcrdma.ProfileFix2025:
		return "with the Nov-2025 copy_inline_range fixes (B1..B3 gone)"
	case svcrdma.ProfileNew2026:
		return "with the 2026 changes (only B13 left)"
	}
	return ""
}

func bugSetting(b svcrdma.Bug) setting {
	name := string(b)
	live := liveBehaviour
	if b == svcrdma.B9 {
		live = nil // it decides how svc_rdma_accept sizes the Send Queue
	}
	return setting{Name: name, Short: b.Describe(), Range: "on|off|default",
		Values: []Suggestion{{"on", "switch the bug on"}, {"off", "switch the bug off"}, {"default", "as the profile has it"}},
		get: func(s engine.Settings) string {
			on := behaviourOf(s).Has(b)
			if _, over := s.Bugs[b]; over {
				return onOff(on)
			}
			return onOff(on) + " (profile)"
		},
		set: func(s *engine.Settings, v string) error {
			bugs := maps.Clone(s.Bugs)
			if bugs == nil {
				bugs = map[svcrdma.Bug]bool{}
			}
			if strings.ToLower(v) == "default" {
				delete(bugs, b)
			} else {
				on, err := parseOnOff(name, v)
				if err != nil {
					return fmt.Errorf("%s: %q is not on, off or default", name, v)
				}
				bugs[b] = on
			}
			s.Bugs = bugs
			return nil
		},
		live: live,
	}
}

// behaviourOf is the profile plus the bugs switched one at a time, as the
// engine builds it.
func behaviourOf(s engine.Settings) svcrdma.Behaviour {
	b := svcrdma.NewBehaviour(s.Profile)
	for _, bug := range svcrdma.AllBugs() {
		if on, ok := s.Bugs[bug]; ok {
			b = b.With(bug, on)
		}
	}
	return b
}

// liveBehaviour swaps the transport's behaviour, unless B9 changes: it
// decides how svc_rdma_accept sizes the Send Queue, so that needs a new
// transport.
func liveBehaviour(s *Session, next engine.Settings) (bool, error) {
	beh := behaviourOf(next)
	if beh.Has(svcrdma.B9) != s.lab.Server.Beh.Has(svcrdma.B9) {
		return false, nil
	}
	s.lab.Server.Beh = beh
	return true, nil
}

func linkRateSetting() setting {
	const lo, hi = 1_000_000, 1_000_000_000_000
	return setting{Name: "link_rate", Short: "virtual link rate, bits/s", Range: "1M..1T",
		Values: []Suggestion{{"10G", "the default"}, {"25G", ""}, {"100G", ""}, {"1G", ""}},
		get:    func(s engine.Settings) string { return fmtRate(s.LinkRate) },
		set: func(s *engine.Settings, v string) error {
			r, err := parseRate("link_rate", v, lo, hi)
			s.LinkRate = r
			return err
		},
		live: func(s *Session, next engine.Settings) (bool, error) {
			link, ok := s.lab.Provider.(verbs.Link)
			if !ok {
				return false, fmt.Errorf("link_rate is the sim's virtual link; a real device runs at its own speed")
			}
			link.SetLinkRate(next.LinkRate)
			return true, nil
		}}
}

func latencySetting() setting {
	return setting{Name: "latency", Short: "virtual one-way latency", Range: "0s..1s",
		Values: []Suggestion{{"2us", "the default"}, {"0s", ""}, {"10us", ""}, {"1ms", ""}},
		get:    func(s engine.Settings) string { return s.Latency.String() },
		set: func(s *engine.Settings, v string) error {
			d, err := parseDuration("latency", v, 0, time.Second)
			s.Latency = d
			return err
		},
		live: func(s *Session, next engine.Settings) (bool, error) {
			link, ok := s.lab.Provider.(verbs.Link)
			if !ok {
				return false, fmt.Errorf("latency is the sim's virtual link; a real device has its own")
			}
			link.SetLatency(next.Latency)
			return true, nil
		}}
}

func pathMTUSetting() setting {
	mtus := []string{"256", "512", "1024", "2048", "4096"}
	st := setting{Name: "path_mtu", Short: "RoCE path MTU: bytes per packet", Range: strings.Join(mtus, "|"),
		get: func(s engine.Settings) string { return strconv.Itoa(s.PathMTU) },
		set: func(s *engine.Settings, v string) error {
			for _, m := range mtus {
				if v == m {
					s.PathMTU, _ = strconv.Atoi(v)
					return nil
				}
			}
			return fmt.Errorf("path_mtu must be one of %s, not %s", strings.Join(mtus, ", "), shown(v))
		}}
	for _, m := range mtus {
		st.Values = append(st.Values, Suggestion{m, ""})
	}
	return st
}

// normName folds a setting name: case, and '-' for '_'; bugs are upper case.
func normName(n string) string {
	n = strings.ReplaceAll(strings.ToLower(n), "-", "_")
	if len(n) >= 2 && n[0] == 'b' && n[1] >= '0' && n[1] <= '9' {
		return strings.ToUpper(n)
	}
	return n
}

// findSetting looks a setting up by name.
func findSetting(name string) (setting, bool) {
	n := normName(name)
	for _, st := range settingsTable() {
		if st.Name == n {
			return st, true
		}
	}
	return setting{}, false
}

// cloneSettings copies s, bugs map included.
func cloneSettings(s engine.Settings) engine.Settings {
	s.Bugs = maps.Clone(s.Bugs)
	return s
}

// applySetting changes one setting: on the running lab when it can, by
// rebuilding the lab when the setting shapes the transport.
func (s *Session) applySetting(st setting, value string, out io.Writer) error {
	next := cloneSettings(s.set)
	if err := st.set(&next, value); err != nil {
		return err
	}
	// A setting another one depends on (max_send_sge under max_send_sges).
	if err := next.Validate(); err != nil {
		return fmt.Errorf("%s stays %s: %w", st.Name, st.get(s.set), err)
	}
	if st.get(next) == st.get(s.set) {
		fmt.Fprintf(out, "%s is already %s\n", st.Name, st.get(next))
		return nil
	}
	if st.live != nil {
		ok, err := st.live(s, next)
		if err != nil {
			return err
		}
		if ok {
			s.set = next
			s.lab.Set = cloneSettings(next)
			fmt.Fprintf(out, "%s = %s (changed in the running lab)\n", st.Name, st.get(next))
			return nil
		}
	}
	inflight := s.lab.Client.Outstanding()
	if err := s.rebuild(next); err != nil {
		return err
	}
	why := "it shapes the transport"
	if st.unlessLive != "" {
		why = st.unlessLive
	}
	fmt.Fprintf(out, "%s = %s: %s, so the lab was rebuilt", st.Name, st.get(next), why)
	if inflight > 0 {
		fmt.Fprintf(out, " (%d call(s) in flight were dropped)", inflight)
	}
	fmt.Fprintln(out)
	return nil
}
