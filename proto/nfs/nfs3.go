package nfs

// NFSv3 basic data types (RFC 1813 §2.5, §2.6):
//
//	nfs_fh3      | length (<= 64) | handle bytes + pad |
//	nfstime3     | seconds | nseconds |
//	specdata3    | specdata1 | specdata2 |
//
//	fattr3 (84 bytes)
//	+------+------+-------+-----+-----+--------+--------+---------+--------+---------+-------+-------+-------+
//	| type | mode | nlink | uid | gid | size 8 | used 8 | rdev 8  | fsid 8 | fileid 8| atime | mtime | ctime |
//	+------+------+-------+-----+-----+--------+--------+---------+--------+---------+-------+-------+-------+
//
//	post_op_attr | attributes_follow | [fattr3]         |
//	wcc_attr     | size 8 | mtime | ctime               |  (24 bytes)
//	pre_op_attr  | attributes_follow | [wcc_attr]       |
//	wcc_data     | pre_op_attr before | post_op_attr after |
//	post_op_fh3  | handle_follows | [nfs_fh3]           |

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// Sizes from RFC 1813 §2.4.
const (
	FHSize3         = 64 // NFS3_FHSIZE: the largest NFSv3 file handle
	CookieVerfSize3 = 8  // NFS3_COOKIEVERFSIZE
	WriteVerfSize3  = 8  // NFS3_WRITEVERFSIZE
	MaxNameLen      = 255
	fattr3Len       = 84
)

// Proc3 is an NFSv3 procedure number.
type Proc3 uint32

// NFSv3 procedures (RFC 1813 §3).
const (
	Proc3Null        Proc3 = 0
	Proc3GetAttr     Proc3 = 1
	Proc3SetAttr     Proc3 = 2
	Proc3Lookup      Proc3 = 3
	Proc3Access      Proc3 = 4
	Proc3ReadLink    Proc3 = 5
	Proc3Read        Proc3 = 6
	Proc3Write       Proc3 = 7
	Proc3Create      Proc3 = 8
	Proc3Mkdir       Proc3 = 9
	Proc3Symlink     Proc3 = 10
	Proc3Mknod       Proc3 = 11
	Proc3Remove      Proc3 = 12
	Proc3Rmdir       Proc3 = 13
	Proc3Rename      Proc3 = 14
	Proc3Link        Proc3 = 15
	Proc3ReadDir     Proc3 = 16
	Proc3ReadDirPlus Proc3 = 17
	Proc3FSStat      Proc3 = 18
	Proc3FSInfo      Proc3 = 19
	Proc3PathConf    Proc3 = 20
	Proc3Commit      Proc3 = 21
)

var proc3Names = [...]string{
	"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE",
	"CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK",
	"READDIR", "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT",
}

// String returns the procedure name ("WRITE"), or Proc3(N) for a value
// without one.
func (p Proc3) String() string {
	if int(p) < len(proc3Names) {
		return proc3Names[p]
	}
	return fmt.Sprintf("Proc3(%d)", uint32(p))
}

// Stat3 is an NFSv3 status, nfsstat3.
type Stat3 uint32

// NFSv3 statuses (RFC 1813 §2.6).
const (
	NFS3OK             Stat3 = 0
	NFS3ErrPerm        Stat3 = 1
	NFS3ErrNoEnt       Stat3 = 2
	NFS3ErrIO          Stat3 = 5
	NFS3ErrNXIO        Stat3 = 6
	NFS3ErrAcces       Stat3 = 13
	NFS3ErrExist       Stat3 = 17
	NFS3ErrXDev        Stat3 = 18
	NFS3ErrNoDev       Stat3 = 19
	NFS3ErrNotDir      Stat3 = 20
	NFS3ErrIsDir       Stat3 = 21
	NFS3ErrInval       Stat3 = 22
	NFS3ErrFBig        Stat3 = 27
	NFS3ErrNoSpc       Stat3 = 28
	NFS3ErrROFS        Stat3 = 30
	NFS3ErrMLink       Stat3 = 31
	NFS3ErrNameTooLong Stat3 = 63
	NFS3ErrNotEmpty    Stat3 = 66
	NFS3ErrDQuot       Stat3 = 69
	NFS3ErrStale       Stat3 = 70
	NFS3ErrRemote      Stat3 = 71
	NFS3ErrBadHandle   Stat3 = 10001
	NFS3ErrNotSync     Stat3 = 10002
	NFS3ErrBadCookie   Stat3 = 10003
	NFS3ErrNotSupp     Stat3 = 10004
	NFS3ErrTooSmall    Stat3 = 10005
	NFS3ErrServerFault Stat3 = 10006
	NFS3ErrBadType     Stat3 = 10007
	NFS3ErrJukebox     Stat3 = 10008
)

