//go:build !unix

package viz

import (
	"errors"
	"io/fs"
	"net"
)

// errConnRefused never matches where there is no ECONNREFUSED to match.
var errConnRefused = errors.New("connection refused")

// acceptRetry reports whether an Accept failure passes (a timeout).
func acceptRetry(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ownerOf cannot tell the owner on this system.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }
