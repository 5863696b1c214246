package repl

// Captures in the REPL: `capture open` decodes a pcap file (the packets
// commands list it, the view's Packets pane draws it), and `capture save`,
// `start` and `stop` write the simulator's own traffic as pcap; on a real
// device `start` and `stop` record its packets on its netdev instead
// (capture_device.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/rdmalab/rdmalab/captures/annotate"
	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/fields"
	"github.com/rdmalab/rdmalab/captures/dfilter"
	"github.com/rdmalab/rdmalab/captures/live"
	"github.com/rdmalab/rdmalab/engine"
	"github.com/rdmalab/rdmalab/internal/atomicfile"
	"github.com/rdmalab/rdmalab/internal/cli"
	"github.com/rdmalab/rdmalab/internal/nearest"
	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/viz"
)

// captureState is the session's captures: the file `capture open` loaded
// and the recording `capture start` began.
type captureState struct {
	index *decode.Index
	src   *viz.CaptureSource
	name  string // as the user wrote it: messages name it so
	path  string // where it is
	rec   *recording
	// filters: the view's display filters, from one view to the next
	// (applied again while the same capture is open).
	filters viz.FilterMemory
	// restoreGC puts back the collector's setting while a capture is
	// open (leanGC); nil when none is.
	restoreGC func()
}

// leanGCPercent is the collector's target while a capture is open: it
// runs once the heap grows by a quarter, not double. The index grows with
// the file (tens of MB for a million frames) and its records hold no
// pointers, so the peak stays near what it keeps for little CPU.
const leanGCPercent = 25

// openIndex makes x the open capture, closing the one before, and has
// the collector run lean until it is closed.
func (st *captureState) openIndex(x *decode.Index, src *viz.CaptureSource) {
	if st.index != nil {
		st.index.Close()
	}
	st.index, st.src = x, src
	if st.restoreGC == nil {
		old := debug.SetGCPercent(leanGCPercent)
		st.restoreGC = func() { debug.SetGCPercent(old) }
	}
}

// closeIndex closes the open capture, if any, and puts the collector's
// setting back.
func (st *captureState) closeIndex() {
	if st.index != nil {
		st.index.Close()
		st.index, st.src = nil, nil
	}
	if st.restoreGC != nil {
		st.restoreGC()
		st.restoreGC = nil
	}
}

// recording is a `capture start` in progress. It goes to a temporary
// file beside FILE, renamed over FILE when it ends, so that FILE is never
// a partial capture and an older FILE survives a recording that fails.
type recording struct {
	f    *atomicfile.File
	name string
	lab  *engine.Lab // the lab that streams: a rebuild replaces the session's
	// lesson: a lesson's command started it, so it ends with the lesson,
	// whose folder it is written to.
	lesson bool
	left   *leftovers // the session's: holds the temporary file until the end
	// dev: on a real device, the capture on its netdev (nil on the sim,
	// whose lab writes the frames).
	dev   *deviceRecording
	stats live.Stats // dev's counts once it ended
}

// what the recording records, for the messages.
func (r *recording) what() string {
	if r.dev != nil {
		return r.dev.what()
	}
	return "the lab's traffic"
}

// closeCaptures ends both; the session calls it when it closes. A
// recording still running is kept, as capture stop would keep it (the
// scripted and interactive loops say so first: finishRecording).
func (s *Session) closeCaptures() {
	if r := s.capture.rec; r != nil {
		s.capture.rec = nil
		r.end()
	}
	s.capture.closeIndex()
}

// packetSource is what the view's Packets pane draws: the loaded capture,
// or nothing.
func (s *Session) packetSource() viz.PacketSource {
	if s.capture.src == nil {
		return nil
	}
	return s.capture.src
}

// errNoCapture is what the packets commands say before `capture open`.
var errNoCapture = errors.New("no capture loaded: capture open FILE (capture save FILE writes the lab's traffic)")

// pageSize is how many packets `packets` lists without --all.
const pageSize = 50

// openWait is how long `capture open` waits at a terminal for a big file
// before it leaves the rest to the background.
const openWait = time.Second

func captureJSONFlag() Flag { return Flag{Name: "json", Usage: "print the result as JSON"} }

