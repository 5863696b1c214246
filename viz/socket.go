package viz

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/rdmalab/rdmalab/proto/safe"
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

// trustedSocket checks, before a viewer dials path, that what it would
// talk to is this user's: the folder a directory (not a link) of ours
// that no one else may write to, the socket a socket of ours. In a shared
// /tmp another user can make rdmalab-$UID first and serve a fake session;
// the REPL refuses such a folder when it creates one (privateDir), and the
// viewer does the same.
func trustedSocket(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if err != nil {
		return err // the caller says nobody runs
	}
	// Where ownerOf cannot tell (not unix), modes and types say nothing
	// either: Windows reports 0777 for every folder.
	_, unixy := ownerOf(fi)
	switch {
	case !fi.IsDir():
		return refuse("%s: %s is not a directory (%s)", safe.Text(path), safe.Text(dir), fi.Mode().Type())
	case unixy && fi.Mode().Perm()&0o022 != 0:
		return refuse("%s: its folder %s has mode %04o: others may write to it (a session makes it 0700)", safe.Text(path), safe.Text(dir), fi.Mode().Perm())
	}
	if err := ownedByUs(path, dir, fi); err != nil {
		return err
	}
	if fi, err = os.Lstat(path); err != nil {
		return err
	}
	if unixy && fi.Mode().Type() != fs.ModeSocket {
		return refuse("%s: not a socket (%s)", safe.Text(path), fi.Mode().Type())
	}
	return ownedByUs(path, path, fi)
}

// ownedByUs is an error naming what (path's folder or path itself) when
// it belongs to another uid.
func ownedByUs(path, what string, fi fs.FileInfo) error {
	if uid, ok := ownerOf(fi); ok && uid != os.Getuid() {
		return refuse("%s: %s belongs to uid %d, not to you (uid %d): another user may have made it", safe.Text(path), safe.Text(what), uid, os.Getuid())
	}
	return nil
}

// trustedPeer checks the uid of the process serving path (SO_PEERCRED):
// a socket file of ours can still lead to another user's listener.
func trustedPeer(path string, uid int, known bool) error {
	if known && uid != os.Getuid() {
		return refuse("%s: the session on it runs as uid %d, not as you (uid %d)", safe.Text(path), uid, os.Getuid())
	}
	return nil
}

// dialSession dials the session socket at path once it and its folder
// pass trustedSocket, and keeps the connection only if the peer is us.
func dialSession(path string) (net.Conn, error) {
	if err := trustedSocket(path); err != nil {
		return nil, err
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	uid, known, err := peerUID(c)
	if err == nil {
		err = trustedPeer(path, uid, known)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// untrusted is a refusal of a socket: it names the path already.
type untrusted struct{ msg string }

func (e *untrusted) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &untrusted{"refusing " + fmt.Sprintf(format, args...)}
}

// othersSessionDirs says, for each session folder of another user in dir
// (rdmalab-$UID, not ours), whose it is: a student who tries to attach to
// the trainer's session learns why it cannot, not that none runs. What
// is inside is theirs to see (0700): only the folder is looked at.
func othersSessionDirs(dir string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, "rdmalab-[0-9]*"))
	var out []string
	for _, name := range names {
		fi, err := os.Lstat(name)
		if err != nil || !fi.IsDir() {
			continue
		}
		uid, ok := ownerOf(fi)
		if !ok || uid == os.Getuid() {
			continue
		}
		who := fmt.Sprintf("uid %d", uid)
		if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			who = fmt.Sprintf("user %s (uid %d)", safe.Text(u.Username), uid)
		}
		out = append(out, fmt.Sprintf("%s has an rdmalab session folder (%s)", who, safe.Text(name)))
	}
	return out
}
