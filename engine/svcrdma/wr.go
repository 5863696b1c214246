package svcrdma

import (
	"strconv"

	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/engine/verbs"
)

// CQE is struct ib_cqe: the completion handler a signaled WR carries.
type CQE struct {
	Name string // the kernel handler: "svc_rdma_wc_read_done", ...
	done func(t *sched.Task, wc verbs.WC)
}

// WR is a Send Queue work request as the model builds it (struct ib_send_wr
// with what a view needs to draw it).
type WR struct {
	Op         verbs.WROpcode
	SGL        []SGE
	RemoteAddr uint64
	RKey       uint32
	InvRKey    uint32 // SEND_WITH_INV, LOCAL_INV
	Signaled   bool
	CQE        *CQE
	Next       *WR
	Owner      string // "read chunk", "write chunk 0", "reply chunk", "send", ...
	// REG_MR
	MR     *MRState
	RegKey uint32
	Access verbs.Access
	// header bytes for a Send's first SGE (the transport header buffer)
	hdr []byte
	// ID is the wr_id the provider saw, once posted.
	ID uint64
}

// Bytes is the total length of the WR's SGL.
func (w *WR) Bytes() int {
	n := 0
	for _, s := range w.SGL {
		n += s.Len
	}
	return n
}

func (w *WR) String() string { return string(w.AppendArg(make([]byte, 0, 80))) }

// AppendArg appends String() to b (trace.Appender).
func (w *WR) AppendArg(b []byte) []byte {
	b = append(b, w.Op.String()...)
	switch w.Op {
	case verbs.WRRDMARead, verbs.WRRDMAWrite, verbs.WRRDMAReadWithInv:
		b = strconv.AppendInt(append(b, ' '), int64(w.Bytes()), 10)
		b = strconv.AppendUint(append(b, "B remote=0x"...), w.RemoteAddr, 16)
		b = strconv.AppendUint(append(b, " rkey=0x"...), uint64(w.RKey), 16)
		b = strconv.AppendInt(append(b, " sges="...), int64(len(w.SGL)), 10)
	case verbs.WRSend, verbs.WRSendWithInv:
		b = strconv.AppendInt(append(b, ' '), int64(w.Bytes()), 10)
		b = strconv.AppendInt(append(b, "B sges="...), int64(len(w.SGL)), 10)
		if w.Op == verbs.WRSendWithInv {
			b = strconv.AppendUint(append(b, " inv=0x"...), uint64(w.InvRKey), 16)
		}
	case verbs.WRRegMR:
		b = strconv.AppendInt(append(b, " mr"...), int64(w.MR.ID), 10)
		b = strconv.AppendUint(append(b, " key=0x"...), uint64(w.RegKey), 16)
	case verbs.WRLocalInv:
		b = strconv.AppendUint(append(b, " key=0x"...), uint64(w.InvRKey), 16)
	}
	if w.Signaled {
		b = append(b, " signaled"...)
		if w.CQE != nil {
			b = append(append(b, "→"...), w.CQE.Name...)
		}
	}
	return b
}

// chainString renders a chain as "READ … → READ … (signaled)".
func chainString(first *WR) string { return string(chainArg{first}.AppendArg(nil)) }

// chainLen counts the WRs of a chain.
func chainLen(first *WR) int {
	n := 0
	for w := first; w != nil; w = w.Next {
		n++
	}
	return n
}

// Event arguments that are formatted only when an event is shown.
type (
	chainArg struct{ first *WR }
	sglArg   []SGE
	pagesArg []*Page
)

func (c chainArg) String() string { return chainString(c.first) }
func (s sglArg) String() string   { return sglString(s) }
func (p pagesArg) String() string { return pageNames(p) }

// The event arguments the scheduler formats in place.
var (
	_ trace.Appender = chainArg{}
	_ trace.Appender = sglArg(nil)
	_ trace.Appender = pagesArg(nil)
	_ trace.Appender = hexArg(0)
	_ trace.Appender = SGE{}
	_ trace.Appender = (*WR)(nil)
)

// AppendArg appends String() to b (trace.Appender), as do the others.
func (c chainArg) AppendArg(b []byte) []byte {
	for w := c.first; w != nil; w = w.Next {
		if w != c.first {
			b = append(b, " → "...)
		}
		b = w.AppendArg(b)
	}
	return b
}

func (s sglArg) AppendArg(b []byte) []byte { return appendList(b, s, SGE.AppendArg) }

func (p pagesArg) AppendArg(b []byte) []byte { return appendList(b, p, (*Page).appendName) }

// appendList appends the list [e0,e1,...], each element by appendOne.
func appendList[E any](b []byte, list []E, appendOne func(E, []byte) []byte) []byte {
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendOne(e, b)
	}
	return append(b, ']')
}
