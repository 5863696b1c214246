package replay

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rdmalab/rdmalab/engine/trace"
)

// logBlock is how many items (events, steps) a block of a log holds.
const logBlock = 4096

// blockLog keeps a timeline's events or steps: a replay of a million
// packets has millions, so each full block of logBlock items is kept
// encoded and compressed, and decoded again when asked for. It is safe
// for concurrent use (players of one timeline read it at once).
type blockLog[T any] struct {
	sealed []blockRef // full blocks, encoded and compressed
	store  *spill     // where they are kept (nil: in memory)
	open   []T        // the block being filled
	n      int
	codec  blockCodec[T]
	raw    []byte   // the encoding of the block sealed last, reused
	z      deflater // the builder's compressor, reused block after block

	mu    sync.Mutex
	cache [2]logCache[T] // the blocks decoded last: reads go forward or back a little
	next  int            // the cache slot to replace
}

// blockCodec is how a log writes its items, and what stands for those of
// a block that does not read back.
type blockCodec[T any] struct {
	encode func(raw []byte, items []T) []byte
	decode func(raw []byte) ([]T, error)
	lost   func(block, i int, err error) T // item i of a block that does not read back
}

type logCache[T any] struct {
	block int // -1: empty
	items []T
}

// eventLog keeps a timeline's events.
type eventLog = blockLog[trace.Event]

func newEventLog() *eventLog {
	return newBlockLog(blockCodec[trace.Event]{encode: encodeEvents, decode: decodeEvents, lost: lostEvent})
}

func newBlockLog[T any](c blockCodec[T]) *blockLog[T] {
	return &blockLog[T]{codec: c, cache: [2]logCache[T]{{block: -1}, {block: -1}}}
}

// Len is the number of items.
func (l *blockLog[T]) Len() int { return l.n }

// add appends e. Only the builder adds, before the timeline is read.
func (l *blockLog[T]) add(e T) {
	l.open = append(l.open, e)
	l.n++
	if len(l.open) == logBlock {
		l.raw = l.codec.encode(l.raw[:0], l.open)
		b := l.z.compress(l.raw)
		if l.store != nil {
			l.sealed = append(l.sealed, l.store.put(b))
		} else {
			l.sealed = append(l.sealed, blockRef{mem: b})
		}
		clear(l.open) // what the items point to is let go
		l.open = l.open[:0]
	}
}

// at returns item i.
func (l *blockLog[T]) at(i int) T {
	b := i / logBlock
	return l.block(b)[i-b*logBlock]
}

// slice returns the items [from, to) in a new slice.
func (l *blockLog[T]) slice(from, to int) []T {
	if from >= to {
		return nil
	}
	out := make([]T, 0, to-from)
	for i := from; i < to; {
		b := i / logBlock
		items := l.block(b)
		k := i - b*logBlock
		n := min(len(items)-k, to-i)
		out = append(out, items[k:k+n]...)
		i += n
	}
	return out
}

