package cli

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestOneFile(t *testing.T) {
	for _, tc := range []struct {
		args    string
		file    string
		v       bool
		wantErr string
	}{
		{"-v f.pcap", "f.pcap", true, ""},
		{"f.pcap -v", "f.pcap", true, ""},
		{"f.pcap", "f.pcap", false, ""},
		{"", "", false, "no capture file"},
		{"a.pcap b.pcap", "", false, "got 2: a.pcap b.pcap"},
		{"-x f.pcap", "", false, "-x"},
		{"-- -v", "-v", false, ""},
		{"f.pcap -- -v", "", false, "got 2: f.pcap -v"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		v := fs.Bool("v", false, "")
		args, err := Parse(fs, strings.Fields(tc.args))
		file := ""
		if err == nil {
			file, err = OneFile(args)
		}
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.args, err, tc.wantErr)
			}
		case err != nil || file != tc.file || *v != tc.v:
			t.Errorf("%q: got %q v=%v err %v", tc.args, file, *v, err)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 340112: "340,112", -1234567: "-1,234,567"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]Size{"512M": 512 << 20, "4G": 4 << 30, "4GiB": 4 << 30, "1t": 1 << 40,
		"64k": 64 << 10, "1048576": 1 << 20, "1.5G": 3 << 29, "300MB": 300 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1G", "G", "4X", "lots", "1e30T", "NaN"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestParseQP(t *testing.T) {
	for in, want := range map[string]uint32{"0x11": 0x11, "17": 17, "0xffffff": 0xffffff, "1": 1, "0X13": 0x13} {
		if got, err := ParseQP(in); err != nil || got != want {
			t.Errorf("ParseQP(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "frog", "0x1000000", "-1", "0x"} {
		if got, err := ParseQP(in); err == nil || !strings.Contains(err.Error(), "not a queue pair number") {
			t.Errorf("ParseQP(%q) = %#x, %v; want an error", in, got, err)
		}
	}
	if _, err := ParseQP("\x1b[2J"); err == nil || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("the error quotes a terminal escape: %q", err)
	}
}
