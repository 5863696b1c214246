package nfs

// NFSv3 WRITE and READ (RFC 1813 §3.3.7, §3.3.6):
//
//	WRITE3args                    WRITE3res
//	| file (nfs_fh3)        |     | status                          |
//	| offset (8)            |     | file_wcc (wcc_data)             |
//	| count                 |     | NFS3_OK only: count             |
//	| stable                |     |               committed         |
//	| data length           |     |               verf (8)          |
//	| data bytes + pad      |  <- absent when the data went in a Read chunk
//
//	READ3args                     READ3res
//	| file (nfs_fh3)        |     | status                          |
//	| offset (8)            |     | file_attributes (post_op_attr)  |
//	| count                 |     | NFS3_OK only: count             |
//	                              |               eof               |
//	                              |               data length       |
//	                              |               data bytes + pad  |  <- absent when the data
//	                                                                      went in a Write chunk

import "github.com/rdmalab/rdmalab/proto/xdr"

// Write3Args holds the arguments of WRITE, WRITE3args.
type Write3Args struct {
	File   FH3
	Offset uint64
	Count  uint32
	Stable StableHow

	// DataLen is the length word of data<>. Decoding always sets it;
	// encoding uses len(Data) instead when Data is not nil.
	DataLen uint32
	// Data holds the bytes when they are in the stream; nil when they
	// travel in a Read chunk.
	Data []byte
	// DataPos is set by decoding: the offset of the first data byte in the
	// input (the XDR position of the Read chunk that carries them, when
	// the input is the whole RPC message).
	DataPos int
}

// AppendTo appends the encoded arguments to b. With DataReduced, or when
// Data is nil, the data bytes and their padding are left out (the length
// word stays), as an RPC-over-RDMA requester does when it moves them to a
// Read chunk. dataPos is the offset in out where the data bytes begin (or
// would begin): the Read chunk's XDR position when b held the RPC header.
func (a *Write3Args) AppendTo(b []byte, mode DataMode) (out []byte, dataPos int) {
	w := xdr.NewWriter(b)
	dataPos = a.EncodeXDR(&w, mode)
	return w.Bytes(), dataPos
}

// EncodeXDR appends the encoded arguments to w and returns the offset of the
// first data byte (see AppendTo).
func (a *Write3Args) EncodeXDR(w *xdr.Writer, mode DataMode) (dataPos int) {
	w.OpaqueVar(a.File)
	w.Uint64(a.Offset)
	w.Uint32(a.Count)
	w.Uint32(uint32(a.Stable))
	return encodeData(w, a.DataLen, a.Data, mode)
}

// Decode decodes WRITE3args from b and returns the bytes consumed.
func (a *Write3Args) Decode(b []byte, mode DataMode) (n int, err error) {
	w := xdr.NewWalker(b)
	a.walk(&w, mode)
	return walked(&w)
}

// DecodeXDR decodes WRITE3args from r (DataPos is then relative to r's
// input).
func (a *Write3Args) DecodeXDR(r *xdr.Reader, mode DataMode) error {
	w := r.Walk()
	a.walk(&w, mode)
	return xdr.WithLayer(w.Finish(r), layer)
}

func (a *Write3Args) walk(w *xdr.Walker, mode DataMode) {
	*a = Write3Args{}
	a.File = decodeFH3(w, "file")
	a.Offset = w.Uint64("offset")
	a.Count = w.Uint32("count")
	a.Stable = StableHow(w.Uint32("stable"))
	a.DataLen, a.Data, a.DataPos = decodeData(w, mode, "data")
}

// Write3Res holds the results of WRITE, WRITE3res. Count, Committed and
// Verf are on the wire only when Status is NFS3_OK.
type Write3Res struct {
	Status    Stat3
	FileWcc   WccData
	Count     uint32
	Committed StableHow
	Verf      [WriteVerfSize3]byte
}

// AppendTo appends the encoded results to b.
func (s *Write3Res) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	s.EncodeXDR(&w)
	return w.Bytes()
}

// EncodeXDR appends the encoded results to w.
func (s *Write3Res) EncodeXDR(w *xdr.Writer) {
	w.Uint32(uint32(s.Status))
	s.FileWcc.EncodeXDR(w)
	if s.Status == NFS3OK {
		w.Uint32(s.Count)
		w.Uint32(uint32(s.Committed))
		w.OpaqueFixed(s.Verf[:])
	}
}

// Decode decodes WRITE3res from b and returns the bytes consumed.
func (s *Write3Res) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	s.walk(&w)
	return walked(&w)
}

