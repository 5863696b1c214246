package nfs

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// write86 is the WRITE3args of frame 86 of nfs3-rdma.pcap, whose 128 KiB of
// data travel in a Read chunk at XDR position 108 (64 bytes of RPC header +
// 44): the message stops right after the data length word.
//
//	00000000  00 00 00 14 01 00 01 01  00 00 00 00 a8 ba 7b 3c  |..............{<|
//	00000010  9c 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
//	00000020  00 02 00 00 00 00 00 02  00 02 00 00              |............|
var write86 = []byte{
	0x00, 0x00, 0x00, 0x14, 0x01, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0xa8, 0xba, 0x7b, 0x3c,
	0x9c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00,
}

var write86Args = Write3Args{
	File:    FH3(write86[4:24]),
	Count:   131072,
	Stable:  FileSync,
	DataLen: 131072,
	DataPos: 44,
}

// read69 is the READ3res of frame 69 of nfs3-rdma.pcap: 6 bytes read, sent
// in a Write chunk, so the message stops after the data length word.
//
//	00000000  00 00 00 00 00 00 00 01  00 00 00 01 00 00 01 a4  |................|
//	00000010  00 00 00 01 00 00 00 00  00 00 00 00 00 00 00 00  |................|
//	00000020  00 00 00 06 00 00 00 00  00 00 10 00 00 00 00 00  |................|
//	00000030  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|
//	00000040  00 00 00 9b 6b 10 32 72  28 0d e9 22 6b 10 32 6f  |....k.2r(.."k.2o|
//	00000050  00 b7 1b a0 6b 10 32 6f  00 b7 1b a0 00 00 00 06  |....k.2o........|
//	00000060  00 00 00 01 00 00 00 06                           |........|
var read69 = []byte{
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0xa4,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x9b, 0x6b, 0x10, 0x32, 0x72, 0x28, 0x0d, 0xe9, 0x22, 0x6b, 0x10, 0x32, 0x6f,
	0x00, 0xb7, 0x1b, 0xa0, 0x6b, 0x10, 0x32, 0x6f, 0x00, 0xb7, 0x1b, 0xa0, 0x00, 0x00, 0x00, 0x06,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06,
}

var file69Attr = Fattr3{
	Type: NF3Reg, Mode: 0o644, Nlink: 1, Size: 6, Used: 4096, FileID: 0x9b,
	Atime: NFSTime3{0x6b103272, 0x280de922},
	Mtime: NFSTime3{0x6b10326f, 0x00b71ba0},
	Ctime: NFSTime3{0x6b10326f, 0x00b71ba0},
}

var read69Res = Read3Res{
	Status:   NFS3OK,
	FileAttr: PostOpAttr{Present: true, Attr: file69Attr},
	Count:    6, EOF: true, DataLen: 6, DataPos: 104,
}

func TestWrite3ArgsFixture(t *testing.T) {
	for _, mode := range []DataMode{DataReduced, DataAuto} {
		var a Write3Args
		n, err := a.Decode(write86, mode)
		if err != nil || n != len(write86) || !reflect.DeepEqual(a, write86Args) {
			t.Fatalf("mode %d: %+v, %d, %v", mode, a, n, err)
		}
	}
	// The data are not there: an inline decoder says so, at the data.
	var a Write3Args
	_, err := a.Decode(write86, DataInline)
	if err == nil || err.Error() != "nfs: offset 44: need 131072 bytes for data, have 0" {
		t.Fatalf("DataInline: %v", err)
	}
	if a.File.Hash() != 0x7f1bd59f {
		t.Fatalf("FH hash %#x, tshark says 0x7f1bd59f", a.File.Hash())
	}
	// A requester encodes the same bytes, and learns the data position.
	data := make([]byte, 131072)
	args := write86Args
	args.Data, args.DataPos = data, 0
	out, pos := args.AppendTo(nil, DataReduced)
	if !bytes.Equal(out, write86) || pos != 44 {
		t.Fatalf("AppendTo(DataReduced) = %x, %d", out, pos)
	}
	// After a 64-byte RPC header the position is the Read chunk's: 108.
	out, pos = args.AppendTo(make([]byte, 64), DataReduced)
	if pos != 108 || len(out) != 108 {
		t.Fatalf("position after the RPC header = %d (%d bytes)", pos, len(out))
	}
	out, pos = args.AppendTo(nil, DataInline)
	if len(out) != 44+131072 || pos != 44 || !bytes.Equal(out[:44], write86) {
		t.Fatalf("AppendTo(DataInline): %d bytes, pos %d", len(out), pos)
	}
}