// optionFlag is a flag the command line shares, as the REPL's table
// holds it.
func optionFlag(o cli.Option) Flag { return Flag{Name: o.Name, Value: o.Value, Usage: o.Usage} }

// maxExpandOf reads --max-expand (0 when not given: the reader's default).
func maxExpandOf(a Args) (int64, error) {
	name := cli.MaxExpand().Name
	v, ok := a.Flag(name)
	if !ok {
		return 0, nil
	}
	n, err := cli.ParseSize(v)
	if err != nil {
		return 0, fmt.Errorf("--%s: %w", name, err)
	}
	return int64(n), nil
}

func captureCommands() []*Command {
	return []*Command{
		{
			Name: "capture", Group: GroupShow,
			Usage: "capture [open FILE [--max-expand SIZE] | close | save FILE [--annotate] | start FILE | stop] [--json]",
			Short: "decode a pcap, or write the lab's traffic as one",
			Long: "capture open FILE decodes a pcap or pcapng file (gzip-compressed too) of RoCE,\n" +
				"InfiniBand and RPC-over-RDMA traffic: packets and packet list it, and the view's\n" +
				"packets layout (5) draws it. A big file is indexed in the background; capture alone\n" +
				"says how far it got. capture close forgets it.\n" +
				"capture save FILE writes what the simulator put on the wire so far as RoCEv2\n" +
				"packets (pcap, for Wireshark or rdmalab decode); with --annotate it is pcapng with\n" +
				"each anomaly and note decode --check finds as its packet's comment, which Wireshark\n" +
				"shows in its packet list (frame.comment). capture start FILE records from\n" +
				"now on, with no limit, until capture stop (or the end of the session).\n" +
				"On a real device (--engine ibv:SERVER,CLIENT) there is no simulated wire: capture\n" +
				"start records the device's RoCE packets where they cross its netdev (pcapng; needs\n" +
				"CAP_NET_RAW and the two devices on two netdevs), and capture save is refused.\n" +
				"FILE is written whole or not at all: into a temporary file beside it, renamed over\n" +
				"FILE when complete (for start, at stop), so a full disk or a crash leaves an\n" +
				"existing FILE as it was. A symbolic link at FILE is replaced by the file, never\n" +
				"followed; a directory or a device there is refused.",
			Example: "capture open nfs3-rdma.pcap\ncapture\ncapture save lab.pcap\ncapture start run.pcap\ncapture stop",
			Args: []Arg{{Name: "ACTION", Optional: true, Complete: completeCaptureActions},
				{Name: "FILE", Optional: true, Paths: true}},
			Flags: []Flag{captureJSONFlag(), optionFlag(cli.MaxExpand()),
				{Name: "annotate", Usage: "save: pcapng with decode --check's notes as packet comments"}},
			Run: runCapture,
		},
		{
			Name: "packets", Group: GroupShow,
			Usage: "packets [FILTER...] [--all] [--from N] [--json]",
			Short: "the loaded capture, one line a packet",
			Long: "Lines as rdmalab decode prints them, the first 50 that match. FILTER, the rest of the\n" +
				"line as typed (quotes kept: nfs.name contains \"a b\"), is a display filter with\n" +
				"Wireshark's syntax and field names, as decode -Y and the view's / read it\n" +
				"(infiniband.bth.psn >= 100 && ip.src == 192.0.2.1; rdmalab decode --fields lists\n" +
				"the fields), or decode's --filter terms: qp=N, opcode=N|NAME, xid=N (separated by\n" +
				"commas or spaces, alternatives by |), plus rpc (the calls and replies) and\n" +
				"anomalies (packets with an anomaly): short forms of a display filter (qp=17 is\n" +
				"infiniband.bth.destqp == 17 || ...), which the view's / takes as well.",
			Example: "packets\npackets rpc\npackets rpcordma.xid == 0x43dbd665\npackets nfs.procedure_v3 == 7 && infiniband.bth.psn >= 100\npackets xid=0x43dbd665\npackets opcode=rdma-read-request --from 80",
			Args:    []Arg{{Name: "FILTER", Optional: true, Variadic: true, Raw: true, Complete: completeFilterTerms}},
			Flags: []Flag{
				{Name: "all", Usage: "every packet that matches, not only the first 50"},
				{Name: "from", Value: "N", Usage: "start at frame N"},
				{Name: "json", Usage: "one object per packet, as rdmalab decode --json"},
			},
			Run: runPackets,
		},
		{
			Name: "packet", Group: GroupShow,
			Usage: "packet N [--hex] [--json]",
			Short: "one packet of the capture: layers, RPC, bytes",
			Long: "Frame N's detail tree as rdmalab decode -V prints it, then the RPC and chunk it\n" +
				"belongs to and the other packets of that RPC; --hex adds the bytes.",
			Example: "packet 40\npacket 43 --hex",
			Args:    []Arg{{Name: "N", Complete: completeFrames}},
			Flags: []Flag{
				{Name: "hex", Usage: "the bytes too, 16 a line"},
				{Name: "json", Usage: "the tree (with each line's bytes), the links and the fields as JSON"},
			},
			Run: runPacket,
		},
	}
}

