//go:build unix

package viz

import (
	"io/fs"
	"syscall"
)

// errConnRefused is what dialling a socket file nobody listens on gives.
const errConnRefused = syscall.ECONNREFUSED

// ownerOf is the uid that owns a file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
