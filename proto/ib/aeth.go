package ib

// ACK Extended Transport Header (IBTA Vol 1 9.3.5, Figure 133; syndrome
// encoding in Table 44, RNR timer values in Table 45, NAK codes in Table
// 46). Acknowledges, RDMA READ responses (First, Last, Only) and ATOMIC
// Acknowledges carry it.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|   Syndrome    |         Message Sequence Number (MSN)         |  0
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
//	Syndrome:  7   6 5   4 3 2 1 0
//	          +---+-----+---------+
//	          | 0 | op  |  value  |   op 00 ACK:     value = credit count (31: invalid)
//	          +---+-----+---------+   op 01 RNR NAK: value = RNR timer (Table 45)
//	                                  op 11 NAK:     value = NAK code (Table 46)

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// AETHLen is the length of an AETH in bytes.
const AETHLen = 4

// AETH is the ACK Extended Transport Header.
type AETH struct {
	layers.BaseLayer
	Syndrome Syndrome // infiniband.aeth.syndrome
	MSN      uint32   // infiniband.aeth.msn, 24 bits
}

// LayerType returns LayerTypeAETH.
func (a *AETH) LayerType() gopacket.LayerType { return LayerTypeAETH }

// CanDecode returns LayerTypeAETH.
func (a *AETH) CanDecode() gopacket.LayerClass { return LayerTypeAETH }

// NextLayerType returns gopacket.LayerTypePayload.
func (a *AETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes an AETH from the start of data.
func (a *AETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AETHLen {
		*a = AETH{}
		return errShort(df, "AETH", AETHLen, len(data))
	}
	a.decode(data)
	return nil
}

func (a *AETH) decode(data []byte) {
	w := binary.BigEndian.Uint32(data)
	*a = AETH{
		BaseLayer: layers.BaseLayer{Contents: data[:AETHLen], Payload: data[AETHLen:]},
		Syndrome:  Syndrome(w >> 24),
		MSN:       w & 0xffffff,
	}
}

// SerializeTo prepends the AETH to b.
func (a *AETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(AETHLen)
	if err != nil {
		return err
	}
	a.put(buf)
	return nil
}

func (a *AETH) put(buf []byte) {
	binary.BigEndian.PutUint32(buf, uint32(a.Syndrome)<<24|a.MSN&0xffffff)
}

// Syndrome is the AETH syndrome byte.
type Syndrome uint8

// AckType is bits 6–5 of a syndrome (Wireshark:
// infiniband.aeth.syndrome.opcode).
type AckType uint8

// Acknowledge types.
const (
	AckTypeACK      AckType = 0
	AckTypeRNRNak   AckType = 1
	AckTypeReserved AckType = 2
	AckTypeNAK      AckType = 3
)

var ackTypeNames = [...]string{AckTypeACK: "Ack", AckTypeRNRNak: "RNR Nak", AckTypeReserved: "Reserved", AckTypeNAK: "Nak"}

// String returns the name Wireshark gives t ("RNR Nak"). AckType is a 2-bit
// field: only its low two bits count.
func (t AckType) String() string { return ackTypeNames[t&3] }

// NakCode is the value of a NAK syndrome (Wireshark:
// infiniband.aeth.syndrome.error_code).
type NakCode uint8

// NAK codes (Table 46).
const (
	NakPSNSequenceError     NakCode = 0
	NakInvalidRequest       NakCode = 1
	NakRemoteAccessError    NakCode = 2
	NakRemoteOperationalErr NakCode = 3
	NakInvalidRDRequest     NakCode = 4
)

// CreditsInvalid is the credit code of an ACK that carries no credit count.
const CreditsInvalid = 31

var nakCodeNames = [...]string{NakPSNSequenceError: "PSN Sequence Error", NakInvalidRequest: "Invalid Request",
	NakRemoteAccessError: "Remote Access Error", NakRemoteOperationalErr: "Remote Operational Error",
	NakInvalidRDRequest: "Invalid RD Request"}

// String returns the name Wireshark gives c ("Remote Access Error"), or
// "Reserved NAK code N" for a value without one.
func (c NakCode) String() string {
	if int(c) < len(nakCodeNames) {
		return nakCodeNames[c]
	}
	return fmt.Sprintf("Reserved NAK code %d", uint8(c))
}

// Type returns the kind of acknowledgement.
func (s Syndrome) Type() AckType { return AckType(s>>5) & 3 }

// Reserved returns bit 7, which must be 0.
func (s Syndrome) Reserved() uint8 { return uint8(s >> 7) }

// Value returns bits 4–0: the credit count, RNR timer or NAK code.
func (s Syndrome) Value() uint8 { return uint8(s) & 0x1f }

// CreditCode returns the 5-bit credit code of an ACK (CreditsInvalid:
// none).
func (s Syndrome) CreditCode() uint8 { return s.Value() }

// creditCounts is Table 44: the receive credits a credit code stands for.
var creditCounts = [31]uint16{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
	384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768}

// Credits returns the number of receive credits an ACK advertises; ok is
// false for CreditsInvalid.
func (s Syndrome) Credits() (n int, ok bool) {
	if c := s.CreditCode(); c < CreditsInvalid {
		return int(creditCounts[c]), true
	}
	return 0, false
}

// NakCode returns the code of a NAK.
func (s Syndrome) NakCode() NakCode { return NakCode(s.Value()) }

// rnrTimerMicros is Table 45 in microseconds (code 0 is the longest).
var rnrTimerMicros = [32]uint32{655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920,
	122880, 163840, 245760, 327680, 491520}

// RNRTimerMicros returns the minimum RNR NAK timer of an RNR NAK in
// microseconds.
func (s Syndrome) RNRTimerMicros() uint32 { return rnrTimerMicros[s.Value()] }

// IsNAK reports whether s is a NAK or an RNR NAK.
func (s Syndrome) IsNAK() bool { t := s.Type(); return t == AckTypeNAK || t == AckTypeRNRNak }

// AppendText appends s.String() to b; for an ACK without allocating.
func (s Syndrome) AppendText(b []byte) []byte {
	if s.Type() != AckTypeACK {
		return append(b, s.String()...)
	}
	n, ok := s.Credits()
	if !ok {
		return append(b, "ACK"...)
	}
	b = strconv.AppendInt(append(b, "ACK, "...), int64(n), 10)
	return append(b, " credits"...)
}

// String describes s: "ACK, 8 credits", "ACK, credits invalid", "RNR NAK, timer 0.64 ms",
// "NAK: Remote Access Error".
func (s Syndrome) String() string {
	switch s.Type() {
	case AckTypeACK:
		if n, ok := s.Credits(); ok {
			return fmt.Sprintf("ACK, %d credits", n)
		}
		return "ACK"

	case AckTypeRNRNak:
		us := s.RNRTimerMicros()
		return fmt.Sprintf("RNR NAK, timer %d.%02d ms", us/1000, us%1000/10)
	case AckTypeNAK:
		return "NAK: " + s.NakCode().String()
	}
	return fmt.Sprintf("reserved syndrome %#02x", uint8(s))
}