func completeCaptureActions(s *Session, prev []string) []Suggestion {
	if len(prev) > 0 {
		return nil
	}
	return []Suggestion{
		{"open", "decode a pcap or pcapng file"},
		{"close", "forget the capture loaded"},
		{"save", "write the lab's traffic so far as pcap"},
		{"start", "record the lab's traffic from now on"},
		{"stop", "end the recording"},
	}
}

func completeFilterTerms(s *Session, _ []string) []Suggestion {
	out := []Suggestion{
		{"rpc", "the packets that carry a call or a reply"},
		{"anomalies", "packets with an anomaly"},
		{"qp=", "to or from a queue pair"},
		{"opcode=", "a BTH opcode: send-only, rdma-read-request, ack, 0x11"},
		{"xid=", "the packets of one RPC"},
	}
	if a := s.captureAnalyzer(); a != nil {
		rpcs := a.RPCs()
		for _, r := range rpcs[:min(len(rpcs), 20)] {
			out = append(out, Suggestion{fmt.Sprintf("xid=0x%08x", r.XID), r.CallSummary})
		}
	}
	return out
}

func completeFrames(s *Session, _ []string) []Suggestion {
	a := s.captureAnalyzer()
	if a == nil {
		return nil
	}
	var out []Suggestion
	for _, r := range a.RPCs() {
		if r.Call != nil && len(out) < 20 {
			out = append(out, Suggestion{strconv.Itoa(r.Call.Frame), r.CallSummary})
		}
	}
	return out
}

// captureAnalyzer is the loaded capture's analysis once indexed, or nil.
func (s *Session) captureAnalyzer() *analysis.Analyzer {
	if s.capture.index == nil {
		return nil
	}
	return s.capture.index.Analyzer()
}

func runCapture(c *Ctx, a Args, out io.Writer) error {
	if len(a.Pos) == 0 {
		return c.captureStatus(out)
	}
	action, file := a.Pos[0], ""
	if len(a.Pos) > 1 {
		file = a.Pos[1]
	}
	needFile := action == "open" || action == "save" || action == "start"
	switch {
	case needFile && file == "":
		return usagef(c.S.byName["capture"], "capture %s needs a FILE", action)
	case !needFile && file != "":
		return usagef(c.S.byName["capture"], "capture %s takes no FILE, not %q", action, file)
	}
	switch action {
	case "open":
		maxExpand, err := maxExpandOf(a)
		if err != nil {
			return err
		}
		return c.captureOpen(file, maxExpand, out)
	case "close":
		if c.S.capture.index == nil {
			return errNoCapture
		}
		name := c.S.capture.name
		c.S.capture.closeIndex()
		fmt.Fprintf(out, "closed %s\n", shown(name))
		return nil
	case "save":
		_, annotated := a.Flag("annotate")
		return c.captureSave(file, annotated, out)
	case "start":
		return c.captureStart(file, out)
	case "stop":
		return c.captureStop(out)
	}
	msg := fmt.Sprintf("unknown action %q: want open, close, save, start or stop", action)
	if near := nearest.Word(action, []string{"open", "close", "save", "start", "stop"}); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return usagef(c.S.byName["capture"], "%s", msg)
}

// resolve is FILE relative to the directory of the script being run;
// commands reach it through Ctx.resolveFile.
func (s *Session) resolve(file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(s.curDir(), file)
}

// nameErr says err with the file named as the user wrote it, so that
// transcripts read the same wherever they run, and escaped.
func nameErr(err error, path, name string) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file", shown(name))
	}
	if path == name && shown(name) == name {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), path, shown(name)))
}

