//go:build !ibv || !cgo

package ibv

// Built reports whether this binary has the ibv provider.
func Built() bool { return false }

// Open needs the provider, which this binary lacks.
func Open(Config) (Provider, error) { return nil, ErrNotBuilt }

// Devices needs the provider, which this binary lacks.
func Devices() ([]string, error) { return nil, ErrNotBuilt }
