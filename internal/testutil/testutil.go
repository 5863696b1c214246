// Package testutil holds what the tests of several packages share: where
// the captures are (the checkout's captures/testdata, and the shared ones
// beside the checkout), the rule for a program a test needs (skip when it
// is missing, fail when RDMALAB_REQUIRE_TOOLS=1: CI installs it), the rule
// for shared material outside the repository (skip when it is absent: a
// clean clone need not have it), and the comparison of output with a
// golden file.
//
// Paths are found from the module root, not from the test's directory, so
// a test says which capture it reads rather than how many ".." lead there.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// ModuleRoot returns the checkout's root: the nearest directory, from the
// working directory up, that holds go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the working directory: run the tests inside the checkout")
		}
		dir = up
	}
}
