//go:build !ibv || !cgo

package ibv

import (
	"errors"
	"strings"
	"testing"
)

// A binary built without the provider says how to get it.
func TestStubSaysHowToBuild(t *testing.T) {
	if Built() {
		t.Fatal("Built() in the stub")
	}
	p, err := Open(Config{Server: "rxe0"})
	if p != nil || !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("Open = %v, %v", p, err)
	}
	if !strings.Contains(err.Error(), "-tags ibv") || !strings.Contains(err.Error(), "libibverbs-dev") {
		t.Errorf("the error does not say how to build it: %v", err)
	}
	if _, err := Devices(); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Devices: %v", err)
	}
}
