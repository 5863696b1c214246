// Package nfsd is the upper layer the lab's server runs: a small NFSv3
// service over an in-memory file system, with the duplicate reply cache
// (DRC) that reads the transport's acknowledged position. It is the part
// of fs/nfsd a learner needs to see the transport at work: it decodes the
// call svcrdma rebuilt, and builds the reply svcrdma sends, telling the
// transport which bytes a Write chunk carries.
package nfsd

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/rdmalab/rdmalab/engine/kernel"
	"github.com/rdmalab/rdmalab/engine/sched"
	"github.com/rdmalab/rdmalab/engine/svcrdma"
	"github.com/rdmalab/rdmalab/engine/trace"
	"github.com/rdmalab/rdmalab/proto/nfs"
	"github.com/rdmalab/rdmalab/proto/oncrpc"
)

// The DRC is bounded, as the kernel's is (nfsd's max_drc_entries): over
// MaxDRC entries the oldest answered ones go even if unacknowledged (with
// positions off no entry is ever acknowledged). Evicted keeps the last
// MaxEvicted entries for the views.
const (
	MaxDRC     = 1024
	MaxEvicted = 64
)

// File is one file of the in-memory export. Its bytes live in page-sized
// pages (its page cache) that a READ lends the reply instead of copying
// them, as nfsd_splice_read does.
type File struct {
	Name   string
	FH     []byte
	FileID uint64
	Dir    bool
	pages  []*svcrdma.Page
	size   int
	ps     int
}

// MaxFileSize is the largest size a WRITE may give a file (NFS3ERR_FBIG
// past it).
const MaxFileSize = 1 << 30

// pageCacheSrc is the extent source of a file page's bytes, for views.
const pageCacheSrc = "page cache"

// Size is the file's length in bytes.
func (f *File) Size() int { return f.size }

// Bytes is a copy of the file's content.
func (f *File) Bytes() []byte {
	out := make([]byte, 0, f.size)
	for i := 0; len(out) < f.size; i++ {
		out = append(out, f.pages[i].Data[:min(f.ps, f.size-len(out))]...)
	}
	return out
}

// Page is the page of the file's page cache holding byte i*page size, nil
// past the pages the file has.
func (f *File) Page(i int) *svcrdma.Page {
	if i < 0 || i >= len(f.pages) {
		return nil
	}
	return f.pages[i]
}

// WriteAt is vfs_write into the page cache: b's bytes go to [off, off+len(b)),
// the file growing as needed (a hole reads as zeros).
func (f *File) WriteAt(b []byte, off int64) (int, error) {
	if f.Dir {
		return 0, fmt.Errorf("nfsd: write to %s: is a directory", f.Name)
	}
	if off < 0 || off > MaxFileSize || int64(len(b)) > MaxFileSize-off {
		return 0, fmt.Errorf("nfsd: write of %d bytes at %d to %s: past the largest file (%d bytes)", len(b), off, f.Name, MaxFileSize)
	}
	f.write(b, int(off))
	return len(b), nil
}

// write is WriteAt once the range is known to be valid.
func (f *File) write(b []byte, off int) {
	end := off + len(b)
	f.grow(end)
	for o, n := off, 0; n < len(b); {
		c := copy(f.pages[o/f.ps].Data[o%f.ps:], b[n:])
		o, n = o+c, n+c
	}
	if end > f.size {
		f.setSize(end)
	}
}

// Truncate sets the file's size; bytes cut off read as zeros if it grows
// again.
func (f *File) Truncate(n int) error {
	if f.Dir {
		return fmt.Errorf("nfsd: truncate %s: is a directory", f.Name)
	}
	if n < 0 || n > MaxFileSize {
		return fmt.Errorf("nfsd: truncate %s to %d bytes: out of range 0..%d", f.Name, n, MaxFileSize)
	}
	f.grow(n)
	for o := n; o < f.size; {
		start := o % f.ps
		end := min(f.ps, start+f.size-o)
		clear(f.pages[o/f.ps].Data[start:end])
		o += end - start
	}
	f.setSize(n)
	return nil
}

