package replay

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode"
	"github.com/rdmalab/rdmalab/captures/decode/analysis"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/pcapfile"
)

// Kind says what a step shows the server doing.
type Kind uint8

// Step kinds.
const (
	KindConnect   Kind = iota + 1 // a CM message: the connection is set up or torn down
	KindCall                      // an RPC call arrives: svc_rdma_recvfrom
	KindReadPost                  // the Read list is posted as one chain of RDMA READs
	KindRead                      // a later RDMA READ request of that chain on the wire
	KindReadData                  // a READ response lands in rc_pages
	KindReadDone                  // the last READ response: the chain completes
	KindReplyPost                 // the reply chain (WRITEs and the Send) is posted
	KindWrite                     // an RDMA WRITE packet of a reply chain
	KindSend                      // the reply's Send
	KindAck                       // an ACK acknowledges the server's messages
	KindNAK                       // a NAK or RNR NAK of the server's messages
	KindOther                     // something else the server sees (a SEND that is not RPC-over-RDMA, …)
	KindBreak                     // the capture file breaks here
)

var kindNames = [...]string{KindConnect: "connect", KindCall: "call", KindReadPost: "read-post", KindRead: "read",
	KindReadData: "read-data", KindReadDone: "read-done", KindReplyPost: "reply-post", KindWrite: "write",
	KindSend: "send", KindAck: "ack", KindNAK: "nak", KindOther: "other", KindBreak: "break"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// MarshalText makes a Kind read as its name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Step is one packet that changes the server's picture.
type Step struct {
	Index int
	Frame int
	Time  time.Duration // since the first frame of the capture
	Kind  Kind
	RPC   int // the RPC it belongs to (1-based, Timeline.RPCs), 0 for none
	Conn  int // the transport it belongs to (1-based, Timeline.Conns), 0 for none

	// The step's events (Timeline.log), the last of which is the step in
	// one line (Timeline.Text): kept there, not here, since a timeline
	// holds a step for nearly every packet.
	evFrom, evTo int
	op           op // the change to its transport's picture
}

// RPC is one RPC of the replayed connection, in the order of its first step.
type RPC struct {
	ID    int // 1-based
	XID   uint32
	Label string // the call's summary (the reply's, when the call is not in the capture)
	First int    // index of its first and last steps (so far)
	Last  int
	Conn  int // its transport (1-based, Timeline.Conns)

	rpc  *analysis.RPC // until the builder lets it go (sweep)
	wire *rpcWire      // then what the JSON transcript quotes of it
}

// Conn is one transport of the replay: a queue pair carrying RPC-over-RDMA,
// drawn as its own svcxprt_rdma.
type Conn struct {
	ID                 int // 1-based, in the order of their first steps
	Server, Client     Addr
	ServerQP, ClientQP uint32
}

// Addr is an endpoint's address.
type Addr = frame.Addr

// String names c for a heading: "xprt 2: server 192.0.2.1 QP 0x000011, client 192.0.2.2 QP 0x000011".
func (c Conn) String() string {
	return fmt.Sprintf("xprt %d: server %v QP 0x%06x, client %v QP 0x%06x", c.ID, c.Server, c.ServerQP, c.Client, c.ClientQP)
}

// Timeline is a capture replayed as the server's work. A Timeline from
// Open is built as it is read (Player and Step ask for more): until Done,
// the steps, RPCs and Frames are those read so far.
type Timeline struct {
	File    string
	Frames  int        // frames read
	Server  frame.Addr // the first transport's side that receives RPC calls
	Client  frame.Addr
	Conns   []Conn // the transports replayed, each its own picture
	RPCs    []RPC
	Unknown []string // what the capture cannot tell, said once
	// Err is where the file broke, if it did: the steps stop there, and
	// the last one says so.
	Err error

	steps    *stepLog  // compressed, as the events: a step is kept for nearly every packet
	log      *eventLog // the prelude (Unknown as events), then each step's
	store    *spill    // where both logs keep their sealed blocks
	prelude  int
	pageSize int
	// checkpoints are the pictures of every transport before steps
	// 0, ckEvery, 2*ckEvery, …; when there are maxCheckpoints of them
	// every other one goes and ckEvery doubles.
	checkpoints []checkpoint
	ckEvery     int

	// Building as it is read.
	src     *source
	b       *builder
	started bool
	done    bool
	nsteps  int
	learned int // transports seen, followed or not
	// learnedQPs names their queue pairs, for a --qp that matches none.
	learnedQPs string
	others     int    // frames of queue pairs not replayed
	qp         uint32 // the QP followed alone (ReadOptions.QP)
	noJSON     bool   // ReadOptions.NoJSON
	// sink, when set, takes each step as it is built instead of the
	// Timeline keeping it (a transcript); st is its transport's picture.
	sink func(tl *Timeline, s *Step, evs []trace.Event, st *state)
	// hold, when set, runs each pump: the Hold of the Index whose pass
	// the timeline reads (OpenIndex), whose analysis the builder reads
	// while the indexer goes on.
	hold func(func())
}

// checkpoint is every transport's picture before a step; a transport's
// picture that did not change is shared with the checkpoint before.
type checkpoint struct {
	step  int
	world []*state // by Conn.ID-1
}

// maxCheckpoints bounds the checkpoints a Timeline keeps.
const maxCheckpoints = 128

// ErrNoRPC says a capture holds no RPC-over-RDMA traffic to replay.
var ErrNoRPC = errors.New("no RPC-over-RDMA traffic: nothing to replay (rdmalab decode shows its packets)")

// ReadFile replays the capture at path. A damaged file replays as far as it
// goes: the Timeline comes back with Err set (naming the file, frame and
// byte offset) and a last step that says where it broke. The error is
// non-nil, with a nil Timeline, only when nothing can be replayed.
func ReadFile(path string) (*Timeline, error) { return ReadFileWith(path, ReadOptions{}) }

// ReadOptions change how a capture is read.
type ReadOptions struct {
	// MaxExpand bounds how far a gzip capture may decompress
	// (pcapfile.Options.MaxExpand; 0: pcapfile's default).
	MaxExpand int64
	// QP, when not 0, follows only the transport one of whose queue
	// pairs it is; else every transport is replayed, interleaved.
	QP uint32
	// NoJSON says the timeline will not be written as a JSON transcript
	// (the view): it keeps none of the names off the wire its JSON quotes
	// (machine and file names, about 5 MB of a million-packet capture),
	// and WriteTranscript refuses JSON.
	NoJSON bool
	// stepsOnly: only the steps' lines are read (a text transcript
	// without --events), so the events beside them are not built.
	stepsOnly bool
}

// ReadFileWith is ReadFile with options: the whole capture read at once.
func ReadFileWith(path string, o ReadOptions) (*Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadWith(f, path, o)
}

// Read is ReadFile for a capture read from r; name is the file name the
// timeline and its errors give.
func Read(r io.Reader, name string) (*Timeline, error) { return ReadWith(r, name, ReadOptions{}) }

// ReadWith is Read with options.
func ReadWith(r io.Reader, name string, o ReadOptions) (*Timeline, error) {
	tl, err := open(r, nil, name, o, nil)
	if err != nil {
		return nil, err
	}
	for tl.pump() {
	}
	return tl, nil
}

// OpenFile replays the capture at path as it is read: it returns once the
// first step is built (or the capture ends), and the rest is built as a
// Player goes on. The Timeline holds the file open until it is read to its
// end or Closed.
func OpenFile(path string, o ReadOptions) (*Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	tl, err := open(f, f, path, o, nil)
	if err != nil {
		f.Close()
		return nil, err
	}
	return tl, nil
}

// OpenIndex replays the capture x indexes, as OpenFile does, reading
// x's pass over the file instead of the file: a view's Packets pane and
// its replay read it once. x must be opened with
// decode.IndexOptions.Follow; name is the file name the timeline and its
// errors give. The Timeline reads x's analysis only inside x.Hold; x is
// its caller's to close, after the Timeline.
func OpenIndex(x *decode.Index, name string, o ReadOptions) (*Timeline, error) {
	return start(&indexFrames{x: x, name: name}, name, o, nil, x.Hold)
}

// Close lets go of the capture file of a Timeline not read to its end,
// and of the file where a big one keeps its steps: after it, only the
// counts (Frames, RPCs, Err, …) are to be read.
func (tl *Timeline) Close() {
	if tl.src != nil {
		tl.src.close()
	}
	tl.store.close()
}

// StorageErr says why steps past the first megabyte stayed in memory
// rather than in the spill file (it could not be made, or stopped taking
// them); nil when the file served or was not needed.
func (tl *Timeline) StorageErr() error { return tl.store.Err() }

// transports is how many transports there are as far as the decoder has
// read (the builder runs behind it).
func (tl *Timeline) transports() int {
	if tl.b != nil && tl.qp == 0 {
		return max(len(tl.Conns), len(tl.b.conns))
	}
	return len(tl.Conns)
}

// Done reports whether the whole capture is built.
func (tl *Timeline) Done() bool { return tl.done }

// open starts a Timeline on r, decoded by the Timeline, and builds up to
// its first step.
func open(r io.Reader, closer io.Closer, name string, o ReadOptions, sink func(*Timeline, *Step, []trace.Event, *state)) (*Timeline, error) {
	f, err := newFileFrames(r, closer, name, o)
	if err != nil {
		return nil, err
	}
	return start(f, name, o, sink, nil)
}

// start starts a Timeline on f and builds up to its first step; hold, when
// set, runs each pump (Timeline.hold).
func start(f frames, name string, o ReadOptions, sink func(*Timeline, *Step, []trace.Event, *state), hold func(func())) (*Timeline, error) {
	tl := &Timeline{File: name, pageSize: defaultPageSize, ckEvery: ckEvery, log: newEventLog(), steps: newStepLog(), sink: sink, qp: o.QP,
		noJSON: o.NoJSON, store: &spill{}, hold: hold}
	tl.log.store, tl.steps.store = tl.store, tl.store
	tl.b = newBuilder(tl, o.QP)
	tl.b.events = !o.stepsOnly
	tl.src = &source{f: f, learn: tl.b.learn}
	for tl.nsteps == 0 && tl.pump() {
	}
	if tl.src != nil && tl.src.eof {
		tl.All() // the whole file is read: the rest costs little
	}
	if tl.nsteps == 0 && tl.done {
		switch {
		case len(tl.Conns) == 0 && o.QP != 0 && tl.learned > 0:
			return nil, fmt.Errorf("%s: no transport has queue pair 0x%06x; the capture's have %s", name, o.QP, tl.learnedQPs)
		case tl.Err != nil:
			return nil, fmt.Errorf("%w (and the file is damaged: %v)", ErrNoRPC, tl.Err)
		case tl.Err == nil:
			return nil, fmt.Errorf("%s: %w", name, ErrNoRPC)
		}
	}
	return tl, nil
}

// more builds until step i exists or the capture ends; false if it does not.
func (tl *Timeline) more(i int) bool {
	for tl.steps.Len() <= i && tl.pump() {
	}
	return i < tl.steps.Len()
}

// NumSteps is the number of steps built so far (all of them once Done).
func (tl *Timeline) NumSteps() int { return tl.steps.Len() }

// Step returns step i, 0 ≤ i < NumSteps.
func (tl *Timeline) Step(i int) Step { return tl.steps.at(i) }

// Steps yields the steps built so far, in order, with their indexes.
func (tl *Timeline) Steps() iter.Seq2[int, Step] {
	return func(yield func(int, Step) bool) {
		for i := range tl.steps.Len() {
			if !yield(i, tl.Step(i)) {
				return
			}
		}
	}
}

// All builds the rest of the capture.
func (tl *Timeline) All() {
	for tl.pump() {
	}
}

// checkpoint keeps every transport's picture before step i.
func (tl *Timeline) checkpoint(i int, conns []*conn) {
	world := make([]*state, len(tl.Conns))
	for _, c := range conns {
		if c.id == 0 {
			continue
		}
		if c.dirty || c.ck == nil {
			c.ck, c.dirty = c.st.clone(), false
		}
		world[c.id-1] = c.ck
	}
	tl.checkpoints = append(tl.checkpoints, checkpoint{step: i, world: world})
	if len(tl.checkpoints) >= maxCheckpoints {
		// Every other one: the spacing doubles.
		kept := tl.checkpoints[:0]
		for k, ck := range tl.checkpoints {
			if k%2 == 0 {
				kept = append(kept, ck)
			}
		}
		clear(tl.checkpoints[len(kept):])
		tl.checkpoints = kept
		tl.ckEvery *= 2
	}
}

// Events returns every event of the timeline, in order.
func (tl *Timeline) Events() []trace.Event { return tl.log.slice(0, tl.log.Len()) }

// StepEvents returns the events of step i, the last of which says it in
// one line.
func (tl *Timeline) StepEvents(i int) []trace.Event { return tl.stepEvents(tl.Step(i)) }

func (tl *Timeline) stepEvents(s Step) []trace.Event {
	if s.evTo <= s.evFrom {
		// A step of a block that did not read back (lostStep).
		return []trace.Event{{Task: taskReplay, Kind: trace.Note, Func: "lost", Text: fmt.Sprintf("step %d does not read back", s.Index+1)}}
	}
	return tl.log.slice(s.evFrom, s.evTo)
}

// lastEvent is step s in one line, as an event.
func (tl *Timeline) lastEvent(s Step) trace.Event {
	if s.evTo <= s.evFrom {
		evs := tl.stepEvents(s)
		return evs[len(evs)-1]
	}
	return tl.log.at(s.evTo - 1)
}

// Text is step i in one line, in the kernel's words.
func (tl *Timeline) Text(i int) string { return tl.lastEvent(tl.Step(i)).Text }

// RPCOf returns the RPC step i belongs to, or nil.
func (tl *Timeline) RPCOf(i int) *RPC {
	if i < 0 || i >= tl.steps.Len() {
		return nil
	}
	if id := tl.Step(i).RPC; id != 0 {
		return &tl.RPCs[id-1]
	}
	return nil
}

// breakPlace reads the frame and byte offset out of a file error, and
// whether the offset is in the uncompressed stream of a gzip file.
func breakPlace(err error) (frame int, offset int64, gz, ok bool) {
	var pe *pcapfile.Error
	if errors.As(err, &pe) {
		return pe.Frame, pe.Offset, pe.Gzip, true
	}
	return 0, 0, false, false
}
