// Package nfs holds the parts of NFS that rdmalab needs: NFSv3 (RFC 1813)
// procedure and status names with full codecs for the calls whose data
// RPC-over-RDMA moves (WRITE, READ) and a few others (NULL, GETATTR,
// READDIR, READDIRPLUS), the NFSv4 COMPOUND header with operation and
// status names (RFC 7530, RFC 8881, RFC 7862), and one-line summaries of
// calls and replies in the style of tshark's Info column.
//
// Where the data of WRITE and READ sits in an NFSv3 message:
//
//	WRITE3args                               READ3resok
//	+------------------------------+         +------------------------------+
//	| file: length, handle + pad   |         | status = NFS3_OK             |
//	| offset (8)                   |         | file_attributes (post_op)    |
//	| count                        |         | count                        |
//	| stable                       |         | eof                          |
//	| data length                  |         | data length                  |
//	+------------------------------+ <- DataPos: the XDR position of the
//	| data bytes + pad             |    Read chunk (WRITE) or Write chunk
//	+------------------------------+    (READ) that carries them over RDMA
//
// With RPC-over-RDMA these bytes are usually not in the message at all
// (RFC 8166 §3.4.5, RFC 8267): DataMode tells a decoder whether to expect
// them, and the encoders report DataPos so a requester can put the data in
// a Read chunk at that position.
//
// Decoders return *xdr.Error values with layer "nfs" that name the byte
// offset (in the input they were given) and the field. Opaque fields (file
// handles, verifiers, data) alias the input.
package nfs

import (
	"hash/crc32"

	"github.com/rdmalab/rdmalab/proto/xdr"
)

// ProgNFS is the NFS program number.
const ProgNFS = 100003

// layer names this package in its errors.
const layer = "nfs"

// DataMode says whether the bytes of a DDP-eligible opaque (WRITE data,
// READ data) are in the XDR stream being decoded or encoded.
type DataMode uint8

// Data modes.
const (
	// DataAuto decodes the bytes when the input holds all of them (with
	// their padding) and treats them as moved to a chunk otherwise;
	// encoding writes them when Data is not nil. It guesses: a short NFSv4
	// WRITE or READ whose bytes went in a chunk, followed by operations at
	// least as long, is misread. A decoder that knows from the
	// RPC-over-RDMA header whether a chunk carries the data should say so
	// with DataInline or DataReduced.
	DataAuto DataMode = iota
	// DataInline requires the bytes: they are part of the stream.
	DataInline
	// DataReduced says the bytes were moved to a chunk: the stream goes on
	// right after the length word (RFC 8166 §3.4.5 "reduced" stream).
	DataReduced
)

// decodeData reads the data<> of WRITE3args or READ3resok: the length word,
// then the bytes if mode says they are present. It returns the length, the
// bytes (nil when absent) and the offset of the first byte.
func decodeData(w *xdr.Walker, mode DataMode, field string) (n uint32, data []byte, pos int) {
	if n = w.Uint32("data length"); w.Err() != nil {
		return 0, nil, 0
	}
	pos = w.Offset()
	need := uint64(n) + uint64(xdr.PadLen(int(n%4)))
	present := mode == DataInline || (mode == DataAuto && need <= uint64(w.Len()))
	if !present {
		return n, nil, pos
	}
	if data = w.OpaqueFixed(int(n), field); w.Err() == nil && data == nil {
		data = []byte{}
	}
	return n, data, pos
}

// walked returns what a Decode returns once its walk is over: the number
// of bytes consumed, or the failure labelled with this package's layer.
func walked(w *xdr.Walker) (int, error) {
	if err := w.Err(); err != nil {
		return 0, xdr.WithLayer(err, layer)
	}
	return w.Offset(), nil
}

// encodeData appends a data<> item: its length word (len(data), or n when
// data is nil) and, unless mode is DataReduced or data is nil, its bytes.
// It returns the offset of the first data byte.
func encodeData(w *xdr.Writer, n uint32, data []byte, mode DataMode) int {
	if data != nil {
		n = uint32(len(data))
	}
	w.Uint32(n)
	pos := w.Len()
	if mode != DataReduced && data != nil {
		w.OpaqueFixed(data)
	}
	return pos
}

// FHHash returns the hash Wireshark shows for a file handle ("FH:
// 0x62d40c52"): the CRC-32 (IEEE) of its bytes.
func FHHash(fh []byte) uint32 { return crc32.ChecksumIEEE(fh) }
