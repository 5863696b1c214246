package rpcrdma

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
)

func TestErrorReply(t *testing.T) {
	// GC-21 (c): a bad proc is answered with [xid, 1, 64, 4, 2], 20 bytes.
	e := ErrorReply(0x12345678, 1, 64, ErrCodeChunk)
	b := e.AppendTo(nil)
	if !bytes.Equal(b, errChunkFixture) || len(b) != HdrLenErr || e.Len() != HdrLenErr {
		t.Fatalf("ERR_CHUNK = %x (%d bytes), want %x", b, len(b), errChunkFixture)
	}
	// GC-21 (a): the version word of the call is echoed; 28 bytes.
	e = ErrorReply(0x12345678, 2, 64, ErrCodeVers)
	if b := e.AppendTo(nil); !bytes.Equal(b, errVersFixture) || len(b) != 28 {
		t.Fatalf("ERR_VERS = %x, want %x", b, errVersFixture)
	}
	// What a failed Decode leaves is what ErrorReply needs.
	var h Header
	_, err := h.Decode(words(0xabcdef01, 2, 128, 0), DecodeOptions{})
	de := err.(*DecodeError)
	e = ErrorReply(h.XID, h.Vers, 64, de.ReplyCode())
	want := Header{XID: 0xabcdef01, Vers: 2, Credit: 64, Proc: ProcError, Err: ErrCodeVers, VersLow: 1, VersHigh: 1}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("ErrorReply = %+v, want %+v", e, want)
	}
}

func TestHdrLenMin(t *testing.T) {
	h := Header{XID: 1, Vers: Version, Credit: 1, Proc: ProcMsg}
	if h.Len() != HdrLenMin || len(h.AppendTo(nil)) != HdrLenMin {
		t.Fatalf("an RDMA_MSG without chunks is %d bytes, want %d", h.Len(), HdrLenMin)
	}
}

func TestReplyTo(t *testing.T) {
	call := Header{XID: 5, Vers: 1, Credit: 128, Proc: ProcMsg,
		ReadList:   []ReadSegment{{Position: 4, Segment: Segment{1, 2, 3}}},
		WriteList:  []WriteChunk{{Segments: []Segment{{10, 4096, 0x1000}, {11, 4096, 0x2000}}}},
		ReplyChunk: &WriteChunk{Segments: []Segment{{12, 1024, 0x3000}}},
	}
	r := ReplyTo(&call, 64, ProcMsg)
	want := Header{XID: 5, Vers: 1, Credit: 64, Proc: ProcMsg,
		WriteList:  []WriteChunk{{Segments: []Segment{{10, 4096, 0x1000}, {11, 4096, 0x2000}}}},
		ReplyChunk: &WriteChunk{Segments: []Segment{{12, 1024, 0x3000}}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("ReplyTo = %+v, want %+v", r, want)
	}
	// The reply owns its chunks: trimming lengths leaves the call alone.
	r.WriteList[0].Segments[1].Length = 100
	r.ReplyChunk.Segments[0].Length = 0
	if call.WriteList[0].Segments[1].Length != 4096 || call.ReplyChunk.Segments[0].Length != 1024 {
		t.Fatal("ReplyTo shares storage with the call")
	}
	// 16 fixed + 4 empty Read list + (4 + 4 + 2*16) + 4 end + (4 + 4 + 16) = 88
	if n := ReplyHeaderLen(&call); n != 88 || n != r.Len() {
		t.Fatalf("ReplyHeaderLen = %d, reply Len = %d, want 88", n, r.Len())
	}
	// frame 69 is the real server's reply to the READ of frame 66, whose
	// header differs only in credits and segment length.
	call66 := frame69Header.Clone()
	call66.Credit, call66.WriteList[0].Segments[0].Length = 128, 4096
	r = ReplyTo(&call66, 64, ProcMsg)
	r.WriteList[0].Segments[0].Length = 6
	if !bytes.Equal(r.AppendTo(nil), frame69) || ReplyHeaderLen(&call66) != len(frame69) {
		t.Fatalf("reply to frame 66 = %x, want %x", r.AppendTo(nil), frame69)
	}
}

func TestReadChunks(t *testing.T) {
	h := Header{Proc: ProcMsg, ReadList: []ReadSegment{
		{Position: 120, Segment: Segment{Handle: 1}},
		{Position: 0, Segment: Segment{Handle: 2, Length: 10}},
		{Position: 8, Segment: Segment{Handle: 3}},
		{Position: 120, Segment: Segment{Handle: 4}},
		{Position: 0, Segment: Segment{Handle: 5, Length: 20}},
	}}
	got := h.ReadChunks(nil)
	want := []ReadChunk{
		{Position: 0, Segments: []Segment{{Handle: 2, Length: 10}, {Handle: 5, Length: 20}}},
		{Position: 8, Segments: []Segment{{Handle: 3}}},
		{Position: 120, Segments: []Segment{{Handle: 1}, {Handle: 4}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadChunks = %+v\nwant %+v", got, want)
	}
	if got[0].Length() != 30 {
		t.Fatalf("Length = %d", got[0].Length())
	}
	// Reuse: a second call with fewer chunks.
	h.ReadList = h.ReadList[2:3]
	got = h.ReadChunks(got)
	if !reflect.DeepEqual(got, []ReadChunk{{Position: 8, Segments: []Segment{{Handle: 3}}}}) {
		t.Fatalf("ReadChunks after reuse = %+v", got)
	}
	h.ReadList = nil
	if got = h.ReadChunks(got); len(got) != 0 {
		t.Fatalf("ReadChunks of an empty list = %+v", got)
	}
}

// TestReadChunksManyPositions groups a Read list as long as a 4 MiB SEND
// holds, every segment at its own position, in descending order: one sort,
// where a scan of the list per position took 27 s (and the 2026 kernel's
// position check three minutes). A list already in order allocates
// nothing but the chunks.
func TestReadChunksManyPositions(t *testing.T) {
	const n = (4 << 20) / ReadEntryLen
	h := Header{XID: 1, Vers: Version, Proc: ProcMsg}
	for i := range n {
		h.ReadList = append(h.ReadList, ReadSegment{Position: uint32(n-i) * 8, Segment: Segment{Handle: uint32(i), Length: 8}})
	}
	wire := append(h.AppendTo(nil), make([]byte, 8*(n+1))...)
	got := h.ReadChunks(nil)
	var dec Header
	_, err := dec.Decode(wire, DecodeOptions{CheckPositions: true, CheckChunkPositions: true})
	if err != nil {
		t.Errorf("Decode: %v", err)
	}
	if len(got) != n || got[0].Position != 8 || got[0].Segments[0].Handle != n-1 || got[n-1].Position != n*8 {
		t.Fatalf("%d chunks, first %+v, last %+v", len(got), got[0], got[len(got)-1])
	}
	slices.Reverse(h.ReadList)
	if a := testing.AllocsPerRun(5, func() { got = h.ReadChunks(got) }); a != 0 {
		t.Errorf("an ordered list: %v allocations reusing the chunks", a)
	}
}

func TestWriteChunkLength(t *testing.T) {
	c := WriteChunk{Segments: []Segment{{Length: 0xffffffff}, {Length: 2}}}
	if c.Length() != 0x100000001 {
		t.Fatalf("Length = %#x", c.Length())
	}
}
