package verbs

import "sort"

// Span is Len bytes at offset Off of a memory region.
type Span struct{ Off, Len int }

// WriteLog notes which bytes of a memory region RDMA Writes have stored
// since the region was registered (or, for a fast-registration MR, since
// its last REG_MR). A consumer that registers a used buffer as a sink then
// clears only the bytes no write covered, not the whole buffer.
//
// A provider writes the log under its own lock, while it stores the bytes;
// read it when the bytes themselves may be read, after the completion that
// covers the writes.
type WriteLog struct {
	spans []Span // by offset, disjoint and not adjacent
}

// LoggedMR is an MR that keeps a WriteLog (engine/sim's regions do; a
// real device's cannot).
type LoggedMR interface {
	MR
	WriteLog() *WriteLog
}

// Written notes that [off, off+n) was stored, merging it with the spans it
// overlaps or touches.
func (l *WriteLog) Written(off, n int) {
	if n <= 0 {
		return
	}
	end := off + n
	// Writes mostly come in order: extend or follow the last span.
	if k := len(l.spans); k == 0 || off > l.spans[k-1].Off+l.spans[k-1].Len {
		l.spans = append(l.spans, Span{off, n})
		return
	} else if last := &l.spans[k-1]; off >= last.Off {
		last.Len = max(last.Len, end-last.Off)
		return
	}
	// i is the first span ending at or after off, j the first starting
	// after end: spans i..j-1 merge with the new one.
	i := sort.Search(len(l.spans), func(i int) bool { return l.spans[i].Off+l.spans[i].Len >= off })
	j := sort.Search(len(l.spans), func(j int) bool { return l.spans[j].Off > end })
	if i < j {
		off = min(off, l.spans[i].Off)
		end = max(end, l.spans[j-1].Off+l.spans[j-1].Len)
	}
	merged := Span{off, end - off}
	switch {
	case i == j:
		l.spans = append(l.spans, Span{})
		copy(l.spans[i+1:], l.spans[i:])
	case j-i > 1:
		l.spans = append(l.spans[:i+1], l.spans[j:]...)
	}
	l.spans[i] = merged
}

// Spans lists the written spans by offset, disjoint and not adjacent. The
// slice is the log's own: do not change it.
func (l *WriteLog) Spans() []Span { return l.spans }

// Reset forgets every write, as a new registration starts with none.
func (l *WriteLog) Reset() { l.spans = l.spans[:0] }
