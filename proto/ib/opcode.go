package ib

// BTH opcodes (IBTA Vol 1 9.2.1, Table 38; CNP from Annex A17.9.2; FLUSH
// and ATOMIC WRITE from the 2021 Memory Placement Extensions):
//
//	 7   6   5   4   3   2   1   0
//	+---+---+---+---+---+---+---+---+
//	| transport |     operation     |
//	+---+---+---+---+---+---+---+---+
//	transport: 000 RC, 001 UC, 010 RD, 011 UD, 100 CNP, 101 XRC
//
// The opcode alone decides the extension headers that follow the BTH
// (Headers) and where the packet sits in its message (Position).

import "fmt"

// Opcode is the BTH OpCode (Wireshark: infiniband.bth.opcode).
type Opcode uint8

// Transport is the transport service of an opcode, its top three bits.
type Transport uint8

// Transport services.
const (
	TransportRC  Transport = 0
	TransportUC  Transport = 1
	TransportRD  Transport = 2
	TransportUD  Transport = 3
	TransportCNP Transport = 4
	TransportXRC Transport = 5
)

var transportNames = [...]string{TransportRC: "RC", TransportUC: "UC", TransportRD: "RD", TransportUD: "UD",
	TransportCNP: "CNP", TransportXRC: "XRC"}

// String returns the short name of t ("RC"), or Transport(N) for a value
// without one.
func (t Transport) String() string {
	if int(t) < len(transportNames) {
		return transportNames[t]
	}
	return fmt.Sprintf("Transport(%d)", uint8(t))
}

var transportLong = [...]string{
	"Reliable Connection (RC)", "Unreliable Connection (UC)", "Reliable Datagram (RD)",
	"Unreliable Datagram (UD)", "CNP", "Extended Reliable Connection (XRC)", "Reserved", "Reserved"}

// Operations: the low five bits of an opcode.
const (
	OpSendFirst         = 0x00
	OpSendMiddle        = 0x01
	OpSendLast          = 0x02
	OpSendLastImm       = 0x03
	OpSendOnly          = 0x04
	OpSendOnlyImm       = 0x05
	OpWriteFirst        = 0x06
	OpWriteMiddle       = 0x07
	OpWriteLast         = 0x08
	OpWriteLastImm      = 0x09
	OpWriteOnly         = 0x0a
	OpWriteOnlyImm      = 0x0b
	OpReadRequest       = 0x0c
	OpReadResponseFirst = 0x0d
	OpReadResponseMid   = 0x0e
	OpReadResponseLast  = 0x0f
	OpReadResponseOnly  = 0x10
	OpAcknowledge       = 0x11
	OpAtomicAcknowledge = 0x12
	OpCompareSwap       = 0x13
	OpFetchAdd          = 0x14
	OpResync            = 0x15 // RD only
	OpSendLastInv       = 0x16
	OpSendOnlyInv       = 0x17
	OpFlush             = 0x1c
	OpAtomicWrite       = 0x1d
	OpCNP               = 0x01 // with TransportCNP: opcode 0x81
)

// Opcodes used by name elsewhere in rdmalab (Reliable Connection and UD).
const (
	OpcodeRCSendFirst         Opcode = 0x00
	OpcodeRCSendMiddle        Opcode = 0x01
	OpcodeRCSendLast          Opcode = 0x02
	OpcodeRCSendLastImm       Opcode = 0x03
	OpcodeRCSendOnly          Opcode = 0x04
	OpcodeRCSendOnlyImm       Opcode = 0x05
	OpcodeRCWriteFirst        Opcode = 0x06
	OpcodeRCWriteMiddle       Opcode = 0x07
	OpcodeRCWriteLast         Opcode = 0x08
	OpcodeRCWriteLastImm      Opcode = 0x09
	OpcodeRCWriteOnly         Opcode = 0x0a
	OpcodeRCWriteOnlyImm      Opcode = 0x0b
	OpcodeRCReadRequest       Opcode = 0x0c
	OpcodeRCReadResponseFirst Opcode = 0x0d
	OpcodeRCReadResponseMid   Opcode = 0x0e
	OpcodeRCReadResponseLast  Opcode = 0x0f
	OpcodeRCReadResponseOnly  Opcode = 0x10
	OpcodeRCAcknowledge       Opcode = 0x11
	OpcodeRCAtomicAcknowledge Opcode = 0x12
	OpcodeRCCompareSwap       Opcode = 0x13
	OpcodeRCFetchAdd          Opcode = 0x14
	OpcodeRCSendLastInv       Opcode = 0x16
	OpcodeRCSendOnlyInv       Opcode = 0x17
	OpcodeRCFlush             Opcode = 0x1c
	OpcodeRCAtomicWrite       Opcode = 0x1d
	OpcodeUDSendOnly          Opcode = 0x64
	OpcodeUDSendOnlyImm       Opcode = 0x65
	OpcodeCNP                 Opcode = 0x81
)

// Transport returns the transport service of o.
func (o Opcode) Transport() Transport { return Transport(o >> 5) }

// Operation returns the low five bits of o (OpSendFirst, ...).
func (o Opcode) Operation() uint8 { return uint8(o) & 0x1f }

