package ibv

import (
	"errors"
	"time"

	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// Config chooses the devices: Server and Client name libibverbs devices
// ("rxe0"); Client "" puts both QPs on Server's device.
type Config struct {
	Server, Client string
	// Timeout bounds how long DeliverNext waits for the device to finish
	// a work request (0: 10 s).
	Timeout time.Duration
	// Settle is how long an unsignaled WR with nothing after it must see a
	// quiet device before it counts as done (0: 100 ms).
	Settle time.Duration
}

// Provider is an opened pair of nodes, "server" and "client", on real
// devices. Like the sim's Fabric it hands out verbs.Devices, holds what
// the device did until DeliverNext lets the model see it, and lists the
// operations not yet delivered.
type Provider interface {
	// Attr is the attributes the node's device reports.
	Attr(node string) verbs.DeviceAttr
	// NewDevice opens the node's device as the model sees it: attr is the
	// device's attributes, possibly lowered by the learner (never raised).
	NewDevice(node string, attr verbs.DeviceAttr) (verbs.Device, error)
	// Now is the time since Open.
	Now() time.Duration
	// Pending lists the posted work requests whose completions the model
	// has not been given, in posting order.
	Pending() []sim.Op
	// DeliverNext waits until the device has finished the first pending
	// work request and releases its completions to the model's CQs.
	DeliverNext() (sim.Op, error)
	// FailNth makes the device really fail the nth eligible work request
	// posted from now (1 = the next): REM_ACCESS_ERR goes to the nth RDMA
	// WRITE or READ, sent past the end of the peer's buffer, which the
	// responder NAKs;
	// LOC_PROT_ERR to the nth WR with an SGE, sent with a wrong lkey. Other
	// statuses cannot be provoked on purpose.
	FailNth(n int, st verbs.Status) error
	// Disconnect moves every QP to ERR (the device flushes their work).
	Disconnect() error
	// Describe says which devices, ports, GIDs and MTU the nodes use.
	Describe() string
	// Close destroys every resource and closes the devices.
	Close() error
}

// ErrNotBuilt is Open's answer in a binary built without the provider.
var ErrNotBuilt = errors.New("this rdmalab was built without the ibv provider: rebuild it with `go build -tags ibv` (needs cgo and libibverbs-dev)")

// ErrTimeout says the device did not finish a work request in time.
var ErrTimeout = errors.New("the device has not completed it")
