package nfs

// What Wireshark's NFS dissector shows of a call or reply as fields
// (nfs.procedure_v3, nfs.offset3, nfs.count3, nfs.opcode, ...), for a
// decoder that prints them under Wireshark's names. Only the procedure,
// the operations, the status and the offsets and counts of READ, WRITE and
// COMMIT are kept: what a reader of RDMA traffic looks for; and the names
// and paths the summary shows escaped, exactly as the wire has them.

import "iter"

// Fields are the NFS fields of one call or reply. A field is present when
// its Has flag (or, for slices, its length) says so.
type Fields struct {
	Vers, Proc uint32

	// NFSv4 COMPOUND: the operations in order (nfs.opcode) and those
	// the Info column names, the operations of the most important tier
	// (nfs.main_opcode).
	Ops       []Op4
	MainOps   []Op4
	Status    uint32    // a reply: nfsstat3, or the COMPOUND's nfsstat4
	HasStatus bool      //
	OpStatus  []Status4 // NFSv4 reply: each operation's status
	// EntryStatus is the rdattr_error of each READDIR entry that has one,
	// in the result of operation EntryOp (an index in Ops).
	EntryStatus []Status4
	EntryOp     int
	Offset      uint64    // READ, WRITE, COMMIT call (nfs.offset3, nfs.offset4)
	HasOffset   bool      //
	Count       uint32    // nfs.count3, nfs.count4 (see CallFields, ReplyFields)
	HasCount    bool      //
	Stable      StableHow // WRITE call (nfs.write.stable, nfs.stable_how4), WRITE reply (committed)
	HasStable   bool      //
	DataLen     uint32    // NFSv4 WRITE call, READ reply (nfs.write.data_length, nfs.read.data_length)
	HasDataLen  bool      //
	EOF         bool      // READ reply (nfs.read.eof, nfs.eof)
	HasEOF      bool      //

	// Strings are the names, paths, link targets and NFSv4 tag the
	// message carries, in wire order, exactly as sent: not fit for a
	// terminal as they are (see package safe).
	Strings []StringField
}

// StringField is a string from the wire under Wireshark's field name.
type StringField struct {
	Field string // nfs.name, nfs.readdirplus.entry.name, nfs.tag, ...
	Value string
}

// Wireshark's names of the string fields.
const (
	fieldName          = "nfs.name"                   // filename3 of diropargs3; an NFSv4 READDIR entry
	fieldSymlinkTo     = "nfs.symlink.to"             // SYMLINK3args symlink_data
	fieldReadLinkData  = "nfs.readlink.data"          // READLINK3resok data
	fieldEntry3Name    = "nfs.readdir.entry3.name"    // entry3
	fieldEntryPlusName = "nfs.readdirplus.entry.name" // entryplus3
	fieldComponent     = "nfs.pathname.component"     // component4
	fieldLinkText      = "nfs.symlink.linktext"       // linktext4
	fieldEntryName     = "nfs.entry_name"             // entry4 name (with nfs.name)
	fieldTag           = "nfs.tag"                    // COMPOUND tag, empty too
)

// CallFields returns the fields of an NFS call to vers, proc whose
// arguments are body, as far as they decode; ok is false for programs and
// versions other than NFSv3 and NFSv4. A WRITE's data may be missing
// (moved to a Read chunk). NFSv3 READ, WRITE and COMMIT give Offset and
// Count; WRITE also Stable. An NFSv4 READ gives Offset and Count, a WRITE
// Offset, Stable and DataLen (the first READ or WRITE of the COMPOUND).
func CallFields(prog, vers, proc uint32, body []byte) (f Fields, ok bool) {
	if prog != ProgNFS || (vers != 3 && vers != 4) {
		return f, false
	}
	f.Vers, f.Proc = vers, proc
	w := newWalker(body, &f.Strings)
	switch {
	case vers == 3 && (Proc3(proc) == Proc3Read || Proc3(proc) == Proc3Commit):
		decodeFH3(&w.Walker, "file")
		off, count := w.Uint64("offset"), w.Uint32("count")
		if w.Err() == nil {
			f.Offset, f.Count, f.HasOffset, f.HasCount = off, count, true, true
		}
	case vers == 3 && Proc3(proc) == Proc3Write:
		var a Write3Args
		if a.walk(&w.Walker, DataAuto); w.Err() == nil {
			f.Offset, f.Count, f.Stable = a.Offset, a.Count, a.Stable
			f.HasOffset, f.HasCount, f.HasStable = true, true, true
		}
	case vers == 3:
		s := summary{strs: &f.Strings}
		callArgs3(&s, Proc3(proc), body) // the names before an undecodable field
	case vers == 4 && proc == 1:
		var c Compound4Args
		c.walk(&w, DataAuto) // the operations before an undecodable one
		f.Ops = make([]Op4, len(c.Ops))
		io := false
		for i, op := range c.Ops {
			f.Ops[i] = op.Op
			switch {
			case io:
			case op.Op == Op4Read:
				f.Offset, f.Count, f.HasOffset, f.HasCount, io = op.Offset, op.Count, true, true, true
			case op.Op == Op4Write:
				f.Offset, f.Stable, f.DataLen, io = op.Offset, op.Stable, op.Count, true
				f.HasOffset, f.HasStable, f.HasDataLen = true, true, true
			}
		}
		f.MainOps = mainOps(f.Ops)
	}
	return f, true
}

