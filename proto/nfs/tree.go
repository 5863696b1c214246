package nfs

// The argument tree of a call, as tshark -V shows it under "Network File
// System" or "NFSACL": the file handles (length, CRC-32 hash, bytes), the
// names, offsets and counts, and for NFSv4 each operation of the COMPOUND
// with its file handle or name. Each line carries the bytes of the body it
// shows, so that a UI can highlight them. Names are escaped (package safe).

import (
	"fmt"

	"github.com/rdmalab/rdmalab/proto/safe"
	"github.com/rdmalab/rdmalab/proto/xdr"
)

// TreeLine is one line of an argument tree: Start and End are offsets in
// the body the tree was made from (End exclusive).
type TreeLine struct {
	Depth      int
	Text       string
	Start, End int
}

// ProcName returns the name Wireshark gives procedure proc of prog, vers
// ("READ", "GETACL", "COMPOUND"), or "Proc N".
func ProcName(prog, vers, proc uint32) string {
	if prog == ProgNFS && vers == 4 && proc == 1 {
		return "COMPOUND"
	}
	return otherProcName(prog, vers, proc)
}

// treeWriter collects the lines; a line past the end of what decoded is
// not written.
type treeWriter struct {
	w     xdr.Walker
	body  []byte
	lines []TreeLine
}

func (t *treeWriter) line(depth, start int, format string, args ...any) {
	if t.w.Err() != nil {
		return
	}
	t.lines = append(t.lines, TreeLine{Depth: depth, Text: fmt.Sprintf(format, args...), Start: start, End: t.w.Offset()})
}

// fh reads an nfs_fh3 (or nfs_fh4) and writes it as tshark does.
func (t *treeWriter) fh(depth int, label, field string) {
	start := t.w.Offset()
	fh := FH3(t.w.OpaqueVar(FHSize3, field))
	t.line(depth, start, "%s (length: %d, hash (CRC-32): 0x%08x)", label, len(fh), fh.Hash())
	t.line(depth+1, start+4, "FileHandle: %x", []byte(fh))
}

func (t *treeWriter) name(depth int, label string) {
	start := t.w.Offset()
	s := t.w.String(MaxNameLen, "name")
	t.line(depth, start, "%s: %s", label, safe.Text(s))
}

func (t *treeWriter) u32(depth int, format, field string) uint32 {
	start := t.w.Offset()
	v := t.w.Uint32(field)
	t.line(depth, start, format, v)
	return v
}

func (t *treeWriter) u64(depth int, format, field string) {
	start := t.w.Offset()
	v := t.w.Uint64(field)
	t.line(depth, start, format, v)
}

// CallTree returns the argument tree of a call to prog, vers, proc whose
// arguments are body: NFSv3, NFSv4 COMPOUND and NFSACL. It stops where
// the body stops decoding; other programs give none.
func CallTree(prog, vers, proc uint32, body []byte) []TreeLine {
	t := &treeWriter{w: xdr.NewWalker(body), body: body}
	switch {
	case prog == ProgNFS && vers == 3:
		t.call3(Proc3(proc))
	case prog == ProgNFS && vers == 4 && proc == 1:
		t.compound()
	case prog == progNFSACL && proc != 0:
		// GETACL, SETACL, GETATTR, ACCESS: the file handle first.
		t.fh(0, "fhandle", "fh")
		if proc == 1 {
			mask := t.u32(0, "Mask: 0x%08x", "mask")
			for i, n := range []string{"ACL entry", "ACL count", "Default ACL entry", "Default ACL count"} {
				t.line(1, t.w.Offset()-4, "%s: %s", n, yesNo(mask&(1<<i) != 0))
			}
		}
	}
	return t.lines
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

func (t *treeWriter) call3(proc Proc3) {
	switch proc {
	case Proc3Null:
	case Proc3Lookup, Proc3Remove, Proc3Rmdir, Proc3Mkdir, Proc3Create, Proc3Symlink, Proc3Mknod:
		t.dirop("where")
	case Proc3Rename:
		t.dirop("from")
		t.dirop("to")
	case Proc3Link:
		t.fh(0, "file", "file")
		t.dirop("link")
	default:
		t.fh(0, "object", "object")
		switch proc {
		case Proc3Access:
			t.u32(0, "Check access: 0x%02x", "access")
		case Proc3Read, Proc3Commit:
			t.u64(0, "Offset: %d", "offset")
			t.u32(0, "Count: %d", "count")
		case Proc3Write:
			t.u64(0, "Offset: %d", "offset")
			t.u32(0, "Count: %d", "count")
			start := t.w.Offset()
			st := StableHow(t.w.Uint32("stable"))
			t.line(0, start, "Stable: %s", st)
		case Proc3ReadDir, Proc3ReadDirPlus:
			t.u64(0, "Cookie: %d", "cookie")
		}
	}
}

// dirop writes a diropargs3: the directory's handle and a name.
func (t *treeWriter) dirop(label string) {
	start := len(t.lines)
	from := t.w.Offset()
	t.line(0, from, "%s", label)
	t.fh(1, "dir", "dir")
	t.name(1, "Name")
	if start < len(t.lines) {
		t.lines[start].End = t.w.Offset()
	}
}

// compound writes a COMPOUND's header and its operations, each with what
// the summary knows of it (file handle, name, offset and count).
func (t *treeWriter) compound() {
	var c Compound4Args
	w := newWalker(t.body, nil)
	c.walk(&w, DataAuto)
	t.w = w.Walker
	hdr := 4 + xdr.RoundUp(len(c.Tag))
	if hdr+8 > len(t.body) {
		return // the header itself did not decode
	}
	t.lines = append(t.lines, TreeLine{Depth: 0, Text: fmt.Sprintf("Tag: %s", tagText(c.Tag)), Start: 0, End: hdr})
	t.lines = append(t.lines,
		TreeLine{Depth: 0, Text: fmt.Sprintf("minorversion: %d", c.MinorVersion), Start: hdr, End: hdr + 4},
		TreeLine{Depth: 0, Text: fmt.Sprintf("Operations (count: %d)", c.NumOps), Start: hdr + 4, End: hdr + 8})
	for i, op := range c.Ops {
		end := len(t.body)
		if i+1 < len(c.Ops) {
			end = c.Ops[i+1].Pos
		} else if t.w.Err() == nil {
			end = t.w.Offset()
		}
		t.lines = append(t.lines, TreeLine{Depth: 1, Text: fmt.Sprintf("Opcode: %s (%d)", op.Op, uint32(op.Op)), Start: op.Pos, End: end})
		switch {
		case op.FH != nil:
			t.lines = append(t.lines, TreeLine{Depth: 2, Text: fmt.Sprintf("FileHandle (length: %d, hash (CRC-32): 0x%08x): %x", len(op.FH), FHHash(op.FH), op.FH),
				Start: op.Pos + 4, End: end})
		case op.Name != "":
			t.lines = append(t.lines, TreeLine{Depth: 2, Text: "Name: " + safe.Text(op.Name), Start: op.Pos + 4, End: end})
		case op.Op == Op4Read || op.Op == Op4Write:
			t.lines = append(t.lines, TreeLine{Depth: 2, Text: fmt.Sprintf("StateID: 0x%04x, Offset: %d, Count: %d", op.StateID.Hash(), op.Offset, op.Count),
				Start: op.Pos + 4, End: end})
		}
	}
}

func tagText(tag []byte) string {
	if len(tag) == 0 {
		return "<EMPTY>"
	}
	return safe.Text(string(tag))
}
