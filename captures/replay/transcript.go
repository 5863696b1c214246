package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
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

// writeChunk is the size of the transcript's writes: what a Linux pipe
// holds (a replay into a pipe is a script reading it), and 16 times
// fewer system calls than bufio's default.
const writeChunk = 64 << 10

// WriteTranscript prints the timeline: a header saying what was replayed
// and what the capture cannot tell, then one line per step (frame, step).
func (tl *Timeline) WriteTranscript(w io.Writer, o Options) error {
	if o.JSON && tl.noJSON {
		return fmt.Errorf("%s: read with NoJSON, the replay kept none of the names its JSON transcript quotes", tl.File)
	}
	tl.All()
	bw := bufio.NewWriterSize(w, writeChunk)
	if !o.JSON {
		for _, h := range tl.Header() {
			bw.WriteString(h + "\n")
		}
	}
	t := transcriber{w: bw, o: o, multi: len(tl.Conns) > 1, told: len(tl.Conns)}
	p := tl.Player()
	for p.Forward() {
		s := p.Step()
		t.step(tl, s, tl.StepEvents(s.Index), p.st)
	}
	return bw.Flush()
}

// Transcribe replays the capture at path and prints its transcript as it
// is read (WriteTranscript's lines, the counts at the end): the memory it
// takes does not grow with the capture. The Timeline it returns holds no
// steps, only the counts, the RPCs and Err.
func Transcribe(path string, ro ReadOptions, w io.Writer, o Options) (*Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return TranscribeStream(f, path, ro, w, o)
}

// TranscribeStream is Transcribe for a capture read from r as it comes
// (a pipe); name is what the transcript and its errors call it.
func TranscribeStream(r io.Reader, name string, ro ReadOptions, w io.Writer, o Options) (*Timeline, error) {
	bw := bufio.NewWriterSize(w, writeChunk)
	t := transcriber{w: bw, o: o}
	ro.stepsOnly = !o.JSON && !o.Events
	tl, err := open(r, nil, name, ro, t.step)
	if err != nil {
		return nil, err
	}
	tl.All()
	if !o.JSON {
		t.line("end of the replay: %s", tl.counts())
		if tl.others > 0 {
			t.line("%s", tl.othersLine())
		}
	}
	return tl, bw.Flush()
}

// counts says how much was replayed.
func (tl *Timeline) counts() string {
	c := fmt.Sprintf("%d frames, %d steps, %d RPCs", tl.Frames, tl.nsteps, len(tl.RPCs))
	if len(tl.Conns) > 1 {
		c += fmt.Sprintf(" on %d transports", len(tl.Conns))
	}
	return c
}

// othersLine says what was not replayed.
func (tl *Timeline) othersLine() string {
	if tl.qp != 0 {
		return fmt.Sprintf("%d frames of other queue pairs are not replayed: only the transport of QP 0x%06x (without --qp every transport is)", tl.others, tl.qp)
	}
	return fmt.Sprintf("%d frames of queue pairs that carry no RPC-over-RDMA are not replayed", tl.others)
}

// Header is the transcript's first lines, escaped for a terminal.
func (tl *Timeline) Header() []string {
	out := []string{fmt.Sprintf("replay of %s: server %v, client %v; %s", safe.Text(tl.File), tl.Server, tl.Client, tl.counts())}
	if len(tl.Conns) > 1 {
		for _, c := range tl.Conns {
			out = append(out, c.String())
		}
	}
	for _, u := range tl.Unknown {
		out = append(out, safe.Display("unknown: "+u))
	}
	if tl.others > 0 {
		out = append(out, tl.othersLine())
	}
	return out
}

// transcriber prints steps. Every line goes through appendTerm: the steps
// quote names and summaries off the wire, and the replay's own words have
// nothing to escape.
type transcriber struct {
	w     *bufio.Writer
	o     Options
	buf   []byte
	enc   *json.Encoder
	multi bool // steps name their transport
	told  int  // transports announced
	began bool
}

func (t *transcriber) line(format string, a ...any) {
	t.buf = safe.AppendDisplay(t.buf[:0], fmt.Sprintf(format, a...))
	t.w.Write(append(t.buf, '\n'))
}