func (c *Ctx) captureOpen(file string, maxExpand int64, out io.Writer) error {
	s := c.S
	path, err := c.resolveFile(file)
	if err != nil {
		return err
	}
	x, err := decode.OpenIndexWith(path, decode.IndexOptions{MaxExpand: maxExpand})
	if err != nil {
		return nameErr(err, path, file)
	}
	s.capture.openIndex(x, viz.NewCaptureSource(x, shown(filepath.Base(file))))
	s.capture.name, s.capture.path = file, path
	// A script waits for the whole file, so that what follows is the same
	// every run; at a terminal a big file goes on in the background.
	limit := time.Duration(0)
	if s.tty {
		limit = openWait
	}
	if err := c.waitIndex(x, -1, limit); err != nil {
		return err
	}
	pr := x.Progress()
	if !pr.Done {
		fmt.Fprintf(out, "%s: indexing in the background: %d%% · %s packets so far\n", shown(file), int(pr.Fraction*100), cli.Thousands(pr.Packets))
		fmt.Fprintln(out, "next: packets (the first are ready), view then 5 for the packets layout; capture tells how far it got")
		return nil
	}
	if c.collect && c.JSON {
		c.data, c.hasData = c.S.captureSummary(), true
	} else {
		fmt.Fprintln(out, s.captureLine())
	}
	if pr.Err != nil {
		return fmt.Errorf("%w (the %d packets before it are loaded)", nameErr(pr.Err, path, file), pr.Packets)
	}
	if s.hints && !c.JSON {
		fmt.Fprintln(out, "next: packets, packets rpc, packet N, or view then 5 for the packets layout")
	}
	return nil
}

// waitIndex waits until n packets (n < 0: all) are indexed, at most limit
// (0: no limit), or until the user interrupts.
func (c *Ctx) waitIndex(x *decode.Index, n int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := x.Wait(ctx, n)
		cancel()
		if err == nil {
			return nil
		}
		if c.S.interrupt.Load() {
			return errors.New("interrupted: the capture goes on indexing in the background")
		}
		if limit > 0 && time.Now().After(deadline) {
			return nil
		}
	}
}

// captureSummaryJSON is what `capture --json` prints.
type captureSummaryJSON struct {
	File      string  `json:"file,omitempty"`
	Packets   int     `json:"packets"`
	Indexed   float64 `json:"indexed"` // fraction of the file
	Done      bool    `json:"done"`
	RPCs      int     `json:"rpcs"`
	Anomalies int     `json:"anomalies"`
	Error     string  `json:"error,omitempty"`
	Recording string  `json:"recording,omitempty"`
}

func (s *Session) captureSummary() captureSummaryJSON {
	var v captureSummaryJSON
	if r := s.capture.rec; r != nil {
		v.Recording = r.name
	}
	x := s.capture.index
	if x == nil {
		return v
	}
	pr := x.Progress()
	v.File, v.Packets, v.Indexed, v.Done = s.capture.name, pr.Packets, pr.Fraction, pr.Done
	if pr.Err != nil {
		v.Error = nameErr(pr.Err, s.capture.path, s.capture.name).Error()
	}
	if a := x.Analyzer(); a != nil {
		v.RPCs = len(a.RPCs())
		for _, n := range a.Notes() {
			if n.Kind.Anomaly() {
				v.Anomalies++
			}
		}
	}
	return v
}

// captureLine describes the capture loaded in one line.
func (s *Session) captureLine() string {
	v := s.captureSummary()
	if !v.Done {
		return fmt.Sprintf("%s: indexing %d%% · %s packets so far", shown(v.File), int(v.Indexed*100), cli.Thousands(v.Packets))
	}
	return fmt.Sprintf("%s: %s, %s, %s", shown(v.File), count(v.Packets, "packet", "packets"), count(v.RPCs, "RPC", "RPCs"),
		count(v.Anomalies, "anomaly", "anomalies"))
}

// count is "1 packet" or "752 packets".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return cli.Thousands(n) + " " + many
}

func (c *Ctx) captureStatus(out io.Writer) error {
	s := c.S
	if c.JSON {
		return c.emitJSON(s.captureSummary(), out)
	}
	if s.capture.index == nil {
		fmt.Fprintln(out, "no capture loaded: capture open FILE decodes one")
	} else {
		fmt.Fprintln(out, s.captureLine())
	}
	if r := s.capture.rec; r != nil {
		fmt.Fprintf(out, "recording %s to %s: capture stop ends it\n", r.what(), shown(r.name))
	}
	return nil
}

// emitJSON writes v as the record's data (run --json) or indented JSON.
func (c *Ctx) emitJSON(v any, out io.Writer) error {
	if c.collect {
		c.data, c.hasData = v, true
		return nil
	}
	b, err := safe.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = fmt.Fprintf(out, "%s\n", b)
	return err
}

func (c *Ctx) captureSave(file string, annotated bool, out io.Writer) error {
	s := c.S
	if !s.lab.Can(engine.OwnWire) {
		return errSaveOnDevice(s.capture.rec)
	}
	n, notes := 0, 0
	af, err := c.writeFile(file, func(w io.Writer) error {
		if !annotated {
			var err error
			n, err = s.lab.WriteCapture(w)
			return err
		}
		var pcap bytes.Buffer
		if _, err := s.lab.WriteCapture(&pcap); err != nil {
			return err
		}
		src := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(pcap.Bytes())), nil }
		st, err := annotate.Write(w, src, "the lab's traffic", annotate.Options{Notes: true})
		n, notes = st.Packets, st.Comments
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s packets of the lab's traffic to %s", cli.Thousands(n), shown(file))
	if annotated {
		fmt.Fprintf(out, " (pcapng), with %s notes as packet comments", cli.Thousands(notes))
	}
	fmt.Fprintln(out)
	linkNote(out, file, af)
	if d := s.lab.CaptureDropped(); d > 0 {
		fmt.Fprintf(out, "note: the oldest %d transfers were no longer kept, so the file starts later; capture start FILE records everything\n", d)
	}
	fmt.Fprintf(out, "next: capture open %s, or rdmalab decode --rpc %s\n", shown(file), shown(file))
	return nil
}

func (c *Ctx) captureStart(file string, out io.Writer) error {
	s := c.S
	if r := s.capture.rec; r != nil {
		return fmt.Errorf("already recording to %s: capture stop first", shown(r.name))
	}
	path, err := c.resolveFile(file)
	if err != nil {
		return err
	}
	if !s.lab.Can(engine.OwnWire) {
		return c.captureStartDevice(file, path, out)
	}
	af, err := atomicfile.Create(path)
	if err != nil {
		return fileErr(err, path, file)
	}
	if err := s.lab.StartCapture(af); err != nil {
		af.Abort()
		return fmt.Errorf("%s: %w", shown(file), err)
	}
	s.capture.rec = &recording{f: af, name: file, lab: s.lab, lesson: c.jail != nil, left: &s.tmp}
	s.tmp.add(af.TempName())
	fmt.Fprintf(out, "recording the lab's traffic to %s: capture stop ends it\n", shown(file))
	return nil
}

// abort stops the recording and removes its file; FILE stays as it was.
func (r *recording) abort() {
	defer r.left.drop(r.f.TempName())
	if r.dev != nil {
		_, _ = r.dev.stop()
	} else {
		_, _ = r.lab.StopCapture()
	}
	r.f.Abort()
}

// end stops the recording and puts the file in place, or, when writing
// it failed, removes it and leaves FILE as it was.
func (r *recording) end() (packets int, err error) {
	defer r.left.drop(r.f.TempName())
	var n int
	if r.dev != nil {
		r.stats, err = r.dev.stop()
		n = int(r.stats.Captured)
	} else {
		n, err = r.lab.StopCapture()
	}
	if err != nil {
		r.f.Abort()
		return n, err
	}
	return n, r.f.Commit()
}

func (c *Ctx) captureStop(out io.Writer) error {
	s := c.S
	r := s.capture.rec
	if r == nil {
		return errors.New("not recording: capture start FILE begins")
	}
	s.capture.rec = nil
	n, err := r.end()
	if err != nil {
		return fileErr(err, s.resolve(r.name), r.name)
	}
	fmt.Fprintf(out, "recorded %s packets to %s\n", cli.Thousands(n), shown(r.name))
	linkNote(out, r.name, r.f)
	if r.dev != nil {
		r.dev.notes(out, r.stats)
	} else if r.lab != s.lab {
		fmt.Fprintln(out, "note: the lab was rebuilt while recording: the file ends where the old lab did")
	}
	fmt.Fprintf(out, "next: capture open %s, or rdmalab decode --rpc %s\n", shown(r.name), shown(r.name))
	return nil
}