// Position is where a packet sits in its message.
type Position uint8

// Positions.
const (
	PosNone   Position = iota // not a data packet of a multi-packet operation
	PosFirst                  // FIRST
	PosMiddle                 // MIDDLE
	PosLast                   // LAST
	PosOnly                   // ONLY (or a single-packet operation)
)

var positionNames = [...]string{PosNone: "", PosFirst: "First", PosMiddle: "Middle", PosLast: "Last", PosOnly: "Only"}

// String returns the word Wireshark's opcode names use for p ("First"; ""
// for PosNone), or Position(N) for a value without one.
func (p Position) String() string {
	if int(p) < len(positionNames) {
		return positionNames[p]
	}
	return fmt.Sprintf("Position(%d)", uint8(p))
}

// Kind groups opcodes by what they do, whatever the transport.
type Kind uint8

// Kinds of operation.
const (
	KindUnknown      Kind = iota
	KindSend              // SEND (with or without immediate or invalidate)
	KindWrite             // RDMA WRITE
	KindReadRequest       // RDMA READ Request
	KindReadResponse      // RDMA READ response
	KindAck               // Acknowledge
	KindAtomicAck         // ATOMIC Acknowledge
	KindAtomic            // CmpSwap, FetchAdd
	KindResync            // RD RESYNC
	KindFlush             // FLUSH
	KindAtomicWrite       // ATOMIC WRITE
	KindCNP               // congestion notification
)

var kindNames = [...]string{KindUnknown: "unknown", KindSend: "SEND", KindWrite: "RDMA WRITE",
	KindReadRequest: "RDMA READ Request", KindReadResponse: "RDMA READ response", KindAck: "Acknowledge",
	KindAtomicAck: "ATOMIC Acknowledge", KindAtomic: "ATOMIC", KindResync: "RESYNC", KindFlush: "FLUSH",
	KindAtomicWrite: "ATOMIC WRITE", KindCNP: "CNP"}

// String returns the name of k ("RDMA WRITE"), or Kind(N) for a value
// without one.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// opInfo describes one operation (low five bits).
type opInfo struct {
	name string // Wireshark's wording, after the transport
	info string // Wireshark's Info column wording
	kind Kind
	pos  Position
	hdrs Headers // extension headers after any RDETH/DETH/XRCETH
	imm  bool    // carries ImmDt
}

var ops = [32]opInfo{
	OpSendFirst:         {"SEND First", "Send First", KindSend, PosFirst, 0, false},
	OpSendMiddle:        {"SEND Middle", "Send Middle", KindSend, PosMiddle, 0, false},
	OpSendLast:          {"SEND Last", "Send Last", KindSend, PosLast, 0, false},
	OpSendLastImm:       {"SEND Last with Immediate", "Send Last Immediate", KindSend, PosLast, HasImmDt, true},
	OpSendOnly:          {"SEND Only", "Send Only", KindSend, PosOnly, 0, false},
	OpSendOnlyImm:       {"SEND Only with Immediate", "Send Only Immediate", KindSend, PosOnly, HasImmDt, true},
	OpWriteFirst:        {"RDMA WRITE First", "RDMA Write First", KindWrite, PosFirst, HasRETH, false},
	OpWriteMiddle:       {"RDMA WRITE Middle", "RDMA Write Middle", KindWrite, PosMiddle, 0, false},
	OpWriteLast:         {"RDMA WRITE Last", "RDMA Write Last", KindWrite, PosLast, 0, false},
	OpWriteLastImm:      {"RDMA WRITE Last with Immediate", "RDMA Write Last Immediate", KindWrite, PosLast, HasImmDt, true},
	OpWriteOnly:         {"RDMA WRITE Only", "RDMA Write Only", KindWrite, PosOnly, HasRETH, false},
	OpWriteOnlyImm:      {"RDMA WRITE Only with Immediate", "RDMA Write Only Immediate", KindWrite, PosOnly, HasRETH | HasImmDt, true},
	OpReadRequest:       {"RDMA READ Request", "RDMA Read Request", KindReadRequest, PosOnly, HasRETH, false},
	OpReadResponseFirst: {"RDMA READ response First", "RDMA Read Response First", KindReadResponse, PosFirst, HasAETH, false},
	OpReadResponseMid:   {"RDMA READ response Middle", "RDMA Read Response Middle", KindReadResponse, PosMiddle, 0, false},
	OpReadResponseLast:  {"RDMA READ response Last", "RDMA Read Response Last", KindReadResponse, PosLast, HasAETH, false},
	OpReadResponseOnly:  {"RDMA READ response Only", "RDMA Read Response Only", KindReadResponse, PosOnly, HasAETH, false},
	OpAcknowledge:       {"Acknowledge", "Acknowledge", KindAck, PosOnly, HasAETH, false},
	OpAtomicAcknowledge: {"ATOMIC Acknowledge", "Atomic Acknowledge", KindAtomicAck, PosOnly, HasAETH | HasAtomicAckETH, false},
	OpCompareSwap:       {"CmpSwap", "Compare Swap", KindAtomic, PosOnly, HasAtomicETH, false},
	OpFetchAdd:          {"FetchAdd", "Fetch Add", KindAtomic, PosOnly, HasAtomicETH, false},
	OpResync:            {"RESYNC", "RESYNC", KindResync, PosOnly, 0, false},
	OpSendLastInv:       {"SEND Last with Invalidate", "Send Last Invalidate", KindSend, PosLast, HasIETH, false},
	OpSendOnlyInv:       {"SEND Only with Invalidate", "Send Only Invalidate", KindSend, PosOnly, HasIETH, false},
	OpFlush:             {"FLUSH", "Flush", KindFlush, PosOnly, HasFETH | HasRETH, false},
	OpAtomicWrite:       {"ATOMIC WRITE", "Atomic Write", KindAtomicWrite, PosOnly, HasRETH, false},
}

