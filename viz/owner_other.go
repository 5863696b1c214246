//go:build !unix

package viz

import (
	"errors"
	"io/fs"
)

// errConnRefused never matches where there is no ECONNREFUSED to match.
var errConnRefused = errors.New("connection refused")

// ownerOf cannot tell the owner on this system.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }
