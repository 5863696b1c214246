package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// The parsers of what a learner types for a setting or a call: the
// settings table (settingdefs.go) reads its values with them, and a front
// end reads a command's numbers with them, so both refuse alike.

// RangeError is a value outside what a setting or argument accepts.
type RangeError struct {
	what     string
	min, max int64
	got      string
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("%s must be %s..%s, not %s", e.what, fmtInt(e.min), fmtInt(e.max), safe.Typed(e.got))
}

func fmtInt(v int64) string { return strconv.FormatInt(v, 10) }

// ParseSize reads a byte count: 4096, 128k, 1M, 1MiB, 2g (powers of 1024).
func ParseSize(what, s string, lo, hi int64) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult, t = 1<<10, t[:n-1]
		case 'm':
			mult, t = 1<<20, t[:n-1]
		case 'g':
			mult, t = 1<<30, t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 0, 64)
	if err != nil || t == "" {
		return 0, fmt.Errorf("%s: %q is not a size (try 4096, 128k or 1M)", what, s)
	}
	if v > (1<<62)/mult || v < -(1<<62)/mult {
		return 0, &RangeError{what, lo, hi, s}
	}
	v *= mult
	if v < lo || v > hi {
		return 0, &RangeError{what, lo, hi, s}
	}
	return int(v), nil
}

// ParseInt reads an integer in [lo, hi]; outside it, the error is a
// *RangeError and the value read is returned with it.
func ParseInt(what, s string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", what, s)
	}
	if v < lo || v > hi {
		return v, &RangeError{what, lo, hi, s}
	}
	return v, nil
}

// ParseOnOff reads a switch.
func ParseOnOff(what, s string) (bool, error) {
	switch strings.ToLower(s) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("%s: %q is neither on nor off", what, s)
}

// OnOff writes a switch the way ParseOnOff reads it.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// ParseRate reads a link rate in bits per second: 10G, 25Gbit, 100g,
// 1000000 (powers of 1000).
func ParseRate(what, s string, lo, hi int64) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range []string{"bit/s", "b/s", "bps", "bit"} {
		t = strings.TrimSuffix(t, suf)
	}
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult, t = 1e3, t[:n-1]
		case 'm':
			mult, t = 1e6, t[:n-1]
		case 'g':
			mult, t = 1e9, t[:n-1]
		case 't':
			mult, t = 1e12, t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a rate (try 10G or 100G)", what, s)
	}
	v := int64(f * float64(mult))
	if v < lo || v > hi {
		return 0, fmt.Errorf("%s must be %s..%s bits/s, not %s", what, FmtRate(lo), FmtRate(hi), safe.Typed(s))
	}
	return v, nil
}

// FmtRate writes a rate the way ParseRate reads it.
func FmtRate(v int64) string {
	switch {
	case v%1e12 == 0:
		return fmt.Sprintf("%dT", v/1e12)
	case v%1e9 == 0:
		return fmt.Sprintf("%dG", v/1e9)
	case v%1e6 == 0:
		return fmt.Sprintf("%dM", v/1e6)
	case v%1e3 == 0:
		return fmt.Sprintf("%dk", v/1e3)
	}
	return fmtInt(v)
}

// ParseDuration reads a latency: 2us, 500ns, 1ms.
func ParseDuration(what, s string, lo, hi time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration (try 2us or 1ms)", what, s)
	}
	if d < lo || d > hi {
		return 0, fmt.Errorf("%s must be %v..%v, not %s", what, lo, hi, safe.Typed(s))
	}
	return d, nil
}

// ParseSegs reads a segment list: LEN[@PAGEOFF][,LEN[@PAGEOFF]...].
func ParseSegs(what, s string) ([]xprt.SegSpec, int, error) {
	var out []xprt.SegSpec
	total := 0
	for i, part := range strings.Split(s, ",") {
		l, off, hasOff := strings.Cut(part, "@")
		n, err := ParseSize(fmt.Sprintf("%s segment %d length", what, i), l, 1, 16<<20)
		if err != nil {
			if strings.TrimSpace(l) == "0" {
				// What xprtrdma would hit too: it cannot map an empty buffer.
				err = fmt.Errorf("%w: the client registers each segment's buffer, and an empty one cannot be registered", err)
			}
			return nil, 0, err
		}
		seg := xprt.SegSpec{Len: n}
		if hasOff {
			o, err := ParseInt(fmt.Sprintf("%s segment %d page offset", what, i), off, 0, 4095)
			if err != nil {
				return nil, 0, err
			}
			seg.PageOff = int(o)
		}
		out = append(out, seg)
		total += n
	}
	if len(out) > 64 {
		return nil, 0, &RangeError{what + " segments", 1, 64, strconv.Itoa(len(out))}
	}
	return out, total, nil
}
