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
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		v := fs.Bool("v", false, "")
		file, err := OneFile(fs, strings.Fields(tc.args))
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
