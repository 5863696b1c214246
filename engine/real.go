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
var ErrNoWire = errors.New("a real device has no virtual wire to record: its packets are captured where they cross its netdev (capture start FILE; on rxe, tcpdump -i NETDEV udp port 4791 too)")

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

// onRealDevice says whether s puts the lab on a real device.
func (s Settings) onRealDevice() bool {
	server, _, err := ParseEngine(s.Engine)
	return err == nil && server != ""
}

// newReal builds the lab on the real devices s.Engine names. Every
// setting is honoured on the device as given (DeviceDefaults gives a new
// engine its device's own), or refused with the reason.
func newReal(s Settings) (*Lab, error) {
	server, client, err := ParseEngine(s.Engine)
	if err != nil {
		return nil, err
	}
	if err := s.realOnly(); err != nil {
		return nil, err
	}
	p, err := ibv.Open(ibv.Config{Server: server, Client: client})
	if err != nil {
		return nil, err
	}
	attr, report, err := s.onDevice(p.Attr("server"))
	if err == nil {
		err = s.onPort(p)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	l := &Lab{Set: s, Sched: sched.New(), xptID: 1, Provider: p}
	l.DeviceReport = append(strings.Split(strings.TrimSpace(p.Describe()), "\n"), report...)
	devS, err := p.NewDevice("server", attr, s.QPMaxSendSGE)
	if err == nil {
		var devC verbs.Device
		if devC, err = p.NewDevice("client", p.Attr("client"), 0); err == nil {
			err = l.build(devS, devC)
		}
	}
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("on %s: %w", s.Engine, err)
	}
	return l, nil
}

// realOnly refuses, before a device is opened, the settings that choose
// rdma_rw's MR path: its REG_MR and LOCAL_INV work requests are kernel
// verbs libibverbs lacks.
func (s Settings) realOnly() error {
	switch {
	case s.IWARP || s.ForceMR:
		return fmt.Errorf("iwarp and force_mr choose rdma_rw's MR path, whose REG_MR and LOCAL_INV work requests are kernel verbs libibverbs lacks: they run on the sim only")
	case s.MaxSGLRd != 0:
		return fmt.Errorf("max_sgl_rd %d sends longer READs down rdma_rw's MR path, whose REG_MR and LOCAL_INV work requests are kernel verbs libibverbs lacks: it runs on the sim only (max_sgl_rd 0 on a real device)", s.MaxSGLRd)
	}
	return nil
}

// onPort refuses a path MTU the ports cannot carry: a real device would
// lower it without a word.
func (s Settings) onPort(p ibv.Provider) error {
	for _, node := range []string{"server", "client"} {
		if m := p.ActiveMTU(node); s.PathMTU > m {
			return fmt.Errorf("path_mtu %d is over the %s port's active_mtu %d (its netdev's MTU carries no bigger RoCE packet)", s.PathMTU, node, m)
		}
	}
	return nil
}

// DeviceDefaults is s with the device settings of the engine s names:
// the sim's defaults, or what the real device reports (max_qp_wr no more
// than max_cqe, as every CQ of svc_rdma_accept must hold its queue; a
// path MTU the ports carry). A new engine starts from them.
func DeviceDefaults(s Settings) (Settings, error) {
	server, client, err := ParseEngine(s.Engine)
	if err != nil {
		return s, err
	}
	def := DefaultSettings()
	s.PageSize, s.MaxSendSGE, s.MaxSGERd, s.MaxSGLRd, s.MaxQPWR = def.PageSize, def.MaxSendSGE, def.MaxSGERd, def.MaxSGLRd, def.MaxQPWR
	if server == "" {
		return s, nil
	}
	p, err := ibv.Open(ibv.Config{Server: server, Client: client})
	if err != nil {
		return s, err
	}
	defer p.Close()
	return s.fromDevice(p.Attr("server"), min(p.ActiveMTU("server"), p.ActiveMTU("client"))), nil
}

// fromDevice is s with dev's limits as its device settings.
func (s Settings) fromDevice(dev verbs.DeviceAttr, activeMTU int) Settings {
	s.PageSize = dev.PageSize
	s.MaxSendSGE, s.MaxSGERd, s.MaxSGLRd = dev.MaxSendSGE, dev.MaxSGERd, 0
	// Validate holds max_qp_wr to the CQ limit the settings know.
	s.MaxQPWR = min(dev.MaxQPWR, dev.MaxCQE, s.DeviceAttr().MaxCQE)
	if activeMTU > 0 {
		s.PathMTU = min(s.PathMTU, activeMTU)
	}
	return s
}

// onDevice is the server device the model sees on a real device dev: its
// attributes with the device settings of s, each at most what dev has (a
// setting above it is refused). report says, line by line, where dev
// differs from the sim.
func (s Settings) onDevice(dev verbs.DeviceAttr) (verbs.DeviceAttr, []string, error) {
	simA := sim.DefaultAttr()
	a := dev
	for _, f := range []struct {
		name     string
		want, at *int
		devVal   int
	}{
		{"max_send_sge", &s.MaxSendSGE, &a.MaxSendSGE, dev.MaxSendSGE},
		{"max_sge_rd", &s.MaxSGERd, &a.MaxSGERd, dev.MaxSGERd},
		{"max_qp_wr", &s.MaxQPWR, &a.MaxQPWR, min(dev.MaxQPWR, dev.MaxCQE)},
	} {
		if *f.want > f.devVal {
			why := "a real device's limits can be lowered, not raised"
			if f.name == "max_qp_wr" && dev.MaxCQE < dev.MaxQPWR {
				why = fmt.Sprintf("its max_qp_wr %d is more than its CQs hold (max_cqe %d), and svc_rdma_accept gives the Send CQ one entry per SQ slot", dev.MaxQPWR, dev.MaxCQE)
			}
			return a, nil, fmt.Errorf("%s %d is over what %s has (%d): %s", f.name, *f.want, dev.Name, f.devVal, why)
		}
		*f.at = *f.want
	}
	// The model's pages are its own buffers, each registered on its own:
	// any size works, the host's is only the default.
	a.PageSize = s.PageSize
	var report []string
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
