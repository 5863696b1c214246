package decode

import (
	"cmp"
	"github.com/google/gopacket"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// kernelCaptures are the Linux kernel captures copied into the repository
// (captures/testdata; their tshark analysis is in ../shared/captures/analysis).
var kernelCaptures = []string{"nfs3-rdma.pcap", "nfs4.1-rdma.pcap", "perftest-ib-read-bw.pcap",
	"perftest-ib-write-bw.pcap", "rdmacm-rping.pcap", "verbs-rc-pingpong.pcap"}

// publicDir holds third-party captures that may not be copied into the
// repository (../shared/public-captures/SOURCES.md); RDMALAB_PUBLIC_CAPTURES
// moves it.
var publicDir = cmp.Or(os.Getenv("RDMALAB_PUBLIC_CAPTURES"), "../../../shared/public-captures")

func kernelPath(name string) string { return filepath.Join("..", "testdata", name) }

// publicPaths returns the public captures, or nothing (with a log line)
// when they are absent.
func publicPaths(t testing.TB) []string {
	paths, _ := filepath.Glob(filepath.Join(publicDir, "*.pcap"))
	if len(paths) == 0 {
		if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s is missing and RDMALAB_REQUIRE_TOOLS=1", publicDir)
		}
		t.Logf("%s not present: the public captures are not tested", publicDir)
	}
	return paths
}

func publicPath(t testing.TB, name string) string {
	p := filepath.Join(publicDir, name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s is missing and RDMALAB_REQUIRE_TOOLS=1", p)
		}
		t.Skipf("%s not present: skipping", p)
	}
	return p
}

// tshark returns the path of tshark, or skips the test when it is missing
// (and fails it when RDMALAB_REQUIRE_TOOLS=1).
func tshark(t testing.TB) string {
	p, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" {
			t.Fatal("tshark is not installed and RDMALAB_REQUIRE_TOOLS=1 (apt-get install tshark)")
		}
		t.Skip("tshark is not installed (apt-get install tshark): skipping the comparison")
	}
	return p
}

// decodeAll decodes a capture and keeps a copy of what the tests look at.
type decoded struct {
	an      *Analyzer
	packets []Packet // shallow copies: the layer pointers are not valid, the analysis is
	lines   []string
}

func decodeFile(t testing.TB, path string) decoded {
	t.Helper()
	var d decoded
	an, err := ReadFile(path, func(p *Packet) error {
		c := *p
		c.Layers = append([]gopacket.LayerType(nil), p.Layers...)
		c.Analysis.Notes = append([]Note(nil), p.Analysis.Notes...)
		c.Eth, c.IPv4, c.IPv6, c.UDP, c.ERF, c.LRH, c.GRH, c.MAD, c.CM, c.IPoIB, c.TCP = nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil
		if p.BTH != nil {
			b := *p.BTH
			c.BTH = &b
		}
		d.packets = append(d.packets, c)
		d.lines = append(d.lines, string(appendLine(nil, p)))
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	d.an = an
	return d
}

func readFileBytes(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFileBytes(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
