package nfs

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// checkErr fails unless err is an *xdr.Error from this layer with an offset
// inside an input of n bytes.
func checkErr(t *testing.T, what string, err error, n int) {
	t.Helper()
	var xe *xdr.Error
	if !errors.As(err, &xe) || xe.Layer != layer || xe.Offset < 0 || xe.Offset > n {
		t.Fatalf("%s: error %v (%T) is not an nfs *xdr.Error inside %d bytes", what, err, err, n)
	}
}

// FuzzNFS3 decodes any input as each NFSv3 type with a codec: no panics,
// errors inside the input, and decode → encode → decode gives the same
// value (data kept inline, so the positions match).
func FuzzNFS3(f *testing.F) {
	f.Add(write86)
	f.Add(read69)
	f.Add((&ReadDirPlus3Res{Status: NFS3OK, Entries: []EntryPlus3{{Name: "x", Handle: PostOpFH3{Present: true, FH: root}}}}).AppendTo(nil))
	f.Add((&Write3Res{Status: NFS3OK, FileWcc: WccData{Before: PreOpAttr{Present: true}}}).AppendTo(nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, mode := range []DataMode{DataAuto, DataInline, DataReduced} {
			var a Write3Args
			if _, err := a.Decode(in, mode); err != nil {
				checkErr(t, "WRITE3args", err, len(in))
			} else {
				b, pos := a.AppendTo(nil, mode)
				var again Write3Args
				if _, err := again.Decode(b, mode); err != nil || pos != again.DataPos ||
					!reflect.DeepEqual(withoutPos(again), withoutPos(a)) {
					t.Fatalf("WRITE3args mode %d: %+v → %+v, %v", mode, a, again, err)
				}
			}
			var r Read3Res
			if _, err := r.Decode(in, mode); err != nil {
				checkErr(t, "READ3res", err, len(in))
			} else {
				b, _ := r.AppendTo(nil, mode)
				var again Read3Res
				r.DataPos = 0
				if _, err := again.Decode(b, mode); err != nil {
					t.Fatalf("READ3res mode %d: %v", mode, err)
				}
				again.DataPos = 0
				if !reflect.DeepEqual(again, r) {
					t.Fatalf("READ3res mode %d: %+v → %+v", mode, r, again)
				}
			}
		}
		type codec interface {
			AppendTo([]byte) []byte
			Decode([]byte) (int, error)
		}
		for _, pair := range [][2]codec{
			{&Write3Res{}, &Write3Res{}}, {&Read3Args{}, &Read3Args{}},
			{&GetAttr3Args{}, &GetAttr3Args{}}, {&GetAttr3Res{}, &GetAttr3Res{}},
			{&ReadDir3Args{}, &ReadDir3Args{}}, {&ReadDir3Res{}, &ReadDir3Res{}},
			{&ReadDirPlus3Args{}, &ReadDirPlus3Args{}}, {&ReadDirPlus3Res{}, &ReadDirPlus3Res{}},
		} {
			n, err := pair[0].Decode(in)
			if err != nil {
				checkErr(t, reflect.TypeOf(pair[0]).String(), err, len(in))
				continue
			}
			b := pair[0].AppendTo(nil)
			if len(b) != n {
				t.Fatalf("%T: decoded %d bytes, encodes to %d", pair[0], n, len(b))
			}
			if _, err := pair[1].Decode(b); err != nil || !reflect.DeepEqual(pair[0], pair[1]) {
				t.Fatalf("%T: %+v → %+v, %v", pair[0], pair[0], pair[1], err)
			}
		}
	})
}

func withoutPos(a Write3Args) Write3Args {
	a.DataPos = 0
	return a
}

