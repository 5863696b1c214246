package ibv

import (
	"errors"
	"fmt"

	"github.com/rdmalab/rdmalab/engine/verbs"
)

// The pure-Go half of the provider: how libibverbs' numbers become the
// engine's and back. The cgo half only moves values through these, so
// they are tested without a device (and, with -tags ibv, against the C
// headers' own constants).

// cStatus names each enum ibv_wc_status value, including the ones the
// engine has no constant for (EEC and memory-window errors an RC QP on
// rxe never reports, tag matching).
var cStatus = [...]string{
	0: "SUCCESS", 1: "LOC_LEN_ERR", 2: "LOC_QP_OP_ERR", 3: "LOC_EEC_OP_ERR", 4: "LOC_PROT_ERR",
	5: "WR_FLUSH_ERR", 6: "MW_BIND_ERR", 7: "BAD_RESP_ERR", 8: "LOC_ACCESS_ERR", 9: "REM_INV_REQ_ERR",
	10: "REM_ACCESS_ERR", 11: "REM_OP_ERR", 12: "RETRY_EXC_ERR", 13: "RNR_RETRY_EXC_ERR",
	14: "LOC_RDD_VIOL_ERR", 15: "REM_INV_RD_REQ_ERR", 16: "REM_ABORT_ERR", 17: "INV_EECN_ERR",
	18: "INV_EEC_STATE_ERR", 19: "FATAL_ERR", 20: "RESP_TIMEOUT_ERR", 21: "GENERAL_ERR",
	22: "TM_ERR", 23: "TM_RNDV_INCOMPLETE",
}

// StatusFromC is the engine's status for a libibverbs wc.status. The
// values the engine names keep their number; the others become
// GENERAL_ERR, and known reports that it was one the engine names.
func StatusFromC(c uint32) (s verbs.Status, known bool) {
	if c > 255 {
		return verbs.StatusGeneralErr, false
	}
	s = verbs.Status(c)
	if s.String() != fmt.Sprintf("WC_STATUS(%d)", c) {
		return s, true
	}
	return verbs.StatusGeneralErr, false
}

// StatusToC is the libibverbs wc.status value of s: the engine's statuses
// are IBV_WC_* by number, so this checks the name agrees.
func StatusToC(s verbs.Status) (uint32, error) {
	if int(s) < len(cStatus) && cStatus[s] == s.String() {
		return uint32(s), nil
	}
	return 0, fmt.Errorf("ibv: status %v has no IBV_WC_ value", s)
}

// CStatusName is the IBV_WC_ name of a raw status, for the ones the
// engine folds into GENERAL_ERR.
func CStatusName(c uint32) string {
	if int(c) < len(cStatus) && cStatus[c] != "" {
		return cStatus[c]
	}
	return fmt.Sprintf("WC_STATUS(%d)", c)
}

// wrOpcodeToC is the ibv_wr_opcode of o. REG_MR and RDMA_READ_WITH_INV are
// kernel verbs (ib_reg_wr, the iWARP read sink): user space has neither.
func wrOpcodeToC(o verbs.WROpcode) (uint32, error) {
	switch o {
	case verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm, verbs.WRSend, verbs.WRSendWithImm,
		verbs.WRRDMARead, verbs.WRLocalInv, verbs.WRSendWithInv:
		return uint32(o), nil // IBV_WR_* by number
	}
	return 0, fmt.Errorf("ibv: %v is a kernel-only work request (libibverbs has no such opcode; the MR path of rdma_rw needs the sim): %w", o, verbs.EOPNOTSUPP)
}

// wcOpcodeFromC is the engine's completion opcode of a wc.opcode.
func wcOpcodeFromC(c uint32) verbs.WCOpcode {
	switch o := verbs.WCOpcode(c); o {
	case verbs.WCSend, verbs.WCRDMAWrite, verbs.WCRDMARead, verbs.WCLocalInv, verbs.WCRecv, verbs.WCRecvWithImm:
		return o
	}
	return verbs.WCUnknownOpcode
}

// consumesRecv says whether a request of opcode o completes a Receive at
// the responder.
func consumesRecv(o verbs.WROpcode) bool {
	switch o {
	case verbs.WRSend, verbs.WRSendWithImm, verbs.WRSendWithInv, verbs.WRRDMAWriteWithImm:
		return true
	}
	return false
}

// Access flags: IBV_ACCESS_* share the engine's bits.
func accessToC(a verbs.Access) uint32 {
	// libibverbs refuses REMOTE_WRITE (and atomics) without LOCAL_WRITE:
	// the kernel's verbs imply it, user space must ask.
	if a&(verbs.AccessRemoteWrite|verbs.AccessRemoteAtomic) != 0 {
		a |= verbs.AccessLocalWrite
	}
	return uint32(a)
}

// mtuEnum is enum ibv_mtu (IBV_MTU_256 = 1 … IBV_MTU_4096 = 5) for a path
// MTU in bytes.
func mtuEnum(bytes int) (uint32, error) {
	for e, b := 1, 256; b <= 4096; e, b = e+1, b*2 {
		if b == bytes {
			return uint32(e), nil
		}
	}
	return 0, fmt.Errorf("ibv: path MTU %d is not 256, 512, 1024, 2048 or 4096: %w", bytes, verbs.EINVAL)
}

