package testutil

import (
	"encoding/binary"
	"slices"
	"testing"
)

// pcapRec is one record of a little-endian, microsecond pcap file.
type pcapRec struct {
	usec int64
	data []byte // its 16-byte header (the time rewritten) and its bytes
}

func pcapRecords(t testing.TB, b []byte, shift int64) (hdr []byte, recs []pcapRec) {
	t.Helper()
	if len(b) < 24 || binary.LittleEndian.Uint32(b) != 0xa1b2c3d4 {
		t.Fatal("not a little-endian microsecond pcap")
	}
	hdr, b = b[:24], b[24:]
	for len(b) >= 16 {
		n := int(binary.LittleEndian.Uint32(b[8:]))
		us := int64(binary.LittleEndian.Uint32(b))*1e6 + int64(binary.LittleEndian.Uint32(b[4:])) + shift
		r := slices.Clone(b[:16+n])
		binary.LittleEndian.PutUint32(r, uint32(us/1e6))
		binary.LittleEndian.PutUint32(r[4:], uint32(us%1e6))
		recs = append(recs, pcapRec{us, r})
		b = b[16+n:]
	}
	return hdr, recs
}

// MergeCaptures interleaves captures by time, the k-th shifted by
// shifts[k] microseconds: as if their connections ran at once.
func MergeCaptures(t testing.TB, files [][]byte, shifts []int64) []byte {
	t.Helper()
	var hdr []byte
	var all []pcapRec
	for k, f := range files {
		h, recs := pcapRecords(t, f, shifts[k])
		hdr = h
		all = append(all, recs...)
	}
	slices.SortStableFunc(all, func(a, b pcapRec) int { return int(a.usec - b.usec) })
	out := slices.Clone(hdr)
	for _, r := range all {
		out = append(out, r.data...)
	}
	return out
}
