package nfs

// NFSv4 COMPOUND (RFC 7530 §16.2, RFC 8881 §16.2 and §18; 4.2 ops from
// RFC 7862, extended attributes from RFC 8276):
//
//	COMPOUND4args                          COMPOUND4res
//	+------------------------------+       +------------------------------+
//	| tag: length, bytes + pad     |       | status (nfsstat4)            |
//	| minorversion                 |       | tag: length, bytes + pad     |
//	| numops                       |       | numops                       |
//	+------------------------------+       +------------------------------+
//	| argop | op arguments         |       | resop | status | op results  |
//	| argop | op arguments         |       | resop | status | op results  |
//	| ...                          |       | ... (stops at the first error)|
//
//	READ4args  | stateid (16) | offset (8) | count |
//	WRITE4args | stateid (16) | offset (8) | stable | data length | data + pad |
//	stateid4   | seqid | other (12) |
//
// The operations' arguments and results are not decoded, only walked over
// to find the next operation; READ and WRITE keep their first fields, PUTFH
// its file handle, and the name-carrying operations their name.

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// Op4 is an NFSv4 operation number, nfs_opnum4.
type Op4 uint32

// NFSv4 operations.
const (
	Op4Access             Op4 = 3
	Op4Close              Op4 = 4
	Op4Commit             Op4 = 5
	Op4Create             Op4 = 6
	Op4DelegPurge         Op4 = 7
	Op4DelegReturn        Op4 = 8
	Op4GetAttr            Op4 = 9
	Op4GetFH              Op4 = 10
	Op4Link               Op4 = 11
	Op4Lock               Op4 = 12
	Op4LockT              Op4 = 13
	Op4LockU              Op4 = 14
	Op4Lookup             Op4 = 15
	Op4LookupP            Op4 = 16
	Op4NVerify            Op4 = 17
	Op4Open               Op4 = 18
	Op4OpenAttr           Op4 = 19
	Op4OpenConfirm        Op4 = 20
	Op4OpenDowngrade      Op4 = 21
	Op4PutFH              Op4 = 22
	Op4PutPubFH           Op4 = 23
	Op4PutRootFH          Op4 = 24
	Op4Read               Op4 = 25
	Op4ReadDir            Op4 = 26
	Op4ReadLink           Op4 = 27
	Op4Remove             Op4 = 28
	Op4Rename             Op4 = 29
	Op4Renew              Op4 = 30
	Op4RestoreFH          Op4 = 31
	Op4SaveFH             Op4 = 32
	Op4SecInfo            Op4 = 33
	Op4SetAttr            Op4 = 34
	Op4SetClientID        Op4 = 35
	Op4SetClientIDConfirm Op4 = 36
	Op4Verify             Op4 = 37
	Op4Write              Op4 = 38
	Op4ReleaseLockOwner   Op4 = 39
	Op4BackchannelCtl     Op4 = 40 // NFSv4.1
	Op4BindConnToSession  Op4 = 41
	Op4ExchangeID         Op4 = 42
	Op4CreateSession      Op4 = 43
	Op4DestroySession     Op4 = 44
	Op4FreeStateID        Op4 = 45
	Op4GetDirDelegation   Op4 = 46
	Op4GetDeviceInfo      Op4 = 47
	Op4GetDeviceList      Op4 = 48
	Op4LayoutCommit       Op4 = 49
	Op4LayoutGet          Op4 = 50
	Op4LayoutReturn       Op4 = 51
	Op4SecInfoNoName      Op4 = 52
	Op4Sequence           Op4 = 53
	Op4SetSSV             Op4 = 54
	Op4TestStateID        Op4 = 55
	Op4WantDelegation     Op4 = 56
	Op4DestroyClientID    Op4 = 57
	Op4ReclaimComplete    Op4 = 58
	Op4Allocate           Op4 = 59 // NFSv4.2
	Op4Copy               Op4 = 60
	Op4CopyNotify         Op4 = 61
	Op4Deallocate         Op4 = 62
	Op4IOAdvise           Op4 = 63
	Op4LayoutError        Op4 = 64
	Op4LayoutStats        Op4 = 65
	Op4OffloadCancel      Op4 = 66
	Op4OffloadStatus      Op4 = 67
	Op4ReadPlus           Op4 = 68
	Op4Seek               Op4 = 69
	Op4WriteSame          Op4 = 70
	Op4Clone              Op4 = 71
	Op4GetXattr           Op4 = 72 // RFC 8276
	Op4SetXattr           Op4 = 73
	Op4ListXattrs         Op4 = 74
	Op4RemoveXattr        Op4 = 75
	Op4Illegal            Op4 = 10044
)