// maxRegionGrowth bounds how far a region may reach past what a write
// needs: 64 MiB of 4 KiB pages.
const maxRegionGrowth = 16384

// grow gives the file the pages that end bytes need. A new region is at
// least as large as the pages the file has (up to maxRegionGrowth pages),
// so a growing file takes O(log size) regions: a real device registers
// one MR per region.
func (f *File) grow(end int) {
	need := (end + f.ps - 1) / f.ps
	if need <= len(f.pages) {
		return
	}
	n := max(need-len(f.pages), min(len(f.pages), maxRegionGrowth))
	n = min(n, (MaxFileSize+f.ps-1)/f.ps-len(f.pages))
	label := f.Name[:1] + "#"
	f.pages = append(f.pages, svcrdma.NewRegion(n, f.ps, len(f.pages), label).Pages...)
}

// setSize sets the size and the page cache extents of the pages whose
// share of the file changed.
func (f *File) setSize(n int) {
	lo, hi := min(n, f.size)/f.ps, (max(n, f.size)+f.ps-1)/f.ps
	f.size = n
	for i := lo; i < hi && i < len(f.pages); i++ {
		p := f.pages[i]
		p.Extents = p.Extents[:0]
		if k := min(f.ps, n-i*f.ps); k > 0 {
			p.Extents = append(p.Extents, svcrdma.Extent{Off: 0, Len: k, Source: pageCacheSrc})
		}
	}
}

// DRCEntry is a duplicate reply cache entry (struct nfsd_cacherep), with
// the fields the reply-position series adds.
type DRCEntry struct {
	XID      uint32 `json:"xid"`
	Proc     string `json:"proc"`
	State    string `json:"state"` // INPROG, DONE
	Xprt     uint64 `json:"xprt"`  // c_xprt: xpt_id of the transport that carried the call
	Pos      uint64 `json:"pos"`   // c_pos: reply position, 0 = never acknowledged
	Inflight bool   `json:"inflight"`
	reply    []byte
}

// Server is the NFS service.
type Server struct {
	Root    *File
	Files   []*File
	byFH    map[string]*File
	DRC     []*DRCEntry
	Evicted []DRCEntry // the last entries pruned because their reply was acknowledged
	current map[string]*DRCEntry
	verf    [8]byte
	ps      int // the page size of the files' page cache
}

// DataSize is how much the file "data" holds before any WRITE, so that a
// READ on a fresh lab moves real bytes.
const DataSize = 1 << 20

// New returns a server exporting a root directory with a file "data" of
// DataSize bytes of text and enough entries that READDIR needs a Reply
// chunk; files keep their bytes in pages of pageSize bytes.
func New(pageSize int) *Server {
	if pageSize <= 0 {
		pageSize = 4096
	}
	s := &Server{byFH: map[string]*File{}, current: map[string]*DRCEntry{}, ps: pageSize}
	s.Root = s.add("/", true)
	s.add("data", false).write(dataPattern(DataSize), 0)
	for i := 0; i < 150; i++ {
		s.add(fmt.Sprintf("file-%03d.txt", i), false)
	}
	copy(s.verf[:], "rdmalab!")
	return s
}

// dataPattern is n bytes of numbered 64-byte lines, so a byte's place in
// the file can be read from it: "data 000042 of the rdmalab export ...".
// Built without fmt: every lab makes 1 MiB of it.
func dataPattern(n int) []byte {
	const text = " of the rdmalab export: abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 0, n+64)
	var num [20]byte
	for i := 0; len(b) < n; i++ {
		start := len(b)
		d := strconv.AppendInt(num[:0], int64(i), 10)
		b = append(b, "data "...)
		for k := len(d); k < 6; k++ {
			b = append(b, '0')
		}
		b = append(append(b, d...), text...)
		for len(b)-start < 63 {
			b = append(b, ' ')
		}
		b = append(b, '\n')
	}
	return b[:n]
}

