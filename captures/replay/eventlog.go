package replay

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// logBlock is how many events a block of the log holds.
const logBlock = 4096

// eventLog keeps a timeline's events: a replay of a million packets has
// millions, mostly the same few words, so each full block of logBlock
// events is kept compressed and decoded again when asked for. It is safe
// for concurrent use (players of one timeline read it at once).
type eventLog struct {
	sealed [][]byte      // full blocks, encoded and compressed
	open   []trace.Event // the block being filled
	n      int

	mu    sync.Mutex
	cache [2]logCache // the blocks decoded last: reads go forward or back a little
	next  int         // the cache slot to replace
}

type logCache struct {
	block int // -1: empty
	evs   []trace.Event
}

func newEventLog() *eventLog {
	return &eventLog{cache: [2]logCache{{block: -1}, {block: -1}}}
}

// Len is the number of events.
func (l *eventLog) Len() int { return l.n }

// add appends e. Only the builder adds, before the timeline is read.
func (l *eventLog) add(e trace.Event) {
	l.open = append(l.open, e)
	l.n++
	if len(l.open) == logBlock {
		l.sealed = append(l.sealed, compressBlock(l.open))
		l.open = l.open[:0]
	}
}

// at returns event i.
func (l *eventLog) at(i int) trace.Event { return l.slice(i, i+1)[0] }

// slice returns the events [from, to) in a new slice.
func (l *eventLog) slice(from, to int) []trace.Event {
	if from >= to {
		return nil
	}
	out := make([]trace.Event, 0, to-from)
	for i := from; i < to; {
		b := i / logBlock
		evs := l.block(b)
		k := i - b*logBlock
		n := min(len(evs)-k, to-i)
		out = append(out, evs[k:k+n]...)
		i += n
	}
	return out
}

// block returns block b's events, decoding a sealed one (or taking it from
// the cache). The caller must not change them.
func (l *eventLog) block(b int) []trace.Event {
	if b == len(l.sealed) {
		return l.open
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.cache {
		if c.block == b {
			return c.evs
		}
	}
	evs, err := decompressBlock(l.sealed[b])
	if err != nil || len(evs) != logBlock {
		// The log wrote the block itself, so this is a bug: say so in
		// the events rather than stop the view.
		lost := trace.Event{Task: taskReplay, Kind: trace.Note, Func: "lost", Err: fmt.Sprintf("event block %d does not read back (%d events): %v", b, len(evs), err)}
		evs = evs[:min(len(evs), logBlock)]
		for len(evs) < logBlock {
			evs = append(evs, lost)
		}
	}
	l.cache[l.next] = logCache{block: b, evs: evs}
	l.next = (l.next + 1) % len(l.cache)
	return evs
}

// compressBlock encodes events as varints and length-prefixed strings,
// then deflates them.
func compressBlock(evs []trace.Event) []byte {
	var raw []byte
	str := func(s string) {
		raw = binary.AppendUvarint(raw, uint64(len(s)))
		raw = append(raw, s...)
	}
	for _, e := range evs {
		raw = binary.AppendUvarint(raw, e.Seq)
		str(e.Task)
		raw = append(raw, byte(e.Kind))
		str(e.Func)
		raw = binary.AppendVarint(raw, int64(e.Depth))
		raw = binary.AppendUvarint(raw, uint64(len(e.Args)))
		for _, a := range e.Args {
			str(a.Key)
			str(a.Val)
		}
		str(e.Err)
		str(e.Text)
	}
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestSpeed) // the level is valid
	_, _ = w.Write(raw)                            // a bytes.Buffer does not fail
	_ = w.Close()
	return bytes.Clone(out.Bytes())
}

// decompressBlock reads back what compressBlock wrote.
func decompressBlock(b []byte) ([]trace.Event, error) {
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(b)))
	if err != nil {
		return nil, err
	}
	r := blockReader{b: raw}
	var evs []trace.Event
	for len(r.b) > 0 && r.err == nil {
		e := trace.Event{Seq: r.uvarint(), Task: r.str(), Kind: trace.Kind(r.byte()), Func: r.str(), Depth: int(r.varint())}
		if n := r.uvarint(); n > 0 && n <= uint64(len(r.b)) {
			e.Args = make([]trace.Arg, n)
			for k := range e.Args {
				e.Args[k] = trace.Arg{Key: r.str(), Val: r.str()}
			}
		} else if n > 0 {
			r.fail()
		}
		e.Err, e.Text = r.str(), r.str()
		evs = append(evs, e)
	}
	return evs, r.err
}

// blockReader reads a block's encoding; the first short read sets err.
type blockReader struct {
	b   []byte
	err error
}

func (r *blockReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("truncated at %d bytes from the end", len(r.b))
	}
	r.b = nil
}

func (r *blockReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *blockReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *blockReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *blockReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
