package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/proto/ib"
)

// NFSRDMAPort is the port of NFS over RDMA (RFC 5667), the service the
// lab's client connects to.
const NFSRDMAPort = 20049

// Conn is one RC connection as RDMA-CM set it up: the active side (the
// client that called rdma_connect) and the passive side (the server that
// listened). The CM prelude tells decoders which QPs form the connection
// and the PSN each side starts with.
type Conn struct {
	Active, Passive       string // node names
	ActiveQPN, PassiveQPN uint32
	// ActivePSN and PassivePSN are the first PSNs of each side's requests.
	// As ib_cm does, the REQ carries the passive side's and the REP the
	// active side's.
	ActivePSN, PassivePSN uint32
	PathMTU               int // bytes (256..4096); 0: 1024
	// RetryCount and RNRRetry are the active side's retry_cnt and the
	// rnr_retry both sides ask of each other (7: retry forever).
	RetryCount, RNRRetry int
	// Port is the service's port (0: NFSRDMAPort); SrcPort the active
	// side's RDMA-CM port (0: one derived from the QP numbers). Together
	// they make the flow label, and so the UDP source port of the
	// connection's packets.
	Port, SrcPort uint16
	// ReqPrivate and RepPrivate are the consumer's private data of the REQ
	// (after RDMA-CM's addressing header; at most 56 bytes) and the REP (at
	// most 196 bytes), such as RPCRDMAPrivate's.
	ReqPrivate, RepPrivate []byte
}

func (c *Conn) port() uint16 {
	if c.Port == 0 {
		return NFSRDMAPort
	}
	return c.Port
}

// srcPort is the active side's RDMA-CM port: Conn.SrcPort, or one in
// Linux's ephemeral range (32768..60999) derived from the QP numbers.
func (c *Conn) srcPort() uint16 {
	if c.SrcPort != 0 {
		return c.SrcPort
	}
	return uint16(32768 + (c.ActiveQPN*2654435761^c.PassiveQPN)%28232)
}

// flowLabel is the connection's flow label, as RDMA-CM sets it.
func (c *Conn) flowLabel() uint32 { return cmFlowLabel(c.srcPort(), c.port()) }

// commIDs are the two sides' communication IDs, derived from the QPs.
func (c *Conn) commIDs() (active, passive uint32) {
	return c.ActiveQPN*0x9e3779b1 ^ 0x119cd694, c.PassiveQPN*0x85ebca6b ^ 0x82c7c9eb
}

// RPCRDMAPrivate is the RPC-over-RDMA connection private message (RFC 8797
// section 6.1): magic, version 1, the Remote Invalidation flag, and the
// inline send and receive sizes, in 1 KiB units minus one.
func RPCRDMAPrivate(remoteInvalidate bool, sendSize, recvSize int) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0xf6ab0e18)
	var flags byte
	if remoteInvalidate {
		flags = 1
	}
	code := func(n int) byte { return byte(min(max(n>>10, 1), 256) - 1) }
	return append(b, 1, flags, code(sendSize), code(recvSize))
}

// mtuCode is the IBTA path MTU enumeration (1: 256 ... 5: 4096).
func mtuCode(n int) uint8 {
	for c := uint8(1); c < 5; c++ {
		if ib.MTUBytes(c) >= n {
			return c
		}
	}
	return 5
}

// CM values the kernel captures show for an NFS/RDMA connection.
const (
	qp1QKey       = 0x80010000 // IB_QP1_QKEY
	cmTimeout     = 20         // remote and local CM response timeouts (4.096 µs * 2^20)
	cmMaxRetries  = 15
	cmAckTimeout  = 19 // the primary path's local ACK timeout
	cmAckDelay    = 15 // the REP's target ACK delay
	cmRespRes     = 128
	ipcmHeaderLen = 36
)