func TestRead3ResFixture(t *testing.T) {
	var r Read3Res
	n, err := r.Decode(read69, DataAuto)
	if err != nil || n != len(read69) || !reflect.DeepEqual(r, read69Res) {
		t.Fatalf("%+v, %d, %v", r, n, err)
	}
	res := read69Res
	res.Data = []byte("hello\n")
	out, pos := res.AppendTo(nil, DataReduced)
	if !bytes.Equal(out, read69) || pos != 104 {
		t.Fatalf("AppendTo(DataReduced) = %x, %d", out, pos)
	}
	out, pos = res.AppendTo(nil, DataAuto)
	if len(out) != 104+8 || !bytes.Equal(out[pos:pos+6], res.Data) || !bytes.Equal(out[110:], []byte{0, 0}) {
		t.Fatalf("AppendTo(DataAuto) = %x, %d", out, pos)
	}
	var back Read3Res
	if _, err := back.Decode(out, DataAuto); err != nil || !reflect.DeepEqual(back, Read3Res(res)) {
		t.Fatalf("round trip with data: %+v, %v", back, err)
	}
}

func TestRoundTrips(t *testing.T) {
	fh := FH3{1, 2, 3, 4, 5, 6, 7, 8}
	verf := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	wcc := WccData{
		Before: PreOpAttr{Present: true, Attr: WccAttr{Size: 10, Mtime: NFSTime3{1, 2}, Ctime: NFSTime3{3, 4}}},
		After:  PostOpAttr{Present: true, Attr: file69Attr},
	}
	type codec interface {
		AppendTo([]byte) []byte
		Decode([]byte) (int, error)
	}
	tests := []struct {
		name      string
		in, fresh codec
	}{
		{"WRITE3res ok", &Write3Res{Status: NFS3OK, FileWcc: wcc, Count: 5, Committed: DataSync, Verf: verf}, &Write3Res{}},
		{"WRITE3res no attrs", &Write3Res{Status: NFS3OK, Count: 131072, Committed: FileSync}, &Write3Res{}},
		{"WRITE3res error", &Write3Res{Status: NFS3ErrNoSpc, FileWcc: wcc}, &Write3Res{}},
		{"READ3args", &Read3Args{File: fh, Offset: 1 << 40, Count: 65536}, &Read3Args{}},
		{"GETATTR3args", &GetAttr3Args{Object: fh}, &GetAttr3Args{}},
		{"GETATTR3res ok", &GetAttr3Res{Status: NFS3OK, Attr: file69Attr}, &GetAttr3Res{}},
		{"GETATTR3res stale", &GetAttr3Res{Status: NFS3ErrStale}, &GetAttr3Res{}},
		{"READDIR3args", &ReadDir3Args{Dir: fh, Cookie: 7, CookieVerf: verf, Count: 4096}, &ReadDir3Args{}},
		{"READDIR3res", &ReadDir3Res{Status: NFS3OK, DirAttr: PostOpAttr{Present: true, Attr: file69Attr},
			CookieVerf: verf, Entries: []Entry3{{1, ".", 1}, {2, "..", 2}, {99, "a-file", 3}}, EOF: true}, &ReadDir3Res{}},
		{"READDIR3res empty", &ReadDir3Res{Status: NFS3OK}, &ReadDir3Res{}},
		{"READDIR3res error", &ReadDir3Res{Status: NFS3ErrBadCookie, DirAttr: PostOpAttr{Present: true, Attr: file69Attr}}, &ReadDir3Res{}},
		{"READDIRPLUS3args", &ReadDirPlus3Args{Dir: fh, Cookie: 9, CookieVerf: verf, DirCount: 512, MaxCount: 65536}, &ReadDirPlus3Args{}},
		{"READDIRPLUS3res", &ReadDirPlus3Res{Status: NFS3OK, CookieVerf: verf, Entries: []EntryPlus3{
			{FileID: 1, Name: "x", Cookie: 5, Attr: PostOpAttr{Present: true, Attr: file69Attr},
				Handle: PostOpFH3{Present: true, FH: fh}},
			{FileID: 2, Name: "yy", Cookie: 6},
		}}, &ReadDirPlus3Res{}},
	}
	for _, tt := range tests {
		b := tt.in.AppendTo(nil)
		n, err := tt.fresh.Decode(b)
		if err != nil || n != len(b) || !reflect.DeepEqual(tt.fresh, tt.in) {
			t.Errorf("%s: %+v\n → %+v, %d of %d bytes, %v", tt.name, tt.in, tt.fresh, n, len(b), err)
		}
	}
	for _, mode := range []DataMode{DataInline, DataAuto} {
		for _, want := range []Write3Args{
			{File: fh, Offset: 3, Count: 5, Stable: Unstable, DataLen: 5, Data: []byte("abcde")},
			{File: fh, Count: 0, Stable: FileSync, Data: []byte{}},
		} {
			b, pos := want.AppendTo(nil, mode)
			want.DataPos = pos
			var got Write3Args
			if _, err := got.Decode(b, mode); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("WRITE3args mode %d: %+v → %+v, %v", mode, want, got, err)
			}
		}
	}
	// Reduced: the length word stays, the bytes go.
	w := Write3Args{File: fh, Count: 5, DataLen: 5, Data: []byte("abcde")}
	b, pos := w.AppendTo(nil, DataReduced)
	var got Write3Args
	if _, err := got.Decode(b, DataReduced); err != nil || got.Data != nil || got.DataLen != 5 || got.DataPos != pos || pos != len(b) {
		t.Errorf("reduced WRITE3args: %+v, %v (pos %d of %d)", got, err, pos, len(b))
	}
	// Encoding without the bytes (Data nil) uses DataLen.
	w = Write3Args{File: fh, Count: 9, DataLen: 9}
	b, _ = w.AppendTo(nil, DataAuto)
	if _, err := got.Decode(b, DataReduced); err != nil || got.DataLen != 9 {
		t.Errorf("DataLen not encoded: %+v, %v", got, err)
	}
	// A READ error has no data item.
	r := Read3Res{Status: NFS3ErrIO, FileAttr: PostOpAttr{Present: true, Attr: file69Attr}}
	b, pos = r.AppendTo(nil, DataAuto)
	var back Read3Res
	if pos != -1 {
		t.Errorf("READ3res error: data position %d", pos)
	}
	if _, err := back.Decode(b, DataAuto); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("READ3res error: %+v, %v", back, err)
	}
}

