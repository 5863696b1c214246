package svcrdma

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/engine/sched"
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

func (w *WR) String() string {
	var b strings.Builder
	b.WriteString(w.Op.String())
	switch w.Op {
	case verbs.WRRDMARead, verbs.WRRDMAWrite, verbs.WRRDMAReadWithInv:
		fmt.Fprintf(&b, " %dB remote=0x%x rkey=0x%x sges=%d", w.Bytes(), w.RemoteAddr, w.RKey, len(w.SGL))
	case verbs.WRSend, verbs.WRSendWithInv:
		fmt.Fprintf(&b, " %dB sges=%d", w.Bytes(), len(w.SGL))
		if w.Op == verbs.WRSendWithInv {
			fmt.Fprintf(&b, " inv=0x%x", w.InvRKey)
		}
	case verbs.WRRegMR:
		fmt.Fprintf(&b, " mr%d key=0x%x", w.MR.ID, w.RegKey)
	case verbs.WRLocalInv:
		fmt.Fprintf(&b, " key=0x%x", w.InvRKey)
	}
	if w.Signaled {
		b.WriteString(" signaled")
		if w.CQE != nil {
			b.WriteString("→" + w.CQE.Name)
		}
	}
	return b.String()
}

// chainString renders a chain as "READ … → READ … (signaled)".
func chainString(first *WR) string {
	var parts []string
	for w := first; w != nil; w = w.Next {
		parts = append(parts, w.String())
	}
	return strings.Join(parts, " → ")
}

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
