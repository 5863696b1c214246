package lessons

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/rdmalab/rdmalab/internal/atomicfile"
)

// MaxDataFile bounds a file a lesson's `files:` line names (a capture):
// it is copied into the lesson's folder before the lesson starts.
const MaxDataFile = 64 << 20 // bytes

// OpenDir is a trainer's folder of lessons, read through an os.Root: no
// name and no symbolic link inside it leads out of it. Its files are
// opened without blocking, so a FIFO is refused instead of waited on.
func OpenDir(path string) (Dir, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return Dir{}, err
	}
	return Dir{FS: rootFS{r}, Name: path}, nil
}

// rootFS is an fs.FS of an os.Root whose Open never blocks.
type rootFS struct{ r *os.Root }

func (f rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return f.r.OpenFile(name, os.O_RDONLY|openNonblock, 0)
}

// Lstat and ReadLink let fs.Lstat see a link instead of its target.
func (f rootFS) Lstat(name string) (fs.FileInfo, error) { return f.r.Lstat(name) }
func (f rootFS) ReadLink(name string) (string, error)   { return f.r.Readlink(name) }

// readRegular reads name from fsys when it is a regular file of at most
// max bytes; the checks are on the file opened, not on the name, so
// nothing swapped in between is read.
func readRegular(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, err := openRegular(fsys, name, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("over %d bytes (it grew as it was read): at most %d", max, max)
	}
	return b, nil
}

// openRegular opens name when it is a regular file of at most max bytes.
func openRegular(fsys fs.FS, name string, max int64) (fs.File, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, openErr(fsys, name, err)
	}
	st, err := f.Stat()
	switch {
	case err != nil:
	case !st.Mode().IsRegular():
		err = fmt.Errorf("%s, not a regular file", atomicfile.Describe(st.Mode()))
	case st.Size() > max:
		err = fmt.Errorf("%d bytes: at most %d (%d MiB)", st.Size(), max, max>>20)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openErr says why name did not open: a link that leads out of the
// folder (os.Root refuses it) is named as one.
func openErr(fsys fs.FS, name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no such file: %w", fs.ErrNotExist)
	}
	if fi, lerr := fs.Lstat(fsys, name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		to, _ := fs.ReadLink(fsys, name)
		return fmt.Errorf("a symbolic link to %s, out of the lesson's folder: only files inside it are read", to)
	}
	return unwrapPath(err)
}

// unwrapPath is err without the *fs.PathError's path: messages name the
// file as the lesson does.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
