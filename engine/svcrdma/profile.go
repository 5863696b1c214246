package svcrdma

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Profile names a kernel whose behaviour the model reproduces.
type Profile string

// The profiles (docs/kernel-model.md has their table).
const (
	// ProfileSeed behaves as the seed svc_rdma_rw.c does, bugs included.
	ProfileSeed Profile = "seed"
	// ProfileFix2025 is the seed with the Nov-2025 copy_inline_range fixes.
	ProfileFix2025 Profile = "fix2025"
	// ProfileNew2026 is the 2026 trees as the model knows them: every
	// bug but B13 fixed, and Write chunks chained ahead of the Send.
	ProfileNew2026 Profile = "new2026"
)

// Profiles lists the profiles in order.
func Profiles() []Profile { return []Profile{ProfileSeed, ProfileFix2025, ProfileNew2026} }

// ParseProfile accepts a profile name.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles() {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown profile %q (want seed, fix2025 or new2026)", s)
}

// Bug identifies one historical bug, B1 to B13; docs/kernel-model.md
// gives each one's seed lines and the patch that fixed it.
type Bug string

// The bugs a lesson can switch on or off one at a time.
const (
	B1  Bug = "B1"  // copy_inline_range: destination offset is rc_curpage, not rc_pageoff
	B2  Bug = "B2"  // copy_inline_range returns -EINVAL after a successful copy
	B3  Bug = "B3"  // copy_inline_range indexes rq_pages without a bound check
	B4  Bug = "B4"  // read_chunk_range offset arithmetic
	B5  Bug = "B5"  // Read chunk positions never validated; inline copies based at the transport header
	B6  Bug = "B6"  // build_read_segment overrun path leaks the rw ctxt
	B7  Bug = "B7"  // Write/Reply chunks with segcount 0 accepted
	B8  Bug = "B8"  // pull-up for SGE count overflows the header buffer
	B9  Bug = "B9"  // SQ depth does not budget REG/INV WQEs
	B10 Bug = "B10" // MR pool exhaustion is fatal
	B11 Bug = "B11" // SQ waiters unordered; chunk posts keep one SQE back
	B12 Bug = "B12" // zero-length Read segment hits BUG_ON
	B13 Bug = "B13" // page overrun check runs after the page was used
)

// BugInfo says what a bug does, for help texts and lesson narration.
var bugInfo = map[Bug]string{
	B1:  "copy_inline_range copies to byte offset rc_curpage (a page index) instead of rc_pageoff",
	B2:  "copy_inline_range returns -EINVAL even after a successful copy",
	B3:  "copy_inline_range does not check rc_curpage against rq_maxpages",
	B4:  "read_chunk_range skips with '>' not '>=', subtracts the offset after min(), never stops at length 0",
	B5:  "Read chunk positions are never validated; inline copies start at the transport header",
	B6:  "build_read_segment's page-overrun exit does not return the rw ctxt (leak)",
	B7:  "Write and Reply chunks with segcount 0 are accepted",
	B8:  "pull-up chosen for SGE count copies any size into the header buffer (overflow)",
	B9:  "sc_sq_depth does not budget REG_MR/LOCAL_INV WQEs",
	B10: "MR pool exhaustion (-EAGAIN) is fatal instead of falling back to SGEs",
	B11: "SQ waiters are unordered and chunk posts need sc_sq_avail - n > 0",
	B12: "a zero-length Read segment asks for an SGL of 0 entries (BUG_ON)",
	B13: "the page-overrun check runs after rq_pages[rc_curpage] was used",
}

// AllBugs lists every bug in order.
func AllBugs() []Bug {
	out := make([]Bug, 0, len(bugInfo))
	for b := range bugInfo {
		out = append(out, b)
	}
	sortBugs(out)
	return out
}

// sortBugs sorts bugs by number (B4 before B10).
func sortBugs(bugs []Bug) {
	slices.SortFunc(bugs, func(x, y Bug) int { return x.number() - y.number() })
}

// number is the number of b ("B12": 12; 0 for a malformed name).
func (b Bug) number() int {
	n, _ := strconv.Atoi(strings.TrimPrefix(string(b), "B"))
	return n
}

// Describe says what b does.
func (b Bug) Describe() string { return bugInfo[b] }

// ParseBug accepts "B4" or "b4".
func ParseBug(s string) (Bug, error) {
	b := Bug(strings.ToUpper(s))
	if _, ok := bugInfo[b]; !ok {
		return "", fmt.Errorf("unknown bug %q (want B1..B13)", s)
	}
	return b, nil
}

// profileHas says whether profile p has bug b: the seed has them all,
// fix2025 all but B1-B3, new2026 only B13 (not found fixed).
func profileHas(p Profile, b Bug) bool {
	switch p {
	case ProfileSeed:
		return true
	case ProfileFix2025:
		return b != B1 && b != B2 && b != B3
	default:
		return b == B13
	}
}

// Behaviour is a profile plus any bugs switched on or off one at a time.
type Behaviour struct {
	Profile  Profile
	override map[Bug]bool
}

// NewBehaviour starts from profile p with its own bugs.
func NewBehaviour(p Profile) Behaviour { return Behaviour{Profile: p} }

// Has reports whether bug b is present.
func (b Behaviour) Has(bug Bug) bool {
	if v, ok := b.override[bug]; ok {
		return v
	}
	return profileHas(b.Profile, bug)
}

// With returns b with bug switched on or off.
func (b Behaviour) With(bug Bug, on bool) Behaviour {
	o := make(map[Bug]bool, len(b.override)+1)
	for k, v := range b.override {
		o[k] = v
	}
	if profileHas(b.Profile, bug) == on {
		delete(o, bug)
	} else {
		o[bug] = on
	}
	return Behaviour{Profile: b.Profile, override: o}
}

// New2026 reports whether the 2026 code paths that no bug switch covers
// apply: Write chunks chained ahead of the Send, the decode-time chunk
// checks, the u32 overflow check of a Read segment, and so on.
func (b Behaviour) New2026() bool { return b.Profile == ProfileNew2026 }

// String is "fix2025" or "fix2025+B1-B4".
func (b Behaviour) String() string {
	if len(b.override) == 0 {
		return string(b.Profile)
	}
	bugs := make([]Bug, 0, len(b.override))
	for bug := range b.override {
		bugs = append(bugs, bug)
	}
	sortBugs(bugs)
	s := string(b.Profile)
	for _, bug := range bugs {
		if b.override[bug] {
			s += "+" + string(bug)
		} else {
			s += "-" + string(bug)
		}
	}
	return s
}