// DecodeXDR decodes WRITE3res from r.
func (s *Write3Res) DecodeXDR(r *xdr.Reader) error {
	w := r.Walk()
	s.walk(&w)
	return xdr.WithLayer(w.Finish(r), layer)
}

func (s *Write3Res) walk(w *xdr.Walker) {
	*s = Write3Res{}
	s.Status = decodeStat3(w)
	s.FileWcc.walk(w)
	if s.Status != NFS3OK {
		return
	}
	s.Count = w.Uint32("count")
	s.Committed = StableHow(w.Uint32("committed"))
	copy(s.Verf[:], w.OpaqueFixed(WriteVerfSize3, "verf"))
}

// Read3Args holds the arguments of READ, READ3args.
type Read3Args struct {
	File   FH3
	Offset uint64
	Count  uint32
}

// AppendTo appends the encoded arguments to b.
func (a *Read3Args) AppendTo(b []byte) []byte {
	w := xdr.NewWriter(b)
	a.EncodeXDR(&w)
	return w.Bytes()
}

// EncodeXDR appends the encoded arguments to w.
func (a *Read3Args) EncodeXDR(w *xdr.Writer) {
	w.OpaqueVar(a.File)
	w.Uint64(a.Offset)
	w.Uint32(a.Count)
}

// Decode decodes READ3args from b and returns the bytes consumed.
func (a *Read3Args) Decode(b []byte) (n int, err error) {
	w := xdr.NewWalker(b)
	a.walk(&w)
	return walked(&w)
}

// DecodeXDR decodes READ3args from r.
func (a *Read3Args) DecodeXDR(r *xdr.Reader) error {
	w := r.Walk()
	a.walk(&w)
	return xdr.WithLayer(w.Finish(r), layer)
}

func (a *Read3Args) walk(w *xdr.Walker) {
	*a = Read3Args{}
	a.File = decodeFH3(w, "file")
	a.Offset = w.Uint64("offset")
	a.Count = w.Uint32("count")
}

// Read3Res holds the results of READ, READ3res. The fields after FileAttr
// are on the wire only when Status is NFS3_OK.
type Read3Res struct {
	Status   Stat3
	FileAttr PostOpAttr
	Count    uint32
	EOF      bool

	// DataLen is the length word of data<>. Decoding always sets it;
	// encoding uses len(Data) instead when Data is not nil.
	DataLen uint32
	// Data holds the bytes when they are in the stream; nil when the
	// server sent them in a Write chunk.
	Data []byte
	// DataPos is set by decoding: the offset of the first data byte in the
	// input.
	DataPos int
}

// AppendTo appends the encoded results to b. With DataReduced, or when Data
// is nil, the data bytes and their padding are left out (the length word
// stays), as an RPC-over-RDMA responder does when it sends them in a Write
// chunk. dataPos is the offset in out where the data bytes begin (or would
// begin); it is -1 when Status is not NFS3_OK.
func (s *Read3Res) AppendTo(b []byte, mode DataMode) (out []byte, dataPos int) {
	w := xdr.NewWriter(b)
	dataPos = s.EncodeXDR(&w, mode)
	return w.Bytes(), dataPos
}

// EncodeXDR appends the encoded results to w and returns the offset of the
// first data byte (see AppendTo).
func (s *Read3Res) EncodeXDR(w *xdr.Writer, mode DataMode) (dataPos int) {
	w.Uint32(uint32(s.Status))
	s.FileAttr.EncodeXDR(w)
	if s.Status != NFS3OK {
		return -1
	}
	w.Uint32(s.Count)
	w.Bool(s.EOF)
	return encodeData(w, s.DataLen, s.Data, mode)
}

// Decode decodes READ3res from b and returns the bytes consumed.
func (s *Read3Res) Decode(b []byte, mode DataMode) (n int, err error) {
	w := xdr.NewWalker(b)
	s.walk(&w, mode)
	return walked(&w)
}

// DecodeXDR decodes READ3res from r (DataPos is then relative to r's input).
func (s *Read3Res) DecodeXDR(r *xdr.Reader, mode DataMode) error {
	w := r.Walk()
	s.walk(&w, mode)
	return xdr.WithLayer(w.Finish(r), layer)
}

func (s *Read3Res) walk(w *xdr.Walker, mode DataMode) {
	*s = Read3Res{}
	s.Status = decodeStat3(w)
	s.FileAttr.walk(w, "file_attributes")
	if s.Status != NFS3OK {
		return
	}
	s.Count = w.Uint32("count")
	s.EOF = w.Bool("eof")
	s.DataLen, s.Data, s.DataPos = decodeData(w, mode, "data")
}
