package viz

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SocketName is the session socket's file name in its directory.
const SocketName = "session.sock"

// SocketPath is where a session publishes its view: rdmalab/session.sock
// in $XDG_RUNTIME_DIR, or rdmalab-$UID/session.sock in the temporary
// directory when that is unset.
func SocketPath() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "rdmalab", SocketName)
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("rdmalab-%d", os.Getuid()), SocketName)
}

// privateDir makes dir (mode 0700) or checks an existing one: a directory,
// not a link, owned by us; a mode wider than 0700 is narrowed. In a shared
// /tmp another user could have made it first, and then we refuse it.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory", dir)
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to us (%d): refusing it", dir, uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("socket directory: %w", err)
		}
	}
	return nil
}

// isNotRunning reports whether a dial error means nobody listens.
func isNotRunning(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, errConnRefused)
}
