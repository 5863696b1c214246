package nfs

// NFSv3 GETATTR, READDIR and READDIRPLUS (RFC 1813 §3.3.1, §3.3.16, §3.3.17):
//
//	GETATTR3args  | object (nfs_fh3) |
//	GETATTR3res   | status | NFS3_OK: obj_attributes (fattr3, 84 bytes) |
//
//	READDIR3args  | dir | cookie (8) | cookieverf (8) | count |
//	READDIR3res   | status | dir_attributes (post_op_attr) | NFS3_OK only:
//	              | cookieverf (8) | 1 | entry3 | 1 | entry3 | ... | 0 | eof |
//	entry3        | fileid (8) | name (string) | cookie (8) |
//
//	READDIRPLUS3args  | dir | cookie (8) | cookieverf (8) | dircount | maxcount |
//	READDIRPLUS3res   like READDIR3res, with entryplus3 entries:
//	entryplus3        | fileid (8) | name | cookie (8) | name_attributes (post_op_attr) |
//	                  | name_handle (post_op_fh3) |

import "github.com/rdmalab/rdmalab/proto/xdr"

// GetAttr3Args holds the arguments of GETATTR.
type GetAttr3Args struct {
	Object FH3
}

// AppendTo appends the encoded arguments to b.
func (a *GetAttr3Args) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.OpaqueVar(a.Object)
	return w.Bytes()
}

// Decode decodes GETATTR3args from b and returns the bytes consumed.
func (a *GetAttr3Args) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	a.Object = decodeFH3(&w, "object")
	return walked(&w)
}

// GetAttr3Res holds the results of GETATTR; Attr is on the wire only when
// Status is NFS3_OK.
type GetAttr3Res struct {
	Status Stat3
	Attr   Fattr3
}

// AppendTo appends the encoded results to b.
func (s *GetAttr3Res) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.Uint32(uint32(s.Status))
	if s.Status == NFS3OK {
		s.Attr.EncodeXDR(&w)
	}
	return w.Bytes()
}

// Decode decodes GETATTR3res from b and returns the bytes consumed.
func (s *GetAttr3Res) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	*s = GetAttr3Res{}
	if s.Status = decodeStat3(&w); s.Status == NFS3OK {
		s.Attr.walk(&w)
	}
	return walked(&w)
}

// ReadDir3Args holds the arguments of READDIR.
type ReadDir3Args struct {
	Dir        FH3
	Cookie     uint64
	CookieVerf [CookieVerfSize3]byte
	Count      uint32
}

// AppendTo appends the encoded arguments to b.
func (a *ReadDir3Args) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.OpaqueVar(a.Dir)
	w.Uint64(a.Cookie)
	w.OpaqueFixed(a.CookieVerf[:])
	w.Uint32(a.Count)
	return w.Bytes()
}

// Decode decodes READDIR3args from b and returns the bytes consumed.
func (a *ReadDir3Args) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	*a = ReadDir3Args{}
	a.Dir = decodeFH3(&w, "dir")
	a.Cookie = w.Uint64("cookie")
	copy(a.CookieVerf[:], w.OpaqueFixed(CookieVerfSize3, "cookieverf"))
	a.Count = w.Uint32("count")
	return walked(&w)
}

// Entry3 is one READDIR entry, entry3.
type Entry3 struct {
	FileID uint64
	Name   string
	Cookie uint64
}

// ReadDir3Res holds the results of READDIR. The fields after DirAttr are on
// the wire only when Status is NFS3_OK.
type ReadDir3Res struct {
	Status     Stat3
	DirAttr    PostOpAttr
	CookieVerf [CookieVerfSize3]byte
	Entries    []Entry3 // nil when empty
	EOF        bool
}

// AppendTo appends the encoded results to b.
func (s *ReadDir3Res) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.Uint32(uint32(s.Status))
	s.DirAttr.EncodeXDR(&w)
	if s.Status != NFS3OK {
		return w.Bytes()
	}
	w.OpaqueFixed(s.CookieVerf[:])
	for _, e := range s.Entries {
		w.Bool(true)
		w.Uint64(e.FileID)
		w.String(e.Name)
		w.Uint64(e.Cookie)
	}
	w.Bool(false)
	w.Bool(s.EOF)
	return w.Bytes()
}

// Decode decodes READDIR3res from b and returns the bytes consumed.
func (s *ReadDir3Res) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	*s = ReadDir3Res{}
	s.walk(&w)
	return walked(&w)
}

func (s *ReadDir3Res) walk(w *xdr.Walker) {
	if !walkDirResHead(w, &s.Status, &s.DirAttr, s.CookieVerf[:]) {
		return
	}
	s.EOF = walkEntryList(w, func() {
		var e Entry3
		if walkEntryHead(w, &e.FileID, &e.Name, &e.Cookie) {
			s.Entries = append(s.Entries, e)
		}
	})
}

