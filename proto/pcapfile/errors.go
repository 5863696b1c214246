package pcapfile

import (
	"fmt"
	"strings"
)

// Error is a problem in a capture file: where it is and what it is.
type Error struct {
	Frame  int   // the frame being read (0: the file or section header)
	Offset int64 // byte offset of the problem in the file (uncompressed, when Gzip)
	Gzip   bool  // the file is gzip-compressed
	Msg    string
	Err    error // the underlying error (io.ErrUnexpectedEOF, a gzip error, *ExpandError), if any
}

func (e *Error) Error() string {
	where := "file header"
	if e.Frame > 0 {
		where = fmt.Sprintf("frame %d", e.Frame)
	}
	off := "offset"
	if e.Gzip {
		off = "uncompressed offset"
	}
	s := fmt.Sprintf("%s, %s %d", where, off, e.Offset)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// ExpandError is a gzip-compressed file that decompresses to more than
// the reader's MaxExpand: a decompression bomb, or a capture that needs
// a higher limit.
type ExpandError struct {
	Limit      int64 // the MaxExpand in force
	Compressed int64 // bytes of the compressed file read when it was reached
	Records    int64 // records and blocks read, the last one included
}

func (e *ExpandError) Error() string {
	return fmt.Sprintf("gzip data expands past %s at compressed offset %d (%d records, each counting at least %d bytes); --max-expand SIZE raises the limit",
		FormatSize(e.Limit), e.Compressed, e.Records, RecordCost)
}

// FormatSize writes n bytes the way --max-expand reads them: 256 MiB,
// 1.5 GiB, 700 B.
func FormatSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n), -1
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + units[u:u+1] + "iB"
}
