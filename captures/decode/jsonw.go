package decode

import (
	"strconv"
	"time"

	"github.com/rdmalab/rdmalab/captures/decode/appendtext"
	"github.com/rdmalab/rdmalab/captures/decode/frame"
	"github.com/rdmalab/rdmalab/proto/safe"
)

// jsonw appends one JSON object to a byte slice without reflection, so
// that --json costs no allocation per field.
type jsonw struct {
	b []byte
	// comma says an element was written last, so that the next one needs
	// a comma before it: false right after an object or array opens,
	// true after a value or a closing bracket.
	comma bool
	// Runs of fields that repeat over the packets of a connection or a
	// message (jsonNetwork, jsonBTH, jsonAnalysis), copied rather than
	// written again.
	nets   fragRing[netKey]
	bth    fragRing[bthKey]
	msg    jsonFrag[msgKey]
	msgEnd jsonFrag[msgEndKey]
	chunk  jsonFrag[chunkKey]
	// The integer seconds of frame.time_epoch and frame.time_relative.
	epochSec, relSec secText
}

// secText writes times in seconds with nine decimals. It keeps the last
// whole seconds and their digits: the next packet's time is most likely in
// the same second.
type secText struct {
	sec  int64
	text []byte
	ok   bool
}

// appendEpoch appends sec.nsec, exactly.
func (t *secText) appendEpoch(b []byte, sec int64, nsec int) []byte {
	if !t.ok || t.sec != sec {
		t.text = t.text[:0]
		if sec < 0 {
			t.text = append(t.text, '-')
		}
		t.text = appendtext.Uint(t.text, uint64(max(sec, -sec)))
		t.sec, t.ok = sec, true
	}
	b = append(b, t.text...)
	return appendtext.UintPad(append(b, '.'), uint64(nsec), 9)
}

// appendDuration appends d in seconds as a float64 of d.Seconds() prints
// with nine decimals: exact in integers up to 11 days, where that float
// still holds every nanosecond, and the float itself past that.
func (t *secText) appendDuration(b []byte, d time.Duration) []byte {
	if d < 0 || d >= 1e6*time.Second {
		return strconv.AppendFloat(b, d.Seconds(), 'f', 9, 64)
	}
	return t.appendEpoch(b, int64(d/time.Second), int(d%time.Second))
}

// jsonFrag is the JSON text of a run of fields, without a comma before,
// and what it was written from.
type jsonFrag[K comparable] struct {
	key  K
	ok   bool
	text []byte
}

// fragHit appends f's text if it was written from key and says whether
// it did.
func fragHit[K comparable](w *jsonw, f *jsonFrag[K], key K) bool {
	if !f.ok || f.key != key {
		return false
	}
	w.sep("")
	w.b = append(w.b, f.text...)
	return true
}

// fragKeep keeps what was written since start as f's text, for key.
func fragKeep[K comparable](w *jsonw, f *jsonFrag[K], key K, start int) {
	text := w.b[start:]
	if len(text) > 0 && text[0] == ',' {
		text = text[1:] // sep writes it when it is needed
	}
	if len(text) == 0 {
		f.ok = false
		return
	}
	f.text = append(f.text[:0], text...)
	f.key, f.ok = key, true
}

// fragRing keeps the fragments of the last few keys, for runs that
// alternate between connections (a call and its reply, two QPs).
type fragRing[K comparable] struct {
	frags [4]jsonFrag[K]
	next  int // the slot the next miss fills
}

// hit is fragHit over every fragment of r.
func (r *fragRing[K]) hit(w *jsonw, key K) bool {
	for i := range r.frags {
		if fragHit(w, &r.frags[i], key) {
			return true
		}
	}
	return false
}

// keep is fragKeep into the oldest slot.
func (r *fragRing[K]) keep(w *jsonw, key K, start int) {
	fragKeep(w, &r.frags[r.next], key, start)
	r.next = (r.next + 1) % len(r.frags)
}

func (w *jsonw) reset() { w.b, w.comma = w.b[:0], false }

func (w *jsonw) open(c byte) {
	w.b = append(w.b, c)
	w.comma = false
}

func (w *jsonw) close(c byte) {
	w.b = append(w.b, c)
	w.comma = true
}

// sep writes the comma before an element and, in an object, its key.
// Keys are rdmalab's and Wireshark's field names, which need no escaping.
func (w *jsonw) sep(key string) {
	b := w.b
	if w.comma {
		b = append(b, ',')
	}
	w.comma = true
	if key != "" {
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, '"', ':')
	}
	w.b = b
}

func (w *jsonw) beginObject(key string) { w.sep(key); w.open('{') }
func (w *jsonw) endObject()             { w.close('}') }
func (w *jsonw) beginArray(key string)  { w.sep(key); w.open('[') }
func (w *jsonw) endArray()              { w.close(']') }

func (w *jsonw) uint(key string, v uint64) { w.sep(key); w.b = appendtext.Uint(w.b, v) }
func (w *jsonw) int(key string, v int)     { w.sep(key); w.b = appendtext.Int(w.b, v) }
func (w *jsonw) str(key, v string)         { w.sep(key); w.b = safe.AppendJSON(w.b, v) }

func (w *jsonw) float(key string, v float64) {
	w.sep(key)
	w.b = strconv.AppendFloat(w.b, v, 'f', 9, 64)
}

// addr writes a as Addr.String does, without allocating.
func (w *jsonw) addr(key string, a frame.Addr) {
	w.sep(key)
	w.b = append(w.b, '"')
	w.b = a.AppendTo(w.b)
	w.b = append(w.b, '"')
}

// mac writes a MAC address as net.HardwareAddr.String does.
func (w *jsonw) mac(key string, m []byte) {
	w.sep(key)
	w.b = append(w.b, '"')
	for i, c := range m {
		if i > 0 {
			w.b = append(w.b, ':')
		}
		w.b = appendtext.HexFixed(w.b, uint64(c), 2)
	}
	w.b = append(w.b, '"')
}

func (w *jsonw) bool(key string, v bool) { w.sep(key); w.b = strconv.AppendBool(w.b, v) }

func (w *jsonw) null(key string) { w.sep(key); w.b = append(w.b, "null"...) }

// hex writes v as a string "0x…" of width hex digits: 64-bit values do not
// survive JSON numbers in every reader.
func (w *jsonw) hex(key string, v uint64, width int) {
	w.sep(key)
	w.b = append(w.b, '"', '0', 'x')
	w.b = appendtext.HexFixed(w.b, v, width)
	w.b = append(w.b, '"')
}