// walkDirResHead reads what READDIR and READDIRPLUS results start with:
// the status, the directory's attributes and, when the status is NFS3_OK,
// the cookie verifier. It reports whether the entries follow.
func walkDirResHead(w *xdr.Walker, st *Stat3, attr *PostOpAttr, verf []byte) (ok bool) {
	*st = decodeStat3(w)
	attr.walk(w, "dir_attributes")
	if *st != NFS3OK {
		return false
	}
	copy(verf, w.OpaqueFixed(len(verf), "cookieverf"))
	return w.Err() == nil
}

// walkEntryList reads a directory entry list: entry for each entry while
// value_follows, then the eof flag.
func walkEntryList(w *xdr.Walker, entry func()) (eof bool) {
	for w.Bool("value_follows") {
		entry()
	}
	return w.Bool("eof")
}

// walkEntryHead reads the fileid, name and cookie every entry starts with
// and reports whether they were all there.
func walkEntryHead(w *xdr.Walker, fileID *uint64, name *string, cookie *uint64) bool {
	*fileID = w.Uint64("fileid")
	*name = w.String(MaxNameLen, "name")
	*cookie = w.Uint64("cookie")
	return w.Err() == nil
}

// ReadDirPlus3Args holds the arguments of READDIRPLUS.
type ReadDirPlus3Args struct {
	Dir        FH3
	Cookie     uint64
	CookieVerf [CookieVerfSize3]byte
	DirCount   uint32
	MaxCount   uint32
}

// AppendTo appends the encoded arguments to b.
func (a *ReadDirPlus3Args) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.OpaqueVar(a.Dir)
	w.Uint64(a.Cookie)
	w.OpaqueFixed(a.CookieVerf[:])
	w.Uint32(a.DirCount)
	w.Uint32(a.MaxCount)
	return w.Bytes()
}

// Decode decodes READDIRPLUS3args from b and returns the bytes consumed.
func (a *ReadDirPlus3Args) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	*a = ReadDirPlus3Args{}
	a.Dir = decodeFH3(&w, "dir")
	a.Cookie = w.Uint64("cookie")
	copy(a.CookieVerf[:], w.OpaqueFixed(CookieVerfSize3, "cookieverf"))
	a.DirCount = w.Uint32("dircount")
	a.MaxCount = w.Uint32("maxcount")
	return walked(&w)
}

// EntryPlus3 is one READDIRPLUS entry, entryplus3.
type EntryPlus3 struct {
	FileID uint64
	Name   string
	Cookie uint64
	Attr   PostOpAttr
	Handle PostOpFH3
}

// ReadDirPlus3Res holds the results of READDIRPLUS. The fields after
// DirAttr are on the wire only when Status is NFS3_OK.
type ReadDirPlus3Res struct {
	Status     Stat3
	DirAttr    PostOpAttr
	CookieVerf [CookieVerfSize3]byte
	Entries    []EntryPlus3 // nil when empty
	EOF        bool
}

// AppendTo appends the encoded results to b.
func (s *ReadDirPlus3Res) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	w.Uint32(uint32(s.Status))
	s.DirAttr.EncodeXDR(&w)
	if s.Status != NFS3OK {
		return w.Bytes()
	}
	w.OpaqueFixed(s.CookieVerf[:])
	for i := range s.Entries {
		e := &s.Entries[i]
		w.Bool(true)
		w.Uint64(e.FileID)
		w.String(e.Name)
		w.Uint64(e.Cookie)
		e.Attr.EncodeXDR(&w)
		e.Handle.encodeXDR(&w)
	}
	w.Bool(false)
	w.Bool(s.EOF)
	return w.Bytes()
}

// Decode decodes READDIRPLUS3res from b and returns the bytes consumed.
func (s *ReadDirPlus3Res) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	*s = ReadDirPlus3Res{}
	s.walk(&w)
	return walked(&w)
}

// walkReadDirPlusNames walks a READDIRPLUS3res as ReadDirPlus3Res.walk
// does, giving fn the name of each entry walk would keep, in order: a
// summary needs no list of entries with their attributes and handles
// (which was a third of the bytes allocated decoding a kernel NFSv3
// capture).
func walkReadDirPlusNames(w *xdr.Walker, fn func(name string)) {
	var res ReadDirPlus3Res
	if !walkDirResHead(w, &res.Status, &res.DirAttr, res.CookieVerf[:]) {
		return
	}
	walkEntryList(w, func() {
		var e EntryPlus3
		walkEntryHead(w, &e.FileID, &e.Name, &e.Cookie)
		e.Attr.walk(w, "name_attributes")
		if e.Handle.walk(w); w.Err() == nil {
			fn(e.Name)
		}
	})
}

func (s *ReadDirPlus3Res) walk(w *xdr.Walker) {
	if !walkDirResHead(w, &s.Status, &s.DirAttr, s.CookieVerf[:]) {
		return
	}
	s.EOF = walkEntryList(w, func() {
		var e EntryPlus3
		walkEntryHead(w, &e.FileID, &e.Name, &e.Cookie)
		e.Attr.walk(w, "name_attributes")
		if e.Handle.walk(w); w.Err() == nil {
			s.Entries = append(s.Entries, e)
		}
	})
}
