package rpcrdma

import (
	"bytes"
	"reflect"
	"testing"
)

// frame86 is the transport header of frame 86 of nfs3-rdma.pcap: an NFSv3
// WRITE of 128 KiB whose data the server pulls with RDMA Read.
//
//	00000000  4b db d6 65 00 00 00 01  00 00 00 80 00 00 00 00  |K..e............|
//	00000010  00 00 00 01 00 00 00 6c  00 00 0c f5 00 02 00 00  |.......l........|
//	00000020  4b db d6 65 04 72 40 00  00 00 00 00 00 00 00 00  |K..e.r@.........|
//	00000030  00 00 00 00                                       |....|
var frame86 = []byte{
	0x4b, 0xdb, 0xd6, 0x65, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x6c, 0x00, 0x00, 0x0c, 0xf5, 0x00, 0x02, 0x00, 0x00,
	0x4b, 0xdb, 0xd6, 0x65, 0x04, 0x72, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
}

var frame86Header = Header{
	XID: 0x4bdbd665, Vers: 1, Credit: 128, Proc: ProcMsg,
	ReadList: []ReadSegment{{Position: 108, Segment: Segment{Handle: 0xcf5, Length: 131072, Offset: 0x4bdbd66504724000}}},
}

// frame40 is the transport header of frame 40 of nfs3-rdma.pcap: a
// READDIRPLUS call offering a three-segment Reply chunk.
//
//	00000000  43 db d6 65 00 00 00 01  00 00 00 80 00 00 00 00  |C..e............|
//	00000010  00 00 00 00 00 00 00 00  00 00 00 01 00 00 00 03  |................|
//	00000020  00 00 0c f3 00 00 00 7c  43 db d6 65 04 be 40 00  |.......|C..e..@.|
//	00000030  00 00 0b 66 00 01 00 00  43 db d6 65 3f d1 50 00  |...f....C..e?.P.|
//	00000040  00 00 0a cd 00 00 00 04  43 db d6 65 04 be 40 7c  |........C..e..@||
var frame40 = []byte{
	0x43, 0xdb, 0xd6, 0x65, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03,
	0x00, 0x00, 0x0c, 0xf3, 0x00, 0x00, 0x00, 0x7c, 0x43, 0xdb, 0xd6, 0x65, 0x04, 0xbe, 0x40, 0x00,
	0x00, 0x00, 0x0b, 0x66, 0x00, 0x01, 0x00, 0x00, 0x43, 0xdb, 0xd6, 0x65, 0x3f, 0xd1, 0x50, 0x00,
	0x00, 0x00, 0x0a, 0xcd, 0x00, 0x00, 0x00, 0x04, 0x43, 0xdb, 0xd6, 0x65, 0x04, 0xbe, 0x40, 0x7c,
}

var frame40Header = Header{
	XID: 0x43dbd665, Vers: 1, Credit: 128, Proc: ProcMsg,
	ReplyChunk: &WriteChunk{Segments: []Segment{
		{Handle: 0xcf3, Length: 124, Offset: 0x43dbd66504be4000},
		{Handle: 0xb66, Length: 65536, Offset: 0x43dbd6653fd15000},
		{Handle: 0xacd, Length: 4, Offset: 0x43dbd66504be407c},
	}},
}

// frame69 is the transport header of frame 69 of nfs3-rdma.pcap: the
// server's reply to a READ, echoing the Write chunk with the 6 bytes it
// wrote there.
//
//	00000000  47 db d6 65 00 00 00 01  00 00 00 40 00 00 00 00  |G..e.......@....|
//	00000010  00 00 00 00 00 00 00 01  00 00 00 01 00 00 0c f4  |................|
//	00000020  00 00 00 06 47 db d6 65  04 6c c0 00 00 00 00 00  |....G..e.l......|
//	00000030  00 00 00 00                                       |....|
var frame69 = []byte{
	0x47, 0xdb, 0xd6, 0x65, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x0c, 0xf4,
	0x00, 0x00, 0x00, 0x06, 0x47, 0xdb, 0xd6, 0x65, 0x04, 0x6c, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
}

var frame69Header = Header{
	XID: 0x47dbd665, Vers: 1, Credit: 64, Proc: ProcMsg,
	WriteList: []WriteChunk{{Segments: []Segment{{Handle: 0xcf4, Length: 6, Offset: 0x47dbd665046cc000}}}},
}

