package engine

import (
	"errors"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"4096": 4096, "128k": 128 << 10, "1M": 1 << 20, "1MiB": 1 << 20,
		"64K": 64 << 10, "2m": 2 << 20, "0x1000": 4096, "1g": 1 << 30} {
		got, err := ParseSize("SIZE", in, 0, 1<<31)
		if err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "1Q", "1.5M", "M1"} {
		if _, err := ParseSize("SIZE", in, 0, 1<<31); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	_, err := ParseSize("SIZE", "20M", 0, 16<<20)
	var re *RangeError
	if !errors.As(err, &re) || err.Error() != "SIZE must be 0..16777216, not 20M" {
		t.Errorf("20M: %v", err)
	}
	if _, err := ParseSize("SIZE", "99999999999999g", 0, 16<<20); !errors.As(err, &re) {
		t.Errorf("overflow: %v", err)
	}
}

func TestParseRateAndDuration(t *testing.T) {
	for in, want := range map[string]int64{"10G": 10e9, "25Gbit": 25e9, "100g": 100e9, "1.5G": 15e8, "1000000": 1e6, "40Gb/s": 40e9} {
		got, err := ParseRate("link_rate", in, 1e6, 1e12)
		if err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
		if back, _ := ParseRate("x", FmtRate(got), 1, 1e13); back != got {
			t.Errorf("FmtRate(%d) = %q reads back as %d", got, FmtRate(got), back)
		}
	}
	if _, err := ParseRate("link_rate", "2T", 1e6, 1e12); err == nil {
		t.Error("2T accepted")
	}
	if d, err := ParseDuration("latency", "2us", 0, time.Second); err != nil || d != 2*time.Microsecond {
		t.Errorf("2us: %v %v", d, err)
	}
	if _, err := ParseDuration("latency", "5s", 0, time.Second); err == nil {
		t.Error("5s accepted")
	}
}

func TestParseSegs(t *testing.T) {
	segs, total, err := ParseSegs("read chunk 0", "4096,4k@100,10")
	if err != nil || total != 8202 || len(segs) != 3 || segs[1].PageOff != 100 || segs[1].Len != 4096 {
		t.Fatalf("%+v %d %v", segs, total, err)
	}
	for _, bad := range []string{"", "x", "4096@5000", "1,,2"} {
		if _, _, err := ParseSegs("c", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