// finishRecording ends a recording the session is left with when it
// ends, keeping the file as capture stop would, and says so.
func (s *Session) finishRecording(out io.Writer) {
	r := s.capture.rec
	if r == nil {
		return
	}
	s.capture.rec = nil
	n, err := r.end()
	if err != nil {
		fmt.Fprintf(out, "capture: the recording still running at the end: %v\n", fileErr(err, s.resolve(r.name), r.name))
		return
	}
	fmt.Fprintf(out, "capture: the recording still running at the end was stopped: %s packets in %s\n", cli.Thousands(n), shown(r.name))
	if r.dev != nil {
		r.dev.notes(out, r.stats)
	}
}

// parseSelector compiles a packets FILTER with decode's one compiler of
// selections, which decode --filter and the view's bar use too.
func parseSelector(words []string) (*fields.Selection, error) {
	sel, err := fields.CompileSelection(strings.Join(words, " "))
	if err != nil {
		var e *dfilter.Error
		if errors.As(err, &e) {
			return nil, fmt.Errorf("%v\n%s", e, e.Caret())
		}
		return nil, err
	}
	return sel, nil
}

func runPackets(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	x := s.capture.index
	if x == nil {
		return errNoCapture
	}
	sel, err := parseSelector(a.Pos)
	if err != nil {
		return err
	}
	from := 0
	if v, ok := a.Flag("from"); ok {
		n, err := engine.ParseInt("--from", v, 1, 1<<40)
		if err != nil {
			return err
		}
		from = int(n) - 1
	}
	limit := pageSize
	if a.Has("all") {
		limit = -1
	}
	// Wait for the packets this page needs (all of them when a filter
	// must look through the file, or in a script).
	want := -1
	if s.tty && len(a.Pos) == 0 && limit > 0 {
		want = from + limit + 1
	}
	if err := c.waitIndex(x, want, 0); err != nil {
		return err
	}
	var lines []string
	var objs []json.RawMessage
	matched := 0
	next := 0 // the frame after the last shown
	_, err = x.Scan(from, func(p *analysis.Packet) bool {
		if s.interrupt.Load() {
			return false
		}
		if !sel.Match(p) {
			return true
		}
		matched++
		if limit >= 0 && matched > limit {
			return len(a.Pos) > 0 // without a filter the count is known
		}
		if c.JSON {
			objs = append(objs, json.RawMessage(decode.JSON(p)))
		} else {
			lines = append(lines, decode.Line(p))
		}
		next = p.Frame + 1
		return true
	})
	if err != nil {
		return nameErr(err, s.capture.path, s.capture.name)
	}
	if len(a.Pos) == 0 {
		matched = max(0, x.Len()-from)
	}
	listed := len(lines) + len(objs)
	if c.JSON {
		if c.collect {
			c.data, c.hasData = objs, true
			return nil
		}
		for _, o := range objs {
			fmt.Fprintf(out, "%s\n", o)
		}
		return nil
	}
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
	switch {
	case matched == 0 && sel.Short && sel.Expr != "":
		fmt.Fprintf(out, "no packet matches %q (%s)\n", strings.Join(a.Pos, " "), sel.Expr)
	case matched == 0 && len(a.Pos) > 0:
		fmt.Fprintf(out, "no packet matches %q\n", strings.Join(a.Pos, " "))
	case matched == 0:
		fmt.Fprintln(out, "no packet there")
	case matched > listed:
		again := "packets"
		if len(a.Pos) > 0 {
			again += " " + strings.Join(a.Pos, " ")
		}
		fmt.Fprintf(out, "… %s more: %s --from %d, or --all\n", cli.Thousands(matched-listed), shown(again), next)
	}
	if pr := x.Progress(); !pr.Done {
		fmt.Fprintf(out, "(indexing goes on: %d%% · %s packets so far)\n", int(pr.Fraction*100), cli.Thousands(pr.Packets))
	}
	return nil
}

