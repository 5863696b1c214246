package engine

import (
	"github.com/rdmalab/rdmalab/engine/nfsd"
	"github.com/rdmalab/rdmalab/engine/xprt"
	"github.com/rdmalab/rdmalab/proto/rpcrdma"
)

// ClientCall is one client call and the chunk segments it advertised, as
// a front end lists them: a copy, so the client may recycle the call's
// buffers (RecycleCalls) once it has summarized it.
type ClientCall struct {
	XID        uint32
	Label      string
	Proc       rpcrdma.Proc
	State      string // "prepared", "sent" or "answered"
	Inline     int    // the bytes sent inline
	MsgLen     int    // the RPC message's length
	Segs       []ClientSeg
	ReadChunks []ChunkSpan // the Read chunks asked for
	k          *xprt.Call
}

// ClientSeg is one segment a call advertised (RFC 8166 names).
type ClientSeg struct {
	rpcrdma.Segment
	Kind     string // "read chunk 0", "call chunk", "write chunk 0", "reply chunk"
	Position uint32 // Read list entries only
	PageOff  int    // the buffer's offset into its page
}

// ChunkSpan is a Read chunk asked for: its XDR position and length.
type ChunkSpan struct{ Pos, Len int }

// callState is where call k is: prepared, sent or answered.
func callState(k *xprt.Call) string {
	switch {
	case k.Done:
		return "answered"
	case k.Sent:
		return "sent"
	}
	return "prepared"
}

// clientCall is k as a front end lists it.
func clientCall(k *xprt.Call) ClientCall {
	st := callState(k)
	c := ClientCall{XID: k.XID, Label: k.Spec.Label, Proc: k.Header.Proc, State: st, Inline: len(k.Inline),
		MsgLen: len(k.Spec.Msg), k: k}
	if len(k.Segs) > 0 {
		c.Segs = make([]ClientSeg, len(k.Segs))
	}
	for i, s := range k.Segs {
		c.Segs[i] = ClientSeg{Segment: s.Segment, Kind: s.Kind, Position: s.Position, PageOff: s.PageOff}
	}
	for _, r := range k.Spec.ReadChunks {
		c.ReadChunks = append(c.ReadChunks, ChunkSpan{r.Pos, r.Len})
	}
	return c
}

// SegData is the bytes segment i's buffer holds now (a summarized call:
// its head only). Read it before the lab runs on: a recycled buffer holds
// another call's bytes then.
func (c ClientCall) SegData(i int) []byte { return c.k.Segs[i].Data() }

// Preset is one of the NFS-shaped calls a learner issues by size.
type Preset uint8

// The presets (Lab.Write, Read, Readdir, LongCall).
const (
	PresetWrite Preset = iota
	PresetRead
	PresetReaddir
	PresetLongCall
)

// Preset issues preset p of n bytes.
func (l *Lab) Preset(p Preset, n int, o ChunkOpts) (ClientCall, error) {
	f := l.Write
	switch p {
	case PresetRead:
		f = l.Read
	case PresetReaddir:
		f = l.Readdir
	case PresetLongCall:
		f = l.LongCall
	}
	k, err := f(n, o)
	if err != nil {
		return ClientCall{}, err
	}
	return clientCall(k), nil
}

// CustomCall issues c (CustomWrite).
func (l *Lab) CustomCall(c Custom) (ClientCall, error) {
	k, err := l.CustomWrite(c)
	if err != nil {
		return ClientCall{}, err
	}
	return clientCall(k), nil
}

// WriteDataPos is the XDR position where a WRITE's data begins in the
// calls the presets and CustomWrite make.
func (l *Lab) WriteDataPos() int {
	_, pos := nfsd.WriteCall(l.NFS.Lookup("data").FH, 0, nil)
	return pos
}

// Calls is the client's newest n calls (n < 0: every one it keeps),
// oldest first.
func (l *Lab) Calls(n int) []ClientCall {
	calls := l.Client.Calls()
	if n >= 0 {
		calls = calls[max(len(calls)-n, 0):]
	}
	out := make([]ClientCall, len(calls))
	for i, k := range calls {
		out[i] = clientCall(k)
	}
	return out
}

// CallByXID finds a client call by its XID.
func (l *Lab) CallByXID(xid uint32) (ClientCall, bool) {
	k := l.Client.CallByXID(xid)
	if k == nil {
		return ClientCall{}, false
	}
	return clientCall(k), true
}

// RecycleCalls lets the client reuse the buffers of the calls it has
// summarized: for a caller that reads calls only through Calls and
// CallByXID, and each one's data before the lab runs on.
func (l *Lab) RecycleCalls() { l.Client.Recycle = true }

// What the client carries: one call at most MaxCallBytes (its message
// and every chunk), the calls not yet answered MaxLiveBytes together.
const (
	MaxCallBytes = xprt.MaxCallBytes
	MaxLiveBytes = xprt.MaxLiveBytes
)