// block returns block b's items, decoding a sealed one (or taking it from
// the cache). The caller must not change them.
func (l *blockLog[T]) block(b int) []T {
	if b == len(l.sealed) {
		return l.open
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.cache {
		if c.block == b {
			return c.items
		}
	}
	var items []T
	var raw []byte
	z, err := l.sealed[b].mem, error(nil)
	if l.store != nil {
		z, err = l.store.get(l.sealed[b])
	}
	if err == nil {
		raw, err = decompressBlock(z)
	}
	if err == nil {
		items, err = l.codec.decode(raw)
	}
	if err != nil || len(items) != logBlock {
		// The log wrote the block itself, so this is a bug: say so in
		// the items rather than stop the view.
		items = items[:min(len(items), logBlock)]
		for len(items) < logBlock {
			items = append(items, l.codec.lost(b, len(items), err))
		}
	}
	l.cache[l.next] = logCache[T]{block: b, items: items}
	l.next = (l.next + 1) % len(l.cache)
	return items
}

func lostEvent(b, i int, err error) trace.Event {
	return trace.Event{Task: taskReplay, Kind: trace.Note, Func: "lost", Err: fmt.Sprintf("event block %d does not read back at event %d: %v", b, i, err)}
}

// compressBlock deflates a block's encoding.
func compressBlock(raw []byte) []byte {
	var d deflater
	return d.compress(raw)
}

// deflater is a DEFLATE compressor kept from block to block: a new one
// costs some 600 KB, which a million steps made thousands of times over.
type deflater struct {
	w   *flate.Writer
	out bytes.Buffer
}

// compress returns raw deflated, in a slice of its own.
func (d *deflater) compress(raw []byte) []byte {
	d.out.Reset()
	if d.w == nil {
		d.w, _ = flate.NewWriter(&d.out, flate.BestSpeed) // the level is valid
	} else {
		d.w.Reset(&d.out)
	}
	_, _ = d.w.Write(raw) // a bytes.Buffer does not fail
	_ = d.w.Close()
	return bytes.Clone(d.out.Bytes())
}

// decompressBlock reads back what compressBlock wrote.
func decompressBlock(b []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(b)))
}

// encodeEvents appends events to raw as varints and length-prefixed
// strings.
func encodeEvents(raw []byte, evs []trace.Event) []byte {
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
	return raw
}

// decodeEvents reads back what encodeEvents wrote.
func decodeEvents(raw []byte) ([]trace.Event, error) {
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

func (r *blockReader) str() string { return string(r.bytes()) }

// bytes reads a string's bytes, which stay the block's.
func (r *blockReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// stepLog keeps a timeline's steps.
type stepLog = blockLog[Step]

func newStepLog() *stepLog {
	return newBlockLog(blockCodec[Step]{encode: encodeSteps, decode: decodeSteps, lost: lostStep})
}

// encodeSteps appends steps to raw as varints, each op length-prefixed.
func encodeSteps(raw []byte, steps []Step) []byte {
	for _, s := range steps {
		raw = binary.AppendUvarint(raw, uint64(s.Index))
		raw = binary.AppendUvarint(raw, uint64(s.Frame))
		raw = binary.AppendVarint(raw, int64(s.Time))
		raw = append(raw, byte(s.Kind))
		raw = binary.AppendUvarint(raw, uint64(s.RPC))
		raw = binary.AppendUvarint(raw, uint64(s.Conn))
		raw = binary.AppendUvarint(raw, uint64(s.evFrom))
		raw = binary.AppendUvarint(raw, uint64(s.evTo-s.evFrom))
		raw = binary.AppendUvarint(raw, uint64(len(s.op)))
		raw = append(raw, s.op...)
	}
	return raw
}

// decodeSteps reads back what encodeSteps wrote. The ops are cut from raw.
func decodeSteps(raw []byte) ([]Step, error) {
	r := blockReader{b: raw}
	steps := make([]Step, 0, logBlock)
	for len(r.b) > 0 && r.err == nil {
		s := Step{Index: int(r.uvarint()), Frame: int(r.uvarint()), Time: time.Duration(r.varint()), Kind: Kind(r.byte()),
			RPC: int(r.uvarint()), Conn: int(r.uvarint()), evFrom: int(r.uvarint())}
		s.evTo = s.evFrom + int(r.uvarint())
		if n := r.uvarint(); n > 0 && n <= uint64(len(r.b)) {
			s.op = op(r.b[:n:n])
			r.b = r.b[n:]
		} else if n > 0 {
			r.fail()
		}
		if r.err == nil {
			steps = append(steps, s) // not a step cut short
		}
	}
	return steps, r.err
}

// lostStep stands for a step of a block that does not read back: it
// changes nothing, and its events (none: StepEvents says so) are lost.
func lostStep(b, i int, _ error) Step {
	return Step{Index: b*logBlock + i, Kind: KindBreak}
}
