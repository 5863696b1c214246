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
	return decodeAll(b, func(r *xdr.Reader) (err error) {
		a.Object, err = decodeFH3(r, "object")
		return err
	})
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
	return decodeAll(b, func(r *xdr.Reader) (err error) {
		*s = GetAttr3Res{}
		if s.Status, err = decodeStat3(r); err != nil || s.Status != NFS3OK {
			return err
		}
		return s.Attr.DecodeXDR(r)
	})
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
	return decodeAll(b, func(r *xdr.Reader) (err error) {
		*a = ReadDir3Args{}
		if a.Dir, err = decodeFH3(r, "dir"); err != nil {
			return err
		}
		if a.Cookie, err = r.Uint64("cookie"); err != nil {
			return err
		}
		if err = decodeVerf(r, a.CookieVerf[:], "cookieverf"); err != nil {
			return err
		}
		a.Count, err = r.Uint32("count")
		return err
	})
}

func decodeVerf(r *xdr.Reader, dst []byte, field string) error {
	v, err := r.OpaqueFixed(len(dst), field)
	copy(dst, v)
	return err
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
	return decodeAll(b, func(r *xdr.Reader) error {
		*s = ReadDir3Res{}
		return s.decode(r)
	})
}

func (s *ReadDir3Res) decode(r *xdr.Reader) error {
	ok, err := decodeDirResHead(r, &s.Status, &s.DirAttr, s.CookieVerf[:])
	if err != nil || !ok {
		return err
	}
	s.EOF, err = decodeEntryList(r, func() error {
		var e Entry3
		if err := decodeEntryHead(r, &e.FileID, &e.Name, &e.Cookie); err != nil {
			return err
		}
		s.Entries = append(s.Entries, e)
		return nil
	})
	return err
}

// decodeDirResHead reads what READDIR and READDIRPLUS results start with:
// the status, the directory's attributes and, when the status is NFS3_OK
// (ok), the cookie verifier.
func decodeDirResHead(r *xdr.Reader, st *Stat3, attr *PostOpAttr, verf []byte) (ok bool, err error) {
	if *st, err = decodeStat3(r); err != nil {
		return false, err
	}
	if err = attr.DecodeXDR(r, "dir_attributes"); err != nil || *st != NFS3OK {
		return false, err
	}
	return true, decodeVerf(r, verf, "cookieverf")
}

// decodeEntryList reads a directory entry list: entry for each entry
// while value_follows, then the eof flag.
func decodeEntryList(r *xdr.Reader, entry func() error) (eof bool, err error) {
	for {
		more, err := r.Bool("value_follows")
		if err != nil {
			return false, err
		}
		if !more {
			return r.Bool("eof")
		}
		if err := entry(); err != nil {
			return false, err
		}
	}
}

// decodeEntryHead reads the fileid, name and cookie every entry starts with.
func decodeEntryHead(r *xdr.Reader, fileID *uint64, name *string, cookie *uint64) (err error) {
	if *fileID, err = r.Uint64("fileid"); err != nil {
		return err
	}
	if *name, err = r.String(MaxNameLen, "name"); err != nil {
		return err
	}
	*cookie, err = r.Uint64("cookie")
	return err
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
	return decodeAll(b, func(r *xdr.Reader) (err error) {
		*a = ReadDirPlus3Args{}
		if a.Dir, err = decodeFH3(r, "dir"); err != nil {
			return err
		}
		if a.Cookie, err = r.Uint64("cookie"); err != nil {
			return err
		}
		if err = decodeVerf(r, a.CookieVerf[:], "cookieverf"); err != nil {
			return err
		}
		if a.DirCount, err = r.Uint32("dircount"); err != nil {
			return err
		}
		a.MaxCount, err = r.Uint32("maxcount")
		return err
	})
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
	return decodeAll(b, func(r *xdr.Reader) error {
		*s = ReadDirPlus3Res{}
		return s.decode(r)
	})
}

func (s *ReadDirPlus3Res) decode(r *xdr.Reader) error {
	ok, err := decodeDirResHead(r, &s.Status, &s.DirAttr, s.CookieVerf[:])
	if err != nil || !ok {
		return err
	}
	s.EOF, err = decodeEntryList(r, func() error {
		var e EntryPlus3
		if err := decodeEntryHead(r, &e.FileID, &e.Name, &e.Cookie); err != nil {
			return err
		}
		if err := e.Attr.DecodeXDR(r, "name_attributes"); err != nil {
			return err
		}
		if err := e.Handle.decodeXDR(r); err != nil {
			return err
		}
		s.Entries = append(s.Entries, e)
		return nil
	})
	return err
}
