//go:build !linux

package live

import (
	"context"
	"errors"
	"time"

	"golang.org/x/net/bpf"
)

// Handle is a live capture: Linux only (a packet socket).
type Handle struct{}

// Stats are a capture's counts.
type Stats struct {
	Captured, Received, Dropped uint64
}

var errLinux = errors.New("live capture needs Linux (a packet socket); capture with tcpdump -w - and pipe it to rdmalab decode -")

// Open fails: live capture needs Linux.
func Open(iface string, prog []bpf.Instruction, snaplen int) (*Handle, error) { return nil, errLinux }

// Next fails: live capture needs Linux.
func (h *Handle) Next(ctx context.Context, idle func() error) ([]byte, int, time.Time, error) {
	return nil, 0, time.Time{}, errLinux
}

// Stats are zero.
func (h *Handle) Stats() Stats { return Stats{} }

// Close does nothing.
func (h *Handle) Close() error { return nil }