// ReplyFields returns the fields of an NFS reply to a call to vers, proc
// whose results are body (after an accepted-SUCCESS reply header); ok as
// for CallFields. NFSv3: Status, and for READ Count and EOF, WRITE Count
// and Stable (committed). NFSv4: Status, OpStatus, Ops, and for READ EOF
// and DataLen, WRITE Count and Stable (committed).
func ReplyFields(prog, vers, proc uint32, body []byte) (f Fields, ok bool) {
	return replyFields(prog, vers, proc, body, nil)
}

// replyFields is ReplyFields; when sum is not nil and the results carry
// strings, the walk that collects them also writes the summary into sum.
func replyFields(prog, vers, proc uint32, body []byte, sum *summary) (f Fields, ok bool) {
	if prog != ProgNFS || (vers != 3 && vers != 4) {
		return f, false
	}
	f.Vers, f.Proc = vers, proc
	w := newWalker(body, &f.Strings)
	switch {
	case vers == 3 && Proc3(proc) == Proc3Null:
	case vers == 3 && Proc3(proc) == Proc3Read:
		var res Read3Res
		if res.walk(&w.Walker, DataAuto); w.Err() == nil {
			f.Status, f.HasStatus = uint32(res.Status), true
			if res.Status == NFS3OK {
				f.Count, f.EOF, f.HasCount, f.HasEOF = res.Count, res.EOF, true, true
			}
		}
	case vers == 3 && Proc3(proc) == Proc3Write:
		var res Write3Res
		if res.walk(&w.Walker); w.Err() == nil {
			f.Status, f.HasStatus = uint32(res.Status), true
			if res.Status == NFS3OK {
				f.Count, f.Stable, f.HasCount, f.HasStable = res.Count, res.Committed, true, true
			}
		}
	case vers == 3:
		if st := decodeStat3(&w.Walker); w.Err() == nil {
			f.Status, f.HasStatus = uint32(st), true
		}
		switch Proc3(proc) {
		case Proc3ReadLink, Proc3ReadDir, Proc3ReadDirPlus:
			if sum == nil {
				s := summary{strs: &f.Strings}
				replyResults3(&s, Proc3(proc), body)
				break
			}
			sum.strs = &f.Strings
			sum.reply3(proc, body)
			sum.strs = nil
		}
	case vers == 4 && proc == 1:
		var c Compound4Res
		if c.walk(&w, DataAuto); w.Err() != nil && len(c.Ops) == 0 && c.NumOps != 0 {
			return f, true
		}
		f.Status, f.HasStatus = uint32(c.Status), true
		f.Ops = make([]Op4, len(c.Ops))
		f.OpStatus = make([]Status4, len(c.Ops))
		io := false
		for i, op := range c.Ops {
			f.Ops[i], f.OpStatus[i] = op.Op, op.Status
			if len(op.EntryStatus) > 0 && f.EntryStatus == nil {
				f.EntryStatus, f.EntryOp = op.EntryStatus, i
			}
			switch {
			case io || op.Status != NFS4OK:
			case op.Op == Op4Read:
				f.EOF, f.DataLen, f.HasEOF, f.HasDataLen, io = op.EOF, op.Count, true, true, true
			case op.Op == Op4Write:
				f.Count, f.Stable, f.HasCount, f.HasStable, io = op.Count, op.Committed, true, true, true
			}
		}
		f.MainOps = mainOps(f.Ops)
	}
	return f, true
}

// mainOps returns the operations of the most important tier present, the
// ones the summary lists and Wireshark calls main opcodes.
func mainOps(ops []Op4) []Op4 {
	tier := 6
	for _, op := range ops {
		tier = min(tier, op4Tier(op))
	}
	var main []Op4
	for _, op := range ops {
		if op4Tier(op) == tier {
			main = append(main, op)
		}
	}
	return main
}

// Statuses are the message's nfs.status values in Wireshark's order: an
// NFSv3 reply's status; a COMPOUND's, then each operation's, with the
// rdattr_error of each READDIR entry after its operation's.
func (f *Fields) Statuses() iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		if !f.HasStatus || !yield(f.Status) || f.Vers == 3 {
			return
		}
		for i, st := range f.OpStatus {
			if !yield(uint32(st)) {
				return
			}
			if i != f.EntryOp {
				continue
			}
			for _, est := range f.EntryStatus {
				if !yield(uint32(est)) {
					return
				}
			}
		}
	}
}