// TestDecodeReuse decodes a rich value then a poor one into one struct.
func TestDecodeReuse(t *testing.T) {
	var r Read3Res
	if _, err := r.Decode(read69, DataAuto); err != nil {
		t.Fatal(err)
	}
	bad := Read3Res{Status: NFS3ErrAcces}
	b, _ := bad.AppendTo(nil, DataAuto)
	if _, err := r.Decode(b, DataAuto); err != nil || !reflect.DeepEqual(r, bad) {
		t.Fatalf("leftovers: %+v, %v", r, err)
	}
	var d ReadDir3Res
	full := ReadDir3Res{Status: NFS3OK, Entries: []Entry3{{1, "a", 2}}, EOF: true}
	if _, err := d.Decode(full.AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	empty := ReadDir3Res{Status: NFS3OK}
	if _, err := d.Decode(empty.AppendTo(nil)); err != nil || !reflect.DeepEqual(d, empty) {
		t.Fatalf("leftovers: %+v, %v", d, err)
	}
	var w Write3Args
	if _, err := w.Decode(write86, DataAuto); err != nil {
		t.Fatal(err)
	}
	small := Write3Args{File: FH3{9}, Count: 1, DataLen: 1, Data: []byte{7}}
	b, small.DataPos = small.AppendTo(nil, DataAuto)
	if _, err := w.Decode(b, DataAuto); err != nil || !reflect.DeepEqual(w, small) {
		t.Fatalf("leftovers: %+v, %v", w, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	var wr xdr.Writer
	wr.OpaqueVar(make([]byte, 65)) // a 65-byte file handle
	longFH := wr.Bytes()
	okAttr := (&GetAttr3Res{Status: NFS3OK, Attr: file69Attr}).AppendTo(nil)
	badBool := append([]byte(nil), read69...)
	badBool[7] = 2 // attributes_follow = 2
	entries := (&ReadDir3Res{Status: NFS3OK, Entries: []Entry3{{1, "x", 2}}}).AppendTo(nil)
	longName := append(append([]byte(nil), entries[:28]...), 0, 0, 1, 0) // name length 256
	tests := []struct {
		name   string
		decode func() error
		msg    string
		off    int
	}{
		{"WRITE3args empty", func() error { _, err := new(Write3Args).Decode(nil, DataAuto); return err },
			"nfs: offset 0: need 4 bytes for file length, have 0", 0},
		{"WRITE3args handle too long", func() error { _, err := new(Write3Args).Decode(longFH, DataAuto); return err },
			"nfs: offset 0: file length 65 exceeds maximum 64", 0},
		{"WRITE3args no offset", func() error { _, err := new(Write3Args).Decode(write86[:28], DataAuto); return err },
			"nfs: offset 24: need 8 bytes for offset, have 4", 24},
		{"WRITE3args no stable", func() error { _, err := new(Write3Args).Decode(write86[:36], DataAuto); return err },
			"nfs: offset 36: need 4 bytes for stable, have 0", 36},
		{"WRITE3args no data length", func() error { _, err := new(Write3Args).Decode(write86[:40], DataReduced); return err },
			"nfs: offset 40: need 4 bytes for data length, have 0", 40},
		{"READ3res bad bool", func() error { _, err := new(Read3Res).Decode(badBool, DataAuto); return err },
			"nfs: offset 4: file_attributes is 2, not a boolean (0 or 1)", 4},
		{"READ3res fattr cut", func() error { _, err := new(Read3Res).Decode(read69[:40], DataAuto); return err },
			"nfs: offset 8: need 84 bytes for fattr3, have 32", 8},
		{"READ3res no eof", func() error { _, err := new(Read3Res).Decode(read69[:96], DataAuto); return err },
			"nfs: offset 96: need 4 bytes for eof, have 0", 96},
		{"READ3res data cut", func() error { _, err := new(Read3Res).Decode(read69, DataInline); return err },
			"nfs: offset 104: need 8 bytes for data, have 0", 104},
		{"GETATTR3res cut", func() error { _, err := new(GetAttr3Res).Decode(okAttr[:50]); return err },
			"nfs: offset 4: need 84 bytes for fattr3, have 46", 4},
		{"READDIR3res name too long", func() error { _, err := new(ReadDir3Res).Decode(longName); return err },
			"nfs: offset 28: name length 256 exceeds maximum 255", 28},
		{"READDIR3res no eof", func() error { _, err := new(ReadDir3Res).Decode(entries[:len(entries)-4]); return err },
			"nfs: offset 48: need 4 bytes for eof, have 0", 48},
		{"WRITE3res cut verf", func() error {
			b := (&Write3Res{Status: NFS3OK}).AppendTo(nil)
			_, err := new(Write3Res).Decode(b[:len(b)-3])
			return err
		}, "nfs: offset 20: need 8 bytes for verf, have 5", 20},
	}
	for _, tt := range tests {
		err := tt.decode()
		if err == nil || err.Error() != tt.msg {
			t.Errorf("%s: error %v\n want %q", tt.name, err, tt.msg)
			continue
		}
		var xe *xdr.Error
		if !errors.As(err, &xe) || xe.Offset != tt.off || xe.Layer != "nfs" {
			t.Errorf("%s: %+v, want offset %d", tt.name, xe, tt.off)
		}
	}
}

func TestNames3(t *testing.T) {
	want := []string{"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE",
		"CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR",
		"READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT"}
	for i, w := range want {
		if got := Proc3(i).String(); got != w {
			t.Errorf("Proc3(%d) = %q, want %q", i, got, w)
		}
	}
	if Proc3Commit != 21 || Proc3(22).String() != "Proc3(22)" {
		t.Error("procedure numbering")
	}
	for s, w := range map[Stat3]string{NFS3OK: "NFS3_OK", NFS3ErrNoEnt: "NFS3ERR_NOENT",
		NFS3ErrJukebox: "NFS3ERR_JUKEBOX", NFS3ErrNotSync: "NFS3ERR_NOT_SYNC", 4: "Stat3(4)"} {
		if s.String() != w {
			t.Errorf("%d: %q, want %q", uint32(s), s.String(), w)
		}
	}
	if FileSync.String() != "FILE_SYNC" || StableHow(7).String() != "Stable: 7" || NF3Lnk.String() != "Symbolic Link" {
		t.Error("stable_how or ftype3 names")
	}
}

func TestFHHash(t *testing.T) {
	// tshark: "FSINFO Call DH: 0x62d40c52" for the root handle 0100010000000000.
	if h := FHHash([]byte{1, 0, 1, 0, 0, 0, 0, 0}); h != 0x62d40c52 {
		t.Fatalf("hash %#x", h)
	}
}

// TestDecodeXDRPositions decodes from a Reader over a whole RPC message:
// positions are then relative to the message, which is what a Read or
// Write chunk's XDR position is.
func TestDecodeXDRPositions(t *testing.T) {
	msg := append(make([]byte, 64), write86...) // a 64-byte RPC call header, then WRITE3args
	r := xdr.NewReader(msg)
	if err := r.Skip(64, "rpc header"); err != nil {
		t.Fatal(err)
	}
	var a Write3Args
	if err := a.DecodeXDR(&r, DataReduced); err != nil || a.DataPos != 108 || r.Offset() != len(msg) {
		t.Fatalf("WRITE3args: %+v, %v", a, err)
	}
	msg = append(make([]byte, 24), read69...) // a 24-byte RPC reply header, then READ3res
	r.Reset(msg)
	r.Skip(24, "rpc header")
	var res Read3Res
	if err := res.DecodeXDR(&r, DataReduced); err != nil || res.DataPos != 128 {
		t.Fatalf("READ3res: %+v, %v", res, err)
	}
	// The other DecodeXDR methods read the same bytes as Decode.
	args := Read3Args{File: root, Offset: 1, Count: 2}
	r.Reset(args.AppendTo(nil))
	var args2 Read3Args
	if err := args2.DecodeXDR(&r); err != nil || !reflect.DeepEqual(args2, Read3Args{File: FH3(r.Input()[4:12]), Offset: 1, Count: 2}) {
		t.Fatalf("READ3args: %+v, %v", args2, err)
	}
	wr := Write3Res{Status: NFS3ErrDQuot}
	r.Reset(wr.AppendTo(nil))
	var wr2 Write3Res
	if err := wr2.DecodeXDR(&r); err != nil || !reflect.DeepEqual(wr2, wr) {
		t.Fatalf("WRITE3res: %+v, %v", wr2, err)
	}
	r.Reset(nil)
	if err := wr2.DecodeXDR(&r); err == nil || err.Error() != "nfs: offset 0: need 4 bytes for status, have 0" {
		t.Fatalf("empty WRITE3res: %v", err)
	}
}
