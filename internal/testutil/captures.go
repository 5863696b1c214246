package testutil

import (
	"cmp"
	"os"
	"path/filepath"
	"testing"
)

// KernelCaptures returns the names of the Linux kernel captures copied into
// the repository (captures/testdata; ../shared/captures/README.md says how
// they were made).
func KernelCaptures() []string {
	return []string{"nfs3-rdma.pcap", "nfs4.1-rdma.pcap", "perftest-ib-read-bw.pcap",
		"perftest-ib-write-bw.pcap", "rdmacm-rping.pcap", "verbs-rc-pingpong.pcap"}
}

// Capture returns the path of captures/testdata/name in the checkout.
func Capture(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(ModuleRoot(t), "captures", "testdata", name)
}

// AllCaptures returns the paths of the kernel captures, then of the public
// ones (see PublicCaptures).
func AllCaptures(t testing.TB) []string {
	t.Helper()
	var paths []string
	for _, name := range KernelCaptures() {
		paths = append(paths, Capture(t, name))
	}
	return append(paths, PublicCaptures(t)...)
}

// SharedDir returns the directory beside the checkout that holds what may
// not be copied into it (shared/captures, shared/public-captures):
// $RDMALAB_SHARED, or ../shared.
func SharedDir(t testing.TB) string {
	t.Helper()
	return cmp.Or(os.Getenv("RDMALAB_SHARED"), filepath.Join(filepath.Dir(ModuleRoot(t)), "shared"))
}

// SharedCapture returns the path of name under ../shared/captures (the
// kernel captures and tshark's analysis of them, analysis/NAME.txt), or
// skips the test (see present).
func SharedCapture(t testing.TB, name string) string {
	t.Helper()
	return present(t, filepath.Join(SharedDir(t), "captures", name))
}

// PublicDir returns where the third-party captures are, which may not be
// copied into the repository: $RDMALAB_PUBLIC_CAPTURES, or
// ../shared/public-captures (its SOURCES.md names them).
func PublicDir(t testing.TB) string {
	t.Helper()
	return cmp.Or(os.Getenv("RDMALAB_PUBLIC_CAPTURES"), filepath.Join(SharedDir(t), "public-captures"))
}

// PublicCaptures returns the paths of the third-party captures. When there
// are none the test goes on without them, saying so: they live outside the
// repository and a clean clone need not have them.
func PublicCaptures(t testing.TB) []string {
	t.Helper()
	dir := PublicDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	if len(paths) == 0 {
		t.Logf("%s not present: the public captures are not tested", dir)
	}
	return paths
}

// PublicCapture returns the path of the third-party capture name, or
// skips the test (see present).
func PublicCapture(t testing.TB, name string) string {
	t.Helper()
	return present(t, filepath.Join(PublicDir(t), name))
}

// present returns path, or skips the test when it does not exist. Unlike
// a missing tool (Missing), material outside the repository is not
// something CI can install, so RDMALAB_REQUIRE_TOOLS does not turn this
// skip into a failure; RDMALAB_SHARED says where it is.
func present(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not present (outside the repository; RDMALAB_SHARED names the shared folder)", path)
	}
	return path
}
