package engine

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/verbs"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Setting is one row of the settings table: a field of Settings under
// its JSON name, or one bug (B1..B13) on top of the profile. The table is
// the one list of what a learner may set, how it reads, how it shows and
// whether it changes the running lab; a front end only words it.
type Setting struct {
	Name   string   // Settings' JSON tag, or "B4"
	Short  string   // one line
	Range  string   // what it accepts, for help and errors
	Values []Choice // what a front end offers to complete
	get    func(Settings) string
	set    func(*Settings, string) error
	// live applies the new settings to the running lab and says how; nil
	// (or a false return) means the transport must be rebuilt.
	live func(l *Lab, next Settings) (bool, error)
	// unlessLive, when set, says when live rebuilds all the same ("it
	// switches B9 ...").
	unlessLive string
	// effective says what the lab uses when the setting means "auto".
	effective func(*Lab) string
	// rangeOf, when set, is Range given the other settings: a limit that
	// depends on the device or on another setting.
	rangeOf func(Settings) string
	// simOnly, when set, says why a real device has no such setting: it
	// is refused there, and shows as "-".
	simOnly string
}

// Accepts is what the setting accepts with the settings s.
func (st Setting) Accepts(s Settings) string {
	if st.rangeOf != nil {
		return st.rangeOf(s)
	}
	return st.Range
}