// FuzzCompound decodes any input as a COMPOUND call and reply: no panics,
// errors inside the input, every operation's position inside the input and
// increasing.
func FuzzCompound(f *testing.F) {
	f.Add(read99)
	f.Add(read102)
	f.Add(write115)
	f.Fuzz(func(t *testing.T, in []byte) {
		var c Compound4Args
		if _, err := c.Decode(in, DataAuto); err != nil {
			checkErr(t, "COMPOUND4args", err, len(in))
		}
		last := -1
		for _, op := range c.Ops {
			if op.Pos <= last || op.Pos+4 > len(in) || (op.Data != nil && op.DataPos+len(op.Data) > len(in)) {
				t.Fatalf("op %+v out of place (previous at %d, input %d bytes)", op, last, len(in))
			}
			last = op.Pos
		}
		var r Compound4Res
		if _, err := r.Decode(in, DataAuto); err != nil {
			checkErr(t, "COMPOUND4res", err, len(in))
		}
		last = -1
		for _, op := range r.Ops {
			if op.Pos <= last || op.Pos+8 > len(in) {
				t.Fatalf("result %+v out of place (previous at %d, input %d bytes)", op, last, len(in))
			}
			last = op.Pos
		}
	})
}

// FuzzSummarize summarizes any input as every NFSv3 procedure and as an
// NFSv4 COMPOUND, call and reply: no panics, a summary that starts with
// the version, and SummarizeReplyFields gives what SummarizeReply and
// ReplyFields give apart.
func FuzzSummarize(f *testing.F) {
	f.Add(uint8(7), write86)
	f.Add(uint8(6), read69)
	f.Add(uint8(1), read99)
	f.Add(uint8(1), read102)
	f.Add(uint8(16), (&ReadDir3Res{Status: NFS3OK, Entries: []Entry3{{1, ".", 1}, {2, "a\x1b[2J", 2}}}).AppendTo(nil))
	f.Add(uint8(17), (&ReadDirPlus3Res{Status: NFS3OK, Entries: []EntryPlus3{{Name: "x"}}}).AppendTo(nil))
	f.Fuzz(func(t *testing.T, proc uint8, in []byte) {
		for _, vers := range []uint32{3, 4} {
			for _, s := range []string{
				SummarizeCall(ProgNFS, vers, uint32(proc%23), in),
				SummarizeReply(ProgNFS, vers, uint32(proc%23), in),
			} {
				if !strings.HasPrefix(s, "V3 ") && !strings.HasPrefix(s, "V4 ") {
					t.Fatalf("summary %q", s)
				}
			}
			sum, fl, ok := SummarizeReplyFields(ProgNFS, vers, uint32(proc%23), in)
			wantFl, wantOK := ReplyFields(ProgNFS, vers, uint32(proc%23), in)
			if want := SummarizeReply(ProgNFS, vers, uint32(proc%23), in); sum != want {
				t.Fatalf("one pass: summary %q, apart %q", sum, want)
			}
			if ok != wantOK || !reflect.DeepEqual(fl, wantFl) {
				t.Fatalf("one pass: fields %+v %v, apart %+v %v", fl, ok, wantFl, wantOK)
			}
		}
	})
}

// FuzzFields decodes any input as the fields of every NFSv3 procedure and
// of an NFSv4 COMPOUND, call and reply: no panics, the main operations
// are among the operations, and a reply has a status per operation.
func FuzzFields(f *testing.F) {
	f.Add(uint8(7), write86)
	f.Add(uint8(6), read69)
	f.Add(uint8(1), read99)
	f.Add(uint8(1), read102)
	f.Add(uint8(1), write115)
	f.Fuzz(func(t *testing.T, proc uint8, in []byte) {
		for _, vers := range []uint32{3, 4} {
			for i, get := range []func(uint32, uint32, uint32, []byte) (Fields, bool){CallFields, ReplyFields} {
				fl, ok := get(ProgNFS, vers, uint32(proc%23), in)
				if !ok || fl.Vers != vers {
					t.Fatalf("NFSv%d: ok %v, fields %+v", vers, ok, fl)
				}
				for _, op := range fl.MainOps {
					if !slices.Contains(fl.Ops, op) {
						t.Fatalf("main operation %v not among %v", op, fl.Ops)
					}
				}
				if i == 1 && len(fl.OpStatus) != len(fl.Ops) {
					t.Fatalf("%d operations, %d statuses", len(fl.Ops), len(fl.OpStatus))
				}
			}
		}
	})
}
