package nfs

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// read99 is the COMPOUND of frame 99 of nfs4.1-rdma.pcap: SEQUENCE, PUTFH,
// READ 4096 bytes at offset 0 (tshark: "READ StateID: 0xc20b Offset: 0
// Len: 4096").
//
//	00000000  00 00 00 00 00 00 00 01  00 00 00 03 00 00 00 35  |...............5|
//	00000010  6f 32 10 6b 59 e4 94 e9  02 00 00 00 00 00 00 00  |o2.kY...........|
//	00000020  00 00 00 11 00 00 00 00  00 00 00 00 00 00 00 00  |................|
//	00000030  00 00 00 16 00 00 00 14  01 00 01 01 00 00 00 00  |................|
//	00000040  de 1e 51 f4 9b 00 00 00  00 00 00 00 00 00 00 19  |..Q.............|
//	00000050  00 00 00 00 6f 32 10 6b  59 e4 94 e9 02 00 00 00  |....o2.kY.......|
//	00000060  00 00 00 00 00 00 00 00  00 00 10 00              |............|
var read99 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x35,
	0x6f, 0x32, 0x10, 0x6b, 0x59, 0xe4, 0x94, 0xe9, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x14, 0x01, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
	0xde, 0x1e, 0x51, 0xf4, 0x9b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x19,
	0x00, 0x00, 0x00, 0x00, 0x6f, 0x32, 0x10, 0x6b, 0x59, 0xe4, 0x94, 0xe9, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
}

// read102 is the reply (frame 102): all three operations NFS4_OK, READ
// with eof and 6 bytes that went in a Write chunk.
//
//	00000000  00 00 00 00 00 00 00 00  00 00 00 03 00 00 00 35  |...............5|
//	00000010  00 00 00 00 6f 32 10 6b  59 e4 94 e9 02 00 00 00  |....o2.kY.......|
//	00000020  00 00 00 00 00 00 00 11  00 00 00 00 00 00 00 1d  |................|
//	00000030  00 00 00 1d 00 00 00 00  00 00 00 16 00 00 00 00  |................|
//	00000040  00 00 00 19 00 00 00 00  00 00 00 01 00 00 00 06  |................|
var read102 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x35,
	0x00, 0x00, 0x00, 0x00, 0x6f, 0x32, 0x10, 0x6b, 0x59, 0xe4, 0x94, 0xe9, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1d,
	0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06,
}

// write115 is the COMPOUND of frame 115: SEQUENCE, PUTFH, WRITE of 128 KiB
// (data in a Read chunk, absent here), GETATTR — the operation after the
// WRITE stays inline.
//
//	00000000  00 00 00 00 00 00 00 01  00 00 00 04 00 00 00 35  |...............5|
//	00000010  6f 32 10 6b 59 e4 94 e9  02 00 00 00 00 00 00 00  |o2.kY...........|
//	00000020  00 00 00 14 00 00 00 00  00 00 00 00 00 00 00 00  |................|
//	00000030  00 00 00 16 00 00 00 14  01 00 01 01 00 00 00 00  |................|
//	00000040  be c5 dd 88 a0 00 00 00  00 00 00 00 00 00 00 26  |...............&|
//	00000050  00 00 00 00 6f 32 10 6b  59 e4 94 e9 03 00 00 00  |....o2.kY.......|
//	00000060  00 00 00 00 00 00 00 00  00 00 00 02 00 02 00 00  |................|
//	00000070  00 00 00 09 00 00 00 02  00 00 00 18 00 30 20 00  |.............0 .|
var write115 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x35,
	0x6f, 0x32, 0x10, 0x6b, 0x59, 0xe4, 0x94, 0xe9, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x14, 0x01, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
	0xbe, 0xc5, 0xdd, 0x88, 0xa0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x26,
	0x00, 0x00, 0x00, 0x00, 0x6f, 0x32, 0x10, 0x6b, 0x59, 0xe4, 0x94, 0xe9, 0x03, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x18, 0x00, 0x30, 0x20, 0x00,
}

func TestCompoundCallFixture(t *testing.T) {
	var c Compound4Args
	n, err := c.Decode(read99, DataAuto)
	if err != nil || n != len(read99) {
		t.Fatalf("n %d, %v", n, err)
	}
	want := Compound4Args{MinorVersion: 1, NumOps: 3, Ops: []Op4Call{
		{Op: Op4Sequence, Pos: 12},
		{Op: Op4PutFH, Pos: 48, FH: read99[56:76]},
		{Op: Op4Read, Pos: 76, StateID: StateID4{Other: [12]byte{0x6f, 0x32, 0x10, 0x6b, 0x59, 0xe4, 0x94, 0xe9, 2}},
			Count: 4096},
	}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("decoded %+v\nwant %+v", c, want)
	}
	if h := c.Ops[2].StateID.Hash(); h != 0xc20b {
		t.Fatalf("stateid hash %#04x, tshark says 0xc20b", h)
	}
	if !bytes.Equal(c.AppendTo(nil), read99[:12]) {
		t.Fatal("header does not re-encode")
	}
}

func TestCompoundWriteReduced(t *testing.T) {
	for _, mode := range []DataMode{DataReduced, DataAuto} {
		var c Compound4Args
		if _, err := c.Decode(write115, mode); err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		if len(c.Ops) != 4 || c.Ops[3].Op != Op4GetAttr || c.Ops[3].Pos != 112 {
			t.Fatalf("mode %d: ops %+v", mode, c.Ops)
		}
		w := c.Ops[2]
		if w.Op != Op4Write || w.Count != 131072 || w.Stable != FileSync || w.Data != nil || w.DataPos != 112 ||
			w.StateID.Hash() != 0xdeb0 {
			t.Fatalf("mode %d: WRITE %+v (hash %#x)", mode, w, w.StateID.Hash())
		}
	}
	var c Compound4Args
	_, err := c.Decode(write115, DataInline)
	if err == nil || err.Error() != "nfs: offset 112: need 131072 bytes for data, have 16" {
		t.Fatalf("DataInline: %v", err)
	}
	if len(c.Ops) != 2 { // SEQUENCE and PUTFH were decoded
		t.Fatalf("ops before the failure: %+v", c.Ops)
	}
}

func TestCompoundReplyFixture(t *testing.T) {
	var c Compound4Res
	n, err := c.Decode(read102, DataAuto)
	if err != nil || n != len(read102) {
		t.Fatalf("n %d, %v", n, err)
	}
	want := Compound4Res{NumOps: 3, Ops: []Op4Result{
		{Op: Op4Sequence, Pos: 12},
		{Op: Op4PutFH, Pos: 56},
		{Op: Op4Read, Pos: 64, EOF: true, Count: 6, DataPos: 80},
	}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("decoded %+v\nwant %+v", c, want)
	}
	if !bytes.Equal(c.AppendTo(nil), read102[:12]) {
		t.Fatal("header does not re-encode")
	}
}

// b4 builds NFSv4 test messages.
type b4 struct{ xdr.Writer }

func (b *b4) u32(v ...uint32) *b4 {
	for _, x := range v {
		b.Uint32(x)
	}
	return b
}
func (b *b4) u64(v uint64) *b4       { b.Uint64(v); return b }
func (b *b4) opaque(s string) *b4    { b.OpaqueVar([]byte(s)); return b }
func (b *b4) stateid(seq uint32) *b4 { b.Uint32(seq); b.OpaqueFixed(make([]byte, 12)); return b }
func (b *b4) fattr() *b4             { return b.u32(2, 0x18, 0x10).opaque("attrs-values") }

func TestCompoundWalksManyOps(t *testing.T) {
	var b b4
	b.opaque("tag").u32(1, 23)
	b.u32(uint32(Op4Sequence)).u32(0, 0, 0, 0, 1, 2, 3, 1)
	b.u32(uint32(Op4PutRootFH))
	b.u32(uint32(Op4Lookup)).opaque("dir")
	b.u32(uint32(Op4GetFH))
	b.u32(uint32(Op4Open)).u32(7, 2, 0).u64(0x1234).opaque("owner").u32(1, 3).u64(0xabcdef).fattr().u32(0).opaque("file")
	b.u32(uint32(Op4GetAttr)).u32(2, 1, 2)
	b.u32(uint32(Op4Close)).u32(8).stateid(5)
	b.u32(uint32(Op4Lock)).u32(2, 0).u64(100).u64(10).u32(1, 3).stateid(6).u32(4).u64(9).opaque("lockowner")
	b.u32(uint32(Op4LockU)).u32(2, 5).stateid(7).u64(100).u64(10)
	b.u32(uint32(Op4Create)).u32(5).opaque("link-data").opaque("target").fattr()
	b.u32(uint32(Op4SetAttr)).stateid(8).fattr()
	b.u32(uint32(Op4ExchangeID)).u32(1, 2).opaque("clientowner").u32(0x101, 2).
		u32(1, 7).u32(1, 8).u32(2).opaque("oid1").opaque("oid2").u32(1).opaque("oid3").u32(16, 2).
		u32(1).opaque("kernel.org").opaque("Linux").u64(0).u32(0)
	b.u32(uint32(Op4CreateSession)).u64(1).u32(1, 0).
		u32(0, 1048576, 1048576, 4096, 8, 64, 0).u32(0, 4096, 4096, 0, 2, 16, 1, 5).
		u32(0x40000000).u32(3).u32(0).u32(1).u32(0).opaque("cli").u32(0, 0, 2, 10, 20).u32(6, 1).opaque("s").opaque("c")
	b.u32(uint32(Op4Write)).stateid(9).u64(4096).u32(1).opaque("hello")
	b.u32(uint32(Op4Copy)).stateid(1).stateid(2).u64(0).u64(0).u64(100).u32(0, 1).
		u32(2).u32(1).opaque("server").u32(3).opaque("tcp").opaque("10.0.0.1.8.1")
	b.u32(uint32(Op4ReadDir)).u64(0).u32(0, 0, 4096, 65536).u32(1, 0x18)
	b.u32(uint32(Op4Rename)).opaque("old").opaque("new")
	b.u32(uint32(Op4LayoutGet)).u32(0, 1, 1).u64(0).u64(^uint64(0)).u64(4096).stateid(3).u32(4096)
	b.u32(uint32(Op4Seek)).stateid(1).u64(1).u32(0)
	b.u32(uint32(Op4SetXattr)).u32(0).opaque("user.x").opaque("value")
	b.u32(uint32(Op4Illegal))
	b.u32(uint32(Op4ReclaimComplete)).u32(0)
	b.u32(uint32(Op4DestroyClientID)).u64(1)
	in := b.Bytes()
	var c Compound4Args
	n, err := c.Decode(in, DataAuto)
	if err != nil || n != len(in) {
		t.Fatalf("n %d of %d, %v (ops %v)", n, len(in), err, opNames(c.Ops))
	}
	wantOps := "SEQUENCE PUTROOTFH LOOKUP GETFH OPEN GETATTR CLOSE LOCK LOCKU CREATE SETATTR EXCHANGE_ID " +
		"CREATE_SESSION WRITE COPY READDIR RENAME LAYOUTGET SEEK SETXATTR ILLEGAL RECLAIM_COMPLETE DESTROY_CLIENTID"
	if got := opNames(c.Ops); got != wantOps {
		t.Fatalf("ops %s\nwant %s", got, wantOps)
	}
	if string(c.Tag) != "tag" || c.MinorVersion != 1 {
		t.Fatalf("tag %q minor %d", c.Tag, c.MinorVersion)
	}
	byOp := map[Op4]Op4Call{}
	for _, op := range c.Ops {
		byOp[op.Op] = op
	}
	if byOp[Op4Lookup].Name != "dir" || byOp[Op4Open].Name != "file" || byOp[Op4Create].Name != "target" ||
		byOp[Op4Rename].Name != "old" || byOp[Op4SetXattr].Name != "user.x" {
		t.Errorf("names: %+v", byOp)
	}
	if byOp[Op4Close].StateID.Seqid != 5 || byOp[Op4Lock].StateID.Seqid != 6 || byOp[Op4LockU].StateID.Seqid != 7 ||
		byOp[Op4SetAttr].StateID.Seqid != 8 || byOp[Op4Write].StateID.Seqid != 9 || byOp[Op4Lock].Offset != 100 {
		t.Errorf("stateids: %+v", byOp)
	}
	if w := byOp[Op4Write]; w.Offset != 4096 || w.Count != 5 || string(w.Data) != "hello" || w.Stable != DataSync ||
		string(in[w.DataPos:w.DataPos+5]) != "hello" {
		t.Errorf("WRITE %+v", w)
	}
}

func opNames(ops []Op4Call) string {
	var s []string
	for _, op := range ops {
		s = append(s, op.Op.String())
	}
	return strings.Join(s, " ")
}

func TestCompoundErrors(t *testing.T) {
	var b b4
	b.opaque("").u32(1, 3)
	b.u32(uint32(Op4PutRootFH))
	b.u32(uint32(Op4GetFH))
	b.u32(76) // not an operation this package knows
	in := b.Bytes()
	var c Compound4Args
	_, err := c.Decode(in, DataAuto)
	if err == nil || err.Error() != "nfs: offset 20: cannot walk the arguments of Op4(76)" || len(c.Ops) != 2 {
		t.Fatalf("unknown op: %v, ops %+v", err, c.Ops)
	}
	var xe *xdr.Error
	if !errors.As(err, &xe) || xe.Offset != 20 {
		t.Fatalf("offset: %+v", xe)
	}
	// A bad union arm inside an operation names its own offset.
	b = b4{}
	b.opaque("").u32(1, 1)
	b.u32(uint32(Op4Open)).u32(7, 2, 0).u64(1).opaque("o").u32(1, 9) // createmode 9
	_, err = c.Decode(b.Bytes(), DataAuto)
	if err == nil || err.Error() != "nfs: offset 48: createmode 9 is not a known value" {
		t.Fatalf("bad createmode: %v", err)
	}
	// Truncated inside an operation.
	_, err = c.Decode(read99[:90], DataAuto)
	if err == nil || err.Error() != "nfs: offset 80: need 16 bytes for stateid, have 10" {
		t.Fatalf("truncated READ: %v", err)
	}
	_, err = new(Compound4Res).Decode(read102[:70], DataAuto)
	if err == nil || err.Error() != "nfs: offset 68: need 4 bytes for status, have 2" {
		t.Fatalf("truncated reply: %v", err)
	}
}

func TestCompoundResultsWalk(t *testing.T) {
	var b b4
	b.u32(10008).opaque("t").u32(13)
	b.u32(uint32(Op4Sequence), 0).u32(0, 0, 0, 0, 1, 2, 3, 4, 5)
	b.u32(uint32(Op4PutFH), 0)
	b.u32(uint32(Op4Open), 0).stateid(1).u32(1).u64(1).u64(2).u32(4).u32(1, 0x1).
		u32(2).stateid(2).u32(0).u32(1).u64(1<<20).u32(0, 0, 0x1f).opaque("OWNER@")
	b.u32(uint32(Op4GetFH), 0).opaque("filehandle")
	b.u32(uint32(Op4GetAttr), 0).fattr()
	b.u32(uint32(Op4Read), 0).u32(0).opaque("data!")
	b.u32(uint32(Op4ReadDir), 0).u32(0, 0).u32(1).u64(3).opaque("a").fattr().u32(1).u64(4).opaque("b").fattr().u32(0, 1)
	b.u32(uint32(Op4SecInfoNoName), 0).u32(2, 1, 6).opaque("oid").u32(0, 1)
	b.u32(uint32(Op4ExchangeID), 0).u64(1).u32(1, 0).u32(0).u64(0).opaque("major").opaque("scope").u32(0)
	b.u32(uint32(Op4Write), 0).u32(5, 2).u64(0)
	b.u32(uint32(Op4SetAttr), 10016).u32(1, 0) // error, but attrsset is there
	b.u32(uint32(Op4Lock), 10010).u64(0).u64(1).u32(1).u64(9).opaque("owner")
	b.u32(uint32(Op4Lookup), 2) // NFS4ERR_NOENT ends the compound
	in := b.Bytes()
	var c Compound4Res
	n, err := c.Decode(in, DataAuto)
	if err != nil || n != len(in) || len(c.Ops) != 13 {
		t.Fatalf("n %d of %d, %v, %d results", n, len(in), err, len(c.Ops))
	}
	if c.Status.String() != "NFS4ERR_DELAY" || string(c.Tag) != "t" {
		t.Fatalf("header %+v", c)
	}
	r := c.Ops[5]
	if r.Op != Op4Read || r.EOF || r.Count != 5 || string(r.Data) != "data!" {
		t.Errorf("READ %+v", r)
	}
	if string(c.Ops[3].FH) != "filehandle" {
		t.Errorf("GETFH %+v", c.Ops[3])
	}
	if c.Ops[9].Count != 5 {
		t.Errorf("WRITE count %+v", c.Ops[9])
	}
	if c.Ops[12].Status.String() != "NFS4ERR_NOENT" {
		t.Errorf("last status %v", c.Ops[12].Status)
	}
	// An unknown result cannot be walked over.
	b = b4{}
	b.u32(0).opaque("").u32(1).u32(99, 0)
	if _, err := c.Decode(b.Bytes(), DataAuto); err == nil || err.Error() != "nfs: offset 12: cannot walk the results of Op4(99)" {
		t.Fatalf("unknown result: %v", err)
	}
}

func TestCompoundReuse(t *testing.T) {
	var c Compound4Args
	if _, err := c.Decode(write115, DataAuto); err != nil {
		t.Fatal(err)
	}
	var b b4
	b.opaque("").u32(0, 1, uint32(Op4PutRootFH))
	if _, err := c.Decode(b.Bytes(), DataAuto); err != nil {
		t.Fatal(err)
	}
	if want := (Compound4Args{NumOps: 1, Ops: []Op4Call{{Op: Op4PutRootFH, Pos: 12}}}); !reflect.DeepEqual(c, want) {
		t.Fatalf("leftovers: %+v", c)
	}
}

func TestNames4(t *testing.T) {
	for op, want := range map[Op4]string{Op4Access: "ACCESS", Op4Sequence: "SEQUENCE", Op4ReadPlus: "READ_PLUS",
		Op4Clone: "CLONE", Op4RemoveXattr: "REMOVEXATTR", Op4Illegal: "ILLEGAL", 2: "Op4(2)", 76: "Op4(76)",
		Op4SetClientIDConfirm: "SETCLIENTID_CONFIRM", Op4ExchangeID: "EXCHANGE_ID", Op4ReclaimComplete: "RECLAIM_COMPLETE"} {
		if op.String() != want {
			t.Errorf("%d: %q, want %q", uint32(op), op.String(), want)
		}
	}
	// Every operation from ACCESS to REMOVEXATTR has a name, and the
	// walker knows its arguments.
	for op := Op4Access; op <= Op4RemoveXattr; op++ {
		if strings.HasPrefix(op.String(), "Op4(") {
			t.Errorf("operation %d has no name", uint32(op))
		}
		var b b4
		b.opaque("").u32(2, 1, uint32(op))
		_, err := new(Compound4Args).Decode(b.Bytes(), DataAuto)
		if err != nil && strings.Contains(err.Error(), "cannot walk") {
			t.Errorf("%v: %v", op, err)
		}
		b = b4{}
		b.u32(0).opaque("").u32(1, uint32(op), 0)
		_, err = new(Compound4Res).Decode(b.Bytes(), DataAuto)
		if err != nil && strings.Contains(err.Error(), "cannot walk") {
			t.Errorf("%v result: %v", op, err)
		}
	}
	for s, want := range map[Status4]string{NFS4OK: "NFS4_OK", 10008: "NFS4ERR_DELAY", 10052: "NFS4ERR_BADSESSION",
		10071: "NFS4ERR_OP_NOT_IN_SESSION", 99999: "Status4(99999)"} {
		if s.String() != want {
			t.Errorf("%d: %q, want %q", uint32(s), s.String(), want)
		}
	}
}

// A READDIR entry whose attributes hold rdattr_error gives it, past the
// attributes before it (supported_attrs a bitmap, fsid 16 bytes); an
// entry without one gives none.
func TestReadDirEntryStatus(t *testing.T) {
	var vals b4
	vals.u32(2, 0xff, 0x1) // supported_attrs: a bitmap of 2 words
	vals.u32(2)            // type
	vals.u64(7).u64(0)     // fsid
	vals.u32(13)
	withErr := func(b *b4) *b4 {
		return b.u32(1, 1|1<<1|1<<8|1<<11).opaque(string(vals.Bytes()))
	}
	var b b4
	b.opaque("").u32(0, 1)
	b.u32(uint32(Op4ReadDir), 0).u32(0, 0)
	b.u32(1).u64(3).opaque("a")
	withErr(&b)
	b.u32(1).u64(4).opaque("b").fattr()
	b.u32(0, 1)
	in := b.Bytes()
	var c Compound4Res
	if n, err := c.Decode(in, DataAuto); err != nil || n != len(in) || len(c.Ops) != 1 {
		t.Fatalf("decode: %d of %d bytes, %v, %d ops", n, len(in), err, len(c.Ops))
	}
	if got := c.Ops[0].EntryStatus; len(got) != 1 || got[0] != 13 {
		t.Errorf("entry statuses %v, want [NFS4ERR_ACCESS]", got)
	}
	f, _ := ReplyFields(ProgNFS, 4, 1, in)
	if len(f.EntryStatus) != 1 || f.EntryOp != 0 {
		t.Errorf("fields: %v at op %d", f.EntryStatus, f.EntryOp)
	}
}
