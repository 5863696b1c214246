// Package atomicfile writes files so that a reader, or the user after a
// crash or a full disk, finds either the old file whole or the new one
// whole, never a part of one: the data goes to a temporary file beside
// the target, which is synced and then renamed over it.
//
// What is at the target decides what happens:
//   - nothing, or a regular file: it is replaced; a replaced file keeps its
//     permission bits, a new one gets 0644 less the umask;
//   - a symbolic link: the link itself is replaced by the file and its
//     target is left alone, so a link planted at a name never redirects a
//     write elsewhere (File.ReplacedLink says so afterwards);
//   - a directory, a device, a FIFO or a socket: nothing is written, and
//     the error (*NotRegularError) says what is there.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"
)

// NotRegularError is a target that is neither absent, a regular file nor
// a symbolic link.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: nothing was written", e.Path, Describe(e.Mode))
}

// Describe names a file type the way a message would: "a directory".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// File is the new version of a file while it is written. Write to it,
// then Commit; Abort (or a failed Commit) removes it and leaves the
// target as it was.
type File struct {
	f    *os.File
	path string // the target
	tmp  string
	keep fs.FileMode // the replaced file's permissions; 0: as created
	link string      // what the replaced symbolic link pointed to
	done bool
}

// Create starts a new version of path: a temporary file in path's
// directory.
func Create(path string) (*File, error) {
	a := &File{path: path}
	switch fi, err := os.Lstat(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		// Replaced, not followed: see the package comment.
		if a.link, err = os.Readlink(path); err != nil {
			return nil, err
		}
	case !fi.Mode().IsRegular():
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	default:
		a.keep = fi.Mode().Perm()
	}
	f, tmp, err := createTemp(path)
	if err != nil {
		return nil, err
	}
	a.f, a.tmp = f, tmp
	if a.keep != 0 {
		if err := f.Chmod(a.keep); err != nil {
			a.Abort()
			return nil, err
		}
	}
	return a, nil
}

// createTemp makes ".NAME.tmp-RANDOM" beside path, with mode 0644 so that
// the umask applies as it would to any new file.
func createTemp(path string) (*os.File, string, error) {
	dir, base := filepath.Split(path)
	// Stay under NAME_MAX (255) whatever the target's name.
	if len(base) > 128 {
		n := 128
		for n > 0 && !utf8.RuneStart(base[n]) {
			n--
		}
		base = base[:n]
	}
	var last error
	for range 10 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, "", err
		}
		tmp := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(r[:]))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, tmp, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", pathErr("create a temporary file for", path, err)
		}
		last = err
	}
	return nil, "", pathErr("create a temporary file for", path, last)
}

// pathErr names the target, not the temporary file, and the cause alone.
func pathErr(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// Write writes to the new version.
func (a *File) Write(p []byte) (int, error) {
	n, err := a.f.Write(p)
	if err != nil {
		err = pathErr("write", a.path, err)
	}
	return n, err
}

// TempName is the temporary file's path.
func (a *File) TempName() string { return a.tmp }

// ReplacedLink is what the symbolic link at the target pointed to, when
// there was one: Commit replaced the link, not its target.
func (a *File) ReplacedLink() string { return a.link }

// Commit puts the new version in place: sync, close, rename over the
// target, sync the directory. On any error before the rename the target
// is untouched and the temporary file is gone.
func (a *File) Commit() error {
	if a.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	a.done = true
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.tmp, a.path)
	}
	if err != nil {
		os.Remove(a.tmp)
		return pathErr("write", a.path, err)
	}
	// The rename is durable only once the directory is.
	if err := syncDir(filepath.Dir(a.path)); err != nil {
		return pathErr("sync the directory of", a.path, err)
	}
	return nil
}

// Abort removes the new version; the target stays as it was. It does
// nothing after Commit, so it can be deferred.
func (a *File) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	a.f.Close()
	return os.Remove(a.tmp)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err // EINVAL: a file system that cannot sync directories
	}
	return nil
}

// Write writes path with what fn writes, as Create and Commit do; when fn
// fails the target is untouched. It returns the File for ReplacedLink.
func Write(path string, fn func(io.Writer) error) (*File, error) {
	a, err := Create(path)
	if err != nil {
		return nil, err
	}
	if err := fn(a); err != nil {
		a.Abort()
		return nil, err
	}
	if err := a.Commit(); err != nil {
		return nil, err
	}
	return a, nil
}