var op4Names = [...]string{
	3: "ACCESS", "CLOSE", "COMMIT", "CREATE", "DELEGPURGE", "DELEGRETURN", "GETATTR", "GETFH",
	"LINK", "LOCK", "LOCKT", "LOCKU", "LOOKUP", "LOOKUPP", "NVERIFY", "OPEN", "OPENATTR",
	"OPEN_CONFIRM", "OPEN_DOWNGRADE", "PUTFH", "PUTPUBFH", "PUTROOTFH", "READ", "READDIR",
	"READLINK", "REMOVE", "RENAME", "RENEW", "RESTOREFH", "SAVEFH", "SECINFO", "SETATTR",
	"SETCLIENTID", "SETCLIENTID_CONFIRM", "VERIFY", "WRITE", "RELEASE_LOCKOWNER",
	"BACKCHANNEL_CTL", "BIND_CONN_TO_SESSION", "EXCHANGE_ID", "CREATE_SESSION",
	"DESTROY_SESSION", "FREE_STATEID", "GET_DIR_DELEGATION", "GETDEVICEINFO", "GETDEVICELIST",
	"LAYOUTCOMMIT", "LAYOUTGET", "LAYOUTRETURN", "SECINFO_NO_NAME", "SEQUENCE", "SET_SSV",
	"TEST_STATEID", "WANT_DELEGATION", "DESTROY_CLIENTID", "RECLAIM_COMPLETE",
	"ALLOCATE", "COPY", "COPY_NOTIFY", "DEALLOCATE", "IO_ADVISE", "LAYOUTERROR", "LAYOUTSTATS",
	"OFFLOAD_CANCEL", "OFFLOAD_STATUS", "READ_PLUS", "SEEK", "WRITE_SAME", "CLONE",
	"GETXATTR", "SETXATTR", "LISTXATTRS", "REMOVEXATTR",
}

// String returns the operation name ("EXCHANGE_ID"), or Op4(N) for a value
// without one. OP_ILLEGAL, far past the table, is named on its own.
func (o Op4) String() string {
	if o == Op4Illegal {
		return "ILLEGAL"
	}
	if int(o) < len(op4Names) && op4Names[o] != "" {
		return op4Names[o]
	}
	return fmt.Sprintf("Op4(%d)", uint32(o))
}

// Status4 is an NFSv4 status, nfsstat4.
type Status4 uint32

// NFS4OK is the success status; the others have names through String.
const NFS4OK Status4 = 0