// step prints step s, its events evs and its transport's picture st after it.
func (t *transcriber) step(tl *Timeline, s *Step, evs []trace.Event, st *state) {
	// Several transports (as far as the lookahead shows, when streaming):
	// each step names its own from the start.
	t.multi = t.multi || tl.transports() > 1
	if t.o.JSON {
		t.json(tl, s, evs, st)
		return
	}
	if !t.began && tl.sink != nil {
		// Streaming: the header before the first step, without the
		// counts it cannot know yet.
		t.began = true
		t.line("replay of %s: server %v, client %v", tl.File, tl.Server, tl.Client)
		for _, u := range tl.Unknown {
			t.line("unknown: %s", u)
		}
	}
	for t.multi && t.told < len(tl.Conns) {
		t.line("%s", tl.Conns[t.told])
		t.told++
	}
	if t.o.ByRPC && s.RPC > 0 {
		if r := &tl.RPCs[s.RPC-1]; r.First == s.Index {
			if tl.sink == nil {
				t.line("RPC %d of %d  xid 0x%08x  %s", r.ID, len(tl.RPCs), r.XID, r.Label)
			} else {
				t.line("RPC %d  xid 0x%08x  %s", r.ID, r.XID, r.Label) // how many is not known yet
			}
		}
	}
	// A line a step: appended, not formatted ("%6d  xprt %d  %s").
	b := appendtext.PadLeft(appendtext.Int(t.buf[:0], s.Frame), 0, 6)
	if t.multi && s.Conn > 0 {
		b = appendtext.Int(append(b, "  xprt "...), s.Conn)
	}
	b = safe.AppendDisplay(append(b, "  "...), evs[len(evs)-1].Text)
	t.buf = append(b, '\n')
	t.w.Write(t.buf)
	if t.o.Events {
		own := fmt.Sprintf("frame %d", s.Frame)
		for _, e := range evs {
			if e.Task == taskReplay && e.Func == own {
				continue // the step's own line
			}
			t.line("          %s", strings.TrimRight(e.String(), " "))
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
	Xprt   int           `json:"xprt,omitempty"`
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

// rpcWire is what a JSON transcript quotes of an RPC, kept once its
// analysis.RPC is let go: the frames of its call and reply, and their
// strings.
type rpcWire struct {
	callFrame, replyFrame int // -1: not in the capture
	call, reply           []jsonString
}

// wireOf is what the JSON transcript quotes of rpc: the AUTH_SYS machine
// name and the NFS names of its call, and those of its reply.
func wireOf(rpc *analysis.RPC) *rpcWire {
	w := &rpcWire{callFrame: -1, replyFrame: -1}
	add := func(out []jsonString, f *nfs.Fields) []jsonString {
		if f == nil {
			return out
		}
		for _, x := range f.Strings {
			out = append(out, jsonString{x.Field, x.Value})
		}
		return out
	}
	if c := rpc.Call; c != nil {
		w.callFrame = c.Frame
		if a := rpc.AuthSys; a != nil {
			w.call = append(w.call, jsonString{"rpc.auth.machinename", a.MachineName})
		}
		w.call = add(w.call, rpc.CallNFS)
	}
	if m := rpc.Reply; m != nil {
		w.replyFrame = m.Frame
		w.reply = add(w.reply, rpc.ReplyNFS)
	}
	return w
}

// wireStrings are the strings of r's call or reply whose SEND completes
// at step s.
func wireStrings(r *RPC, s *Step) []jsonString {
	w := r.wire
	if r.rpc != nil {
		w = wireOf(r.rpc)
	}
	if w == nil {
		return nil
	}
	var out []jsonString
	if w.callFrame == s.Frame && s.Kind == KindCall {
		out = append(out, w.call...)
	}
	if w.replyFrame == s.Frame && (s.Kind == KindSend || s.Kind == KindReplyPost) {
		out = append(out, w.reply...)
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

func (t *transcriber) json(tl *Timeline, s *Step, evs []trace.Event, st *state) {
	if t.enc == nil {
		t.enc = safe.NewJSONEncoder(t.w)
	}
	js := jsonStep{Step: s.Index + 1, Frame: s.Frame, Time: fmtRel(s.Time), Kind: s.Kind, RPC: s.RPC,
		Text: evs[len(evs)-1].Text, Events: evs}
	if t.multi {
		js.Xprt = s.Conn
	}
	if s.RPC > 0 {
		r := &tl.RPCs[s.RPC-1]
		js.XID = hexXID(r.XID)
		js.Strings = wireStrings(r, s)
	}
	if st != nil {
		js.State = jsonState{PostSeq: st.postSeq, AckedPos: st.ackedPos, InFlight: st.inFlight(), Chains: len(st.chains)}
		if rs := st.readOf(s.RPC); rs != nil {
			js.State.Landed = rs.landed
		}
	}
	_ = t.enc.Encode(js)
}
