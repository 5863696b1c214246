package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCapturesFromTheModuleRoot(t *testing.T) {
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("ModuleRoot %s: %v", root, err)
	}
	paths := AllCaptures(t)
	if len(paths) < len(KernelCaptures()) {
		t.Fatalf("AllCaptures: %v", paths)
	}
	for i, name := range KernelCaptures() {
		if paths[i] != Capture(t, name) || len(ReadCapture(t, name)) < 24 {
			t.Errorf("%s: path %s", name, paths[i])
		}
	}
	t.Setenv("RDMALAB_SHARED", "")
	if want := filepath.Join(filepath.Dir(root), "shared"); SharedDir(t) != want {
		t.Errorf("SharedDir %s, want %s", SharedDir(t), want)
	}
	t.Setenv("RDMALAB_SHARED", "/there")
	if SharedDir(t) != "/there" {
		t.Errorf("SharedDir ignores RDMALAB_SHARED: %s", SharedDir(t))
	}
	t.Setenv("RDMALAB_PUBLIC_CAPTURES", "/elsewhere")
	if PublicDir(t) != "/elsewhere" {
		t.Errorf("PublicDir ignores RDMALAB_PUBLIC_CAPTURES: %s", PublicDir(t))
	}
}

// recorder is a testing.TB that records how a test would end: like
// testing's own, Skipf and Fatalf end the goroutine that calls them.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Logf(string, ...any) {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls f with r in a goroutine of its own, as testing runs a test.
func (r *recorder) run(f func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

func TestMissingSkipsUnlessRequired(t *testing.T) {
	t.Setenv("RDMALAB_REQUIRE_TOOLS", "")
	var r recorder
	r.run(func(t testing.TB) { Missing(t, "tshark is not installed (apt-get install tshark)") })
	if r.skipped != "tshark is not installed (apt-get install tshark): skipping" || r.failed != "" {
		t.Errorf("without RDMALAB_REQUIRE_TOOLS: skipped %q, failed %q", r.skipped, r.failed)
	}
	t.Setenv("RDMALAB_REQUIRE_TOOLS", "1")
	r = recorder{}
	r.run(func(t testing.TB) { Tool(t, "rdmalab-no-such-tool", "nothing") })
	if r.failed != "rdmalab-no-such-tool is not installed (apt-get install nothing), and RDMALAB_REQUIRE_TOOLS=1" || r.skipped != "" {
		t.Errorf("with RDMALAB_REQUIRE_TOOLS=1: skipped %q, failed %q", r.skipped, r.failed)
	}
}

// Shared material is not installable, so its absence skips even in CI.
func TestAbsentSharedSkipsEvenWhenRequired(t *testing.T) {
	t.Setenv("RDMALAB_REQUIRE_TOOLS", "1")
	t.Setenv("RDMALAB_SHARED", t.TempDir())
	var r recorder
	r.run(func(t testing.TB) { SharedCapture(t, "nfs3-rdma.pcap") })
	if !strings.Contains(r.skipped, "nfs3-rdma.pcap not present") || r.failed != "" {
		t.Errorf("skipped %q, failed %q", r.skipped, r.failed)
	}
	r = recorder{}
	var paths []string
	r.run(func(t testing.TB) { paths = PublicCaptures(t) })
	if len(paths) != 0 || r.skipped != "" || r.failed != "" {
		t.Errorf("PublicCaptures with none: %v, skipped %q, failed %q", paths, r.skipped, r.failed)
	}
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "out.golden")
	t.Setenv("RDMALAB_UPDATE_GOLDEN", "1")
	Golden(t, path, "one\ntwo\n")
	t.Setenv("RDMALAB_UPDATE_GOLDEN", "")
	Golden(t, path, "one\ntwo\n")
	var r recorder
	r.run(func(t testing.TB) { Golden(t, path, "one\nthree\n") })
	if !strings.Contains(r.failed, "out.golden line 2:") || !strings.Contains(r.failed, `got "three"`) {
		t.Errorf("a difference reads %q", r.failed)
	}
}