var status4Names = map[Status4]string{
	0: "NFS4_OK", 1: "NFS4ERR_PERM", 2: "NFS4ERR_NOENT", 5: "NFS4ERR_IO", 6: "NFS4ERR_NXIO",
	13: "NFS4ERR_ACCESS", 17: "NFS4ERR_EXIST", 18: "NFS4ERR_XDEV", 20: "NFS4ERR_NOTDIR",
	21: "NFS4ERR_ISDIR", 22: "NFS4ERR_INVAL", 27: "NFS4ERR_FBIG", 28: "NFS4ERR_NOSPC",
	30: "NFS4ERR_ROFS", 31: "NFS4ERR_MLINK", 63: "NFS4ERR_NAMETOOLONG", 66: "NFS4ERR_NOTEMPTY",
	69: "NFS4ERR_DQUOT", 70: "NFS4ERR_STALE",
	10001: "NFS4ERR_BADHANDLE", 10003: "NFS4ERR_BAD_COOKIE", 10004: "NFS4ERR_NOTSUPP",
	10005: "NFS4ERR_TOOSMALL", 10006: "NFS4ERR_SERVERFAULT", 10007: "NFS4ERR_BADTYPE",
	10008: "NFS4ERR_DELAY", 10009: "NFS4ERR_SAME", 10010: "NFS4ERR_DENIED",
	10011: "NFS4ERR_EXPIRED", 10012: "NFS4ERR_LOCKED", 10013: "NFS4ERR_GRACE",
	10014: "NFS4ERR_FHEXPIRED", 10015: "NFS4ERR_SHARE_DENIED", 10016: "NFS4ERR_WRONGSEC",
	10017: "NFS4ERR_CLID_INUSE", 10018: "NFS4ERR_RESOURCE", 10019: "NFS4ERR_MOVED",
	10020: "NFS4ERR_NOFILEHANDLE", 10021: "NFS4ERR_MINOR_VERS_MISMATCH",
	10022: "NFS4ERR_STALE_CLIENTID", 10023: "NFS4ERR_STALE_STATEID",
	10024: "NFS4ERR_OLD_STATEID", 10025: "NFS4ERR_BAD_STATEID", 10026: "NFS4ERR_BAD_SEQID",
	10027: "NFS4ERR_NOT_SAME", 10028: "NFS4ERR_LOCK_RANGE", 10029: "NFS4ERR_SYMLINK",
	10030: "NFS4ERR_RESTOREFH", 10031: "NFS4ERR_LEASE_MOVED", 10032: "NFS4ERR_ATTRNOTSUPP",
	10033: "NFS4ERR_NO_GRACE", 10034: "NFS4ERR_RECLAIM_BAD", 10035: "NFS4ERR_RECLAIM_CONFLICT",
	10036: "NFS4ERR_BADXDR", 10037: "NFS4ERR_LOCKS_HELD", 10038: "NFS4ERR_OPENMODE",
	10039: "NFS4ERR_BADOWNER", 10040: "NFS4ERR_BADCHAR", 10041: "NFS4ERR_BADNAME",
	10042: "NFS4ERR_BAD_RANGE", 10043: "NFS4ERR_LOCK_NOTSUPP", 10044: "NFS4ERR_OP_ILLEGAL",
	10045: "NFS4ERR_DEADLOCK", 10046: "NFS4ERR_FILE_OPEN", 10047: "NFS4ERR_ADMIN_REVOKED",
	10048: "NFS4ERR_CB_PATH_DOWN", 10049: "NFS4ERR_BADIOMODE", 10050: "NFS4ERR_BADLAYOUT",
	10051: "NFS4ERR_BAD_SESSION_DIGEST", 10052: "NFS4ERR_BADSESSION", 10053: "NFS4ERR_BADSLOT",
	10054: "NFS4ERR_COMPLETE_ALREADY", 10055: "NFS4ERR_CONN_NOT_BOUND_TO_SESSION",
	10056: "NFS4ERR_DELEG_ALREADY_WANTED", 10057: "NFS4ERR_BACK_CHAN_BUSY",
	10058: "NFS4ERR_LAYOUTTRYLATER", 10059: "NFS4ERR_LAYOUTUNAVAILABLE",
	10060: "NFS4ERR_NOMATCHING_LAYOUT", 10061: "NFS4ERR_RECALLCONFLICT",
	10062: "NFS4ERR_UNKNOWN_LAYOUTTYPE", 10063: "NFS4ERR_SEQ_MISORDERED",
	10064: "NFS4ERR_SEQUENCE_POS", 10065: "NFS4ERR_REQ_TOO_BIG", 10066: "NFS4ERR_REP_TOO_BIG",
	10067: "NFS4ERR_REP_TOO_BIG_TO_CACHE", 10068: "NFS4ERR_RETRY_UNCACHED_REP",
	10069: "NFS4ERR_UNSAFE_COMPOUND", 10070: "NFS4ERR_TOO_MANY_OPS",
	10071: "NFS4ERR_OP_NOT_IN_SESSION", 10072: "NFS4ERR_HASH_ALG_UNSUPP",
	10074: "NFS4ERR_CLIENTID_BUSY", 10075: "NFS4ERR_PNFS_IO_HOLE",
	10076: "NFS4ERR_SEQ_FALSE_RETRY", 10077: "NFS4ERR_BAD_HIGH_SLOT", 10078: "NFS4ERR_DEADSESSION",
	10079: "NFS4ERR_ENCR_ALG_UNSUPP", 10080: "NFS4ERR_PNFS_NO_LAYOUT", 10081: "NFS4ERR_NOT_ONLY_OP",
	10082: "NFS4ERR_WRONG_CRED", 10083: "NFS4ERR_WRONG_TYPE", 10084: "NFS4ERR_DIRDELEG_UNAVAIL",
	10085: "NFS4ERR_REJECT_DELEG", 10086: "NFS4ERR_RETURNCONFLICT", 10087: "NFS4ERR_DELEG_REVOKED",
	10088: "NFS4ERR_PARTNER_NOTSUPP", 10089: "NFS4ERR_PARTNER_NO_AUTH",
	10090: "NFS4ERR_UNION_NOTSUPP", 10091: "NFS4ERR_OFFLOAD_DENIED", 10092: "NFS4ERR_WRONG_LFS",
	10093: "NFS4ERR_BADLABEL", 10094: "NFS4ERR_OFFLOAD_NO_REQS", 10095: "NFS4ERR_NOXATTR",
	10096: "NFS4ERR_XATTR2BIG",
}