// capped bounds an integer setting by the real limit, which the device or
// another setting decides; a value over it is refused with the reason.
func capped(st Setting, lo int64, field func(*Settings) *int, limit func(Settings) (hi int64, why string)) Setting {
	st.rangeOf = func(s Settings) string {
		hi, _ := limit(s)
		return fmt.Sprintf("%d..%d", lo, hi)
	}
	st.Range = st.rangeOf(DefaultSettings())
	st.set = func(s *Settings, v string) error {
		hi, why := limit(*s)
		n, err := ParseInt(st.Name, v, lo, hi)
		var re *RangeError
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
func maxCQE(s Settings) int64 { return int64(s.DeviceAttr().MaxCQE) }

// SettingsTable lists every setting in display order.
func SettingsTable() []Setting {
	onOffVals := []Choice{{"on", "switch on"}, {"off", "switch off"}}
	intSetting := func(name, short string, lo, hi int64, field func(*Settings) *int, vals ...string) Setting {
		st := Setting{Name: name, Short: short, Range: fmt.Sprintf("%d..%d", lo, hi),
			get: func(s Settings) string { return strconv.Itoa(*field(&s)) },
			set: func(s *Settings, v string) error {
				n, err := ParseInt(name, v, lo, hi)
				*field(s) = int(n)
				return err
			}}
		for _, v := range vals {
			st.Values = append(st.Values, Choice{v, ""})
		}
		return st
	}
	boolSetting := func(name, short string, field func(*Settings) *bool) Setting {
		return Setting{Name: name, Short: short, Range: "on|off", Values: onOffVals,
			get: func(s Settings) string { return OnOff(*field(&s)) },
			set: func(s *Settings, v string) error {
				b, err := ParseOnOff(name, v)
				*field(s) = b
				return err
			}}
	}
	pageSize := intSetting("page_size", "PAGE_SIZE: size of rq_pages and SGL pages", 4096, 65536,
		func(s *Settings) *int { return &s.PageSize }, "4096", "8192", "16384", "65536")
	pageSize.Range = "4096, 8192, 16384, 32768 or 65536"
	pageSize.set = func(s *Settings, v string) error {
		n, err := ParseInt("page_size", v, 4096, 65536)
		if err != nil {
			return err
		}
		if n&(n-1) != 0 {
			return fmt.Errorf("page_size must be a power of two from 4096 to 65536, not %s", safe.Typed(v))
		}
		s.PageSize = int(n)
		return nil
	}
	sqDepthField := func(s *Settings) *int { return &s.SQDepth }
	sqDepth := capped(intSetting("sq_depth", "sc_sq_depth: SQ slots (0: sized at accept)", 0, 0, sqDepthField, "0", "16", "64", "256"),
		0, sqDepthField, func(s Settings) (int64, string) {
			if qp := int64(s.DeviceAttr().MaxQPWR); qp < maxCQE(s) {
				return qp, fmt.Sprintf("the QP's Send Queue holds at most max_qp_wr = %d WRs (set max_qp_wr raises it)", qp)
			}
			return maxCQE(s), fmt.Sprintf("svc_rdma_accept gives the Send CQ one entry per SQ slot, and the device's CQs hold at most max_cqe = %d", maxCQE(s))
		})
	sqDepth.effective = func(l *Lab) string { return strconv.Itoa(l.Server.SQDepth) }
	sendSGEsField := func(s *Settings) *int { return &s.MaxSendSGEs }
	maxSendSGEs := capped(intSetting("max_send_sges", "sc_max_send_sges (0: sized at accept)", 0, 0, sendSGEsField, "0", "2", "3", "5"),
		0, sendSGEsField, func(s Settings) (int64, string) {
			return int64(s.MaxSendSGE), fmt.Sprintf("the device's max_send_sge is %d (set max_send_sge raises it), and ib_create_qp refuses a QP that asks for more", s.MaxSendSGE)
		})
	maxSendSGEs.effective = func(l *Lab) string { return strconv.Itoa(l.Server.MaxSendSGEs) }
	qpWRField := func(s *Settings) *int { return &s.MaxQPWR }
	maxQPWR := capped(intSetting("max_qp_wr", "device max_qp_wr: limit on SQ and RQ depth", 16, 0, qpWRField, "16384", "128"),
		16, qpWRField, func(s Settings) (int64, string) {
			return maxCQE(s), fmt.Sprintf("svc_rdma_accept sizes the CQs from queue depths up to max_qp_wr, and the device's CQs hold at most max_cqe = %d", maxCQE(s))
		})
	qpSGEField := func(s *Settings) *int { return &s.QPMaxSendSGE }
	qpSGE := capped(intSetting("qp_max_send_sge", "the QP's max_send_sge, at least (0: as asked)", 0, 0, qpSGEField, "0", "8", "16"),
		0, qpSGEField, func(s Settings) (int64, string) {
			return int64(s.MaxSendSGE), fmt.Sprintf("the device's max_send_sge is %d (set max_send_sge raises it), and a provider grants no more", s.MaxSendSGE)
		})
	qpSGE.effective = func(l *Lab) string { return strconv.Itoa(l.Server.QPMaxWriteSGE) }

	table := []Setting{
		pageSize,
		intSetting("max_send_sge", "device max_send_sge: rw ctxt first_sgl_nents", 1, 256,
			func(s *Settings) *int { return &s.MaxSendSGE }, "32", "4", "2"),
		qpSGE,
		intSetting("max_sge_rd", "device max_sge_rd: SGEs per RDMA READ", 1, 256,
			func(s *Settings) *int { return &s.MaxSGERd }, "32", "4", "1"),
		intSetting("max_sgl_rd", "device max_sgl_rd: longer READs use an MR", 0, 4096,
			func(s *Settings) *int { return &s.MaxSGLRd }, "0", "8"),
		maxQPWR,
		boolSetting("iwarp", "iWARP device: READ sinks need an MR",
			func(s *Settings) *bool { return &s.IWARP }),
		boolSetting("force_mr", "rdma_rw force_mr: always register for R/W",
			func(s *Settings) *bool { return &s.ForceMR }),
		sqDepth,
		maxSendSGEs,
		intSetting("inline_threshold", "svcrdma_max_req_size: the Receive size", 1024, 65536,
			func(s *Settings) *int { return &s.InlineThreshold }, "4096", "1024", "8192"),
		intSetting("credits", "svcrdma_max_requests: credits, Receives", 1, 512,
			func(s *Settings) *int { return &s.Credits }, "64", "8", "2"),
		liveBool(boolSetting("send_with_inv", "the client asks for Send With Invalidate",
			func(s *Settings) *bool { return &s.SndWInv }), func(l *Lab, next Settings) {
			l.Server.Cfg.SndWInv = next.SndWInv
		}),
		postSetting(boolSetting("positions", "the reply-position patch (xpt_acked_pos)",
			func(s *Settings) *bool { return &s.Positions })),
		postSetting(boolSetting("post_lock", "sc_post_lock (off: the posting race)",
			func(s *Settings) *bool { return &s.PostLock })),
		profileSetting(),
	}
	for _, b := range svcrdma.AllBugs() {
		table = append(table, bugSetting(b))
	}
	threads := intSetting("threads", "nfsd threads serving the transport", 1, 64,
		func(s *Settings) *int { return &s.Threads }, "1", "2", "4")
	auto := liveBool(boolSetting("auto_complete", "deliver completions without `complete`",
		func(s *Settings) *bool { return &s.AutoComplete }), func(l *Lab, next Settings) {})
	table = append(table, threads, auto, linkRateSetting(), latencySetting(), pathMTUSetting(),
		Setting{Name: "seed", Short: "random seed: keys, addresses, QPNs, XIDs", Range: "0..9007199254740992",
			Values: []Choice{{"1", "the default"}, {"2", ""}, {"42", ""}},
			get:    func(s Settings) string { return strconv.FormatInt(s.Seed, 10) },
			set: func(s *Settings, v string) error {
				n, err := ParseInt("seed", v, 0, 1<<53)
				s.Seed = n
				return err
			}})
	return table
}

// liveBool makes a setting change the running lab through apply.
func liveBool(st Setting, apply func(*Lab, Settings)) Setting {
	st.live = func(l *Lab, next Settings) (bool, error) {
		apply(l, next)
		return true, nil
	}
	return st
}

// postSetting is positions or post_lock: live unless a thread is between
// taking sc_post_lock and releasing it.
func postSetting(st Setting) Setting {
	st.live = func(l *Lab, next Settings) (bool, error) {
		if who := insidePost(l); who != "" {
			return false, fmt.Errorf("%s can change only while no thread is inside svc_rdma_post_send, and %s is: step it out first (finish), or reset", st.Name, who)
		}
		l.Server.Cfg.Positions = next.Positions
		l.Server.Cfg.NoPostLock = !next.PostLock
		return true, nil
	}
	return st
}

// insidePost names a thread inside svc_rdma_post_send, or "".
func insidePost(l *Lab) string {
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

func profileSetting() Setting {
	var vals []Choice
	for _, p := range svcrdma.Profiles() {
		vals = append(vals, Choice{string(p), profileDesc(p)})
	}
	return Setting{Name: "profile", Short: "which kernel the model behaves as", Range: "seed|fix2025|new2026",
		Values: vals,
		get:    func(s Settings) string { return s.Profile },
		set: func(s *Settings, v string) error {
			p, err := svcrdma.ParseProfile(strings.ToLower(v))
			if err != nil {
				return err
			}
			s.Profile = string(p)
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

func bugSetting(b svcrdma.Bug) Setting {
	name := string(b)
	live := liveBehaviour
	if b == svcrdma.B9 {
		live = nil // it decides how svc_rdma_accept sizes the Send Queue
	}
	return Setting{Name: name, Short: b.Describe(), Range: "on|off|default",
		Values: []Choice{{"on", "switch the bug on"}, {"off", "switch the bug off"}, {"default", "as the profile has it"}},
		get: func(s Settings) string {
			on := s.Behaviour().Has(b)
			if _, over := s.Bugs[name]; over {
				return OnOff(on)
			}
			return OnOff(on) + " (profile)"
		},
		set: func(s *Settings, v string) error {
			bugs := maps.Clone(s.Bugs)
			if bugs == nil {
				bugs = map[string]bool{}
			}
			if strings.ToLower(v) == "default" {
				delete(bugs, name)
			} else {
				on, err := ParseOnOff(name, v)
				if err != nil {
					return fmt.Errorf("%s: %q is not on, off or default", name, v)
				}
				bugs[name] = on
			}
			s.Bugs = bugs
			return nil
		},
		live: live,
	}
}

// liveBehaviour swaps the transport's behaviour, unless B9 changes: it
// decides how svc_rdma_accept sizes the Send Queue, so that needs a new
// transport.
func liveBehaviour(l *Lab, next Settings) (bool, error) {
	beh := next.Behaviour()
	if beh.Has(svcrdma.B9) != l.Server.Beh.Has(svcrdma.B9) {
		return false, nil
	}
	l.Server.Beh = beh
	return true, nil
}

func linkRateSetting() Setting {
	const lo, hi = 1_000_000, 1_000_000_000_000
	return Setting{Name: "link_rate", Short: "virtual link rate, bits/s", Range: "1M..1T",
		Values: []Choice{{"10G", "the default"}, {"25G", ""}, {"100G", ""}, {"1G", ""}},
		get:    func(s Settings) string { return FmtRate(s.LinkRate) },
		set: func(s *Settings, v string) error {
			r, err := ParseRate("link_rate", v, lo, hi)
			s.LinkRate = r
			return err
		},
		live: func(l *Lab, next Settings) (bool, error) {
			link, ok := l.Provider.(verbs.Link)
			if !ok {
				return false, fmt.Errorf("link_rate is the sim's virtual link; a real device runs at its own speed")
			}
			link.SetLinkRate(next.LinkRate)
			return true, nil
		},
		simOnly: "link_rate is the sim's virtual link; a real device runs at its own speed"}
}

func latencySetting() Setting {
	return Setting{Name: "latency", Short: "virtual one-way latency", Range: "0s..1s",
		Values: []Choice{{"2us", "the default"}, {"0s", ""}, {"10us", ""}, {"1ms", ""}},
		get:    func(s Settings) string { return s.Latency.String() },
		set: func(s *Settings, v string) error {
			d, err := ParseDuration("latency", v, 0, time.Second)
			s.Latency = d
			return err
		},
		live: func(l *Lab, next Settings) (bool, error) {
			link, ok := l.Provider.(verbs.Link)
			if !ok {
				return false, fmt.Errorf("latency is the sim's virtual link; a real device has its own")
			}
			link.SetLatency(next.Latency)
			return true, nil
		},
		simOnly: "latency is the sim's virtual link; a real device has its own"}
}

func pathMTUSetting() Setting {
	mtus := []string{"256", "512", "1024", "2048", "4096"}
	st := Setting{Name: "path_mtu", Short: "RoCE path MTU: bytes per packet", Range: strings.Join(mtus, "|"),
		get: func(s Settings) string { return strconv.Itoa(s.PathMTU) },
		set: func(s *Settings, v string) error {
			for _, m := range mtus {
				if v == m {
					s.PathMTU, _ = strconv.Atoi(v)
					return nil
				}
			}
			return fmt.Errorf("path_mtu must be one of %s, not %s", strings.Join(mtus, ", "), safe.Typed(v))
		}}
	for _, m := range mtus {
		st.Values = append(st.Values, Choice{m, ""})
	}
	return st
}

// NormSettingName folds a setting name: case, and '-' for '_'; bugs are
// upper case.
func NormSettingName(n string) string {
	n = strings.ReplaceAll(strings.ToLower(n), "-", "_")
	if len(n) >= 2 && n[0] == 'b' && n[1] >= '0' && n[1] <= '9' {
		return strings.ToUpper(n)
	}
	return n
}

// FindSetting looks a setting up by name.
func FindSetting(name string) (Setting, bool) {
	n := NormSettingName(name)
	for _, st := range SettingsTable() {
		if st.Name == n {
			return st, true
		}
	}
	return Setting{}, false
}

// Clone copies s, bugs map included.
func (s Settings) Clone() Settings {
	s.Bugs = maps.Clone(s.Bugs)
	return s
}

// Get is the setting's value in s, as Set reads it.
func (st Setting) Get(s Settings) string { return st.get(s) }

// Set sets the setting in s to what v says, or says why it cannot.
func (st Setting) Set(s *Settings, v string) error { return st.set(s, v) }

// Live says whether a change of the setting can go to the running lab
// (Lab.ApplySetting); UnlessLive, when not "", says when it rebuilds all
// the same.
func (st Setting) Live() bool { return st.live != nil }

// UnlessLive says when a live setting rebuilds the lab all the same ("it
// switches B9 ..."), or "".
func (st Setting) UnlessLive() string { return st.unlessLive }

// Change is cur with the setting set to value and checked against the
// other settings (max_send_sge under max_send_sges); same says the
// setting was so already.
func (st Setting) Change(cur Settings, value string) (next Settings, same bool, err error) {
	next = cur.Clone()
	if st.simOnly != "" && next.onRealDevice() {
		return cur, false, errors.New(st.simOnly)
	}
	if err := st.set(&next, value); err != nil {
		return cur, false, err
	}
	if err := next.Validate(); err != nil {
		return cur, false, fmt.Errorf("%s stays %s: %w", st.Name, st.get(cur), err)
	}
	if next.onRealDevice() {
		if err := next.realOnly(); err != nil {
			return cur, false, fmt.Errorf("%s stays %s: %w", st.Name, st.get(cur), err)
		}
	}
	return next, st.get(next) == st.get(cur), nil
}

// InUse is the setting's value in s with, when it means "auto" or the lab
// l does not use it as given, the value l uses: "0 (128)".
func (st Setting) InUse(s Settings, l *Lab) string {
	if st.simOnly != "" && s.onRealDevice() {
		return "-"
	}
	val := st.get(s)
	if st.effective != nil {
		if eff := st.effective(l); val == "0" || eff != val {
			val += " (" + eff + ")"
		}
	}
	return val
}

// ApplySetting changes the running lab to next, which differs from its
// settings in st, when st can change live, and reports whether it did:
// false means the lab must be rebuilt with next instead.
func (l *Lab) ApplySetting(st Setting, next Settings) (bool, error) {
	if st.live == nil {
		return false, nil
	}
	ok, err := st.live(l, next)
	if err != nil || !ok {
		return false, err
	}
	l.Set = next.Clone()
	return true, nil
}

// BugState is one bug of a behaviour: on or off, and whether a setting
// of its own (not the profile) says so.
type BugState struct {
	Bug      string
	On       bool
	Override bool
	Describe string
}

// BugStates is the behaviour s gives the server, by name, and each bug's
// state.
func (s Settings) BugStates() (behaviour string, bugs []BugState) {
	beh := s.Behaviour()
	for _, b := range svcrdma.AllBugs() {
		_, over := s.Bugs[string(b)]
		bugs = append(bugs, BugState{Bug: string(b), On: beh.Has(b), Override: over, Describe: b.Describe()})
	}
	return beh.String(), bugs
}

// Choice is one value a front end offers to complete, and what it means.
type Choice struct{ Text, Desc string }
