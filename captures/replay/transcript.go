package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rdmalab/rdmalab/engine/trace"
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

// Header is the transcript's first lines.
func (tl *Timeline) Header() []string {
	out := []string{fmt.Sprintf("replay of %s: server %v, client %v; %d frames, %d steps, %d RPCs",
		tl.File, tl.Server, tl.Client, tl.Frames, len(tl.Steps), len(tl.RPCs))}
	for _, u := range tl.Unknown {
		out = append(out, "unknown: "+u)
	}
	return out
}

func (tl *Timeline) writeText(w *bufio.Writer, o Options) {
	for _, h := range tl.Header() {
		fmt.Fprintln(w, h)
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
			fmt.Fprintf(w, "RPC %d of %d  xid 0x%08x  %s\n", r.ID, len(tl.RPCs), r.XID, r.Label)
		}
		evs := tl.StepEvents(i)
		fmt.Fprintf(w, "%6d  %s\n", s.Frame, evs[len(evs)-1].Text)
		if o.Events {
			for _, e := range evs {
				if e.Task == taskReplay && e.Func == fmt.Sprintf("frame %d", s.Frame) {
					continue // the step's own line
				}
				fmt.Fprintf(w, "          %s\n", strings.TrimRight(e.String(), " "))
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
		}
		js.State = jsonState{PostSeq: p.st.postSeq, AckedPos: p.st.ackedPos, InFlight: p.st.inFlight(), Chains: len(p.st.chains)}
		if rs := p.st.readOf(s.RPC); rs != nil {
			js.State.Landed = rs.landed
		}
		_ = enc.Encode(js)
	}
}
