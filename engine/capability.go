package engine

import (
	"github.com/rdmalab/rdmalab/engine/ibv"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// What a front end asks of the provider, and the provider's words it
// uses (completion statuses, errnos), in the engine's API: a front end
// imports the engine, not the provider packages.

// Capability is something only some providers can do; Lab.Can asks.
type Capability uint8

// What a provider may be able to do.
const (
	// DeclaredStatus: a completion's status is declared (complete
	// --status, fail) rather than provoked on a device: the sim.
	DeclaredStatus Capability = iota + 1
	// VirtualLink: the link's rate and latency are the lab's to change.
	VirtualLink
	// OwnWire: the lab draws its own traffic as frames (StartCapture,
	// WriteCapture): the sim. A real device's are captured where they
	// cross (CaptureSite).
	OwnWire
)

// Can says whether the lab's provider can do c.
func (l *Lab) Can(c Capability) bool {
	var ok bool
	switch c {
	case DeclaredStatus:
		_, ok = l.Provider.(verbs.StatusChooser)
	case VirtualLink:
		_, ok = l.Provider.(verbs.Link)
	case OwnWire:
		_, ok = l.wire()
	}
	return ok
}

// Status is a work completion's status, as Complete and FailNth take it.
type Status = verbs.Status

// StatusLocProtErr is the status a real device provokes on any work
// request (a wrong lkey); it provokes the others on RDMA WRITE or READ.
const StatusLocProtErr = verbs.StatusLocProtErr

// Statuses lists every completion status.
func Statuses() []Status { return verbs.Statuses() }

// ParseStatus reads a completion status by name.
func ParseStatus(name string) (Status, error) { return verbs.ParseStatus(name) }

// Errno is an errno the engine returns.
type Errno = verbs.Errno

// ErrnoByName finds an errno by its name ("EINVAL").
func ErrnoByName(name string) (Errno, bool) {
	e, err := verbs.ParseErrno(name)
	return e, err == nil
}

// DeviceBuilt says whether this binary has the real provider (-tags ibv).
func DeviceBuilt() bool { return ibv.Built() }

// Devices lists the RDMA devices present, for engine ibv.
func Devices() ([]string, error) { return ibv.Devices() }

// ErrDeviceNotBuilt says the binary was built without the real provider.
var ErrDeviceNotBuilt = ibv.ErrNotBuilt
