package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// RequireTools reports whether RDMALAB_REQUIRE_TOOLS=1: CI sets it, having
// installed everything, so that a test never skips for want of a tool.
func RequireTools() bool { return os.Getenv("RDMALAB_REQUIRE_TOOLS") == "1" }

// Missing reports that something a test needs from outside the repository
// (a program, a Python module, a capture beside the checkout) is not there;
// what names it and how to get it. The test is skipped, or failed when
// RDMALAB_REQUIRE_TOOLS=1.
func Missing(t testing.TB, what string) {
	t.Helper()
	if RequireTools() {
		t.Fatalf("%s, and RDMALAB_REQUIRE_TOOLS=1", what)
	}
	t.Skipf("%s: skipping", what)
}

// Tool returns the path of the program name, or reports it Missing; pkg is
// the Debian package that installs it.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not installed (apt-get install "+pkg+")")
	}
	return p
}

// Tshark returns the path of tshark, the reference the decoder is compared
// with, or reports it Missing.
func Tshark(t testing.TB) string {
	t.Helper()
	return Tool(t, "tshark", "tshark")
}

// RunTshark runs tshark with args and returns what it prints; a tshark
// that fails fails the test with its complaint.
func RunTshark(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(Tshark(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// ScapyPython returns a Python interpreter that has scapy.contrib.roce (the
// independent RoCEv2 ICRC), or reports it Missing. Debian's /usr/bin/python3
// is tried after the one on PATH, which may be a pyenv one without it.
func ScapyPython(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import scapy.contrib.roce").Run() == nil {
			return py
		}
	}
	Missing(t, "no python3 with scapy.contrib.roce (apt-get install python3-scapy)")
	return ""
}