// msgpFixture is an RDMA_MSGP header (RFC 5666 §4.3), as no Linux peer sends
// any more: align 1024, threshold 512, one Write chunk of one segment.
//
//	00000000  00 00 00 2a 00 00 00 01  00 00 00 20 00 00 00 02  |...*....... ....|
//	00000010  00 00 04 00 00 00 02 00  00 00 00 00 00 00 00 01  |................|
//	00000020  00 00 00 01 00 00 00 11  00 00 10 00 00 00 00 00  |................|
//	00000030  ca fe 00 00 00 00 00 00  00 00 00 00              |............|
var msgpFixture = []byte{
	0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xca, 0xfe, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
}

var msgpHeader = Header{
	XID: 42, Vers: 1, Credit: 32, Proc: ProcMsgp, Align: 1024, Thresh: 512,
	WriteList: []WriteChunk{{Segments: []Segment{{Handle: 0x11, Length: 4096, Offset: 0xcafe0000}}}},
}

// errVersFixture is GC-21 (a): the server's answer to a call with rdma_vers
// 2: [xid, 2 (echoed), 64, RDMA_ERROR, ERR_VERS, low 1, high 1].
//
//	00000000  12 34 56 78 00 00 00 02  00 00 00 40 00 00 00 04  |.4Vx.......@....|
//	00000010  00 00 00 01 00 00 00 01  00 00 00 01              |............|
var errVersFixture = []byte{
	0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x04,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
}

// errChunkFixture is GC-21 (c): [xid, 1, 64, RDMA_ERROR, ERR_CHUNK].
//
//	00000000  12 34 56 78 00 00 00 01  00 00 00 40 00 00 00 04  |.4Vx.......@....|
//	00000010  00 00 00 02                                       |....|
var errChunkFixture = []byte{
	0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x04,
	0x00, 0x00, 0x00, 0x02,
}

func TestDecodeFixtures(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Header
	}{
		{"frame 86 read list", frame86, frame86Header},
		{"frame 40 reply chunk", frame40, frame40Header},
		{"frame 69 write list", frame69, frame69Header},
		{"RDMA_MSGP", msgpFixture, msgpHeader},
		{"RDMA_ERROR ERR_CHUNK", errChunkFixture,
			Header{XID: 0x12345678, Vers: 1, Credit: 64, Proc: ProcError, Err: ErrCodeChunk}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Header
			rpc := []byte{0xde, 0xad, 0xbe, 0xef}
			n, err := h.Decode(append(append([]byte(nil), tt.in...), rpc...), DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n != len(tt.in) {
				t.Errorf("n = %d, want %d", n, len(tt.in))
			}
			if !reflect.DeepEqual(h, tt.want) {
				t.Errorf("decoded\n%+v\nwant\n%+v", h, tt.want)
			}
			if got := tt.want.AppendTo(nil); !bytes.Equal(got, tt.in) {
				t.Errorf("AppendTo\n%x\nwant\n%x", got, tt.in)
			}
			if tt.want.Len() != len(tt.in) {
				t.Errorf("Len = %d, want %d", tt.want.Len(), len(tt.in))
			}
		})
	}
}

func TestDecodeErrVersBody(t *testing.T) {
	// An ERR_VERS reply carries vers 2 in its header (echoed from the
	// call), so a strict decoder stops at the version word; its body is
	// still well-formed RPC-over-RDMA for anyone who gets past that.
	var h Header
	_, err := h.Decode(errVersFixture, DecodeOptions{})
	de, ok := err.(*DecodeError)
	if !ok || de.Kind != ErrVersion || de.Offset != 4 {
		t.Fatalf("err = %v, want ErrVersion at offset 4", err)
	}
	want := ErrorReply(0x12345678, 2, 64, ErrCodeVers)
	if got := want.AppendTo(nil); !bytes.Equal(got, errVersFixture) {
		t.Fatalf("ErrorReply(ERR_VERS) = %x, want %x", got, errVersFixture)
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []Header{
		{XID: 1, Vers: 1, Credit: 128, Proc: ProcMsg},
		{XID: 2, Vers: 1, Credit: 128, Proc: ProcNoMsg,
			ReadList: []ReadSegment{
				{Position: 0, Segment: Segment{1, 4096, 0x1000}},
				{Position: 0, Segment: Segment{2, 100, 0x9000}},
			}},
		{XID: 3, Vers: 1, Credit: 1, Proc: ProcMsg,
			ReadList: []ReadSegment{
				{Position: 120, Segment: Segment{7, 65536, 0xffff_ffff_0000}},
				{Position: 120, Segment: Segment{8, 65536, 0xffff_ffff_0001}},
				{Position: 65656, Segment: Segment{9, 12, 0}},
			},
			WriteList: []WriteChunk{
				{Segments: []Segment{{10, 8192, 1}, {11, 8192, 2}}},
				{Segments: []Segment{{12, 1, 3}}},
			},
			ReplyChunk: &WriteChunk{Segments: []Segment{{13, 1024, 4}}}},
		{XID: 4, Vers: 1, Credit: 64, Proc: ProcMsg, WriteList: []WriteChunk{{}}}, // segcount 0
		msgpHeader,
		{XID: 5, Vers: 1, Credit: 0, Proc: ProcDone},
		{XID: 6, Vers: 1, Credit: 64, Proc: ProcError, Err: ErrCodeVers, VersLow: 1, VersHigh: 1},
		{XID: 7, Vers: 1, Credit: 64, Proc: ProcError, Err: ErrCodeChunk},
	}
	for _, want := range tests {
		b := want.AppendTo(nil)
		if len(b) != want.Len() {
			t.Errorf("%v XID %d: Len %d, encoded %d bytes", want.Proc, want.XID, want.Len(), len(b))
		}
		var got Header
		n, err := got.Decode(b, DecodeOptions{})
		if err != nil {
			t.Errorf("%v XID %d: %v", want.Proc, want.XID, err)
			continue
		}
		if n != len(b) || !reflect.DeepEqual(got, want) {
			t.Errorf("round trip of %+v\ngave %+v (n %d of %d)", want, got, n, len(b))
		}
	}
}

// TestDecodeReuse decodes different headers, one after the other, into one
// Header: nothing of an earlier header may survive in a later one.
func TestDecodeReuse(t *testing.T) {
	big := Header{XID: 9, Vers: 1, Credit: 5, Proc: ProcMsg,
		ReadList:   []ReadSegment{{Position: 4, Segment: Segment{1, 2, 3}}, {Position: 8, Segment: Segment{4, 5, 6}}},
		WriteList:  []WriteChunk{{Segments: []Segment{{7, 8, 9}, {10, 11, 12}}}, {Segments: []Segment{{13, 14, 15}}}},
		ReplyChunk: &WriteChunk{Segments: []Segment{{16, 17, 18}, {19, 20, 21}}},
	}
	sequence := []Header{
		big,
		frame86Header,
		frame69Header,
		{XID: 10, Vers: 1, Credit: 64, Proc: ProcError, Err: ErrCodeVers, VersLow: 1, VersHigh: 1},
		big,
		frame40Header,
		msgpHeader,
		{XID: 11, Vers: 1, Proc: ProcDone},
		big,
		{XID: 12, Vers: 1, Credit: 64, Proc: ProcMsg, WriteList: []WriteChunk{{}}},
		{XID: 13, Vers: 1, Credit: 64, Proc: ProcMsg},
	}
	var h Header
	for i, want := range sequence {
		if _, err := h.Decode(want.AppendTo(nil), DecodeOptions{}); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if !h.Equal(&want) || !reflect.DeepEqual(normalized(h), normalized(want)) {
			t.Fatalf("step %d: decoded\n%+v\nwant\n%+v", i, h, want)
		}
	}
	// A failed decode leaves no chunks of the previous header either.
	if _, err := h.Decode(big.AppendTo(nil), DecodeOptions{}); err != nil {
		t.Fatal(err)
	}
	bad := append(frame86[:16:16], 0, 0, 0, 1, 0, 0, 0, 6) // read entry cut short
	if _, err := h.Decode(bad, DecodeOptions{}); err == nil {
		t.Fatal("truncated read entry decoded")
	}
	want := Header{XID: frame86Header.XID, Vers: 1, Credit: 128, Proc: ProcMsg}
	if !reflect.DeepEqual(normalized(h), want) {
		t.Fatalf("after a failed decode: %+v, want %+v", h, want)
	}
}

// normalized returns h with empty lists as nil, for reflect.DeepEqual.
func normalized(h Header) Header {
	c := h.Clone()
	if len(c.ReadList) == 0 {
		c.ReadList = nil
	}
	if len(c.WriteList) == 0 {
		c.WriteList = nil
	}
	for i := range c.WriteList {
		if len(c.WriteList[i].Segments) == 0 {
			c.WriteList[i].Segments = nil
		}
	}
	if c.ReplyChunk != nil && len(c.ReplyChunk.Segments) == 0 {
		c.ReplyChunk.Segments = nil
	}
	return c
}

func TestCloneIsDeep(t *testing.T) {
	var h Header
	if _, err := h.Decode(frame40, DecodeOptions{}); err != nil {
		t.Fatal(err)
	}
	c := h.Clone()
	if _, err := h.Decode(frame69, DecodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, frame40Header) {
		t.Fatalf("clone changed by a later Decode: %+v", c)
	}
}

func TestDiscriminatorAnyNonZero(t *testing.T) {
	// The kernel's xdr_item_is_present takes any non-zero word as "present".
	b := append([]byte(nil), frame86...)
	b[19] = 7 // read list discriminator 7
	var h Header
	if _, err := h.Decode(b, DecodeOptions{}); err != nil || !h.Equal(&frame86Header) {
		t.Fatalf("decoded %+v, %v", h, err)
	}
}

func TestEqual(t *testing.T) {
	a, b := frame40Header.Clone(), frame40Header.Clone()
	if !a.Equal(&b) {
		t.Fatal("a clone is not Equal")
	}
	b.ReplyChunk.Segments[1].Length++
	if a.Equal(&b) {
		t.Fatal("different segment lengths are Equal")
	}
	b = a.Clone()
	b.ReplyChunk = nil
	if a.Equal(&b) {
		t.Fatal("missing reply chunk is Equal")
	}
	e1 := ErrorReply(1, 1, 1, ErrCodeChunk)
	e2 := e1
	e2.ReadList = []ReadSegment{{}} // ignored: RDMA_ERROR has no lists
	if !e1.Equal(&e2) {
		t.Fatal("fields RDMA_ERROR does not use make a difference")
	}
}

func TestString(t *testing.T) {
	want := `RPC over RDMA
    XID: 0x43dbd665
    Version: 1
    Flow Control: 128
    Message Type: RDMA_MSG (0)
    Read list (count: 0)
    Write list (count: 0)
    Reply chunk (count: 1)
        Write chunk (3 segments)
            RDMA segment 0: handle 0x00000cf3, length 124, offset 0x43dbd66504be4000
            RDMA segment 1: handle 0x00000b66, length 65536, offset 0x43dbd6653fd15000
            RDMA segment 2: handle 0x00000acd, length 4, offset 0x43dbd66504be407c
`
	if got := frame40Header.String(); got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
	want = `RPC over RDMA
    XID: 0x4bdbd665
    Version: 1
    Flow Control: 128
    Message Type: RDMA_MSG (0)
    Read list (count: 1)
        Read segment 0: position 108, handle 0x00000cf5, length 131072, offset 0x4bdbd66504724000
    Write list (count: 0)
    Reply chunk (count: 0)
`
	if got := frame86Header.String(); got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
	e := ErrorReply(0x12345678, 2, 64, ErrCodeVers)
	want = `RPC over RDMA
    XID: 0x12345678
    Version: 2
    Flow Control: 64
    Message Type: RDMA_ERROR (4)
    Error code: ERR_VERS (1)
    Version low: 1
    Version high: 1
`
	if got := e.String(); got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
	want = `RPC over RDMA
    XID: 0x0000002a
    Version: 1
    Flow Control: 32
    Message Type: RDMA_MSGP (2)
    RDMA align: 1024
    RDMA threshold: 512
    Read list (count: 0)
    Write list (count: 1)
        Write chunk (1 segment)
            RDMA segment 0: handle 0x00000011, length 4096, offset 0x00000000cafe0000
    Reply chunk (count: 0)
`
	if got := msgpHeader.String(); got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{ProcMsg.String(), "RDMA_MSG"},
		{ProcNoMsg.String(), "RDMA_NOMSG"},
		{ProcMsgp.String(), "RDMA_MSGP"},
		{ProcDone.String(), "RDMA_DONE"},
		{ProcError.String(), "RDMA_ERROR"},
		{Proc(9).String(), "Proc(9)"},
		{ErrCodeVers.String(), "ERR_VERS"},
		{ErrCodeChunk.String(), "ERR_CHUNK"},
		{ErrCode(0).String(), "ErrCode(0)"},
		{ErrChunk.String(), "chunk"},
		{ErrKind(0).String(), "ErrKind(0)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