// String returns the status name ("NFS4ERR_DELAY"), or Status4(N) for a
// value without one.
func (s Status4) String() string {
	if n, ok := status4Names[s]; ok {
		return n
	}
	return fmt.Sprintf("Status4(%d)", uint32(s))
}

// StateID4 is a stateid4.
type StateID4 struct {
	Seqid uint32
	Other [12]byte
}

// Hash returns the 16-bit hash Wireshark shows for a stateid ("StateID:
// 0xc20b"): the CRC-16 of its 16 wire bytes (see crc16Stateid).
func (s StateID4) Hash() uint16 {
	var b [16]byte
	b[0], b[1], b[2], b[3] = byte(s.Seqid>>24), byte(s.Seqid>>16), byte(s.Seqid>>8), byte(s.Seqid)
	copy(b[4:], s.Other[:])
	return crc16Stateid(b[:])
}

func decodeStateID(w *xdr.Walker, field string) StateID4 {
	var s StateID4
	if w.Need(16, field) {
		s.Seqid = w.Uint32(field)
		copy(s.Other[:], w.OpaqueFixed(12, field))
	}
	return s
}

// Op4Call is one operation of a COMPOUND call. Op and Pos are always set;
// the other fields only for the operations their comments name.
type Op4Call struct {
	Op  Op4
	Pos int // offset of the operation number in the input

	StateID StateID4  // READ, WRITE, CLOSE, DELEGRETURN, LOCKU, SETATTR, ...
	Offset  uint64    // READ, WRITE: file offset
	Count   uint32    // READ: count; WRITE: data length
	Stable  StableHow // WRITE
	DataPos int       // WRITE: offset of the first data byte in the input
	Data    []byte    // WRITE: the data, nil when it travels in a Read chunk
	FH      []byte    // PUTFH: the file handle (aliases the input)
	Name    string    // LOOKUP, OPEN (by name), CREATE, REMOVE, RENAME (old name), LINK, SECINFO
}

