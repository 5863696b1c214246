package nfs

import (
	"strings"
	"testing"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// root is the root file handle of the captures (tshark: 0x62d40c52).
var root = []byte{1, 0, 1, 0, 0, 0, 0, 0}

func body(build func(w *xdr.Writer)) []byte {
	var w xdr.Writer
	build(&w)
	return w.Bytes()
}

func diropargs(w *xdr.Writer, name string) {
	w.OpaqueVar(root)
	w.String(name)
}

func TestSummarizeCall(t *testing.T) {
	sattr := func(w *xdr.Writer) { // mode set, uid/gid/size unset, atime server, mtime client
		w.Bool(true)
		w.Uint32(0o755)
		w.Bool(false)
		w.Bool(false)
		w.Bool(false)
		w.Uint32(1)
		w.Uint32(2)
		w.Uint64(0)
	}
	tests := []struct {
		prog, vers, proc uint32
		body             []byte
		want             string
	}{
		{ProgNFS, 3, 7, write86, "V3 WRITE Call, FH: 0x7f1bd59f Offset: 0 Len: 131072 FILE_SYNC"},
		{ProgNFS, 3, 0, nil, "V3 NULL Call"},
		{ProgNFS, 3, 1, body(func(w *xdr.Writer) { w.OpaqueVar(root) }), "V3 GETATTR Call, FH: 0x62d40c52"},
		{ProgNFS, 3, 19, body(func(w *xdr.Writer) { w.OpaqueVar(root) }), "V3 FSINFO Call, FH: 0x62d40c52"},
		{ProgNFS, 3, 4, body(func(w *xdr.Writer) { w.OpaqueVar(root); w.Uint32(0x1f) }),
			"V3 ACCESS Call, FH: 0x62d40c52, [Check: RD LU MD XT DL]"},
		{ProgNFS, 3, 6, (&Read3Args{File: root, Offset: 8192, Count: 4096}).AppendTo(nil),
			"V3 READ Call, FH: 0x62d40c52 Offset: 8192 Len: 4096"},
		{ProgNFS, 3, 21, body(func(w *xdr.Writer) { w.OpaqueVar(root); w.Uint64(0); w.Uint32(0) }),
			"V3 COMMIT Call, FH: 0x62d40c52 Offset: 0 Len: 0"},
		{ProgNFS, 3, 3, body(func(w *xdr.Writer) { diropargs(w, "link") }), "V3 LOOKUP Call, DH: 0x62d40c52/link"},
		{ProgNFS, 3, 8, body(func(w *xdr.Writer) { diropargs(w, "f"); w.Uint32(1); sattr(w) }),
			"V3 CREATE Call, DH: 0x62d40c52/f Mode: GUARDED"},
		{ProgNFS, 3, 10, body(func(w *xdr.Writer) { diropargs(w, "l"); sattr(w); w.String("../target") }),
			"V3 SYMLINK Call, From DH: 0x62d40c52/l To ../target"},
		{ProgNFS, 3, 11, body(func(w *xdr.Writer) { diropargs(w, "fifo"); w.Uint32(7) }),
			"V3 MKNOD Call, FH: 0x62d40c52/fifo Named Pipe"},
		{ProgNFS, 3, 14, body(func(w *xdr.Writer) { diropargs(w, "a"); diropargs(w, "b") }),
			"V3 RENAME Call, From DH: 0x62d40c52/a To DH: 0x62d40c52/b"},
		{ProgNFS, 3, 15, body(func(w *xdr.Writer) { w.OpaqueVar(root); diropargs(w, "hard") }),
			"V3 LINK Call, From DH: 0x62d40c52 To DH: 0x62d40c52/hard"},
		{ProgNFS, 4, 1, read99, "V4 Call READ StateID: 0xc20b Offset: 0 Len: 4096"},
		{ProgNFS, 4, 1, write115, "V4 Call WRITE StateID: 0xdeb0 Offset: 0 Len: 131072"},
		{ProgNFS, 4, 0, nil, "V4 NULL Call"},
		{progNFSACL, 3, 1, nil, "V3 GETACL Call"},
		{progMount, 3, 1, nil, "V3 MNT Call"},
		{progNLM, 4, 2, nil, "V4 LOCK Call"},
		{12345, 1, 9, nil, "V1 Proc 9 Call"},
		// Malformed bodies say where they stop.
		{ProgNFS, 3, 6, []byte{0, 0, 0, 8, 1}, "V3 READ Call [Malformed: nfs: offset 4: need 8 bytes for object, have 1]"},
		{ProgNFS, 3, 7, write86[:30], "V3 WRITE Call [Malformed: nfs: offset 24: need 8 bytes for offset, have 6]"},
		{ProgNFS, 4, 1, read99[:90], "V4 Call PUTFH [Malformed: nfs: offset 80: need 16 bytes for stateid, have 10]"},
	}
	for _, tt := range tests {
		if got := SummarizeCall(tt.prog, tt.vers, tt.proc, tt.body); got != tt.want {
			t.Errorf("SummarizeCall(%d, %d, %d)\n got %q\nwant %q", tt.prog, tt.vers, tt.proc, got, tt.want)
		}
	}
}

func TestSummarizeReply(t *testing.T) {
	tests := []struct {
		prog, vers, proc uint32
		body             []byte
		want             string
	}{
		{ProgNFS, 3, 6, read69, "V3 READ Reply Len: 6"},
		{ProgNFS, 3, 7, (&Write3Res{Status: NFS3OK, Count: 131072, Committed: FileSync}).AppendTo(nil),
			"V3 WRITE Reply Len: 131072 FILE_SYNC"},
		{ProgNFS, 3, 3, body(func(w *xdr.Writer) { w.Uint32(2); w.Bool(false) }), "V3 LOOKUP Reply Error: NFS3ERR_NOENT"},
		{ProgNFS, 3, 3, body(func(w *xdr.Writer) { w.Uint32(0); w.OpaqueVar(root); w.Bool(false); w.Bool(false) }),
			"V3 LOOKUP Reply, FH: 0x62d40c52"},
		{ProgNFS, 3, 1, (&GetAttr3Res{Status: NFS3OK, Attr: Fattr3{Type: NF3Dir, Mode: 0o41777}}).AppendTo(nil),
			"V3 GETATTR Reply Directory mode: 1777 uid: 0 gid: 0"},
		{ProgNFS, 3, 5, body(func(w *xdr.Writer) { w.Uint32(0); w.Bool(false); w.String("big-256k") }),
			"V3 READLINK Reply Path: big-256k"},
		{ProgNFS, 3, 16, (&ReadDir3Res{Status: NFS3OK, Entries: []Entry3{{1, ".", 1}, {2, "..", 2}}, EOF: true}).AppendTo(nil),
			"V3 READDIR Reply . .."},
		{ProgNFS, 3, 17, (&ReadDirPlus3Res{Status: NFS3OK, Entries: []EntryPlus3{{Name: "small"}, {Name: "link"}}}).AppendTo(nil),
			"V3 READDIRPLUS Reply small link"},
		{ProgNFS, 3, 0, nil, "V3 NULL Reply"},
		{ProgNFS, 3, 19, body(func(w *xdr.Writer) { w.Uint32(0) }), "V3 FSINFO Reply"},
		{ProgNFS, 4, 1, read102, "V4 Reply READ"},
		{ProgNFS, 4, 1, body(func(w *xdr.Writer) {
			w.Uint32(2)
			w.String("")
			w.Uint32(3)
			w.Uint32(uint32(Op4Sequence))
			w.Uint32(0)
			w.OpaqueFixed(make([]byte, 36))
			w.Uint32(uint32(Op4PutFH))
			w.Uint32(0)
			w.Uint32(uint32(Op4Lookup))
			w.Uint32(2)
		}), "V4 Reply LOOKUP Status: NFS4ERR_NOENT"},
		{ProgNFS, 4, 1, body(func(w *xdr.Writer) { w.Uint32(10052); w.String(""); w.Uint32(0) }),
			"V4 Reply Status: NFS4ERR_BADSESSION"},
		{progNFSACL, 3, 1, nil, "V3 GETACL Reply"},
		{ProgNFS, 3, 6, read69[:50], "V3 READ Reply [Malformed: nfs: offset 8: need 84 bytes for fattr3, have 42]"},
	}
	for _, tt := range tests {
		if got := SummarizeReply(tt.prog, tt.vers, tt.proc, tt.body); got != tt.want {
			t.Errorf("SummarizeReply(%d, %d, %d)\n got %q\nwant %q", tt.prog, tt.vers, tt.proc, got, tt.want)
		}
	}
}

func TestSummaryTiers(t *testing.T) {
	// SEQUENCE, PUTROOTFH, GETFH, GETATTR: tshark shows "PUTROOTFH | GETATTR".
	var b b4
	b.opaque("").u32(1, 4)
	b.u32(uint32(Op4Sequence)).u32(0, 0, 0, 0, 1, 0, 0, 0)
	b.u32(uint32(Op4PutRootFH))
	b.u32(uint32(Op4GetFH))
	b.u32(uint32(Op4GetAttr)).u32(1, 0x18)
	if got := SummarizeCall(ProgNFS, 4, 1, b.Bytes()); got != "V4 Call PUTROOTFH | GETATTR" {
		t.Errorf("got %q", got)
	}
	// SEQUENCE, PUTFH, OPEN, GETFH, ACCESS, GETATTR: only OPEN, with the
	// directory handle from PUTFH.
	b = b4{}
	b.opaque("").u32(1, 6)
	b.u32(uint32(Op4Sequence)).u32(0, 0, 0, 0, 1, 0, 0, 0)
	b.u32(uint32(Op4PutFH)).opaque(string(root))
	b.u32(uint32(Op4Open)).u32(0, 1, 0).u64(1).opaque("o").u32(0).u32(0).opaque("small-v4.1")
	b.u32(uint32(Op4GetFH))
	b.u32(uint32(Op4Access)).u32(0x1f)
	b.u32(uint32(Op4GetAttr)).u32(1, 0x18)
	if got := SummarizeCall(ProgNFS, 4, 1, b.Bytes()); got != "V4 Call OPEN DH: 0x62d40c52/small-v4.1" {
		t.Errorf("got %q", got)
	}
	if !strings.HasPrefix(SummarizeCall(ProgNFS, 4, 1, nil), "V4 Call [Malformed: nfs: offset 0") {
		t.Error("empty COMPOUND not reported malformed")
	}
}