var stat3Names = map[Stat3]string{
	NFS3OK: "NFS3_OK", NFS3ErrPerm: "NFS3ERR_PERM", NFS3ErrNoEnt: "NFS3ERR_NOENT",
	NFS3ErrIO: "NFS3ERR_IO", NFS3ErrNXIO: "NFS3ERR_NXIO", NFS3ErrAcces: "NFS3ERR_ACCES",
	NFS3ErrExist: "NFS3ERR_EXIST", NFS3ErrXDev: "NFS3ERR_XDEV", NFS3ErrNoDev: "NFS3ERR_NODEV",
	NFS3ErrNotDir: "NFS3ERR_NOTDIR", NFS3ErrIsDir: "NFS3ERR_ISDIR", NFS3ErrInval: "NFS3ERR_INVAL",
	NFS3ErrFBig: "NFS3ERR_FBIG", NFS3ErrNoSpc: "NFS3ERR_NOSPC", NFS3ErrROFS: "NFS3ERR_ROFS",
	NFS3ErrMLink: "NFS3ERR_MLINK", NFS3ErrNameTooLong: "NFS3ERR_NAMETOOLONG",
	NFS3ErrNotEmpty: "NFS3ERR_NOTEMPTY", NFS3ErrDQuot: "NFS3ERR_DQUOT", NFS3ErrStale: "NFS3ERR_STALE",
	NFS3ErrRemote: "NFS3ERR_REMOTE", NFS3ErrBadHandle: "NFS3ERR_BADHANDLE",
	NFS3ErrNotSync: "NFS3ERR_NOT_SYNC", NFS3ErrBadCookie: "NFS3ERR_BAD_COOKIE",
	NFS3ErrNotSupp: "NFS3ERR_NOTSUPP", NFS3ErrTooSmall: "NFS3ERR_TOOSMALL",
	NFS3ErrServerFault: "NFS3ERR_SERVERFAULT", NFS3ErrBadType: "NFS3ERR_BADTYPE",
	NFS3ErrJukebox: "NFS3ERR_JUKEBOX",
}

// String returns the status name ("NFS3ERR_NOENT"), or Stat3(N) for a
// value without one.
func (s Stat3) String() string {
	if n, ok := stat3Names[s]; ok {
		return n
	}
	return fmt.Sprintf("Stat3(%d)", uint32(s))
}

// StableHow is the commitment level of a WRITE, stable_how.
type StableHow uint32

// Stable levels.
const (
	Unstable StableHow = 0 // UNSTABLE
	DataSync StableHow = 1 // DATA_SYNC
	FileSync StableHow = 2 // FILE_SYNC
)

var stableHowNames = [...]string{Unstable: "UNSTABLE", DataSync: "DATA_SYNC", FileSync: "FILE_SYNC"}

// String returns the protocol name of s ("FILE_SYNC"), or "Stable: N" (as
// a summary shows it) for a value without one.
func (s StableHow) String() string {
	if int(s) < len(stableHowNames) {
		return stableHowNames[s]
	}
	return fmt.Sprintf("Stable: %d", uint32(s))
}

// FType3 is a file type, ftype3.
type FType3 uint32

// File types.
const (
	NF3Reg  FType3 = 1
	NF3Dir  FType3 = 2
	NF3Blk  FType3 = 3
	NF3Chr  FType3 = 4
	NF3Lnk  FType3 = 5
	NF3Sock FType3 = 6
	NF3FIFO FType3 = 7
)

var ftype3Names = [...]string{NF3Reg: "Regular File", NF3Dir: "Directory", NF3Blk: "Block Special Device",
	NF3Chr: "Character Special Device", NF3Lnk: "Symbolic Link", NF3Sock: "Socket", NF3FIFO: "Named Pipe"}

// String returns the name Wireshark gives t ("Regular File"), or FType3(N)
// for a value without one.
func (t FType3) String() string {
	if int(t) < len(ftype3Names) && ftype3Names[t] != "" {
		return ftype3Names[t]
	}
	return fmt.Sprintf("FType3(%d)", uint32(t))
}

// FH3 is an NFSv3 file handle, nfs_fh3. A decoded FH3 aliases the input.
type FH3 []byte

// Hash returns the CRC-32 Wireshark shows for the handle.
func (fh FH3) Hash() uint32 { return FHHash(fh) }

func decodeFH3(w *xdr.Walker, field string) FH3 { return FH3(w.OpaqueVar(FHSize3, field)) }

// NFSTime3 is a time, nfstime3.
type NFSTime3 struct {
	Seconds, Nseconds uint32
}

// SpecData3 is a device number, specdata3.
type SpecData3 struct {
	Major, Minor uint32 // specdata1, specdata2
}

// Fattr3 is a file's attributes, fattr3.
type Fattr3 struct {
	Type                FType3
	Mode                uint32
	Nlink               uint32
	UID, GID            uint32
	Size, Used          uint64
	Rdev                SpecData3
	FSID                uint64
	FileID              uint64
	Atime, Mtime, Ctime NFSTime3
}

// DecodeXDR reads a fattr3.
func (a *Fattr3) DecodeXDR(r *xdr.Reader) error {
	w := r.Walk()
	a.walk(&w)
	return xdr.WithLayer(w.Finish(r), layer)
}

