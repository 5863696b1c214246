package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// UpdateGolden reports whether RDMALAB_UPDATE_GOLDEN=1: golden files are
// then written from what the tests produce instead of compared with it.
func UpdateGolden() bool { return os.Getenv("RDMALAB_UPDATE_GOLDEN") == "1" }

// Golden compares got with the golden file at path and fails the test at
// the first line that differs; with RDMALAB_UPDATE_GOLDEN=1 it writes got
// to path instead (making its directory).
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if UpdateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with RDMALAB_UPDATE_GOLDEN=1 to create it)", err)
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s line %d:\n got %q\nwant %q", path, i+1, gl, wl)
		}
	}
}
