package analysis

import (
	"fmt"
	"net/netip"

	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// CMConn is a connection the Communication Manager set up (or refused, or
// tore down): which QPs it joined, from the REQ and REP on QP1.
type CMConn struct {
	ID              int
	Active, Passive frame.Addr // the REQ's sender and receiver
	ActiveQPN       uint32
	PassiveQPN      uint32
	ActiveCommID    uint32
	PassiveCommID   uint32
	ActivePSN       uint32 // the first PSN of the active side's requests (REP Starting PSN)
	PassivePSN      uint32 // the first PSN of the passive side's requests (REQ Starting PSN)
	ServiceID       uint64
	IP              ib.IPCM // RDMA-CM addressing, when HaveIP
	HaveIP          bool
	PMTU            int

	ReqFrame, RepFrame, RtuFrame, RejFrame, DreqFrame, DrepFrame int
	RejReason                                                    uint16

	addrs [][2]frame.Addr // (active, passive) addressings its data flows may use
}

// Established reports whether the REP was seen.
func (c *CMConn) Established() bool { return c.RepFrame != 0 }

func (c *CMConn) String() string {
	return fmt.Sprintf("CM connection %d: %v QP 0x%06x ↔ %v QP 0x%06x", c.ID, c.Active, c.ActiveQPN, c.Passive, c.PassiveQPN)
}

type cmState struct {
	byComm map[uint32]*CMConn // by the active side's communication ID
	flows  map[FlowKey]*CMConn
	pairs  map[addrPair]bool // address pairs a REQ went between
	list   []*CMConn
}

func newCMState() cmState {
	return cmState{byComm: map[uint32]*CMConn{}, flows: map[FlowKey]*CMConn{}, pairs: map[addrPair]bool{}}
}

// connOf returns the CM connection whose data flows include k.
func (s *cmState) connOf(k FlowKey) *CMConn { return s.flows[k] }

// peerKey returns the flow opposite k on c.
func (c *CMConn) peerKey(k FlowKey) FlowKey {
	qp := c.PassiveQPN
	if k.QP == c.PassiveQPN {
		for _, a := range c.addrs {
			if a[0] == k.Src {
				qp = c.ActiveQPN
				break
			}
		}
	}
	return FlowKey{Src: k.Dst, Dst: k.Src, QP: qp}
}

// started reports whether a REQ between the two addresses was seen.
func (s *cmState) started(x, y frame.Addr) bool {
	return s.pairs[addrPair{x, y}] || s.pairs[addrPair{y, x}]
}

// message handles a CM MAD.
func (s *cmState) message(a *Analyzer, p *Packet) {
	switch m := p.CM.(type) {
	case *ib.CMReq:
		c := &CMConn{ID: len(s.list) + 1, Active: p.Src, Passive: p.Dst, ActiveQPN: m.LocalQPN,
			ActiveCommID: m.LocalCommID, PassivePSN: m.StartingPSN, ServiceID: m.ServiceID,
			PMTU: ib.MTUBytes(m.PathMTU), ReqFrame: p.Frame}
		c.IP, c.HaveIP = m.IPCM()
		c.addrs = append(c.addrs, [2]frame.Addr{p.Src, p.Dst})
		if m.Primary.LocalGID != (ib.GID{}) {
			c.addrs = append(c.addrs, [2]frame.Addr{frame.GIDAddr(m.Primary.LocalGID), frame.GIDAddr(m.Primary.RemoteGID)})
		}
		if l, r := m.Primary.LocalLID, m.Primary.RemoteLID; l != 0 && l != 0xffff && r != 0 && r != 0xffff {
			c.addrs = append(c.addrs, [2]frame.Addr{{LID: l}, {LID: r}})
		}
		if old := s.byComm[m.LocalCommID]; old != nil && old.Active == c.Active && old.RepFrame == 0 {
			old.ReqFrame = p.Frame // a retried REQ
			p.Analysis.CM = old
			return
		}
		s.byComm[m.LocalCommID] = c
		s.list = append(s.list, c)
		for _, ad := range c.addrs {
			s.pairs[addrPair{ad[0], ad[1]}] = true
		}
		p.Analysis.CM = c
	case *ib.CMRep:
		c := s.byComm[m.RemoteCommID]
		if c == nil {
			a.note(p, InfoMidStream, "CM REP for communication ID 0x%08x, whose REQ is not in the capture", m.RemoteCommID)
			return
		}
		c.PassiveQPN, c.PassiveCommID, c.ActivePSN, c.RepFrame = m.LocalQPN, m.LocalCommID, m.StartingPSN, p.Frame
		for _, ad := range c.addrs {
			s.flows[FlowKey{Src: ad[0], Dst: ad[1], QP: c.PassiveQPN}] = c
			s.flows[FlowKey{Src: ad[1], Dst: ad[0], QP: c.ActiveQPN}] = c
		}
		p.Analysis.CM = c
	case *ib.CMRtu:
		if c := s.byComm[m.LocalCommID]; c != nil {
			c.RtuFrame = p.Frame
			p.Analysis.CM = c
		}
	case *ib.CMRej:
		c := s.byComm[m.LocalCommID]
		if c == nil {
			c = s.byComm[m.RemoteCommID]
		}
		if c != nil {
			c.RejFrame, c.RejReason = p.Frame, m.Reason
			p.Analysis.CM = c
		}
		a.note(p, NoteCMReject, "connection rejected, reason %d", m.Reason)
	case *ib.CMDreq:
		if c := s.find(m.LocalCommID, m.RemoteCommID); c != nil {
			c.DreqFrame = p.Frame
			p.Analysis.CM = c
		}
	case *ib.CMDrep:
		if c := s.find(m.LocalCommID, m.RemoteCommID); c != nil {
			c.DrepFrame = p.Frame
			p.Analysis.CM = c
		}
	}
}

// find returns the connection of a message from either side.
func (s *cmState) find(local, remote uint32) *CMConn {
	if c := s.byComm[local]; c != nil {
		return c
	}
	if c := s.byComm[remote]; c != nil {
		return c
	}
	return nil
}

// ipString formats an RDMA-CM address and port.
func ipString(a netip.Addr, port uint16) string { return netip.AddrPortFrom(a, port).String() }
