//go:build unix

package viz

import (
	"errors"
	"io/fs"
	"syscall"
)

// errConnRefused is what dialling a socket file nobody listens on gives.
const errConnRefused = syscall.ECONNREFUSED

// acceptRetry reports whether an Accept failure passes: out of file
// descriptors or buffers, a connection aborted before it was taken.
func acceptRetry(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// ownerOf is the uid that owns a file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
