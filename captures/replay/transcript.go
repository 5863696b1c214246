package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// Options choose a transcript's form.
type Options struct {
	ByRPC  bool // a heading per RPC, as stepping by RPC stops
	Events bool // each step's events under it (text form)
	JSON   bool // one JSON object per step
}

// WriteTranscript prints the timeline: a header saying what was replayed
// and what the capture cannot tell, then one line per step (frame, step).
func (tl *Timeline) WriteTranscript(w io.Writer, o Options) error {
	bw := bufio.NewWriter(w)
	if o.JSON {
		tl.writeJSON(bw)
	} else {
		tl.writeText(bw, o)
	}
	return bw.Flush()
}

// Header is the transcript's first lines, escaped for a terminal.
func (tl *Timeline) Header() []string {
	out := []string{fmt.Sprintf("replay of %s: server %v, client %v; %d frames, %d steps, %d RPCs",
		safe.Text(tl.File), tl.Server, tl.Client, tl.Frames, len(tl.Steps), len(tl.RPCs))}
	for _, u := range tl.Unknown {
		out = append(out, safe.Display("unknown: "+u))
	}
	return out
}

// writeText prints the text transcript. Every line goes through
// appendTerm: the steps quote names and summaries off the wire, and the
// replay's own words have nothing to escape.
func (tl *Timeline) writeText(w *bufio.Writer, o Options) {
	var buf []byte
	line := func(format string, a ...any) {
		buf = safe.AppendDisplay(buf[:0], fmt.Sprintf(format, a...))
		w.Write(append(buf, '\n'))
	}
	for _, h := range tl.Header() {
		w.WriteString(h + "\n")
	}
	starts := map[int]*RPC{}
	if o.ByRPC {
		for i := range tl.RPCs {
			starts[tl.RPCs[i].First] = &tl.RPCs[i]
		}
	}
	for i := range tl.Steps {
		s := &tl.Steps[i]
		if r := starts[i]; r != nil {
			line("RPC %d of %d  xid 0x%08x  %s", r.ID, len(tl.RPCs), r.XID, r.Label)
		}
		evs := tl.StepEvents(i)
		line("%6d  %s", s.Frame, evs[len(evs)-1].Text)
		if o.Events {
			for _, e := range evs {
				if e.Task == taskReplay && e.Func == fmt.Sprintf("frame %d", s.Frame) {
					continue // the step's own line
				}
				line("          %s", strings.TrimRight(e.String(), " "))
			}
		}
	}
}

// jsonStep is one step of the JSON transcript.
type jsonStep struct {
	Step   int           `json:"step"`
	Frame  int           `json:"frame"`
	Time   string        `json:"time"`
	Kind   Kind          `json:"kind"`
	RPC    int           `json:"rpc,omitempty"`
	XID    string        `json:"xid,omitempty"`
	Text   string        `json:"text"`
	Events []trace.Event `json:"events"`
	State  jsonState     `json:"state"`
	// Strings are the names the step's call or reply carries, exactly as
	// sent: the texts quote the decoder's summaries, which escape them.
	Strings []jsonString `json:"strings,omitempty"`
}

// jsonString is a string from the wire under Wireshark's field name.
type jsonString struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// wireStrings are the strings of the call or reply whose SEND completes at
// step s: the AUTH_SYS machine name and the NFS names.
func wireStrings(r *RPC, s *Step) []jsonString {
	var out []jsonString
	add := func(f *nfs.Fields) {
		if f == nil {
			return
		}
		for _, x := range f.Strings {
			out = append(out, jsonString{x.Field, x.Value})
		}
	}
	rpc := r.rpc
	if c := rpc.Call; c != nil && c.Frame == s.Frame && s.Kind == KindCall {
		if a := rpc.AuthSys; a != nil {
			out = append(out, jsonString{"rpc.auth.machinename", a.MachineName})
		}
		add(rpc.CallNFS)
	}
	if m := rpc.Reply; m != nil && m.Frame == s.Frame && (s.Kind == KindSend || s.Kind == KindReplyPost) {
		add(rpc.ReplyNFS)
	}
	return out
}

// jsonState is the picture after a step, in numbers.
type jsonState struct {
	PostSeq  uint64 `json:"sc_post_seq"`
	AckedPos uint64 `json:"xpt_acked_pos"`
	InFlight int    `json:"wqes_in_flight"`
	Chains   int    `json:"chains"`
	Landed   int    `json:"read_bytes_landed,omitempty"`
}

func (tl *Timeline) writeJSON(w *bufio.Writer) {
	enc := json.NewEncoder(w)
	p := tl.Player()
	for p.Forward() {
		s := p.Step()
		evs := tl.StepEvents(s.Index)
		js := jsonStep{Step: s.Index + 1, Frame: s.Frame, Time: fmtRel(s.Time), Kind: s.Kind, RPC: s.RPC,
			Text: evs[len(evs)-1].Text, Events: evs}
		if r := tl.RPCOf(s.Index); r != nil {
			js.XID = hexXID(r.XID)
			js.Strings = wireStrings(r, s)
		}
		js.State = jsonState{PostSeq: p.st.postSeq, AckedPos: p.st.ackedPos, InFlight: p.st.inFlight(), Chains: len(p.st.chains)}
		if rs := p.st.readOf(s.RPC); rs != nil {
			js.State.Landed = rs.landed
		}
		_ = enc.Encode(js)
	}
}
