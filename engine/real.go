package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/engine/ibv"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/sim"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// ErrNoWire says a real device's lab has no virtual wire to capture.
var ErrNoWire = errors.New("a real device has no virtual wire to record: capture its own traffic instead (on rxe: tcpdump -i NETDEV udp port 4791), then rdmalab decode it")

// ErrSimOnly names something only the sim can do: a real device completes
// work with what really happened.
type ErrSimOnly string

func (e ErrSimOnly) Error() string {
	return string(e) + " needs the sim (engine sim): a real device completes work with what really happened"
}

// ParseEngine reads an engine choice: "sim" (or ""), "ibv:DEV" (both QPs
// on DEV) or "ibv:SERVER,CLIENT" (the server's QP on SERVER, the client's
// on CLIENT). It returns the device names, empty for the sim.
func ParseEngine(e string) (server, client string, err error) {
	if e == "" || e == "sim" {
		return "", "", nil
	}
	rest, ok := strings.CutPrefix(e, "ibv:")
	if !ok || rest == "" {
		return "", "", fmt.Errorf("engine %q: want sim, ibv:DEVICE or ibv:SERVER_DEVICE,CLIENT_DEVICE", e)
	}
	server, client, _ = strings.Cut(rest, ",")
	if server == "" || strings.Contains(client, ",") {
		return "", "", fmt.Errorf("engine %q: want ibv:DEVICE or ibv:SERVER_DEVICE,CLIENT_DEVICE", e)
	}
	return server, client, nil
}

// newReal builds the lab on the real devices s.Engine names.
func newReal(s Settings) (*Lab, error) {
	server, client, err := ParseEngine(s.Engine)
	if err != nil {
		return nil, err
	}
	if s.IWARP || s.ForceMR {
		return nil, fmt.Errorf("iwarp and force_mr choose rdma_rw's MR path, whose REG_MR and LOCAL_INV work requests are kernel verbs libibverbs lacks: they run on the sim only")
	}
	p, err := ibv.Open(ibv.Config{Server: server, Client: client})
	if err != nil {
		return nil, err
	}
	attr, report, err := s.onDevice(p.Attr("server"))
	if err != nil {
		p.Close()
		return nil, err
	}
	s.PageSize, s.MaxSendSGE, s.MaxSGERd, s.MaxSGLRd, s.MaxQPWR = attr.PageSize, attr.MaxSendSGE, attr.MaxSGERd, attr.MaxSGLRd, attr.MaxQPWR
	l := &Lab{Set: s, Sched: sched.New(), xptID: 1, Provider: p}
	l.DeviceReport = append(strings.Split(strings.TrimSpace(p.Describe()), "\n"), report...)
	devS, err := p.NewDevice("server", attr)
	if err == nil {
		var devC verbs.Device
		if devC, err = p.NewDevice("client", p.Attr("client")); err == nil {
			err = l.build(devS, devC)
		}
	}
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("on %s: %w", s.Engine, err)
	}
	return l, nil
}

// onDevice is the server device the model sees on a real device dev: its
// attributes, except a device setting the learner lowered below the sim's
// default (a setting above what the device has is refused). report says,
// line by line, where dev differs from the sim.
func (s Settings) onDevice(dev verbs.DeviceAttr) (verbs.DeviceAttr, []string, error) {
	def := DefaultSettings()
	simA := sim.DefaultAttr()
	a := dev
	var report []string
	for _, f := range []struct {
		name             string
		want, simDef, at *int
		devVal           int
	}{
		{"page_size", &s.PageSize, &def.PageSize, &a.PageSize, dev.PageSize},
		{"max_send_sge", &s.MaxSendSGE, &def.MaxSendSGE, &a.MaxSendSGE, dev.MaxSendSGE},
		{"max_sge_rd", &s.MaxSGERd, &def.MaxSGERd, &a.MaxSGERd, dev.MaxSGERd},
		{"max_qp_wr", &s.MaxQPWR, &def.MaxQPWR, &a.MaxQPWR, dev.MaxQPWR},
	} {
		switch {
		case *f.want == *f.simDef:
		case f.name == "page_size":
			// The model's pages are its own buffers, each registered on
			// its own: any size works, the host's is only the default.
			*f.at = *f.want
		case *f.want > f.devVal:
			return a, nil, fmt.Errorf("%s %d is over what %s has (%d): a real device's limits can be lowered, not raised", f.name, *f.want, dev.Name, f.devVal)
		default:
			*f.at = *f.want
		}
	}
	if s.MaxSGLRd != def.MaxSGLRd {
		a.MaxSGLRd = s.MaxSGLRd
	}
	for _, d := range []struct {
		name      string
		dev, simV int
	}{
		{"page_size", dev.PageSize, simA.PageSize}, {"max_qp_wr", dev.MaxQPWR, simA.MaxQPWR},
		{"max_send_sge", dev.MaxSendSGE, simA.MaxSendSGE}, {"max_recv_sge", dev.MaxRecvSGE, simA.MaxRecvSGE},
		{"max_sge_rd", dev.MaxSGERd, simA.MaxSGERd}, {"max_cqe", dev.MaxCQE, simA.MaxCQE},
		{"max_mr", dev.MaxMR, simA.MaxMR}, {"max_fast_reg_page_list_len", dev.MaxFastRegPageListLen, simA.MaxFastRegPageListLen},
		{"max_qp_init_rd_atom", dev.MaxQPInitRdAtom, simA.MaxQPInitRdAtom}, {"max_qp_rd_atom", dev.MaxQPRdAtom, simA.MaxQPRdAtom},
	} {
		if d.dev != d.simV {
			report = append(report, fmt.Sprintf("%s reports %s %d (the sim's default: %d)", dev.Name, d.name, d.dev, d.simV))
		}
	}
	return a, report, nil
}