// walk reads a fattr3, all 84 bytes or nothing.
func (a *Fattr3) walk(w *xdr.Walker) {
	if !w.Need(fattr3Len, "fattr3") {
		return
	}
	a.Type = FType3(w.Uint32("type"))
	a.Mode = w.Uint32("mode")
	a.Nlink = w.Uint32("nlink")
	a.UID = w.Uint32("uid")
	a.GID = w.Uint32("gid")
	a.Size = w.Uint64("size")
	a.Used = w.Uint64("used")
	a.Rdev.Major = w.Uint32("specdata1")
	a.Rdev.Minor = w.Uint32("specdata2")
	a.FSID = w.Uint64("fsid")
	a.FileID = w.Uint64("fileid")
	for _, t := range []*NFSTime3{&a.Atime, &a.Mtime, &a.Ctime} {
		t.Seconds = w.Uint32("seconds")
		t.Nseconds = w.Uint32("nseconds")
	}
}

// EncodeXDR appends a.
func (a *Fattr3) EncodeXDR(w *xdr.Writer) {
	w.Uint32(uint32(a.Type))
	w.Uint32(a.Mode)
	w.Uint32(a.Nlink)
	w.Uint32(a.UID)
	w.Uint32(a.GID)
	w.Uint64(a.Size)
	w.Uint64(a.Used)
	w.Uint32(a.Rdev.Major)
	w.Uint32(a.Rdev.Minor)
	w.Uint64(a.FSID)
	w.Uint64(a.FileID)
	for _, t := range []NFSTime3{a.Atime, a.Mtime, a.Ctime} {
		w.Uint32(t.Seconds)
		w.Uint32(t.Nseconds)
	}
}

// PostOpAttr is a post_op_attr: attributes that may be absent.
type PostOpAttr struct {
	Present bool
	Attr    Fattr3
}

// DecodeXDR reads a post_op_attr; field names it in errors.
func (p *PostOpAttr) DecodeXDR(r *xdr.Reader, field string) error {
	w := r.Walk()
	p.walk(&w, field)
	return xdr.WithLayer(w.Finish(r), layer)
}

func (p *PostOpAttr) walk(w *xdr.Walker, field string) {
	*p = PostOpAttr{}
	if p.Present = w.Bool(field); p.Present {
		p.Attr.walk(w)
	}
}

// EncodeXDR appends p.
func (p *PostOpAttr) EncodeXDR(w *xdr.Writer) {
	w.Bool(p.Present)
	if p.Present {
		p.Attr.EncodeXDR(w)
	}
}

// WccAttr is the subset of attributes used for weak cache consistency.
type WccAttr struct {
	Size         uint64
	Mtime, Ctime NFSTime3
}

// PreOpAttr is a pre_op_attr: a WccAttr that may be absent.
type PreOpAttr struct {
	Present bool
	Attr    WccAttr
}

// WccData is a wcc_data: attributes before and after an operation.
type WccData struct {
	Before PreOpAttr
	After  PostOpAttr
}

// DecodeXDR reads a wcc_data.
func (d *WccData) DecodeXDR(r *xdr.Reader) error {
	w := r.Walk()
	d.walk(&w)
	return xdr.WithLayer(w.Finish(r), layer)
}

func (d *WccData) walk(w *xdr.Walker) {
	*d = WccData{}
	d.Before.Present = w.Bool("pre_op_attr attributes_follow")
	if d.Before.Present && w.Need(24, "wcc_attr") {
		a := &d.Before.Attr
		a.Size = w.Uint64("size")
		a.Mtime.Seconds = w.Uint32("seconds")
		a.Mtime.Nseconds = w.Uint32("nseconds")
		a.Ctime.Seconds = w.Uint32("seconds")
		a.Ctime.Nseconds = w.Uint32("nseconds")
	}
	d.After.walk(w, "post_op_attr attributes_follow")
}

// EncodeXDR appends d.
func (d *WccData) EncodeXDR(w *xdr.Writer) {
	w.Bool(d.Before.Present)
	if d.Before.Present {
		a := &d.Before.Attr
		w.Uint64(a.Size)
		w.Uint32(a.Mtime.Seconds)
		w.Uint32(a.Mtime.Nseconds)
		w.Uint32(a.Ctime.Seconds)
		w.Uint32(a.Ctime.Nseconds)
	}
	d.After.EncodeXDR(w)
}

// PostOpFH3 is a post_op_fh3: a file handle that may be absent.
type PostOpFH3 struct {
	Present bool
	FH      FH3
}

func (p *PostOpFH3) walk(w *xdr.Walker) {
	*p = PostOpFH3{}
	if p.Present = w.Bool("handle_follows"); p.Present {
		p.FH = decodeFH3(w, "name_handle")
	}
}

func (p *PostOpFH3) encodeXDR(w *xdr.Writer) {
	w.Bool(p.Present)
	if p.Present {
		w.OpaqueVar(p.FH)
	}
}

// decodeStat3 reads an nfsstat3.
func decodeStat3(w *xdr.Walker) Stat3 { return Stat3(w.Uint32("status")) }
