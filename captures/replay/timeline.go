package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode"
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

	// The step's events (Timeline.log), the last of which is the step in
	// one line (Timeline.Text): kept there, not here, since a timeline
	// holds a step for nearly every packet.
	evFrom, evTo int
	apply        func(*state) // the change to the picture
}

// RPC is one RPC of the replayed connection, in the order of its first step.
type RPC struct {
	ID    int // 1-based
	XID   uint32
	Label string // the call's summary (the reply's, when the call is not in the capture)
	First int    // index of its first and last steps
	Last  int

	rpc *decode.RPC
}

// Timeline is a capture replayed as the server's work.
type Timeline struct {
	File    string
	Frames  int         // frames read
	Server  decode.Addr // the side that receives RPC calls
	Client  decode.Addr
	Steps   []Step
	RPCs    []RPC
	Unknown []string // what the capture cannot tell, said once
	// Err is where the file broke, if it did: the steps stop there, and
	// the last one says so.
	Err error

	log         *eventLog // the prelude (Unknown as events), then each step's
	prelude     int
	checkpoints []*state // the picture before steps 0, ckEvery, 2*ckEvery, …
	pageSize    int
}

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
}

// ReadFileWith is ReadFile with options.
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
	var c collector
	an, err := readCapture(r, name, o, c.packet)
	if an == nil {
		return nil, err
	}
	tl := &Timeline{File: name, Frames: c.frames, Err: err, pageSize: defaultPageSize}
	if err := build(tl, an, &c); err != nil {
		if tl.Err != nil {
			return nil, fmt.Errorf("%w (and the file is damaged: %v)", err, tl.Err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tl, nil
}

// readCapture is decode.Read with an analyzer that keeps where chunk data
// landed and not the bytes: the replay draws ranges, and the bytes of a
// capture's READs and WRITEs are most of its size.
func readCapture(r io.Reader, name string, o ReadOptions, fn func(*decode.Packet) error) (*decode.Analyzer, error) {
	pr, err := pcapfile.NewReaderWith(r, pcapfile.Options{MaxExpand: o.MaxExpand})
	if err != nil {
		return nil, &decode.FileError{Path: name, Err: err}
	}
	defer pr.Close()
	d := decode.NewDecoderWith(decode.Options{DropChunkData: true})
	defer d.Finish()
	var rec pcapfile.Record
	for {
		err := pr.Next(&rec)
		if errors.Is(err, io.EOF) {
			return d.Analyzer(), nil
		}
		if err != nil {
			return d.Analyzer(), &decode.FileError{Path: name, Err: err}
		}
		if err := fn(d.Decode(&rec)); err != nil {
			return d.Analyzer(), err
		}
	}
}

// Events returns every event of the timeline, in order.
func (tl *Timeline) Events() []trace.Event { return tl.log.slice(0, tl.log.Len()) }

// StepEvents returns the events of step i.
func (tl *Timeline) StepEvents(i int) []trace.Event {
	s := &tl.Steps[i]
	return tl.log.slice(s.evFrom, s.evTo)
}

// Text is step i in one line, in the kernel's words.
func (tl *Timeline) Text(i int) string { return tl.log.at(tl.Steps[i].evTo - 1).Text }

// RPCOf returns the RPC step i belongs to, or nil.
func (tl *Timeline) RPCOf(i int) *RPC {
	if i < 0 || i >= len(tl.Steps) || tl.Steps[i].RPC == 0 {
		return nil
	}
	return &tl.RPCs[tl.Steps[i].RPC-1]
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
