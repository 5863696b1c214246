package pcapfile

import "fmt"

// Error is a problem in a capture file: where it is and what it is.
type Error struct {
	Frame  int   // the frame being read (0: the file or section header)
	Offset int64 // byte offset of the problem in the file (uncompressed, when Gzip)
	Gzip   bool  // the file is gzip-compressed
	Msg    string
	Err    error // the underlying error (io.ErrUnexpectedEOF, a gzip error), if any
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
	if e.Err != nil {
		return fmt.Sprintf("%s, %s %d: %s: %v", where, off, e.Offset, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s, %s %d: %s", where, off, e.Offset, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }
