package nfs

import (
	"reflect"
	"testing"
)

// TestFields checks the Wireshark fields of the kernel captures' READ and
// WRITE calls and replies (the fixtures of nfs3_test.go and nfs4_test.go):
// the values tshark shows for the same frames.
func TestFields(t *testing.T) {
	write3Res := (&Write3Res{Status: NFS3OK, Count: 131072, Committed: FileSync}).AppendTo(nil)
	read3Args := (&Read3Args{File: FH3(write86[4:24]), Offset: 8192, Count: 4096}).AppendTo(nil)
	errRes := []byte{0, 0, 0, 70} // NFS3ERR_STALE
	for _, c := range []struct {
		name  string
		call  bool
		vers  uint32
		proc  uint32
		body  []byte
		want  Fields
		known bool
	}{
		{"v3 WRITE call (frame 86: offset3 0, count3 131072, stable 2)", true, 3, uint32(Proc3Write), write86,
			Fields{Vers: 3, Proc: 7, HasOffset: true, HasCount: true, Count: 131072, HasStable: true, Stable: FileSync}, true},
		{"v3 READ call", true, 3, uint32(Proc3Read), read3Args,
			Fields{Vers: 3, Proc: 6, HasOffset: true, Offset: 8192, HasCount: true, Count: 4096}, true},
		{"v3 READ reply (frame 69: count3 6, eof 1)", false, 3, uint32(Proc3Read), read69,
			Fields{Vers: 3, Proc: 6, HasStatus: true, HasCount: true, Count: 6, HasEOF: true, EOF: true}, true},
		{"v3 WRITE reply", false, 3, uint32(Proc3Write), write3Res,
			Fields{Vers: 3, Proc: 7, HasStatus: true, HasCount: true, Count: 131072, HasStable: true, Stable: FileSync}, true},
		{"v3 error reply", false, 3, uint32(Proc3GetAttr), errRes,
			Fields{Vers: 3, Proc: 1, HasStatus: true, Status: 70}, true},
		{"v4 READ call (frame 99: offset4 0, count4 4096, main opcode READ)", true, 4, 1, read99,
			Fields{Vers: 4, Proc: 1, Ops: []Op4{Op4Sequence, Op4PutFH, Op4Read}, MainOps: []Op4{Op4Read},
				HasOffset: true, HasCount: true, Count: 4096, Strings: emptyTag}, true},
		{"v4 READ reply (frame 102: eof 1, data length 6)", false, 4, 1, read102,
			Fields{Vers: 4, Proc: 1, Ops: []Op4{Op4Sequence, Op4PutFH, Op4Read}, MainOps: []Op4{Op4Read},
				HasStatus: true, OpStatus: []Status4{0, 0, 0}, HasEOF: true, EOF: true, HasDataLen: true, DataLen: 6,
				Strings: emptyTag}, true},
		{"v4 WRITE call (frame 115: stable_how4 2, data length 131072)", true, 4, 1, write115,
			Fields{Vers: 4, Proc: 1, Ops: []Op4{Op4Sequence, Op4PutFH, Op4Write, Op4GetAttr}, MainOps: []Op4{Op4Write},
				HasOffset: true, HasStable: true, Stable: FileSync, HasDataLen: true, DataLen: 131072, Strings: emptyTag}, true},
		{"MOUNT: not NFS", true, 3, 1, nil, Fields{}, false},
	} {
		get, prog := ReplyFields, uint32(ProgNFS)
		if c.call {
			get = CallFields
		}
		if !c.known {
			prog = 100005
		}
		f, ok := get(prog, c.vers, c.proc, c.body)
		if ok != c.known || !reflect.DeepEqual(f, c.want) {
			t.Errorf("%s:\n got %+v (%v)\nwant %+v", c.name, f, ok, c.want)
		}
	}
}

// TestMainOps checks that the main operations are those of the most
// important tier, as Wireshark's nfs.main_opcode lists them: a lookup of
// the root (SEQUENCE, PUTROOTFH, GETFH, GETATTR) has two.
func TestMainOps(t *testing.T) {
	for _, c := range []struct{ ops, want []Op4 }{
		{[]Op4{Op4Sequence, Op4PutRootFH, Op4GetFH, Op4GetAttr}, []Op4{Op4PutRootFH, Op4GetAttr}},
		{[]Op4{Op4Sequence, Op4PutFH, Op4Write, Op4GetAttr}, []Op4{Op4Write}},
		{[]Op4{Op4Sequence}, []Op4{Op4Sequence}},
		{nil, nil},
	} {
		if got := mainOps(c.ops); !reflect.DeepEqual(got, c.want) {
			t.Errorf("mainOps(%v) = %v, want %v", c.ops, got, c.want)
		}
	}
}

// emptyTag is the nfs.tag of the kernel's COMPOUNDs: present, empty.
var emptyTag = []StringField{{Field: "nfs.tag"}}