func (s *Server) add(name string, dir bool) *File {
	id := uint64(len(s.Files) + 2)
	fh := make([]byte, 32)
	copy(fh, "rdmalab-fh")
	for i := 0; i < 8; i++ {
		fh[24+i] = byte(id >> (56 - 8*i))
	}
	f := &File{Name: name, FH: fh, FileID: id, Dir: dir, ps: s.ps}
	s.Files = append(s.Files, f)
	s.byFH[string(fh)] = f
	return f
}

// Lookup finds a file by name.
func (s *Server) Lookup(name string) *File {
	for _, f := range s.Files {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Acked is the DRC's test of whether the entry's reply is known delivered
// on transport x: it is done, has a position, came on x, and x's
// acknowledged position has reached it. Only the transport the call came
// on can say so; a position means nothing on another.
func Acked(e *DRCEntry, x *svcrdma.Xprt) bool {
	return e.State == "DONE" && e.Pos != 0 && x != nil && e.Xprt == x.XptID && e.Pos <= x.AckedPosition()
}

func (f *File) attr() nfs.Fattr3 {
	a := nfs.Fattr3{Type: nfs.NF3Reg, Mode: 0o644, Nlink: 1, Size: uint64(f.size), Used: uint64(f.size), FSID: 1, FileID: f.FileID}
	if f.Dir {
		a.Type, a.Mode, a.Nlink = nfs.FType3(2), 0o755, 2
	}
	return a
}

// Process is svc_process for the NFS program: decode the call rebuilt in
// rq.Arg, run it, and lay the reply out in rq.Res.
func (s *Server) Process(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst) (drop bool) {
	// A WRITE whose data came by RDMA Read has its fixed part in the head,
	// up to the data's length word: nfsd takes the data from the pages.
	if s.writeFromPages(t, x, rq) {
		return false
	}
	msg := rq.Arg.Flatten(x.PageSize)
	var call oncrpc.CallHeader
	n, err := call.Decode(msg)
	if err != nil {
		t.Pointf(kernel.SvcProcess, "cannot decode the RPC call header: %v: dropped", err)
		rq.DropReason = fmt.Sprintf("svc_process: cannot decode the RPC call header: %v", err)
		return true
	}
	args := msg[n:]
	reply := oncrpc.ReplyHeader{XID: call.XID, Stat: oncrpc.MsgAccepted, AcceptStat: oncrpc.Success}
	if call.Prog != nfs.ProgNFS || call.Vers != 3 {
		reply.AcceptStat = oncrpc.ProgUnavail
		if call.Prog == nfs.ProgNFS {
			reply.AcceptStat, reply.MismatchLow, reply.MismatchHigh = oncrpc.ProgMismatch, 3, 3
		}
		s.setReply(rq, x, reply.AppendTo(nil), nil, nil)
		t.Pointf(kernel.SvcProcess, "xid 0x%x: program %d version %d: %v", call.XID, call.Prog, call.Vers, reply.AcceptStat)
		return false
	}
	proc := nfs.Proc3(call.Proc)
	if e := s.cacheLookup(t, x, call.XID, proc); e != nil {
		if e.State == "DONE" {
			s.setReply(rq, x, e.reply, nil, nil)
			t.Pointf(kernel.NfsdCacheLookup, "xid 0x%x is a retransmission: the cached reply is sent again", call.XID)
			return false
		}
		t.Pointf(kernel.NfsdCacheLookup, "xid 0x%x is in progress: dropped", call.XID)
		rq.DropReason = "nfsd_cache_lookup: the same XID is in progress (a retransmission)"
		return true
	}
	defer t.Call(procFunc(proc), "xid", xidArg(call.XID), "args", len(args))(nil)
	hdr := reply.AppendTo(make([]byte, 0, replyRoom))
	switch proc {
	case nfs.Proc3Null:
		s.setReply(rq, x, hdr, nil, nil)
	case nfs.Proc3GetAttr:
		s.getattr(t, x, rq, hdr, args)
	case nfs.Proc3Write:
		s.write(t, x, rq, hdr, args, call.XID)
	case nfs.Proc3Read:
		s.read(t, x, rq, hdr, args)
	case nfs.Proc3ReadDir:
		s.readdir(t, x, rq, hdr, args)
	default:
		reply.AcceptStat = oncrpc.ProcUnavail
		s.setReply(rq, x, reply.AppendTo(nil), nil, nil)
	}
	return false
}

// xidArg is an XID as an event argument, shown "0x…"; it is formatted only
// when the event's arguments are (not with the scheduler's Quiet).
type xidArg uint32

var _ trace.Appender = xidArg(0)

func (x xidArg) String() string {
	var b [10]byte
	return string(x.AppendArg(b[:0]))
}

// AppendArg appends String() to b (trace.Appender).
func (x xidArg) AppendArg(b []byte) []byte {
	return strconv.AppendUint(append(b, "0x"...), uint64(x), 16)
}

// replyRoom is the capacity a reply's head is encoded into: the RPC
// header and the fixed results of every procedure but READDIR's entries.
const replyRoom = 256

// procFunc is the procedure's nfsd3_proc_ function. A number NFSv3 does
// not define gets one made for the call: nfsd answers it PROC_UNAVAIL,
// and its event names the number.
func procFunc(p nfs.Proc3) *trace.Func {
	if f, ok := kernel.Nfsd3Proc(uint32(p)); ok {
		return f
	}
	return trace.Declare("nfsd3_proc_"+procName(p), "a procedure NFSv3 does not define", "xid", "args")
}

func procName(p nfs.Proc3) string {
	return string(bytes.ToLower([]byte(p.String())))
}

// garbage answers GARBAGE_ARGS.
func (s *Server) garbage(rq *svcrdma.Rqst, x *svcrdma.Xprt, xid uint32) {
	r := oncrpc.ReplyHeader{XID: xid, Stat: oncrpc.MsgAccepted, AcceptStat: oncrpc.GarbageArgs}
	s.setReply(rq, x, r.AppendTo(nil), nil, nil)
}

func (s *Server) getattr(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst, hdr, args []byte) {
	var a nfs.GetAttr3Args
	if _, err := a.Decode(args); err != nil {
		s.garbage(rq, x, rq.XID)
		return
	}
	res := nfs.GetAttr3Res{Status: nfs.NFS3ErrStale}
	if f := s.byFH[string(a.Object)]; f != nil {
		res = nfs.GetAttr3Res{Status: nfs.NFS3OK, Attr: f.attr()}
	}
	s.setReply(rq, x, res.AppendTo(hdr), nil, nil)
}

func (s *Server) write(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst, hdr, args []byte, xid uint32) {
	var a nfs.Write3Args
	if _, err := a.Decode(args, nfs.DataInline); err != nil {
		t.Pointf(kernel.Nfs3svcDecodeWriteargs, "%v: GARBAGE_ARGS", err)
		s.garbage(rq, x, xid)
		return
	}
	res := nfs.Write3Res{Status: nfs.NFS3ErrStale}
	if f := s.byFH[string(a.File)]; f != nil && !f.Dir {
		if a.Offset > MaxFileSize || uint64(len(a.Data)) > MaxFileSize-a.Offset {
			res.Status = nfs.NFS3ErrFBig
		} else {
			_, _ = f.WriteAt(a.Data, int64(a.Offset)) // in range: checked above
			res = nfs.Write3Res{Status: nfs.NFS3OK, Count: uint32(len(a.Data)), Committed: nfs.FileSync, Verf: s.verf}
			t.Point(kernel.NfsdWrite, "file", f.Name, "offset", a.Offset, "count", len(a.Data))
		}
	}
	out := res.AppendTo(hdr)
	s.setReply(rq, x, out, nil, nil)
	s.cacheUpdate(t, x, rq, xid, "WRITE", out)
}

// writeFromPages handles a WRITE laid out as svc_rdma_read_complete_one
// leaves it: the head ends with the data's length word and the pages hold
// the data. It reports false, having done nothing, for any other call.
func (s *Server) writeFromPages(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst) bool {
	head := rq.Arg.Head.Bytes()
	if rq.Arg.PageLen == 0 {
		return false
	}
	var call oncrpc.CallHeader
	n, err := call.Decode(head)
	if err != nil || call.Prog != nfs.ProgNFS || call.Vers != 3 || nfs.Proc3(call.Proc) != nfs.Proc3Write {
		return false
	}
	var a nfs.Write3Args
	m, err := a.Decode(head[n:], nfs.DataReduced)
	if err != nil || n+m != len(head) || (int(a.DataLen)+3)&^3 != rq.Arg.PageLen {
		return false
	}
	if e := s.cacheLookup(t, x, call.XID, nfs.Proc3Write); e != nil {
		return false // let Process answer the retransmission
	}
	defer t.Call(kernel.Nfsd3ProcWrite, "xid", xidArg(call.XID), "data_in_pages", a.DataLen)(nil)
	reply := oncrpc.ReplyHeader{XID: call.XID, Stat: oncrpc.MsgAccepted, AcceptStat: oncrpc.Success}
	s.storePages(t, x, rq, reply.AppendTo(make([]byte, 0, replyRoom)), &a, call.XID)
	return true
}

// storePages writes the data in rq_arg's pages to the file.
func (s *Server) storePages(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst, hdr []byte, a *nfs.Write3Args, xid uint32) {
	res := nfs.Write3Res{Status: nfs.NFS3ErrStale}
	if f := s.byFH[string(a.File)]; f != nil && !f.Dir {
		n := int(a.DataLen)
		if a.Offset > MaxFileSize || uint64(n) > MaxFileSize-a.Offset {
			res.Status = nfs.NFS3ErrFBig
		} else {
			// vfs_write: the pages' bytes are copied into the page cache.
			if end := int(a.Offset) + n; end > f.size {
				_ = f.Truncate(end) // in range: checked above
			}
			off, left := int64(a.Offset), n
			for i := 0; left > 0 && i < len(rq.Arg.Pages); i++ {
				k, _ := f.WriteAt(rq.Arg.Pages[i].Data[:min(left, len(rq.Arg.Pages[i].Data))], off)
				off, left = off+int64(k), left-k
			}
			res = nfs.Write3Res{Status: nfs.NFS3OK, Count: uint32(n), Committed: nfs.FileSync, Verf: s.verf}
			t.Point(kernel.NfsdWrite, "file", f.Name, "offset", a.Offset, "count", n)
		}
	}
	out := res.AppendTo(hdr)
	s.setReply(rq, x, out, nil, nil)
	s.cacheUpdate(t, x, rq, xid, "WRITE", out)
}

func (s *Server) read(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst, hdr, args []byte) {
	var a nfs.Read3Args
	if _, err := a.Decode(args); err != nil {
		s.garbage(rq, x, rq.XID)
		return
	}
	f := s.byFH[string(a.File)]
	if f == nil || f.Dir {
		res := nfs.Read3Res{Status: nfs.NFS3ErrStale}
		out, _ := res.AppendTo(hdr, nfs.DataReduced)
		s.setReply(rq, x, out, nil, nil)
		return
	}
	// nfsd_splice_read lends the reply the file's pages: no more than the
	// thread has slots for after the head (svc_max_payload's clamp).
	var count int
	if a.Offset < uint64(f.size) {
		base := int(a.Offset) % s.ps
		slots := len(rq.Pages) - rq.RespagesIdx - 1
		count = min(int(a.Count), f.size-int(a.Offset), max(0, slots*s.ps-base))
	}
	res := nfs.Read3Res{Status: nfs.NFS3OK, FileAttr: nfs.PostOpAttr{Present: true, Attr: f.attr()},
		Count: uint32(count), EOF: a.Offset+uint64(count) >= uint64(f.size), DataLen: uint32(count)}
	head, dataPos := res.AppendTo(hdr, nfs.DataReduced)
	var pad [3]byte
	if !s.spliceReply(rq, x, head, f, int(a.Offset), count, pad[:(4-count%4)%4]) {
		t.Pointf(kernel.NfsdSpliceActor, "svc_rqst_replace_page failed: NFS3ERR_IO")
		res := nfs.Read3Res{Status: nfs.NFS3ErrIO}
		out, _ := res.AppendTo(hdr, nfs.DataReduced)
		s.setReply(rq, x, out, nil, nil)
		return
	}
	t.Point(kernel.NfsdRead, "file", f.Name, "offset", a.Offset, "count", count, "data_at", dataPos)
	// nfs3svc_encode_readres → xdr_write_pages → svc_encode_result_payload
	if err := x.ResultPayload(t, rq, dataPos, count); err != nil {
		// The encoder fails: nfsd_dispatch answers SYSTEM_ERR and
		// svc_process_common cuts the reply after the accept status.
		t.Pointf(kernel.NfsdCantEncodeErr, "svc_encode_result_payload: -%v: the client's Write chunk is too small: SYSTEM_ERR", err)
		r := oncrpc.ReplyHeader{XID: rq.XID, Stat: oncrpc.MsgAccepted, AcceptStat: oncrpc.SystemErr}
		s.setReply(rq, x, r.AppendTo(nil), nil, nil)
	}
}

// spliceReply lays a READ reply out as nfsd_splice_read does: the head as
// setReply puts it, then the file's pages holding [off, off+n) in the
// following slots (svc_rqst_replace_page), the data starting at page_base.
// It reports false if a slot could not take its page.
func (s *Server) spliceReply(rq *svcrdma.Rqst, x *svcrdma.Xprt, head []byte, f *File, off, n int, tail []byte) bool {
	s.setReply(rq, x, head, nil, tail)
	if n == 0 {
		return true
	}
	first := rq.NextPageIdx
	for i := off / s.ps; i <= (off+n-1)/s.ps; i++ {
		if !x.ReplacePage(rq, f.pages[i]) {
			return false
		}
	}
	rq.Res.Pages = rq.Pages[first:rq.NextPageIdx]
	rq.Res.PageBase = off % s.ps
	rq.Res.PageLen = n
	rq.Res.Len += n
	return true
}

func (s *Server) readdir(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst, hdr, args []byte) {
	var a nfs.ReadDir3Args
	if _, err := a.Decode(args); err != nil {
		s.garbage(rq, x, rq.XID)
		return
	}
	res := nfs.ReadDir3Res{Status: nfs.NFS3OK, DirAttr: nfs.PostOpAttr{Present: true, Attr: s.Root.attr()}, EOF: true}
	size := 0
	for i, f := range s.Files[1:] {
		if uint64(i) < a.Cookie {
			continue
		}
		size += 24 + (len(f.Name)+3)&^3
		if a.Count > 0 && size > int(a.Count) {
			res.EOF = false
			break
		}
		res.Entries = append(res.Entries, nfs.Entry3{FileID: f.FileID, Name: f.Name, Cookie: uint64(i + 1)})
	}
	body := res.AppendTo(nil)
	// nfsd encodes directory entries into the reply's pages.
	s.setReply(rq, x, hdr, body, nil)
	t.Point(kernel.NfsdReaddir, "entries", len(res.Entries), "bytes", len(body))
}

// setReply lays the reply out as nfsd does: the RPC header and fixed
// results in the head (rq_respages[0]), bulk data in the following pages,
// the tail after the head in the same page.
func (s *Server) setReply(rq *svcrdma.Rqst, x *svcrdma.Xprt, head, data, tail []byte) {
	ps := x.PageSize
	idx := rq.RespagesIdx
	r0 := rq.Pages[idx]
	copy(r0.Data, head)
	res := svcrdma.XdrBuf{Head: svcrdma.Kvec{Page: r0, Off: 0, Len: len(head)}}
	next := idx + 1
	if len(data) > 0 {
		npages := (len(data) + ps - 1) / ps
		res.Pages = rq.Pages[next : next+npages]
		for i := 0; i < npages; i++ {
			copy(res.Pages[i].Data, data[i*ps:min(len(data), (i+1)*ps)])
		}
		res.PageLen = len(data)
		next += npages
	}
	if len(tail) > 0 {
		copy(r0.Data[len(head):], tail)
		res.Tail = svcrdma.Kvec{Page: r0, Off: len(head), Len: len(tail)}
	}
	res.Len = res.Head.Len + res.PageLen + res.Tail.Len
	rq.Res = res
	rq.NextPageIdx = next
}

// cacheLookup is nfsd_cache_lookup: find a retransmission, prune the
// entries whose replies are acknowledged on this transport.
func (s *Server) cacheLookup(t *sched.Task, x *svcrdma.Xprt, xid uint32, proc nfs.Proc3) *DRCEntry {
	evicted := 0
	kept := s.DRC[:0]
	stop := false
	for _, e := range s.DRC {
		if !stop && !e.Inflight && evicted < 3 && Acked(e, x) {
			evicted++
			s.evicted(e)
			t.Point(kernel.NfsdCacheEvict, "xid", xidArg(e.XID), "pos", e.Pos, "acked_pos", x.AckedPosition())
			continue
		}
		if !e.Inflight {
			stop = true // an unacknowledged entry: the older-first walk ends
		}
		kept = append(kept, e)
	}
	s.DRC = kept
	for _, e := range s.DRC {
		if e.XID == xid {
			return e
		}
	}
	return nil
}

// evicted remembers a pruned entry, the last MaxEvicted only.
func (s *Server) evicted(e *DRCEntry) {
	if len(s.Evicted) >= MaxEvicted {
		s.Evicted = append(s.Evicted[:0], s.Evicted[len(s.Evicted)-MaxEvicted+1:]...)
	}
	s.Evicted = append(s.Evicted, *e)
}

// cacheUpdate is nfsd_cache_update for a non-idempotent call.
func (s *Server) cacheUpdate(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst, xid uint32, proc string, reply []byte) {
	if len(s.DRC) >= MaxDRC {
		// Full: the oldest answered entry goes, acknowledged or not.
		if i := slices.IndexFunc(s.DRC, func(e *DRCEntry) bool { return !e.Inflight }); i >= 0 {
			t.Point(kernel.NfsdCachePrune, "xid", xidArg(s.DRC[i].XID), "entries", len(s.DRC))
			s.DRC = slices.Delete(s.DRC, i, i+1)
		}
	}
	e := &DRCEntry{XID: xid, Proc: proc, State: "DONE", Xprt: x.XptID, Inflight: true, reply: append([]byte(nil), reply...)}
	s.DRC = append(s.DRC, e)
	s.current[rq.Name] = e
	t.Point(kernel.NfsdCacheUpdate, "xid", xidArg(xid), "inflight", true)
}

// Current returns the DRC entry of the call thread name is processing,
// until its reply has been sent (model only: the kernel keeps it in the
// svc_rqst).
func (s *Server) Current(name string) *DRCEntry { return s.current[name] }

// ReplySent is nfsd_cache_reply_sent: the entry learns its position.
func (s *Server) ReplySent(t *sched.Task, x *svcrdma.Xprt, rq *svcrdma.Rqst) {
	e := s.current[rq.Name]
	if e == nil {
		return
	}
	delete(s.current, rq.Name)
	e.Pos = rq.ReplyPos
	e.Inflight = false
	t.Point(kernel.NfsdCacheReplySent, "xid", xidArg(e.XID), "c_pos", e.Pos)
}