// mtuBytes is the byte size of an enum ibv_mtu value (0 if none).
func mtuBytes(e uint32) int {
	if e < 1 || e > 5 {
		return 0
	}
	return 128 << e
}

// RawAttr is what ibv_query_device and ibv_query_port report, field for
// field, before the engine reads it.
type RawAttr struct {
	MaxQPWR, MaxSGE, MaxSGERd, MaxCQE, MaxMR, MaxQPRdAtom, MaxQPInitRdAtom int
	IWARP                                                                  bool // transport_type IBV_TRANSPORT_IWARP
	ActiveMTU                                                              uint32
}

// AttrOf is the engine's view of a device: libibverbs has one max_sge for
// Send and Receive, and no fast-registration MRs (max_fast_reg_page_list_len
// 0: rdma_rw's MR path cannot run); PAGE_SIZE is the host's.
func AttrOf(name string, r RawAttr, pageSize int) verbs.DeviceAttr {
	return verbs.DeviceAttr{
		Name:            name,
		PageSize:        pageSize,
		MaxQPWR:         r.MaxQPWR,
		MaxSendSGE:      r.MaxSGE,
		MaxRecvSGE:      r.MaxSGE,
		MaxSGERd:        r.MaxSGERd,
		MaxCQE:          r.MaxCQE,
		MaxMR:           r.MaxMR,
		MaxQPInitRdAtom: r.MaxQPInitRdAtom,
		MaxQPRdAtom:     r.MaxQPRdAtom,
		IWARP:           r.IWARP,
	}
}

// GID is one entry of a port's GID table.
type GID struct {
	Index  int
	Raw    [16]byte
	RoCEv2 bool // gid_type IBV_GID_TYPE_ROCE_V2
}

// IPv4 is the address of an IPv4-mapped GID (::ffff:a.b.c.d), if it is one.
func (g GID) IPv4() (string, bool) {
	for _, b := range g.Raw[:10] {
		if b != 0 {
			return "", false
		}
	}
	if g.Raw[10] != 0xff || g.Raw[11] != 0xff {
		return "", false
	}
	return fmt.Sprintf("%d.%d.%d.%d", g.Raw[12], g.Raw[13], g.Raw[14], g.Raw[15]), true
}

func (g GID) String() string {
	if ip, ok := g.IPv4(); ok {
		return "::ffff:" + ip
	}
	s := ""
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			s += ":"
		}
		s += fmt.Sprintf("%x", uint16(g.Raw[i])<<8|uint16(g.Raw[i+1]))
	}
	return s
}

// memlockHint says why a registration fails with ENOMEM: ibv_reg_mr pins
// the pages, and the kernel counts them against RLIMIT_MEMLOCK.
func memlockHint(err error) string {
	if !errors.Is(err, verbs.ENOMEM) {
		return ""
	}
	return " (registering pins memory, which the memlock limit caps: raise it, ulimit -l unlimited as root, or memlock in /etc/security/limits.conf)"
}

// Link layers of a port (enum ibv_port_attr.link_layer, by number).
const (
	linkLayerUnspecified = 0 // an older kernel: taken for InfiniBand
	linkLayerInfiniBand  = 1
	linkLayerEthernet    = 2
)

// checkLinkLayer refuses a port rdmalab cannot connect QPs over: it
// addresses the peer by a RoCEv2 GID (UDP/IP over Ethernet, as rxe and an
// HCA in RoCE mode have), and a native InfiniBand port has none (its
// peers are reached by LID through a subnet manager).
func checkLinkLayer(dev string, port int, ll uint8) error {
	if ll == linkLayerEthernet {
		return nil
	}
	return fmt.Errorf("ibv: %s port %d is a native InfiniBand port: it has no RoCEv2 GID, and rdmalab connects its QPs over RoCEv2 (UDP/IP over Ethernet); use a RoCE port (an HCA whose port is in Ethernet mode, e.g. mlxconfig LINK_TYPE_P1=2) or Soft-RoCE (rdma link add rxe0 type rxe netdev IF): %w", dev, port, verbs.EOPNOTSUPP)
}

// PickGID chooses the GID a RoCEv2 connection goes by: the first RoCEv2
// entry holding an IPv4-mapped address (the one routed over UDP/IPv4, as
// rping and the kernel's RPC-over-RDMA pick), else the first RoCEv2 one.
func PickGID(gids []GID) (GID, error) {
	var fallback *GID
	for i := range gids {
		g := gids[i]
		if !g.RoCEv2 || g.Raw == [16]byte{} {
			continue
		}
		if _, ok := g.IPv4(); ok {
			return g, nil
		}
		if fallback == nil {
			fallback = &gids[i]
		}
	}
	if fallback != nil {
		return *fallback, nil
	}
	return GID{}, fmt.Errorf("ibv: the port has no RoCEv2 GID (is the netdev up and addressed?)")
}

// psnFor is the initial PSN of QP qpn: the model leaves PSNs to the
// provider, and both ends of each connection live in this provider, so a
// function of the QP number gives the requester's sq_psn and the
// responder's rq_psn alike.
func psnFor(qpn uint32) uint32 { return (qpn*0x9e3779b1 + 0x5eed) & 0xffffff }
