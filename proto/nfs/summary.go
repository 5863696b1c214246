package nfs

// One-line summaries of NFS calls and replies in the style of tshark's
// Info column, built from the procedure's XDR body (the bytes after the RPC
// call header, or after an accepted-SUCCESS reply header):
//
//	V3 WRITE Call, FH: 0x5a2f1c33 Offset: 0 Len: 131072 FILE_SYNC
//	V3 READ Reply Len: 131072
//	V3 LOOKUP Reply Error: NFS3ERR_NOENT
//	V4 Call READ StateID: 0xc20b Offset: 0 Len: 4096
//	V4 Reply EXCHANGE_ID
//
// NFSv3 arguments: nfs_fh3 first (GETATTR, ACCESS, READ, ...) or diropargs3
// (LOOKUP, CREATE, REMOVE, ...): | dir (nfs_fh3) | name (filename3) |.
//
// A summary is text for a terminal: the names and paths in it are whatever
// the sender put on the wire, so they are escaped (package safe) and a
// summary never holds a control character. Fields keeps them exact.

import (
	"fmt"
	"strings"

	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// Program numbers of the NFS family, as in package oncrpc.
const (
	progMount  = 100005
	progNLM    = 100021
	progNFSACL = 100227
)

// SummarizeCall returns a one-line summary of an RPC call to prog, vers,
// proc whose arguments are body. The data of a WRITE may be missing (moved
// to a Read chunk). When body cannot be decoded the summary holds what could
// be, followed by " [Malformed: reason]".
func SummarizeCall(prog, vers, proc uint32, body []byte) string {
	var s summary
	switch {
	case prog == ProgNFS && vers == 3:
		s.printf("V3 %s Call", Proc3(proc))
		s.err = callArgs3(&s, Proc3(proc), body)
	case prog == ProgNFS && vers == 4:
		summarizeCall4(&s, proc, body)
	default:
		s.printf("V%d %s Call", vers, otherProcName(prog, vers, proc))
	}
	return s.String()
}

// SummarizeReply returns a one-line summary of the reply to an RPC call to
// prog, vers, proc whose results are body. The data of a READ may be missing
// (sent in a Write chunk).
func SummarizeReply(prog, vers, proc uint32, body []byte) string {
	var s summary
	switch {
	case prog == ProgNFS && vers == 3:
		s.printf("V3 %s Reply", Proc3(proc))
		s.err = replyResults3(&s, Proc3(proc), body)
	case prog == ProgNFS && vers == 4:
		summarizeReply4(&s, proc, body)
	default:
		s.printf("V%d %s Reply", vers, otherProcName(prog, vers, proc))
	}
	return s.String()
}

// summary collects the text and the first decoding error and, when strs
// is set, the strings the message carries (for Fields).
type summary struct {
	b    strings.Builder
	err  error
	strs *[]StringField
}

func (s *summary) printf(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// text records v, a string from the wire, as the value of Wireshark's
// field and returns it escaped for the summary.
func (s *summary) text(field, v string) string {
	if s.strs != nil {
		*s.strs = append(*s.strs, StringField{Field: field, Value: v})
	}
	return safe.Text(v)
}

func (s *summary) String() string {
	if s.err != nil {
		s.printf(" [Malformed: %v]", xdr.WithLayer(s.err, layer))
	}
	return s.b.String()
}

var (
	mountProcs  = [...]string{"NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT"}
	nfsaclProcs = [...]string{"NULL", "GETACL", "SETACL", "GETATTR", "ACCESS", "GETXATTRDIR"}
	nlmProcs    = [...]string{"NULL", "TEST", "LOCK", "CANCEL", "UNLOCK", "GRANTED",
		"TEST_MSG", "LOCK_MSG", "CANCEL_MSG", "UNLOCK_MSG", "GRANTED_MSG",
		"TEST_RES", "LOCK_RES", "CANCEL_RES", "UNLOCK_RES", "GRANTED_RES",
		"", "", "", "", "SHARE", "UNSHARE", "NM_LOCK", "FREE_ALL"}
)

// otherProcName names a procedure of MOUNT, NLM, NFSACL or NFS versions
// without a summarizer.
func otherProcName(prog, vers, proc uint32) string {
	var names []string
	switch prog {
	case ProgNFS:
		if vers == 4 && proc == 0 {
			return "NULL"
		}
		if vers == 2 || vers == 3 {
			return Proc3(proc).String()
		}
	case progMount:
		names = mountProcs[:]
	case progNFSACL:
		names = nfsaclProcs[:]
	case progNLM:
		names = nlmProcs[:]
	}
	if int(proc) < len(names) && names[proc] != "" {
		return names[proc]
	}
	return fmt.Sprintf("Proc %d", proc)
}

// access3Names are Wireshark's abbreviations of the ACCESS3 bits.
var access3Names = [...]string{"RD", "LU", "MD", "XT", "DL", "XE"}

func accessList(mask uint32) string {
	var parts []string
	for i, n := range access3Names {
		if mask&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, " ")
}

func decodeDirOp(r *xdr.Reader) (FH3, string, error) {
	fh, err := decodeFH3(r, "dir")
	if err != nil {
		return nil, "", err
	}
	name, err := r.String(MaxNameLen, "name")
	return fh, name, err
}

// skipSattr3 walks over a sattr3 (RFC 1813 §2.6).
func skipSattr3(r *xdr.Reader) error {
	for _, f := range []struct {
		name string
		size int
	}{{"set_mode", 4}, {"set_uid", 4}, {"set_gid", 4}, {"set_size", 8}} {
		set, err := r.Bool(f.name)
		if err != nil {
			return err
		}
		if set {
			if err := r.Skip(f.size, f.name); err != nil {
				return err
			}
		}
	}
	for _, name := range []string{"set_atime", "set_mtime"} {
		off := r.Offset()
		how, err := r.Uint32(name)
		if err != nil {
			return err
		}
		switch how {
		case 0, 1: // DONT_CHANGE, SET_TO_SERVER_TIME
		case 2: // SET_TO_CLIENT_TIME
			if err := r.Skip(8, name); err != nil {
				return err
			}
		default:
			return xdr.Errorf(off, name, "%s time_how %d is not a known value", name, how)
		}
	}
	return nil
}

var createModes = [...]string{"UNCHECKED", "GUARDED", "EXCLUSIVE"}

func callArgs3(s *summary, proc Proc3, body []byte) error {
	r := xdr.NewReader(body)
	switch proc {
	case Proc3Null:
	case Proc3GetAttr, Proc3SetAttr, Proc3Access, Proc3ReadLink, Proc3ReadDir,
		Proc3ReadDirPlus, Proc3FSStat, Proc3FSInfo, Proc3PathConf, Proc3Commit, Proc3Read:
		fh, err := decodeFH3(&r, "object")
		if err != nil {
			return err
		}
		s.printf(", FH: 0x%08x", fh.Hash())
		switch proc {
		case Proc3Access:
			mask, err := r.Uint32("access")
			if err != nil {
				return err
			}
			s.printf(", [Check: %s]", accessList(mask))
		case Proc3Read, Proc3Commit:
			off, err := r.Uint64("offset")
			if err != nil {
				return err
			}
			count, err := r.Uint32("count")
			if err != nil {
				return err
			}
			s.printf(" Offset: %d Len: %d", off, count)
		}
	case Proc3Write:
		var a Write3Args
		if err := a.decode(&r, DataAuto); err != nil {
			return err
		}
		s.printf(", FH: 0x%08x Offset: %d Len: %d %s", a.File.Hash(), a.Offset, a.Count, a.Stable)
	case Proc3Lookup, Proc3Remove, Proc3Rmdir, Proc3Mkdir, Proc3Create, Proc3Symlink, Proc3Mknod:
		fh, name, err := decodeDirOp(&r)
		if err != nil {
			return err
		}
		switch proc {
		case Proc3Create:
			s.printf(", DH: 0x%08x/%s", fh.Hash(), s.text(fieldName, name))
			mode, err := r.Uint32("createmode")
			if err != nil {
				return err
			}
			if int(mode) < len(createModes) {
				s.printf(" Mode: %s", createModes[mode])
			} else {
				s.printf(" Mode: %d", mode)
			}
		case Proc3Symlink:
			if err := skipSattr3(&r); err != nil {
				return err
			}
			to, err := r.String(xdr.NoLimit, "symlink_data")
			if err != nil {
				return err
			}
			s.printf(", From DH: 0x%08x/%s To %s", fh.Hash(), s.text(fieldName, name), s.text(fieldSymlinkTo, to))
		case Proc3Mknod:
			t, err := r.Uint32("type")
			if err != nil {
				return err
			}
			s.printf(", FH: 0x%08x/%s %s", fh.Hash(), s.text(fieldName, name), FType3(t))
		default:
			s.printf(", DH: 0x%08x/%s", fh.Hash(), s.text(fieldName, name))
		}
	case Proc3Rename:
		fh, name, err := decodeDirOp(&r)
		if err != nil {
			return err
		}
		fh2, name2, err := decodeDirOp(&r)
		if err != nil {
			return err
		}
		s.printf(", From DH: 0x%08x/%s To DH: 0x%08x/%s", fh.Hash(), s.text(fieldName, name), fh2.Hash(), s.text(fieldName, name2))
	case Proc3Link:
		fh, err := decodeFH3(&r, "file")
		if err != nil {
			return err
		}
		dir, name, err := decodeDirOp(&r)
		if err != nil {
			return err
		}
		s.printf(", From DH: 0x%08x To DH: 0x%08x/%s", fh.Hash(), dir.Hash(), s.text(fieldName, name))
	}
	return nil
}

func replyResults3(s *summary, proc Proc3, body []byte) error {
	if proc == Proc3Null {
		return nil
	}
	r := xdr.NewReader(body)
	status, err := decodeStat3(&r)
	if err != nil {
		return err
	}
	if status != NFS3OK {
		s.printf(" Error: %s", status)
		return nil
	}
	switch proc {
	case Proc3GetAttr:
		var a Fattr3
		if err := a.DecodeXDR(&r); err != nil {
			return err
		}
		s.printf(" %s mode: %04o uid: %d gid: %d", a.Type, a.Mode&0o7777, a.UID, a.GID)
	case Proc3Lookup:
		fh, err := decodeFH3(&r, "object")
		if err != nil {
			return err
		}
		s.printf(", FH: 0x%08x", fh.Hash())
	case Proc3ReadLink:
		var attr PostOpAttr
		if err := attr.DecodeXDR(&r, "symlink_attributes"); err != nil {
			return err
		}
		path, err := r.String(xdr.NoLimit, "data")
		if err != nil {
			return err
		}
		s.printf(" Path: %s", s.text(fieldReadLinkData, path))
	case Proc3Read:
		var res Read3Res
		r.Reset(body)
		if err := res.decode(&r, DataAuto); err != nil {
			return err
		}
		s.printf(" Len: %d", res.Count)
	case Proc3Write:
		var res Write3Res
		r.Reset(body)
		if err := res.decode(&r); err != nil {
			return err
		}
		s.printf(" Len: %d %s", res.Count, res.Committed)
	case Proc3ReadDir:
		var res ReadDir3Res
		r.Reset(body)
		err := res.decode(&r)
		for _, e := range res.Entries {
			s.printf(" %s", s.text(fieldEntry3Name, e.Name))
		}
		return err
	case Proc3ReadDirPlus:
		var res ReadDirPlus3Res
		r.Reset(body)
		err := res.decode(&r)
		for _, e := range res.Entries {
			s.printf(" %s", s.text(fieldEntryPlusName, e.Name))
		}
		return err
	}
	return nil
}

// op4Tier ranks operations for the summary, as tshark does: only the
// operations of the most important tier present are listed (1 is the most
// important; everything not named here is tier 1).
func op4Tier(op Op4) int {
	switch op {
	case Op4Access, Op4NVerify, Op4Verify:
		return 2
	case Op4GetAttr, Op4PutPubFH, Op4PutRootFH:
		return 3
	case Op4GetFH, Op4PutFH, Op4RestoreFH, Op4SaveFH:
		return 4
	case Op4Sequence:
		return 5
	}
	return 1
}

func summarizeCall4(s *summary, proc uint32, body []byte) {
	if proc != 1 {
		s.printf("V4 %s Call", otherProcName(ProgNFS, 4, proc))
		return
	}
	s.printf("V4 Call")
	var c Compound4Args
	r := xdr.NewReader(body)
	s.err = c.decode(&r, DataAuto)
	tier := 6
	for _, op := range c.Ops {
		tier = min(tier, op4Tier(op.Op))
	}
	var fh []byte
	sep := " "
	for _, op := range c.Ops {
		if op.Op == Op4PutFH {
			fh = op.FH
		}
		if op4Tier(op.Op) != tier {
			continue
		}
		s.printf("%s%s", sep, op.Op)
		sep = " | "
		switch op.Op {
		case Op4Read, Op4Write:
			s.printf(" StateID: 0x%04x Offset: %d Len: %d", op.StateID.Hash(), op.Offset, op.Count)
		case Op4Close, Op4DelegReturn, Op4LockU, Op4OpenDowngrade, Op4FreeStateID:
			s.printf(" StateID: 0x%04x", op.StateID.Hash())
		case Op4Open, Op4Lookup, Op4Create, Op4Remove:
			if fh != nil {
				s.printf(" DH: 0x%08x/%s", FHHash(fh), safe.Text(op.Name))
			}
		case Op4GetAttr, Op4Access, Op4ReadDir, Op4SetAttr, Op4Commit, Op4LookupP:
			if fh != nil {
				s.printf(" FH: 0x%08x", FHHash(fh))
			}
		}
	}
}

func summarizeReply4(s *summary, proc uint32, body []byte) {
	if proc != 1 {
		s.printf("V4 %s Reply", otherProcName(ProgNFS, 4, proc))
		return
	}
	s.printf("V4 Reply")
	var c Compound4Res
	r := xdr.NewReader(body)
	s.err = c.decode(&r, DataAuto)
	tier := 6
	for _, op := range c.Ops {
		tier = min(tier, op4Tier(op.Op))
	}
	sep := " "
	for _, op := range c.Ops {
		if op4Tier(op.Op) != tier && op.Status == NFS4OK {
			continue
		}
		s.printf("%s%s", sep, op.Op)
		sep = " | "
		if op.Status != NFS4OK {
			s.printf(" Status: %s", op.Status)
		}
	}
	if len(c.Ops) == 0 && c.Status != NFS4OK {
		s.printf(" Status: %s", c.Status)
	}
}