// validOps lists, per transport, the operations it defines.
var validOps = [8]uint32{
	TransportRC:  (1<<(OpSendOnlyInv+1)-1)&^(1<<OpResync) | 1<<OpFlush | 1<<OpAtomicWrite,
	TransportUC:  1<<(OpWriteOnlyImm+1) - 1,
	TransportRD:  1<<(OpResync+1) - 1,
	TransportUD:  1<<OpSendOnly | 1<<OpSendOnlyImm,
	TransportCNP: 1 << OpCNP,
	TransportXRC: (1<<(OpSendOnlyInv+1) - 1) &^ (1 << OpResync),
}

// Known reports whether o is an opcode IBTA defines.
func (o Opcode) Known() bool { return validOps[o.Transport()]&(1<<o.Operation()) != 0 }

func (o Opcode) info() *opInfo {
	if !o.Known() || o.Transport() == TransportCNP {
		return &opInfo{}
	}
	return &ops[o.Operation()]
}

// Kind returns what o does (KindUnknown for an undefined opcode).
func (o Opcode) Kind() Kind {
	if o == OpcodeCNP {
		return KindCNP
	}
	return o.info().kind
}

// Position returns where a packet with opcode o sits in its message.
func (o Opcode) Position() Position { return o.info().pos }

// HasImmediate reports whether o carries immediate data (ImmDt).
func (o Opcode) HasImmediate() bool { return o.info().imm }

// IsRequest reports whether o is sent by a requester (SEND, WRITE, READ
// Request, atomics, FLUSH, RESYNC) rather than a responder.
func (o Opcode) IsRequest() bool {
	switch o.Kind() {
	case KindSend, KindWrite, KindReadRequest, KindAtomic, KindResync, KindFlush, KindAtomicWrite:
		return true
	}
	return false
}

// Headers returns the extension headers that follow a BTH with opcode o,
// in wire order (IBTA 9.2.1; Table 38).
func (o Opcode) Headers() Headers {
	if !o.Known() {
		return 0
	}
	op := o.Operation()
	h := ops[op].hdrs
	switch o.Transport() {
	case TransportRD:
		h |= HasRDETH
		if o.IsRequest() {
			h |= HasDETH
		}
	case TransportUD:
		h |= HasDETH
	case TransportXRC:
		if o.IsRequest() {
			h |= HasXRCETH
		}
	case TransportCNP:
		return 0
	}
	return h
}

// String returns Wireshark's name of o ("Reliable Connection (RC) - SEND
// Only"); Info returns its Info-column wording ("RC Send Only").
func (o Opcode) String() string {
	switch {
	case o == OpcodeCNP:
		return "CNP"
	case !o.Known():
		return fmt.Sprintf("%s - Reserved", transportLong[o.Transport()])
	case o == OpcodeUDSendOnly:
		return "Unreliable Datagram (UD) - SEND only"
	case o == OpcodeUDSendOnlyImm:
		return "Unreliable Datagram (UD) - SEND only with Immediate"
	}
	return transportLong[o.Transport()] + " - " + ops[o.Operation()].name
}

// AppendName appends o.String() to b; for a known opcode without
// allocating.
func (o Opcode) AppendName(b []byte) []byte {
	if o == OpcodeCNP || !o.Known() || o == OpcodeUDSendOnly || o == OpcodeUDSendOnlyImm ||
		int(o.Transport()) >= len(transportLong) {
		return append(b, o.String()...)
	}
	b = append(b, transportLong[o.Transport()]...)
	b = append(b, " - "...)
	return append(b, ops[o.Operation()].name...)
}

// AppendInfo appends o.Info() to b; for a known opcode without
// allocating.
func (o Opcode) AppendInfo(b []byte) []byte {
	if o == OpcodeCNP || !o.Known() || int(o.Transport()) >= len(transportNames) {
		return append(b, o.Info()...)
	}
	b = append(b, transportNames[o.Transport()]...)
	b = append(b, ' ')
	return append(b, ops[o.Operation()].info...)
}

// Info returns the Info-column name of o ("RC Send Only").
func (o Opcode) Info() string {
	switch {
	case o == OpcodeCNP:
		return "CNP"
	case !o.Known():
		return fmt.Sprintf("Opcode %d", uint8(o))
	}
	return o.Transport().String() + " " + ops[o.Operation()].info
}