// connect emits conn's REQ, REP and RTU one latency apart, the RTU at
// Options.Start. (NewEmitter gave its QPs their source port.)
func (e *Emitter) connect(c Conn, fn func(Frame) error) error {
	a, p := e.node(c.Active), e.node(c.Passive)
	actID, pasID := c.commIDs()
	tid := uint64(2)<<32 | uint64(actID)

	gid := func(n *node) ib.GID {
		var g ib.GID
		g[10], g[11] = 0xff, 0xff
		copy(g[12:], n.ip4[:])
		return g
	}
	// RDMA-CM's header in the REQ's private data: version 0, IPv4, the
	// source port, then the source and destination addresses (IPv4 in the
	// last four bytes of 16).
	priv := make([]byte, ipcmHeaderLen, ipcmHeaderLen+len(c.ReqPrivate))
	priv[1] = 4 << 4
	binary.BigEndian.PutUint16(priv[2:], c.srcPort())
	copy(priv[16:20], a.ip4[:])
	copy(priv[32:36], p.ip4[:])
	priv = append(priv, c.ReqPrivate...)
	if len(priv) > ib.MADDataLen-140 {
		return fmt.Errorf("wire: CM REQ private data of %d bytes, at most %d fit", len(c.ReqPrivate), ib.MADDataLen-140-ipcmHeaderLen)
	}
	if len(c.RepPrivate) > ib.MADDataLen-36 {
		return fmt.Errorf("wire: CM REP private data of %d bytes, at most %d fit", len(c.RepPrivate), ib.MADDataLen-36)
	}
	mtu := c.PathMTU
	if mtu == 0 {
		mtu = 1024
	}
	req := &ib.CMReq{
		LocalCommID: actID, ServiceID: ib.IPServicePrefix<<24 | 0x06<<16 | uint64(c.port()),
		LocalCAGUID: a.guid(), LocalQPN: c.ActiveQPN, ResponderResources: cmRespRes,
		RemoteCMResponseTimeout: cmTimeout, StartingPSN: c.PassivePSN, LocalCMResponseTimeout: cmTimeout,
		RetryCount: uint8(c.RetryCount & 7), PKey: 0xffff, PathMTU: mtuCode(mtu), RNRRetryCount: uint8(c.RNRRetry & 7),
		MaxCMRetries: cmMaxRetries,
		Primary: ib.CMPath{LocalLID: 0xffff, RemoteLID: 0xffff, LocalGID: gid(a), RemoteGID: gid(p),
			FlowLabel: c.flowLabel(), HopLimit: 64, LocalACKTimeout: cmAckTimeout},
		PrivateData: priv,
	}
	rep := &ib.CMRep{
		LocalCommID: pasID, RemoteCommID: actID, LocalQPN: c.PassiveQPN, StartingPSN: c.ActivePSN,
		InitiatorDepth: cmRespRes, TargetACKDelay: cmAckDelay, RNRRetryCount: uint8(c.RNRRetry & 7),
		LocalCAGUID: p.guid(), PrivateData: c.RepPrivate,
	}
	rtu := &ib.CMRtu{LocalCommID: actID, RemoteCommID: pasID}

	at := e.opts.Start - 2*e.latency
	for _, m := range []struct {
		src, dst *node
		attr     ib.CMAttr
		msg      gopacket.SerializableLayer
	}{{a, p, ib.CMAttrREQ, req}, {p, a, ib.CMAttrREP, rep}, {a, p, ib.CMAttrRTU, rtu}} {
		data, err := e.mad(m.src, m.dst, uint16(m.attr), tid, m.msg)
		if err != nil {
			return err
		}
		if err := e.out(at, data, fn); err != nil {
			return err
		}
		at += e.latency
	}
	return nil
}

// mad serializes one CM MAD from src's QP1 to dst's.
func (e *Emitter) mad(src, dst *node, attr uint16, tid uint64, msg gopacket.SerializableLayer) ([]byte, error) {
	b := &e.bth
	*b = ib.BTH{Opcode: ib.OpcodeUDSendOnly, PKey: 0xffff, DestQP: ib.QPGSI, A: true, PSN: src.gsi}
	b.DETH = ib.DETH{QKey: qp1QKey, SrcQP: ib.QPGSI}
	src.gsi = (src.gsi + 1) & psnMask
	mad := &ib.MAD{BaseVersion: 1, MgmtClass: ib.MgmtClassCM, ClassVersion: 2, Method: 0x03, // Send
		TransactionID: tid, AttributeID: attr}
	return e.frame(src, dst, gsiPort(), mad, msg)
}
