package ibv

import (
	"errors"
	"fmt"
	"time"

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
// devices: a verbs.Provider whose clock is the time since Open, whose
// Pending work the device has already run (its completions wait for the
// model, in posting order), whose DeliverNext waits until the device has
// finished the first of them, and whose Disconnect moves every QP to ERR
// (the device flushes their work).
type Provider interface {
	verbs.Provider
	verbs.FaultInjector
	// Attr is the attributes the node's device reports.
	Attr(node string) verbs.DeviceAttr
	// NewDevice opens the node's device as the model sees it: attr is the
	// device's attributes, possibly lowered by the learner (never raised).
	// Its QPs ask for at least grantSendSGE send SGEs at create_qp (up to
	// the device's max_sge), as a provider that grants more than asked.
	NewDevice(node string, attr verbs.DeviceAttr, grantSendSGE int) (verbs.Device, error)
	// ActiveMTU is the active MTU of the node's port, in bytes: the
	// biggest path MTU its connections can have.
	ActiveMTU(node string) int
	// Describe says which devices, ports, GIDs and MTU the nodes use.
	Describe() string
	// Port is the device, port and GID the node's connection goes by.
	Port(node string) Port
}

// The fault a Provider injects is provoked, not declared (FailNth): a
// device really fails the nth eligible work request posted from now
// (1 = the next). REM_ACCESS_ERR goes to the nth RDMA WRITE or READ, sent
// past the end of the peer's buffer, which the responder NAKs;
// LOC_PROT_ERR to the nth WR with an SGE, sent with a wrong lkey. Other
// statuses cannot be provoked on purpose.
func canProvoke(st verbs.Status) error {
	if st != verbs.StatusRemAccessErr && st != verbs.StatusLocProtErr {
		return fmt.Errorf("ibv: a real device fails a work request only for a reason: REM_ACCESS_ERR (a wrong rkey) and LOC_PROT_ERR (a wrong lkey) can be provoked, %v cannot: %w", st, verbs.EOPNOTSUPP)
	}
	return nil
}

// provoked says, for the trace, what FailNth(n, st) will do on the device.
func provoked(n int, st verbs.Status) string {
	what := "RDMA WRITE or READ posted from now goes out 1 GiB past its remote address, outside the peer's MR: the responder will NAK it"
	if st == verbs.StatusLocProtErr {
		what = "work request posted from now goes out with a wrong lkey"
	}
	return fmt.Sprintf("on the device, the %s %s (%v)", ordinal(n), what, st)
}

// disconnected says, for the trace, what Disconnect did.
const disconnected = "both QPs moved to ERR on the device (ibv_modify_qp): it flushes their work"

// ordinal is 1st, 2nd, 3rd, 4th...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprint(n) + suffix
}

// ErrNotBuilt is Open's answer in a binary built without the provider.
var ErrNotBuilt = errors.New("this rdmalab was built without the ibv provider: rebuild it with `go build -tags ibv` (needs cgo and libibverbs-dev)")

// ErrTimeout says the device did not finish a work request in time.
var ErrTimeout = errors.New("the device has not completed it")
