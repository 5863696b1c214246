package analysis

import (
	"fmt"
	"slices"
)

// NoteKind classifies what the analysis noticed.
type NoteKind uint8

// Kinds of note. The first group are anomalies (--check fails on them);
// the second say what the capture cannot tell.
const (
	NoteMalformed         NoteKind = iota + 1 // a frame that does not decode
	NoteBadICRC                               // ICRC mismatch
	NoteBadVCRC                               // VCRC mismatch
	NotePSNGap                                // PSNs missing
	NotePSNDuplicate                          // a packet twice
	NotePSNRetransmission                     // a retransmission
	NotePSNOutOfOrder                         // a late packet
	NoteNAK                                   // a NAK
	NoteRNRNAK                                // an RNR NAK
	NoteMSNMismatch                           // an MSN that does not count the messages
	NoteIncompleteMessage                     // a multi-packet message with a hole
	NoteReadNoResponse                        // an RDMA READ never answered
	NoteReadShort                             // a READ response shorter or longer than asked
	NoteResponseNoRequest                     // a READ response to no READ request
	NoteWritePastSegment                      // RDMA WRITE/READ past the advertised segment
	NoteUnknownRKey                           // RDMA WRITE/READ to an rkey no call advertised
	NoteReplyNoCall                           // an RPC reply without its call
	NoteCallNoReply                           // an RPC call never answered
	NoteCreditsExceeded                       // more calls outstanding than credits granted
	NoteRPCError                              // an RDMA_ERROR message
	NoteCMReject                              // a CM REJ
	NoteAtomicNoResponse                      // an atomic never answered
	anomalyEnd

	InfoMidStream NoteKind = iota + 100 // the capture starts after this began: cannot tell
	InfoShortSend                       // a SEND too short for RPC-over-RDMA
	InfoOldAck                          // an ACK that acknowledges nothing new
	InfoLimit                           // the analysis stopped following something: too many of them
)

var noteNames = map[NoteKind]string{
	NoteMalformed: "malformed", NoteBadICRC: "bad ICRC", NoteBadVCRC: "bad VCRC",
	NotePSNGap: "PSN gap", NotePSNDuplicate: "duplicate", NotePSNRetransmission: "retransmission",
	NotePSNOutOfOrder: "out of order", NoteNAK: "NAK", NoteRNRNAK: "RNR NAK",
	NoteMSNMismatch: "MSN mismatch", NoteIncompleteMessage: "incomplete message",
	NoteReadNoResponse: "READ without response", NoteReadShort: "READ response length", NoteResponseNoRequest: "response without request",
	NoteWritePastSegment: "past segment", NoteUnknownRKey: "unknown rkey",
	NoteReplyNoCall: "reply without call", NoteCallNoReply: "call never answered",
	NoteCreditsExceeded: "credits exceeded", NoteRPCError: "RDMA_ERROR", NoteCMReject: "CM reject",
	NoteAtomicNoResponse: "atomic without response",
	InfoMidStream:        "unknown", InfoShortSend: "short SEND", InfoOldAck: "old ACK", InfoLimit: "limit",
}

func (k NoteKind) String() string {
	if s, ok := noteNames[k]; ok {
		return s
	}
	return fmt.Sprintf("NoteKind(%d)", uint8(k))
}

// Anomaly reports whether k is an anomaly (rather than a statement of
// what the capture cannot tell).
func (k NoteKind) Anomaly() bool { return k < anomalyEnd }

// Note is one finding, tied to a frame.
type Note struct {
	Frame int
	Kind  NoteKind
	Text  string
}

func (n Note) String() string { return fmt.Sprintf("frame %d: %s: %s", n.Frame, n.Kind, n.Text) }

// sortNotes orders notes by frame, keeping the order of each frame's.
func sortNotes(ns []Note) {
	slices.SortStableFunc(ns, func(x, y Note) int { return x.Frame - y.Frame })
}
