package testutil

import (
	"os"
	"testing"
)

// ReadFile returns the contents of path, or fails the test.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// WriteFile writes b to path, or fails the test.
func WriteFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadCapture returns the bytes of captures/testdata/name.
func ReadCapture(t testing.TB, name string) []byte {
	t.Helper()
	return ReadFile(t, Capture(t, name))
}
