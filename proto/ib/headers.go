package ib

import (
	"fmt"
	"strings"
)

// Headers is a set of extension headers (IBTA 9.3 to 9.5), as BTH.Headers
// reports which ones a packet has. The bits are in wire order: a packet's
// extension headers appear in the order of their bits, lowest first.
type Headers uint16

// Extension headers.
const (
	HasRDETH        Headers = 1 << iota // Reliable Datagram ETH, 4 bytes
	HasDETH                             // Datagram ETH, 8 bytes
	HasXRCETH                           // XRC ETH, 4 bytes
	HasFETH                             // FLUSH ETH, 4 bytes
	HasRETH                             // RDMA ETH, 16 bytes
	HasAtomicETH                        // Atomic ETH, 28 bytes
	HasAETH                             // ACK ETH, 4 bytes
	HasAtomicAckETH                     // Atomic ACK ETH, 8 bytes
	HasImmDt                            // Immediate data, 4 bytes
	HasIETH                             // Invalidate ETH, 4 bytes
	numHeaders      = iota
)

var headerNames = [numHeaders]string{"RDETH", "DETH", "XRCETH", "FETH", "RETH", "AtomicETH", "AETH", "AtomicAckETH", "ImmDt", "IETH"}

var headerLens = [numHeaders]int{RDETHLen, DETHLen, XRCETHLen, FETHLen, RETHLen, AtomicETHLen, AETHLen, AtomicAckETHLen, ImmDtLen, IETHLen}

// Len returns the total length in bytes of the headers in h.
func (h Headers) Len() int {
	n := 0
	for i := 0; i < numHeaders; i++ {
		if h&(1<<i) != 0 {
			n += headerLens[i]
		}
	}
	return n
}

// String lists the headers ("RETH|ImmDt"), or "none".
func (h Headers) String() string {
	if h == 0 {
		return "none"
	}
	var parts []string
	for i := 0; i < numHeaders; i++ {
		if h&(1<<i) != 0 {
			parts = append(parts, headerNames[i])
		}
	}
	if rest := h &^ (1<<numHeaders - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint16(rest)))
	}
	return strings.Join(parts, "|")
}