// packetJSON is what `packet N --json` prints.
type packetJSON struct {
	Frame   int               `json:"frame"`
	Summary string            `json:"summary"`
	Tree    []decode.TreeLine `json:"tree"`
	Place   *placeJSON        `json:"rpc,omitempty"`
	Fields  json.RawMessage   `json:"fields"`
	Hex     string            `json:"hex,omitempty"`
}

type placeJSON struct {
	XID         string `json:"xid"`
	Role        string `json:"role"`
	Text        string `json:"text"`
	Call        int    `json:"call_frame,omitempty"`
	Reply       int    `json:"reply_frame,omitempty"`
	RPCFrames   []int  `json:"rpc_frames"`
	ChunkFrames []int  `json:"chunk_frames,omitempty"`
}

func runPacket(c *Ctx, a Args, out io.Writer) error {
	s := c.S
	x := s.capture.index
	if x == nil {
		return errNoCapture
	}
	n, err := strconv.Atoi(a.Pos[0])
	if err != nil || n < 1 {
		return fmt.Errorf("N is a frame number (1 for the first packet), not %q", a.Pos[0])
	}
	if err := c.waitIndex(x, n, 0); err != nil {
		return err
	}
	if have := x.Len(); n > have {
		return fmt.Errorf("no frame %d: %s has %s packets", n, shown(s.capture.name), cli.Thousands(have))
	}
	i := n - 1
	tree := x.Detail(i)
	pl := x.Place(i)
	var v packetJSON
	v.Frame, v.Summary, v.Tree = n, x.Summary(i), tree
	if pl.Role != decode.RoleNone {
		p := &placeJSON{XID: fmt.Sprintf("0x%08x", pl.XID), Role: pl.Role.String(), Text: pl.Text,
			RPCFrames: frames(x.Related(i, decode.ScopeRPC)), ChunkFrames: frames(x.Related(i, decode.ScopeChunk))}
		if pl.Call >= 0 {
			p.Call = pl.Call + 1
		}
		if pl.Reply >= 0 {
			p.Reply = pl.Reply + 1
		}
		v.Place = p
	}
	b := x.Bytes(i)
	if c.JSON {
		fields, err := x.JSON(i)
		if err != nil {
			return err
		}
		v.Fields = fields
		if a.Has("hex") {
			v.Hex = fmt.Sprintf("%x", b)
		}
		return c.emitJSON(v, out)
	}
	for _, l := range tree {
		fmt.Fprintf(out, "%s%s\n", strings.Repeat("    ", l.Depth), l.Text)
	}
	if p := v.Place; p != nil {
		fmt.Fprintf(out, "[linked] %s\n", p.Text)
		fmt.Fprintf(out, "    this RPC: frames %s (%d)\n", ranges(p.RPCFrames), len(p.RPCFrames))
		if len(p.ChunkFrames) > 0 {
			fmt.Fprintf(out, "    this chunk: frames %s (%d)\n", ranges(p.ChunkFrames), len(p.ChunkFrames))
		}
	}
	if a.Has("hex") {
		writeHex(out, b)
	}
	return nil
}

// frames turns packet indexes into frame numbers.
func frames(idx []int) []int {
	out := make([]int, len(idx))
	for k, i := range idx {
		out[k] = i + 1
	}
	return out
}

// ranges writes ascending numbers with runs folded: "40-44, 46".
func ranges(ns []int) string {
	var parts []string
	for k := 0; k < len(ns); {
		j := k
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > k {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[k], ns[j]))
		} else {
			parts = append(parts, strconv.Itoa(ns[k]))
		}
		k = j + 1
	}
	return strings.Join(parts, ", ")
}

// writeHex is tshark -x's dump: offset, 16 bytes, their ASCII.
func writeHex(out io.Writer, b []byte) {
	for off := 0; off < len(b); off += 16 {
		row := b[off:min(off+16, len(b))]
		var hx, asc strings.Builder
		for k, c := range row {
			if k == 8 {
				hx.WriteByte(' ')
			}
			fmt.Fprintf(&hx, "%02x ", c)
			if c >= 0x20 && c < 0x7f {
				asc.WriteByte(c)
			} else {
				asc.WriteByte('.')
			}
		}
		fmt.Fprintf(out, "%04x  %-49s %s\n", off, hx.String(), asc.String())
	}
}
