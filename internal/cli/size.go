package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// MaxExpandHelp is the usage of --max-expand, for the commands that read
// captures.
const MaxExpandHelp = `--max-expand SIZE
           how far a gzip capture may decompress (512M, 4G, 1T), each
           record counting at least 256 bytes; past it reading stops with
           a message (default: 64 times the compressed size, 256M at least)`

// Size is a number of bytes written 512M, 4G, 1T, 64k or 1048576 (the
// units are binary; a trailing B or iB is allowed): a flag.Value.
type Size int64

// ParseSize reads a Size; it must be more than 0.
func ParseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(t, "B"), "b"), "i")
	shift := 0
	if t != "" {
		switch t[len(t)-1] {
		case 'k', 'K':
			shift = 10
		case 'm', 'M':
			shift = 20
		case 'g', 'G':
			shift = 30
		case 't', 'T':
			shift = 40
		}
		if shift > 0 {
			t = t[:len(t)-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("size %q: want a number of bytes more than 0, as 512M, 4G or 1T", s)
	}
	v *= float64(int64(1) << shift)
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return Size(max(int64(v), 1)), nil
}

// Set implements flag.Value.
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = n
	return nil
}

func (s *Size) String() string {
	if s == nil || *s == 0 {
		return ""
	}
	return pcapfile.FormatSize(int64(*s))
}
