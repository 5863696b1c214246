package decode

// Following an Index's pass: another consumer of the capture (the replay
// view's builder) reads each frame as the indexer analysed it, from the
// index, instead of reading and decoding the file a second time. What it
// reads of a frame is a Brief: the index keeps the few numbers of its
// transport header that the frame records lack (IndexOptions.Follow), and
// rebuilds its analysis as Detail does.

import (
	"errors"
	"io"
	"math"
	"time"

	"github.com/google/gopacket"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/proto/ib"
)

// Brief is what a consumer of a capture that does not show its bytes
// reads of a frame: its place and time, its InfiniBand transport header's
// numbers, and its analysis.
type Brief struct {
	Frame int
	Rel   time.Duration // since the first frame
	// BTH says the frame carries InfiniBand transport; Opcode, PSN and
	// Payload count only then.
	BTH     bool
	Opcode  ib.Opcode
	PSN     uint32
	Payload int    // InfiniBand payload bytes
	CM      string // the CM message of a CM MAD: "REQ", "REP", "RTU", "REJ", "DREQ", "DREP"
	Err     string // why the frame did not decode, if it did not

	Analysis analysis.Analysis
}

// BriefOf is the Brief of a decoded packet; its Analysis points where
// p.Analysis does (the decoder reuses the notes' array).
func BriefOf(p *analysis.Packet) Brief {
	b := Brief{Frame: p.Frame, Rel: p.Rel, CM: cmName(p.CM), Analysis: p.Analysis}
	if p.BTH != nil {
		b.BTH, b.Opcode, b.PSN, b.Payload = true, p.BTH.Opcode, p.BTH.PSN, len(p.BTH.Payload)
	}
	if p.Err != nil {
		b.Err = p.Err.Error()
	}
	return b
}

func cmName(l gopacket.Layer) string {
	switch l.(type) {
	case *ib.CMReq:
		return "REQ"
	case *ib.CMRep:
		return "REP"
	case *ib.CMRtu:
		return "RTU"
	case *ib.CMRej:
		return "REJ"
	case *ib.CMDreq:
		return "DREQ"
	case *ib.CMDrep:
		return "DREP"
	}
	return ""
}

// briefRec is what a Brief needs beyond a frame's frameRec: 8 bytes.
type briefRec struct {
	opPSN   uint32 // opcode<<24 | PSN
	payload uint16 // unless briefWide
	flags   uint8
}

const (
	briefBTH  = 1 << iota // the frame has a BTH
	briefWide             // its payload length is in Index.extras
	briefMore             // its CM message or error is in Index.extras
)

// briefExtra is what few frames have: a long payload, a CM message, an
// error.
type briefExtra struct {
	payload int
	cm, err string
}

// keepBrief keeps what Follow reads of frame i beside its record in b.
func (x *Index) keepBrief(i int, b *block, p *analysis.Packet) {
	br := BriefOf(p)
	var r briefRec
	var e briefExtra
	if br.BTH {
		r.flags |= briefBTH
		r.opPSN = uint32(br.Opcode)<<24 | br.PSN&0xffffff
		if br.Payload <= math.MaxUint16 {
			r.payload = uint16(br.Payload)
		} else {
			r.flags |= briefWide
			e.payload = br.Payload
		}
	}
	if br.CM != "" || br.Err != "" {
		r.flags |= briefMore
		e.cm, e.err = br.CM, br.Err
	}
	if r.flags&(briefWide|briefMore) != 0 {
		x.extras.add(i, e)
	}
	b.briefs = append(b.briefs, r)
}

// ErrClosed is what Follow returns once the Index is closed.
var ErrClosed = errors.New("the capture's index is closed")

// Hold runs fn holding the index's lock: the analysis (its messages,
// RPCs and flows, which a Brief points to) does not change while fn
// runs, except while Follow waits. A follower reads that analysis only
// inside Hold. Unlike a reader's (lock), a holder does not ask the
// indexer to stop its batch: a follower holds the lock for each frame
// it builds, and would otherwise let the indexer read a few frames at a
// time.
func (x *Index) Hold(fn func()) {
	x.mu.Lock()
	defer x.mu.Unlock()
	fn()
}

// Follow returns the Brief of packet i (frame i+1), waiting for the
// indexer to reach it; it is called inside Hold, and lets the lock go
// while it waits. At the end of the capture it returns io.EOF, or why
// indexing stopped before it (the file's damage, naming the frame and
// offset); ErrClosed once the index is closed. The index must be opened
// with IndexOptions.Follow.
func (x *Index) Follow(i int) (Brief, error) {
	if !x.follow {
		return Brief{}, errors.New("the index keeps no Briefs (IndexOptions.Follow)")
	}
	for i >= x.n {
		switch {
		case x.stop.Load():
			return Brief{}, ErrClosed
		case x.done && x.err != nil:
			return Brief{}, x.err
		case x.done:
			return Brief{}, io.EOF
		}
		moved := x.moved
		x.mu.Unlock()
		select {
		case <-moved:
		case <-x.quit:
		}
		x.mu.Lock()
	}
	h := x.head(i)
	r := x.blocks[i/blockLen].briefs[i%blockLen]
	b := Brief{Frame: i + 1, Rel: h.time.Sub(x.first)}
	if r.flags&briefBTH != 0 {
		b.BTH, b.Opcode, b.PSN, b.Payload = true, ib.Opcode(r.opPSN>>24), r.opPSN&0xffffff, int(r.payload)
	}
	if r.flags&(briefWide|briefMore) != 0 {
		if k := x.extras.find(i); k >= 0 {
			e := x.extras.val[k]
			b.CM, b.Err = e.cm, e.err
			if r.flags&briefWide != 0 {
				b.Payload = e.payload
			}
		}
	}
	x.analysis(i, bthFacts{ok: b.BTH, psn: b.PSN, payload: b.Payload}, &b.Analysis)
	return b, nil
}