// Compound4Args is a COMPOUND call: its header and its operations.
type Compound4Args struct {
	Tag          []byte // utf8str_cs; aliases the input, nil when empty
	MinorVersion uint32
	NumOps       uint32 // as declared; len(Ops) is smaller when decoding stopped early
	Ops          []Op4Call
}

// Decode decodes a COMPOUND call from b and returns the bytes consumed. The
// WRITE data is looked for as DataMode says. When an operation cannot be
// walked (unknown, or malformed), Decode returns the operations before it
// and an error naming its offset.
func (c *Compound4Args) Decode(b []byte, mode DataMode) (n int, err error) {
	w := newWalker(b, nil)
	c.walk(&w, mode)
	return walked(&w.Walker)
}

// walk decodes the call, recording its strings when w does.
func (c *Compound4Args) walk(w *walker, mode DataMode) {
	*c = Compound4Args{}
	c.Tag = w.opaque("tag")
	w.tag(c.Tag)
	c.MinorVersion = w.Uint32("minorversion")
	c.NumOps = w.Uint32("numops")
	for i := uint32(0); i < c.NumOps && w.Err() == nil; i++ {
		op := Op4Call{Pos: w.Offset()}
		op.Op = Op4(w.Uint32("argop"))
		if w.args(&op, mode); w.Err() == nil {
			c.Ops = append(c.Ops, op)
		}
	}
}

// AppendTo appends a COMPOUND call header (tag, minor version, op count) to
// b; the caller appends the operations.
func (c *Compound4Args) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.OpaqueVar(c.Tag)
	w.Uint32(c.MinorVersion)
	w.Uint32(c.NumOps)
	return w.Bytes()
}

// Op4Result is one operation result of a COMPOUND reply.
type Op4Result struct {
	Op     Op4
	Pos    int // offset of the operation number in the input
	Status Status4

	EOF       bool      // READ
	Count     uint32    // READ: data length; WRITE: count written
	Committed StableHow // WRITE
	DataPos   int       // READ: offset of the first data byte in the input
	Data      []byte    // READ: the data, nil when it went in a Write chunk
	FH        []byte    // GETFH: the file handle (aliases the input)
	// READDIR: each entry's rdattr_error, for the entries whose attributes
	// carry one (Wireshark shows it as an nfs.status).
	EntryStatus []Status4
}

// Compound4Res is a COMPOUND reply: its header and its operation results.
type Compound4Res struct {
	Status Status4
	Tag    []byte // aliases the input, nil when empty
	NumOps uint32 // as declared
	Ops    []Op4Result
}

// Decode decodes a COMPOUND reply from b and returns the bytes consumed; the
// READ data is looked for as DataMode says. When a result cannot be walked,
// Decode returns the results before it and an error naming its offset.
func (c *Compound4Res) Decode(b []byte, mode DataMode) (n int, err error) {
	w := newWalker(b, nil)
	c.walk(&w, mode)
	return walked(&w.Walker)
}

// walk decodes the reply, recording its strings when w does.
func (c *Compound4Res) walk(w *walker, mode DataMode) {
	*c = Compound4Res{}
	c.Status = Status4(w.Uint32("status"))
	c.Tag = w.opaque("tag")
	w.tag(c.Tag)
	c.NumOps = w.Uint32("numops")
	for i := uint32(0); i < c.NumOps && w.Err() == nil; i++ {
		res := Op4Result{Pos: w.Offset()}
		res.Op = Op4(w.Uint32("resop"))
		res.Status = Status4(w.Uint32("status"))
		if w.result(&res, mode); w.Err() == nil {
			c.Ops = append(c.Ops, res)
		}
	}
}

// AppendTo appends a COMPOUND reply header (status, tag, op count) to b;
// the caller appends the results.
func (c *Compound4Res) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.Uint32(uint32(c.Status))
	w.OpaqueVar(c.Tag)
	w.Uint32(c.NumOps)
	return w.Bytes()
}
