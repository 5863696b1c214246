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
	summarizeReply(&s, prog, vers, proc, body)
	return s.String()
}

// SummarizeReplyFields is SummarizeReply and ReplyFields in one: the
// results that carry strings (READLINK, READDIR, READDIRPLUS) are walked
// once for both.
func SummarizeReplyFields(prog, vers, proc uint32, body []byte) (sum string, f Fields, ok bool) {
	var s summary
	f, ok = replyFields(prog, vers, proc, body, &s)
	if s.b.Len() == 0 { // the results carry no strings: replyFields wrote nothing
		summarizeReply(&s, prog, vers, proc, body)
	}
	return s.String(), f, ok
}

// summarizeReply writes SummarizeReply's text into s.
func summarizeReply(s *summary, prog, vers, proc uint32, body []byte) {
	switch {
	case prog == ProgNFS && vers == 3:
		s.reply3(proc, body)
	case prog == ProgNFS && vers == 4:
		summarizeReply4(s, proc, body)
	default:
		s.printf("V%d %s Reply", vers, otherProcName(prog, vers, proc))
	}
}

// reply3 writes the summary of an NFSv3 reply.
func (s *summary) reply3(proc uint32, body []byte) {
	s.b.WriteString("V3 ")
	s.b.WriteString(Proc3(proc).String())
	s.b.WriteString(" Reply")
	s.err = replyResults3(s, Proc3(proc), body)
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

func decodeDirOp(w *xdr.Walker) (FH3, string) {
	return decodeFH3(w, "dir"), w.String(MaxNameLen, "name")
}

// skipSattr3 walks over a sattr3 (RFC 1813 §2.6).
func skipSattr3(w *xdr.Walker) {
	for _, f := range []struct {
		name string
		size int
	}{{"set_mode", 4}, {"set_uid", 4}, {"set_gid", 4}, {"set_size", 8}} {
		if w.Bool(f.name) {
			w.Skip(f.size, f.name)
		}
	}
	for _, name := range []string{"set_atime", "set_mtime"} {
		off := w.Offset()
		switch how := w.Uint32(name); how {
		case 0, 1: // DONT_CHANGE, SET_TO_SERVER_TIME
		case 2: // SET_TO_CLIENT_TIME
			w.Skip(8, name)
		default:
			w.Failf(off, name, "%s time_how %d is not a known value", name, how)
		}
	}
}

var createModes = [...]string{"UNCHECKED", "GUARDED", "EXCLUSIVE"}

// callArgs3 summarizes the arguments of an NFSv3 call: each part of the
// summary is printed once the fields it shows have all been read.
func callArgs3(s *summary, proc Proc3, body []byte) error {
	w := xdr.NewWalker(body)
	switch proc {
	case Proc3Null:
	case Proc3GetAttr, Proc3SetAttr, Proc3Access, Proc3ReadLink, Proc3ReadDir,
		Proc3ReadDirPlus, Proc3FSStat, Proc3FSInfo, Proc3PathConf, Proc3Commit, Proc3Read:
		fh := decodeFH3(&w, "object")
		if w.Err() != nil {
			break
		}
		s.printf(", FH: 0x%08x", fh.Hash())
		switch proc {
		case Proc3Access:
			if mask := w.Uint32("access"); w.Err() == nil {
				s.printf(", [Check: %s]", accessList(mask))
			}
		case Proc3Read, Proc3Commit:
			off, count := w.Uint64("offset"), w.Uint32("count")
			if w.Err() == nil {
				s.printf(" Offset: %d Len: %d", off, count)
			}
		}
	case Proc3Write:
		var a Write3Args
		if a.walk(&w, DataAuto); w.Err() == nil {
			s.printf(", FH: 0x%08x Offset: %d Len: %d %s", a.File.Hash(), a.Offset, a.Count, a.Stable)
		}
	case Proc3Lookup, Proc3Remove, Proc3Rmdir, Proc3Mkdir, Proc3Create, Proc3Symlink, Proc3Mknod:
		fh, name := decodeDirOp(&w)
		if w.Err() != nil {
			break
		}
		switch proc {
		case Proc3Create:
			s.printf(", DH: 0x%08x/%s", fh.Hash(), s.text(fieldName, name))
			mode := w.Uint32("createmode")
			switch {
			case w.Err() != nil:
			case int(mode) < len(createModes):
				s.printf(" Mode: %s", createModes[mode])
			default:
				s.printf(" Mode: %d", mode)
			}
		case Proc3Symlink:
			skipSattr3(&w)
			if to := w.String(xdr.NoLimit, "symlink_data"); w.Err() == nil {
				s.printf(", From DH: 0x%08x/%s To %s", fh.Hash(), s.text(fieldName, name), s.text(fieldSymlinkTo, to))
			}
		case Proc3Mknod:
			if t := w.Uint32("type"); w.Err() == nil {
				s.printf(", FH: 0x%08x/%s %s", fh.Hash(), s.text(fieldName, name), FType3(t))
			}
		default:
			s.printf(", DH: 0x%08x/%s", fh.Hash(), s.text(fieldName, name))
		}
	case Proc3Rename:
		fh, name := decodeDirOp(&w)
		fh2, name2 := decodeDirOp(&w)
		if w.Err() == nil {
			s.printf(", From DH: 0x%08x/%s To DH: 0x%08x/%s", fh.Hash(), s.text(fieldName, name), fh2.Hash(), s.text(fieldName, name2))
		}
	case Proc3Link:
		fh := decodeFH3(&w, "file")
		dir, name := decodeDirOp(&w)
		if w.Err() == nil {
			s.printf(", From DH: 0x%08x To DH: 0x%08x/%s", fh.Hash(), dir.Hash(), s.text(fieldName, name))
		}
	}
	return w.Err()
}

// replyResults3 summarizes the results of an NFSv3 reply, as callArgs3
// does the arguments.
func replyResults3(s *summary, proc Proc3, body []byte) error {
	if proc == Proc3Null {
		return nil
	}
	w := xdr.NewWalker(body)
	status := decodeStat3(&w)
	if err := w.Err(); err != nil {
		return err
	}
	if status != NFS3OK {
		s.printf(" Error: %s", status)
		return nil
	}
	switch proc {
	case Proc3GetAttr:
		var a Fattr3
		if a.walk(&w); w.Err() == nil {
			s.printf(" %s mode: %04o uid: %d gid: %d", a.Type, a.Mode&0o7777, a.UID, a.GID)
		}
	case Proc3Lookup:
		if fh := decodeFH3(&w, "object"); w.Err() == nil {
			s.printf(", FH: 0x%08x", fh.Hash())
		}
	case Proc3ReadLink:
		var attr PostOpAttr
		attr.walk(&w, "symlink_attributes")
		if path := w.String(xdr.NoLimit, "data"); w.Err() == nil {
			s.printf(" Path: %s", s.text(fieldReadLinkData, path))
		}
	case Proc3Read:
		var res Read3Res
		w = xdr.NewWalker(body)
		if res.walk(&w, DataAuto); w.Err() == nil {
			s.printf(" Len: %d", res.Count)
		}
	case Proc3Write:
		var res Write3Res
		w = xdr.NewWalker(body)
		if res.walk(&w); w.Err() == nil {
			s.printf(" Len: %d %s", res.Count, res.Committed)
		}
	case Proc3ReadDir:
		var res ReadDir3Res
		w = xdr.NewWalker(body)
		res.walk(&w)
		for _, e := range res.Entries {
			s.b.WriteByte(' ')
			s.b.WriteString(s.text(fieldEntry3Name, e.Name))
		}
	case Proc3ReadDirPlus:
		w = xdr.NewWalker(body)
		walkReadDirPlusNames(&w, func(name string) {
			s.b.WriteByte(' ')
			s.b.WriteString(s.text(fieldEntryPlusName, name))
		})
	}
	return w.Err()
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
	w := newWalker(body, nil)
	c.walk(&w, DataAuto)
	s.err = w.Err()
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
	w := newWalker(body, nil)
	c.walk(&w, DataAuto)
	s.err = w.Err()
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
